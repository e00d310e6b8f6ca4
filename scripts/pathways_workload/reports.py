"""Report actions: short tables (text) or one JSON object (json) instead of entries."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from tabulate import tabulate

from pathways_workload import target
from pathways_workload.describe import (
    container_of,
    entry_labels,
    node_of,
    pod_of,
    where,
)
from pathways_workload.errors import AccessError, CheckFailed
from pathways_workload.query import Query, Request
from pathways_workload.sources.base import Entry, Result, sort_key
from pathways_workload.sources.files import compile_checked
from pathways_workload.triage.report import run_triage, run_versions

if TYPE_CHECKING:
    from pathways_workload.runner import Run

OWNER_LABELS = (
    ("jobset", target.JOBSET_NAME_LABEL),
    ("lws", target.LWS_NAME_LABEL),
    ("job", target.JOB_NAME_LABEL),
)


def _count(result: Result) -> str:
    return f"≥{len(result.entries)}" if result.truncated else str(len(result.entries))


def _span(entries: list[Entry]) -> tuple[str, str]:
    ordered = sorted(entries, key=sort_key)
    return str(ordered[0].get("timestamp", "")), str(ordered[-1].get("timestamp", ""))


def _emit(run: Run, report: dict[str, Any], title: str, rows: list[dict[str, Any]]) -> None:
    if run.as_json:
        run.out.write(json.dumps(report, ensure_ascii=False) + "\n")
        return
    run.out.write(title + "\n")
    if rows:
        run.out.write(tabulate(rows, headers="keys") + "\n")


def _fetch_limit_note(result: Result, what: str) -> str:
    """Say when the fetch limit cut a report short."""
    if not result.truncated:
        return ""
    return (
        f" (fetch limit hit: {what} that logged later may be missing, and counts are lower "
        "bounds; raise --fetch_limit or narrow the window)"
    )


def _per_key(entries: Iterable[Entry], key: Callable[[Entry], str]) -> dict[str, list[Entry]]:
    grouped: dict[str, list[Entry]] = {}
    for entry in entries:
        grouped.setdefault(key(entry), []).append(entry)
    return grouped


def _container_rows(entries: list[Entry]) -> list[dict[str, Any]]:
    """Per container name: how many pods and lines, first and last timestamp."""
    rows = []
    for container, lines in sorted(_per_key(entries, lambda e: container_of(e) or "?").items()):
        first, last = _span(lines)
        pods = {pod_of(entry) for entry in lines}
        rows.append(
            {
                "container": container,
                "pods": len(pods),
                "lines": len(lines),
                "first": first,
                "last": last,
            }
        )
    return rows


def _preflight_reason(access: Result, workload: Result, containers: int, size: int) -> str:
    """Why preflight passed or failed, and what to check next."""
    if workload.entries:
        reason = (
            f"the workload logged {_count(workload)} lines from {containers} containers "
            "in the window"
        )
    elif access.entries:
        reason = (
            "the workload logged nothing in the window: its pods may never have started "
            "(run --action=pod-events and --action=summary), or check the workload flags "
            "with --action=pods, the namespace, and the window"
        )
    else:
        reason = (
            "no container of the cluster logged anything in the window: check --project, "
            "--cluster_name, --location and the window"
        )
    if workload.truncated:
        reason += f" (--fetch_limit={size} reached: counts are lower bounds, raise it for more)"
    return reason


def preflight(run: Run, queries: list[Query]) -> int:
    """Can we read the logs, and did the workload log in the window? PASS or FAIL."""
    assert run.source is not None
    size = run.request.options.fetch_limit
    try:
        access, workload = run.fetch(queries, size)
    except AccessError:
        run.print_queries(queries, size)
        raise
    rows = _container_rows(workload.entries)
    passed = bool(workload.entries)
    reason = _preflight_reason(access, workload, len(rows), size)
    status = "PASS" if passed else "FAIL"
    report = {
        "action": "preflight",
        "status": status,
        "reason": reason,
        "window": {"start": run.request.window.start, "end": run.request.window.end},
        "readable": True,
        "cluster_lines": _count(access),
        "workload_lines": _count(workload),
        "containers": rows,
    }
    title = f"log access: OK ({_count(access)} container lines in the cluster)\n{status}: {reason}"
    _emit(run, report, title, rows)
    if not passed:
        raise CheckFailed(f"preflight FAIL: {reason}")
    return 0


def _owner(entry: Entry) -> tuple[str, str]:
    labels = entry_labels(entry)
    for kind, key in OWNER_LABELS:
        if isinstance(labels.get(key), str):
            return kind, str(labels[key])
    kind = labels.get(target.OWNER_TYPE_LABEL) or "?"
    return str(kind).lower(), str(labels.get(target.OWNER_NAME_LABEL) or "?")


def pods(run: Run, queries: list[Query]) -> int:
    """Which pods logged (or had events) in the window, and which object owns each."""
    if run.source is None:
        run.print_queries(queries)
        return 0
    lines, events = run.fetch(queries)
    rows = []
    for pod, entries in sorted(
        _per_key(lines.entries + events.entries, lambda e: pod_of(e) or "?").items()
    ):
        logged = [e for e in entries if container_of(e)]
        owner_kind, owner_name = _owner(logged[0] if logged else entries[0])
        first, last = _span(entries)
        rows.append(
            {
                "pod": pod,
                "owner": f"{owner_kind}:{owner_name}",
                "node": next((node_of(e) for e in logged if node_of(e)), ""),
                "containers": ",".join(sorted({container_of(e) or "" for e in logged})),
                "lines": len(logged),
                "first": first,
                "last": last,
            }
        )
    note = _fetch_limit_note(lines, "pods")
    report = {
        "action": "pods",
        "namespace": run.request.target.namespace,
        "pods": rows,
        "complete": not lines.truncated,
    }
    _emit(run, report, f"{len(rows)} pods in namespace {run.request.target.namespace}{note}", rows)
    return 0


def neighbors(run: Run, queries: list[Query]) -> int:
    """Every container that logged on the workload's nodes, marking outsiders."""
    if run.source is None:
        run.print_queries(queries)
        return 0
    (result,) = run.fetch(queries)
    member = compile_checked(target.container_lines(run.request.target))
    rows = []
    for name, entries in sorted(_per_key(result.entries, where).items()):
        first, last = _span(entries)
        rows.append(
            {
                "container": name,
                "node": node_of(entries[0]) or "",
                "workload": "yes" if member.matches(entries[0]) else "NO",
                "lines": len(entries),
                "first": first,
                "last": last,
            }
        )
    outsiders = sum(row["workload"] == "NO" for row in rows)
    report = {
        "action": "neighbors",
        "nodes": list(run.request.nodes or ()),
        "containers": rows,
        "outsiders": outsiders,
        "complete": not result.truncated,
    }
    _emit(
        run,
        report,
        f"{len(rows)} containers logged on {len(run.request.nodes or ())} nodes; "
        f"{outsiders} not part of the workload{_fetch_limit_note(result, 'containers')}",
        rows,
    )
    return 0


def node_marker(request: Request) -> Callable[[Entry], str]:
    """Mark entries about one of the workload's nodes."""
    nodes = set(request.nodes or ())

    def mark(entry: Entry) -> str:
        return " [workload node]" if node_of(entry) in nodes else ""

    return mark


REPORTS: dict[str, Callable[[Run, list[Query]], int]] = {
    "preflight": preflight,
    "pods": pods,
    "neighbors": neighbors,
    "triage": lambda run, _: run_triage(run),
    "versions": lambda run, _: run_versions(run),
}
