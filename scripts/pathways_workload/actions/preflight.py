"""Preflight: can we read this project's logs, and did the workload log in the window?"""

from __future__ import annotations

from typing import Any

from pathways_workload import coverage, selectors
from pathways_workload.actions import probes
from pathways_workload.actions.common import fetch
from pathways_workload.actions.tally import count, per_key, time_span
from pathways_workload.describe import container_of, pod_of
from pathways_workload.plan import Results
from pathways_workload.query import Request
from pathways_workload.reports import TableReport
from pathways_workload.shaping import identity
from pathways_workload.sources.base import Entry, Fetch, Result


def build_preflight(request: Request) -> list[Fetch]:
    limit = request.options.fetch_limit
    anything = selectors.cluster_scope("k8s_container", request.target, namespaced=False)
    return [
        fetch(
            request,
            "cluster",
            "can we read this project's container logs in the window",
            anything,
            limit=limit,
        ),
        fetch(
            request,
            "workload",
            "did the workload log anything in the window (every container, every severity)",
            selectors.container_lines(request.target),
            limit=limit,
        ),
    ]


def coverage_probes(request: Request) -> list[Fetch]:
    """Once access is known: the head's first lines and one entry of each log kind."""
    return [probes.head_lines_fetch(request), *probes.probe_fetches(request, probes.ALL_KINDS)]


def _container_rows(workload: Result) -> list[dict[str, Any]]:
    """Per container name: how many pods and lines, first and last timestamp. When the fetch
    limit cut the read (earliest first), the counts and the last time are lower bounds:
    written `≥N` and `≥TIME`, so no one reads a container as stopping where the read did."""
    rows = []
    at_least = "≥" if workload.truncated else ""
    by_container = per_key(workload.entries, lambda e: container_of(e) or "?")
    for container, lines in sorted(by_container.items()):
        first, last = time_span(lines)
        pods = len({pod_of(entry) for entry in lines})
        rows.append(
            {
                "container": container,
                "pods": f"≥{pods}" if at_least else pods,
                "lines": f"≥{len(lines)}" if at_least else len(lines),
                "first": first,
                "last": at_least + last,
            }
        )
    return rows


def _number(result: Result) -> int | str:
    """How many entries, as a JSON number; the string `≥N` when the fetch limit cut the read."""
    return count(result) if result.truncated else len(result.entries)


def _reason(access: Result, workload: Result, containers: int, size: int) -> str:
    """Why preflight passed or failed, and what to check next."""
    if workload.entries:
        reason = (
            f"the workload logged {count(workload)} lines from {containers} containers "
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


def present_preflight(request: Request, results: Results) -> TableReport:
    """PASS when the workload logged in the window; FAIL (exit 1) otherwise."""
    access, workload = results.one("cluster"), results.one("workload")
    rows = _container_rows(workload)
    passed = bool(workload.entries)
    reason = _reason(access, workload, len(rows), request.options.fetch_limit)
    status = "PASS" if passed else "FAIL"
    data = {
        "action": "preflight",
        "status": status,
        "reason": reason,
        "window": request.window.as_json(),
        "readable": True,
        "cluster_lines": _number(access),
        "workload_lines": _number(workload),
        "containers": rows,
    }
    found = _coverage(workload.entries, results)
    data["coverage"] = found
    title = f"log access: OK ({count(access)} container lines in the cluster)\n{status}: {reason}"
    footer = tuple(f"- GAP: {gap}" for gap in found["gaps"])
    failed = None if passed else f"preflight FAIL: {reason}"
    return TableReport(data, rows, title, footer, failed)


def _coverage(workload: list[Entry], results: Results) -> dict[str, Any]:
    """What the logs hold: each component, each log kind (not known when its probe did not
    run: Cloud Logging failed on it), and the gaps."""
    kinds = {
        "Kubernetes events": probes.EVENTS_ANY,
        "node logs": probes.NODE_ANY,
        "serial console": probes.SERIAL_ANY,
    }
    found = {kind: bool(results.entries(name)) for kind, name in kinds.items()}
    unchecked = [kind for kind, name in kinds.items() if not results.all(name)]
    # The head's probe reads lines the workload's read may hold too: each counts once.
    lines = {identity(e): e for e in [*workload, *results.entries(probes.HEAD_LINES)]}
    return coverage.report(list(lines.values()), (), found, unchecked=unchecked)
