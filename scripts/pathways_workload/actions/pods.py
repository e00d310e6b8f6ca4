"""Which pods logged in the namespace and window, and which object owns each."""

from __future__ import annotations

from typing import Any

from pathways_workload import filters, selectors
from pathways_workload.actions.common import fetch, narrowing
from pathways_workload.actions.tally import budget_note, per_key, report_limit, time_span
from pathways_workload.describe import container_of, node_of, owner_of, pod_of
from pathways_workload.plan import Results
from pathways_workload.pod_names import without_sibling_lws
from pathways_workload.query import Request
from pathways_workload.reports import TableReport
from pathways_workload.sources.base import Entry, Fetch
from pathways_workload.sources.paging import within_pages


def build_pods(request: Request) -> list[Fetch]:
    """The namespace's pods, or with workload flags the workload's: their lines and their
    events (the same pods in both)."""
    lines = selectors.cluster_scope("k8s_container", request.target, namespaced=True)
    events = filters.all_of(
        [
            filters.log_id("events"),
            selectors.cluster_scope("k8s_pod", request.target, namespaced=True),
        ]
    )
    if request.target.workloads:
        lines = selectors.container_lines(request.target)
        events = selectors.pod_events(request.target)
    limit = report_limit(request)
    return within_pages(
        [
            fetch(
                request,
                "lines",
                "pods that logged in the namespace, with their owner labels",
                lines,
                narrowing(request),
                limit=limit,
            ),
            fetch(
                request,
                "events",
                "pod events in the namespace (pods that did not log, and their owners)",
                events,
                limit=limit,
            ),
        ]
    )


def _owner(entry: Entry) -> tuple[str, str]:
    return owner_of(entry) or ("?", "?")


def _row(pod: str, entries: list[Entry]) -> dict[str, Any]:
    """A pod: its owner, node (null when unknown) and the names of its containers that
    logged, and its first and last line (its first and last event when it logged none). Its
    node is the one its lines name, else the one its events do (a pod that ran no container)."""
    logged = [e for e in entries if container_of(e)]
    owner_kind, owner_name = _owner(logged[0] if logged else entries[0])
    first, last = time_span(logged or entries)
    return {
        "pod": pod,
        "owner": f"{owner_kind}:{owner_name}",
        "node": next(filter(None, map(node_of, logged + entries)), None),
        "containers": sorted({container_of(e) or "" for e in logged}),
        "lines": len(logged),
        "first": first,
        "last": last,
    }


def present_pods(request: Request, results: Results) -> TableReport:
    lines, events = results.one("lines"), results.one("events")
    own = without_sibling_lws(request.target.workloads, events.entries, lines.entries)
    grouped = per_key(lines.entries + own, lambda e: pod_of(e) or "?")
    rows = [_row(pod, entries) for pod, entries in sorted(grouped.items())]
    namespace = request.target.namespace
    cut = lines.truncated or events.truncated
    data = {
        "action": "pods",
        "window": request.window.as_json(),
        "namespace": namespace,
        "pods": rows,
        "complete": not cut,
    }
    note = budget_note(cut, "pods", len(lines.entries) + len(events.entries))
    title = f"{len(rows)} pods in namespace {namespace}{note}"
    table = [{**row, "containers": ",".join(row["containers"])} for row in rows]
    return TableReport(data, table, title)
