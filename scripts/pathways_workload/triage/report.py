"""Run triage and the versions report, and write them as Markdown or one JSON object."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, TextIO

from tabulate import tabulate

from pathways_workload.render import entry_line, gcloud_command
from pathways_workload.sources.base import Fetch, Result
from pathways_workload.triage.analysis import analyze
from pathways_workload.triage.queries import EVENTS, STARTUP, triage_fetches
from pathways_workload.triage.versions import collect

if TYPE_CHECKING:
    from pathways_workload.runner import Run

NEXT_STEPS = (
    "--action=workers --min_severity=WARNING",
    "--action=proxy --min_severity=WARNING",
    "--action=pathways-rm --min_severity=WARNING",
    "--action=user-workload --min_severity=DEFAULT",
    "--extra_terms=<strings your workload logs when it fails>",
)


def _checks(run: Run, fetches: list[Fetch], results: list[Result]) -> list[dict[str, Any]]:
    checks = []
    for fetch, result in zip(fetches, results):
        status = "truncated" if result.truncated else ("ok" if result.entries else "empty")
        command = gcloud_command(fetch.query, run.project or "PROJECT_ID", fetch.limit, fetch.order)
        checks.append(
            {
                "purpose": fetch.query.purpose,
                "command": command,
                "count": len(result.entries),
                "status": status,
            }
        )
    return checks


def run_triage(run: Run) -> int:
    """The whole first pass: one wave of queries, then the report."""
    fetches = triage_fetches(run.request)
    if run.source is None:
        run.print_fetches(fetches)
        return 0
    results = run.source.run(fetches)
    report = {
        "action": "triage",
        "workload": [str(w) for w in run.request.target.workloads],
        "window": {"start": run.request.window.start, "end": run.request.window.end},
        **analyze(results, run.request, run.request.issue_ns),
        "checks": _checks(run, fetches, results),
    }
    if report["root_cause"] is None:
        report["next"] = list(NEXT_STEPS)
    if run.as_json:
        run.out.write(json.dumps(report, ensure_ascii=False) + "\n")
    else:
        write_markdown(report, run.out)
    return 0


def run_versions(run: Run) -> int:
    """Image tags, Build labels and the client's JAX version, with mismatches."""
    fetches = triage_fetches(run.request)
    chosen = [fetches[STARTUP], fetches[EVENTS]]
    if run.source is None:
        run.print_fetches(chosen)
        return 0
    results = run.source.run(chosen)
    found = collect(entry for result in results for entry in result.entries)
    report = {"action": "versions", **found, "checks": _checks(run, chosen, results)}
    if run.as_json:
        run.out.write(json.dumps(report, ensure_ascii=False) + "\n")
    else:
        _write_versions(found, run.out)
    return 0


def _write_versions(found: dict[str, Any], out: TextIO) -> None:
    rows = [
        {"component": name, "version": found[name] or "not seen"}
        for name in ("server", "proxy", "sidecar", "jax")
    ]
    rows += [
        {"component": f"Build label ({c})", "version": v}
        for c, v in sorted(found["build_labels"].items())
    ]
    out.write(tabulate(rows, headers="keys") + "\n")
    for problem in found["mismatches"]:
        out.write(f"- MISMATCH: {problem}\n")
    for problem in found["unsupported"]:
        out.write(f"- UNSUPPORTED: {problem}\n")


def _failure_lines(failure: dict[str, Any]) -> list[str]:
    first_line = failure["message"].splitlines()[0] if failure["message"] else ""
    lines = [
        f"- **{failure['timestamp']}** {failure['where']} (node {failure['node'] or '?'}, "
        f"{failure['source']}): {first_line}"
    ]
    if failure["scenario"]:
        lines.append(f"- Known failure {failure['scenario']}: {failure['scenario_title']}")
        lines.append(f"- Cause: {failure['cause']}")
        lines.append(f"- Fix: {failure['fix']} (references/special-scenarios.md)")
    return lines


def write_markdown(report: dict[str, Any], out: TextIO) -> None:
    """The triage report as short Markdown."""
    text = [
        f"# Triage of {', '.join(report['workload'])}",
        f"Window {report['window']['start']} .. {report['window']['end']}",
        "",
        "## Root cause",
    ]
    root = report["root_cause"]
    if root is None:
        text.append("No error and no hang found. Last line of each container:")
        text += [
            f"- {r['timestamp']} {r['where']}: "
            f"{(r['message'] or '').splitlines()[0] if r['message'] else ''}"
            for r in report["last_lines"]
        ]
        text += ["", "Next, look closer with:"] + [f"- `{step}`" for step in report["next"]]
    else:
        text += [*_failure_lines(root), "", "Evidence:", "```"]
        text += [entry_line(entry) for entry in root["evidence"]] + ["```"]
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
    if report["failing_hosts"]:
        text += [
            "",
            "## Failing hosts",
            "",
            tabulate(report["failing_hosts"], headers="keys"),
            "",
            f"Failed first: {report['lead_host']['pod']}; lowest index: "
            f"{report['lowest_indexed_host']['pod']}",
        ]
    text += ["", "## Versions"]
    versions = report["versions"]
    text += [
        f"- {name}: {versions[name] or 'not seen'}"
        for name in ("server", "proxy", "sidecar", "jax")
    ]
    text += [f"- MISMATCH: {problem}" for problem in versions["mismatches"]]
    text += [f"- UNSUPPORTED: {problem}" for problem in versions["unsupported"]]
    text += ["", "## Checks run"]
    for check in report["checks"]:
        text += [
            f"- {check['purpose']}: {check['count']} entries ({check['status']})",
            "```bash",
            check["command"],
            "```",
        ]
    out.write("\n".join(text) + "\n")
