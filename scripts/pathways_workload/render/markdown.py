"""The triage report as short Markdown."""

from __future__ import annotations

from typing import Any, TextIO

from tabulate import tabulate

from pathways_workload.render.entries import entry_line
from pathways_workload.tracebacks import headline


def _first_line(text: str | None) -> str:
    return headline(text) if text else ""


def _failure_lines(failure: dict[str, Any]) -> list[str]:
    lines = [
        f"- **{failure['timestamp']}** {failure['where']} (node {failure['node'] or '?'}, "
        f"{failure['source']}): {_first_line(failure['message'])}"
    ]
    if failure["downstream_only"]:
        actions = ", ".join(f"`{action}`" for action in failure["read_next"])
        lines.append(
            f"- Downstream only: nothing found says why; the reason is in {failure['reason_in']} "
            f"({actions})"
        )
    if failure["scenario"]:
        lines.append(
            f"- Known failure {failure['scenario']} ({failure['scenario_slug']}): "
            f"{failure['scenario_title']}"
        )
        lines.append(f"- Cause: {failure['cause']}")
        lines.append(f"- Fix: {failure['fix']} (references/special-scenarios.md)")
    return lines


def _root_cause(report: dict[str, Any]) -> list[str]:
    root = report["root_cause"]
    if root is None:
        text = ["No error and no hang found. Last line of each container:"]
        text += [
            f"- {r['timestamp']} {r['where']}: {_first_line(r['message'])}"
            for r in report["last_lines"]
        ]
        return text + ["", "Next, look closer with:"] + [f"- `{step}`" for step in report["next"]]
    text = [*_failure_lines(root), "", "Evidence:", "```"]
    return text + [entry_line(entry) for entry in root["evidence"]] + ["```"]


def _failures_and_symptoms(report: dict[str, Any]) -> list[str]:
    text = []
    if len(report["failures"]) > 1:
        text += ["", f"## {len(report['failures'])} failures in the window"]
        for failure in report["failures"]:
            text += _failure_lines(failure)
    if report["symptoms"]:
        text += ["", "## Symptoms (downstream of the root cause)"]
        text += [
            f"- {s['timestamp']} {s['where']}: {s['message'].splitlines()[0]}"
            for s in report["symptoms"][:20]
        ]
    return text


def _hosts(report: dict[str, Any]) -> list[str]:
    if not report["failing_hosts"]:
        return []
    return [
        "",
        "## Failing hosts",
        "",
        tabulate(report["failing_hosts"], headers="keys"),
        "",
        f"Failed first: {report['lead_host']['pod']}; lowest index: "
        f"{report['lowest_indexed_host']['pod']}",
    ]


def _versions(versions: dict[str, Any]) -> list[str]:
    text = ["", "## Versions"]
    text += [
        f"- {name}: {versions[name] or 'not seen'}"
        for name in ("server", "proxy", "sidecar", "jax")
    ]
    text += [f"- MISMATCH: {problem}" for problem in versions["mismatches"]]
    return text + [f"- UNSUPPORTED: {problem}" for problem in versions["unsupported"]]


def _checks(checks: list[dict[str, Any]]) -> list[str]:
    text = ["", "## Checks run"]
    for check in checks:
        text += [
            f"- {check['purpose']}: {check['count']} entries ({check['status']})",
            "```bash",
            check["command"],
            "```",
        ]
    return text


def write_triage(report: dict[str, Any], out: TextIO) -> None:
    text = [
        f"# Triage of {', '.join(report['workload'])}",
        f"Window {report['window']['start']} .. {report['window']['end']}",
        "",
        "## Root cause",
        *_root_cause(report),
        *_failures_and_symptoms(report),
        *_hosts(report),
        *_versions(report["versions"]),
        *_checks(report["checks"]),
    ]
    out.write("\n".join(text) + "\n")
