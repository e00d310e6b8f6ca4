"""Actions about the workload's nodes: discovering them, then OOM kills, interruptions, neighbors.

Node discovery is the first stage of these actions; the nodes it learns go
into the request for the stage after it. With --node_names it asks nothing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from pathways_workload import filters, labels, selectors, terms
from pathways_workload.actions.common import fetch, narrowing
from pathways_workload.actions.tally import budget_note, report_limit, time_span
from pathways_workload.commands import gcloud_command
from pathways_workload.describe import node_of, where
from pathways_workload.filters import compile_checked
from pathways_workload.node_discovery import NODE_NAME_RE, nodes_in
from pathways_workload.plan import Chain, Results, Stage
from pathways_workload.pod_names import without_sibling_lws
from pathways_workload.query import Request
from pathways_workload.reports import TableReport
from pathways_workload.sources.base import PAGE_SIZE, Entry, Fetch, Result
from pathways_workload.sources.paging import within_pages

NODES_SENTINEL = "NODES_FROM_DISCOVERY"
SCHEDULED, NODE_LINES = "scheduled", "node_lines"
# What each discovery query's printed form outputs: a node name per line.
NODE_OUTPUT = {
    SCHEDULED: ("value(jsonPayload.message)", "sed -n 's/^Successfully assigned [^ ]* to //p'"),
    NODE_LINES: (f'value(labels."{labels.NODE}")', ""),
}
# Only names that can be nodes go into a printed filter (nothing a log line says can widen it).
NODE_NAME_GUARD = f"grep -E '^{NODE_NAME_RE.pattern}$' | sort -u"


def _discover(request: Request, _: Results) -> list[Fetch]:
    """Find the workload's nodes: Scheduled events, and the node label of its lines."""
    if request.target.node_names:
        return []
    scheduled = filters.all_of(
        [
            selectors.pod_events(request.target),
            filters.equals("jsonPayload.reason", terms.SCHEDULED_REASON),
        ]
    )
    return [
        fetch(
            request,
            SCHEDULED,
            "nodes the workload's pods were scheduled to (Scheduled events)",
            scheduled,
            limit=report_limit(request),
        ),
        fetch(
            request,
            NODE_LINES,
            "nodes the workload's containers logged from",
            selectors.container_lines(request.target),
            limit=report_limit(request),
            until=_no_new_node,
        ),
    ]


def _no_new_node(entries: Sequence[Entry]) -> bool:
    """A whole page of lines named no node the pages before it had not: stop reading.

    A heuristic: a node whose pods log nothing for a page's worth of the
    workload's lines (about a minute of a thousand-host JobSet) can be missed.
    """
    if len(entries) < 2 * PAGE_SIZE:
        return False
    before = {node_of(entry) for entry in entries[:-PAGE_SIZE]}
    return {node_of(entry) for entry in entries[-PAGE_SIZE:]} <= before


def _learn_nodes(request: Request, results: Results) -> tuple[Request, list[str]]:
    if request.target.node_names:
        return dataclasses.replace(request, nodes=request.target.node_names), []
    read = results.all(SCHEDULED) + results.all(NODE_LINES)
    lines = [entry for result in results.all(NODE_LINES) for entry in result.entries]
    scheduled = [entry for result in results.all(SCHEDULED) for entry in result.entries]
    nodes = nodes_in([*without_sibling_lws(request.target.workloads, scheduled, lines), *lines])
    if nodes:
        return dataclasses.replace(request, nodes=nodes), [
            f"nodes of the workload: {', '.join(nodes)}",
            *_cut_discovery(read),
        ]
    return dataclasses.replace(request, nodes=()), [
        "no nodes found for the workload in the window (no Scheduled events or lines); "
        "pass --node_names=NODE,NODE"
    ]


def _cut_discovery(read: Sequence[Result]) -> list[str]:
    """The note when a discovery read stopped at its limit (nodes may be missing)."""
    cut = [result for result in read if result.truncated and not result.answered]
    if not cut:
        return []
    counts = " and ".join(f"{len(r.entries):,} {r.fetch.name.replace('_', ' ')}" for r in cut)
    return [
        f"note: the workload's nodes may be incomplete: discovery read {counts} and the logs "
        "held more; narrow the window, raise --fetch_limit, or pass --node_names=NODE,NODE"
    ]


def _assume_nodes(request: Request) -> Request:
    nodes = request.target.node_names or (NODES_SENTINEL,)
    return dataclasses.replace(request, nodes=nodes)


def _nodes_shell(fetches: Sequence[Fetch], project: str) -> str:
    """Shell that sets NODES to the node names the discovery queries find."""
    reads = []
    for item in fetches:
        output_format, extract = NODE_OUTPUT[item.name]
        command = gcloud_command(item.query, project, item.limit, item.order, output_format)
        reads.append(f"  {command}" + (f" | {extract}" if extract else ""))
    return "NODES=$( {\n" + ";\n".join(reads) + f";\n}} | {NODE_NAME_GUARD})"


NODE_DISCOVERY = Stage(
    _discover,
    _learn_nodes,
    _assume_nodes,
    Chain("NODES", NODES_SENTINEL, _nodes_shell),
    answers=False,
    required=False,
)


def _nodes(request: Request) -> tuple[str, ...]:
    if request.nodes is None:
        raise ValueError("the workload's nodes must be discovered before this builder runs")
    return request.nodes


def _per_node_chunk(
    request: Request,
    name: str,
    purpose: str,
    build: Callable[[Sequence[str]], str],
    limit: int | None = None,
) -> list[Fetch]:
    """One fetch per chunk of the workload's nodes, each filter under the length limit;
    `limit`, when given, is shared between the chunks."""
    nodes = _nodes(request)
    if not nodes:
        return []
    texts = [text for _, text in filters.split_to_fit(nodes, build)]
    share = max(PAGE_SIZE, limit // len(texts)) if limit else None
    return [fetch(request, name, purpose, text, limit=share) for text in texts]


def build_node_ooms(request: Request, _: Results) -> list[Fetch]:
    """Both queries have terms: --extra_terms are more of them (OR), --min_severity narrows."""
    extra = request.options.extra_terms
    oom_events = filters.one_of("jsonPayload.reason", terms.NODE_MEMORY_REASONS)
    node_events = filters.all_of(
        [
            selectors.cluster_scope("k8s_node", request.target, namespaced=False),
            filters.any_of(
                [
                    f'(log_id("events") AND {oom_events})',
                    filters.message_has_any((*terms.NODE_OOM_TERMS, *extra)),
                ]
            ),
        ]
    )
    narrow = narrowing(request, with_terms=False)
    fetches = [
        fetch(
            request,
            "node_ooms",
            "host OOM kills and the kubelet's memory or disk pressure on the cluster's nodes "
            "(node events, kernel and kubelet lines)",
            node_events,
            narrow,
        )
    ]
    fetches += _per_node_chunk(
        request,
        "serial_ooms",
        "kernel OOM kills in the serial console of the workload's nodes",
        lambda nodes: filters.all_of([selectors.serial_console_ooms(nodes, extra), narrow or ""]),
    )
    return fetches


def _instance_audit(nodes: Sequence[str]) -> str:
    instances = "|".join(filters.regex_literal(node) for node in nodes)
    methods = filters.any_of(
        [
            selectors.interruption_methods(),
            filters.one_of("operation.producer", terms.INTERRUPTION_METHODS),
        ]
    )
    resource = f'protoPayload.resourceName=~"/instances/({instances})$"'
    return filters.all_of([selectors.system_events(methods), resource])


def _node_interruption_events(request: Request, nodes: Sequence[str]) -> str:
    """The nodes' interruption events: a known reason, or a built-in or --extra_terms term."""
    found = (*terms.NODE_INTERRUPTION_TERMS, *request.options.extra_terms)
    return filters.all_of(
        [
            filters.log_id("events"),
            selectors.cluster_scope("k8s_node", request.target, namespaced=False),
            filters.one_of("resource.labels.node_name", nodes),
            filters.any_of(
                [
                    filters.one_of("jsonPayload.reason", terms.NODE_INTERRUPTION_REASONS),
                    filters.message_has_any(found),
                ]
            ),
        ]
    )


def build_interruptions(request: Request, _: Results) -> list[Fetch]:
    """The nodes' audit entries and events, and the cluster's node pool operations (asked
    even when no node was found: they need none)."""
    # Only the node events have terms (more with --extra_terms); --min_severity narrows all.
    narrow = narrowing(request, with_terms=False) or ""
    audit = _per_node_chunk(
        request,
        "audit",
        "preemption, host maintenance and host errors of the workload's nodes (GCE audit)",
        lambda chunk: filters.all_of([_instance_audit(chunk), narrow]),
    )
    node_events = _per_node_chunk(
        request,
        "node_events",
        "node events of the workload's nodes (not ready, reboots, repairs, terminations)",
        lambda chunk: filters.all_of([_node_interruption_events(request, chunk), narrow]),
    )
    nodepools = fetch(
        request,
        "nodepools",
        "node pool repairs, upgrades and resizes in the cluster",
        selectors.nodepool_operations(request.target),
        narrow,
    )
    return [*audit, *node_events, nodepools]


def build_neighbors(request: Request, _: Results) -> list[Fetch]:
    scope = selectors.cluster_scope("k8s_container", request.target, namespaced=False)
    narrow = narrowing(request) or ""
    return within_pages(
        _per_node_chunk(
            request,
            "neighbors",
            "every container that logged on the workload's nodes",
            lambda chunk: filters.all_of([scope, selectors.on_nodes(chunk), narrow]),
            report_limit(request),
        )
    )


def present_neighbors(request: Request, results: Results) -> TableReport:
    """Every container that logged on the workload's nodes, marking outsiders."""
    read = results.all("neighbors")
    truncated = any(result.truncated for result in read)
    lines_read = sum(len(result.entries) for result in read)
    # Every container of the workload's pods is its own, whatever --container_names names.
    member = compile_checked(selectors.container_lines(request.target, fixed=True))
    rows: list[dict[str, Any]] = []
    # A row per container and node: a pod recreated under its name may run on another node.
    grouped: dict[tuple[str, str], list[Entry]] = {}
    for entry in results.entries("neighbors"):
        grouped.setdefault((where(entry), node_of(entry) or ""), []).append(entry)
    for (name, node), entries in sorted(grouped.items()):
        first, last = time_span(entries)
        rows.append(
            {
                "container": name,
                "node": node,
                "workload": "yes" if member.matches(entries[0]) else "NO",
                "lines": len(entries),
                "first": first,
                "last": last,
            }
        )
    outsiders = sum(row["workload"] == "NO" for row in rows)
    nodes = list(request.nodes or ())
    unseen = sorted(set(nodes) - {row["node"] for row in rows})
    silent = [] if truncated else unseen  # a cut read leaves them unread, not silent
    data = {
        "action": "neighbors",
        "window": request.window.as_json(),
        "nodes": nodes,
        "containers": rows,
        "outsiders": outsiders,
        "silent_nodes": silent,
        "complete": not truncated and bool(nodes),  # with no node, nothing was read
    }
    logged_on = f"{len(nodes) - len(unseen)} of {len(nodes)}" if unseen else f"{len(nodes)}"
    title = (
        f"{len(rows)} containers logged on {logged_on} nodes; {outsiders} not part of the "
        f"workload{budget_note(truncated, 'containers', lines_read)}"
    )
    return TableReport(data, rows, title, _unseen_nodes(unseen, truncated))


def _unseen_nodes(unseen: list[str], truncated: bool) -> tuple[str, ...]:
    """The footer line naming the nodes no line was read from: silent, or (the read cut)
    only unread."""
    if not unseen:
        return ()
    if truncated:
        return (
            f"- no line read from {len(unseen)} nodes (the read was cut: they may have logged)",
        )
    return (f"- nothing logged in the window on: {', '.join(unseen)}",)
