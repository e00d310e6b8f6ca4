"""The triage report as short Markdown, meant to fit on a screen.

In order: the root cause, its evidence, its known failure class with cause
and fix, the symptoms grouped, the hosts (where the failure began, then how
many were affected downstream), what the logs hold (coverage), the versions,
and the checks, one line each. With `verbose`, each check's command follows
it; the JSON report always has them.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any, TextIO

from tabulate import tabulate

from pathways_workload.render.entries import entry_line
from pathways_workload.render.picture import first_errors_by_slice
from pathways_workload.reports import (
    COMPLETED_TEXT,
    GUESSED_TIME_TEXT,
    cause_heading,
    no_verdict,
)
from pathways_workload.sources.base import instant_ns
from pathways_workload.tracebacks import headline
from pathways_workload.visible_text import visible

# Rows of a table shown before "and N more" (the JSON report has them all).
MOST_ROWS = 8
MOST_EVIDENCE_LINES = 12
EVIDENCE_WIDTH = 200
# A long one-line cause is wrapped onto at most this many lines (its end often says why).
MOST_CAUSE_PIECES = 6


def _first_line(text: str | None) -> str:
    return headline(text) if text else ""


def _when(timestamp: str | None) -> str:
    """An entry's time as it reads, "?" when it has none."""
    return timestamp or "?"


def _cut(text: str, width: int = 160) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _failure_lines(failure: dict[str, Any]) -> list[str]:
    host = f"host {failure['host']}" if failure.get("host") else ""
    where = failure["where"] + (f", {host}" if host and failure["where"] != host else "")
    node = f"node {failure['node'] or '?'}, "
    if not failure["node"] and (failure["where"].startswith("cluster/") or not failure["pod"]):
        node = ""  # an event about a cluster-level object, a host that logged nothing: no node
    lines = [
        f"- **{_when(failure['timestamp'])}** {where} ({node}{failure['source']}): "
        f"{_cut(_first_line(failure['message']))}"
    ]
    if failure.get("due_at"):
        lines.append(f"- Went quiet: its next line was due at {failure['due_at']}")
    if failure.get("time_guessed"):
        lines.append(f"- {GUESSED_TIME_TEXT}")
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
    elif not failure["downstream_only"]:
        lines.append(f"- No known failure matches this line: {unmatched_next(failure['source'])}")
    return lines


def unmatched_next(source: str) -> str:
    """Where to read on when a cause matches no known failure: its container's log, or for
    a line no container logged, the action that reads that kind of line."""
    node = "`--action=node-ooms` and `--action=interruptions` for its node"
    return {
        "audit": f"a Compute Engine record of its node: {node}, then `--action=pod-events`",
        "serial-console": f"its node's kernel log: {node}",
        "node-event": f"an event of its node: {node}",
        "pod-event": "a Kubernetes event: `--action=pod-events` around it",
        "cluster-event": "a Kubernetes event: `--action=summary` and `--action=pod-events`",
        "controller": "the JobSet controller's log: `--action=summary` around it",
    }.get(source, "read its container around it")


def _evidence(root: dict[str, Any]) -> list[str]:
    """The cause's traceback (its last lines), else its evidence: the cause's own entry in
    full (a traceback logged as one entry ends with its exception and the chained ones; a
    long line is wrapped, its end often says why), the others a line each."""
    if root.get("traceback"):
        return _fenced(root["traceback"][-MOST_EVIDENCE_LINES:])
    cause, *others = [entry_line(entry).split("\n") for entry in root["evidence"]]
    first = textwrap.wrap(
        visible(cause[0]),  # wrapping reads control characters as spaces
        EVIDENCE_WIDTH,
        subsequent_indent="  ",
        break_on_hyphens=False,
        max_lines=MOST_CAUSE_PIECES,
        placeholder=" …",
    )
    body = cause[1:][-(MOST_EVIDENCE_LINES - 1) :]
    return _fenced([*body, *(lines[0] for lines in others)], first)


def _fenced(lines: list[str], whole: Sequence[str] = ()) -> list[str]:
    """The evidence block: `whole` as it is, then `lines` cut to the block's width."""
    cut = [_cut(line, EVIDENCE_WIDTH) for line in lines]
    return ["", "Evidence:", "```", *whole, *cut, "```"]


def _completed(event: dict[str, Any] | None) -> list[str]:
    """The JobSet's completion, when it completed: what followed it is its teardown."""
    if event is None:
        return []
    return ["- " + COMPLETED_TEXT.format(when=_when(event["timestamp"]), message=event["message"])]


def _root_cause(report: dict[str, Any]) -> list[str]:
    root = report["root_cause"]
    missing = report["quiet_hosts_missing"]
    unread = [f"Incomplete: {missing}"] if missing else []
    unread += survived_lines(report["survived"])
    completed = _completed(report["completed"])
    if root is not None:
        return [*_failure_lines(root), *completed, *unread, *_evidence(root)]
    if completed:
        return completed + unread
    last = report["last_lines"]
    if not last:
        return [no_verdict(report), *unread]
    text = [f"No error and no hang found. Last line of {len(last)} containers (latest first):"]
    latest = latest_first(last)
    text += [
        f"- {_when(row['timestamp'])} {row['where']}: {_cut(_first_line(row['message']))}"
        for row in latest[:MOST_ROWS]
    ]
    more = [f"- … and {len(last) - MOST_ROWS} more"] if len(last) > MOST_ROWS else []
    return text + more + unread


def latest_first(last: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each container's last line (a triage report's `last_lines`), the latest first."""
    return sorted(last, key=lambda row: instant_ns(str(row["timestamp"])) or 0, reverse=True)


def survived_lines(survived: list[dict[str, Any]]) -> list[str]:
    """The line saying what the run went on after (a triage report's `survived`), if any."""
    if not survived:
        return []
    first = survived[0]
    return [
        f"Survived: {len(survived)} warning(s) or node event(s) the run went on after, never a "
        f"cause; the first {_when(first['timestamp'])} {first['where']}: "
        f"{_cut(_first_line(first['message']))}"
    ]


def _failures(report: dict[str, Any]) -> list[str]:
    if len(report["failures"]) < 2:
        return []
    text = ["", f"## {len(report['failures'])} failures in the window"]
    root = (report["root_cause"] or {}).get("timestamp")
    for failure in report["failures"]:
        mark = " (the root cause)" if failure["timestamp"] == root else ""
        quiet = " went quiet; its last line" if failure["source"] == "hang" else ""
        text.append(
            f"- {_when(failure['timestamp'])}{_attempt(failure.get('restart_attempt'))}"
            f" {failure['where']}{quiet}: {_cut(_first_line(failure['message']), 120)}{mark}"
        )
    text.append(
        "The root cause is the failure at --issue_time, else the first: to read another, "
        "rerun with --issue_time set to its time."
    )
    return text


def _attempt(attempt: str | None) -> str:
    """Which run a failure belongs to: a JobSet restart attempt, or a LeaderWorkerSet's
    group (`group N`, which is no restart attempt)."""
    if attempt is None:
        return ""
    if attempt.startswith("group "):
        return f" (LeaderWorkerSet {attempt})"
    return f" (restart attempt {attempt})"


def _symptoms(report: dict[str, Any]) -> list[str]:
    groups = report["symptom_groups"]
    if not groups:
        return []
    text = ["", "## Symptoms (downstream of the root cause)"]
    for group in groups[:MOST_ROWS]:
        pods = f" from {group['pods']} pods" if group["pods"] > 1 else ""
        text.append(
            f"- {group['count']}× {group['component']}{pods}, {group['first']} .. "
            f"{group['last']}: {_cut(group['example'], 120)}"
        )
    if len(groups) > MOST_ROWS:
        text.append(f"- … and {len(groups) - MOST_ROWS} more kinds")
    return text


def host_name(row: dict[str, Any]) -> str:
    """A failing host's row as it reads: its pod, else `host SLICE/HOST` (it logged nothing)."""
    return str(row["pod"]) if row["pod"] else f"host {row['slice']}/{row['host']}"


def lead_line(report: dict[str, Any]) -> str:
    """`Lead: POD; lowest index: POD; affected downstream: N hosts in M slices` of a triage
    report with failing hosts."""
    hosts, lead = report["failing_hosts"], report["lead_host"]
    downstream = sum(1 for row in hosts if row["downstream"])
    slices = {row["slice"] for row in hosts if row["downstream"]}
    lowest = host_name(report["lowest_indexed_host"])
    return (
        f"Lead: {host_name(lead)}" + (" (downstream)" if lead["downstream"] else "") + "; lowest "
        f"index: {lowest}; affected downstream: {downstream} hosts"
        + (f" in {len(slices)} slices" if downstream else "")
    )


def _hosts(report: dict[str, Any]) -> list[str]:
    hosts = report["failing_hosts"]
    if not hosts:
        return []
    origin = [row for row in hosts if not row["downstream"]]
    lead = report["lead_host"]
    columns = ("pod", "slice", "host", "first_error_time", "first_error")
    shown = origin or [lead]
    rows = [
        {key: _cut(host_name(row) if key == "pod" else str(row[key]), 80) for key in columns}
        for row in shown[:MOST_ROWS]
    ]
    title = (
        "Where the failure began:"
        if origin
        else f"No host logged an error of its own ({len(hosts)} only lost a peer or followed "
        "another component); the lead:"
    )
    text = ["", "## Hosts", "", title, "", tabulate(rows, headers="keys")]
    if len(shown) > MOST_ROWS:
        text.append(f"… and {len(shown) - MOST_ROWS} more")
    text += ["", lead_line(report)]
    if report.get("failing_hosts_missing"):
        text.append(f"Incomplete: {report['failing_hosts_missing']}")
    return text


def _coverage(coverage: dict[str, Any]) -> list[str]:
    rows = [
        {
            "component": row["component"],
            "pods": row["pods"],
            "lines read": row["lines_read"],
            "first": row["first"] or "-",
            "last": row["last"] or "-",
        }
        for row in coverage["components"]
    ]
    kinds = ", ".join(
        f"{row['kind']} {'yes' if row['seen'] else ('NO' if row['gap'] else 'none')}"
        for row in coverage["kinds"]
    )
    text = ["", "## What the logs hold", "", tabulate(rows, headers="keys"), "", kinds]
    return text + [f"- GAP: {gap}" for gap in coverage["gaps"]]


def _versions(versions: dict[str, Any]) -> list[str]:
    unseen = "not seen" if versions.get("complete", True) else "not seen (unread?)"
    found = ", ".join(
        f"{name} {versions[name] or unseen}" for name in ("server", "proxy", "sidecar", "jax")
    )
    text = ["", "## Versions", f"- {found}"]
    text += [f"- MISMATCH: {problem}" for problem in versions["mismatches"]]
    return text + [f"- UNKNOWN VERSION: {problem}" for problem in versions["unknown_versions"]]


def _checks(report: dict[str, Any], verbose: bool) -> list[str]:
    text = ["", f"## Checks run ({report['requests']} requests)"]
    for check in report["checks"]:
        text.append(
            f"- {check['purpose']}: {check['count']} entries, {check['requests']} req. "
            f"({check['status']})"
        )
        if verbose:
            text += ["```bash", check["command"], "```"]
    if not verbose:
        text.append("(the commands: --verbose, --commands_out=FILE, or --format=json)")
    return text


def _next(report: dict[str, Any]) -> list[str]:
    if not report.get("next"):
        return []
    return ["", "## Next, look closer with", *(f"- `{step}`" for step in report["next"])]


def _window(window: dict[str, str]) -> str:
    if "note" in window:
        return f"Window: {window['note']}"
    return f"Window {window['start']} .. {window['end']}"


def write_triage(report: dict[str, Any], out: TextIO, verbose: bool = False) -> None:
    text = [
        f"# Triage of {', '.join(report['workload'])}",
        _window(report["window"]),
        *([f"**Incomplete:** {report['incomplete']}"] if "incomplete" in report else []),
        "",
        f"## {cause_heading(report)}",
        *_root_cause(report),
        *_failures(report),
        *_symptoms(report),
        *_hosts(report),
        *first_errors_by_slice(report),
        *_coverage(report["coverage"]),
        *_versions(report["versions"]),
        *_next(report),
        *_checks(report, verbose),
    ]
    out.write("\n".join(text) + "\n")
