"""Actions about the workload's nodes: discovering them, then OOM kills, interruptions, neighbors.

Node discovery is the first stage of these actions; the nodes it learns go
into the request for the stage after it. With --node_names it asks nothing.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from pathways_workload import filters, selectors, terms
from pathways_workload.actions.common import fetch, narrowing
from pathways_workload.actions.tally import fetch_limit_note, per_key, time_span
from pathways_workload.describe import node_of, where
from pathways_workload.filters import compile_checked
from pathways_workload.node_discovery import nodes_from
from pathways_workload.plan import Results, Stage
from pathways_workload.query import Request
from pathways_workload.reports import TableReport
from pathways_workload.sources.base import Fetch

NODES_PLACEHOLDER = "NODES-FROM-THE-DISCOVERY-QUERY-ABOVE"
DISCOVERY = "discovery"


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
    limit = request.options.fetch_limit
    return [
        fetch(
            request,
            DISCOVERY,
            "nodes the workload's pods were scheduled to (Scheduled events)",
            scheduled,
            limit=limit,
        ),
        fetch(
            request,
            DISCOVERY,
            "nodes the workload's containers logged from",
            selectors.container_lines(request.target),
            limit=limit,
        ),
    ]


def _learn_nodes(request: Request, results: Results) -> tuple[Request, list[str]]:
    if request.target.node_names:
        return dataclasses.replace(request, nodes=request.target.node_names), []
    nodes = nodes_from(results.all(DISCOVERY))
    if nodes:
        return dataclasses.replace(request, nodes=nodes), [
            f"nodes of the workload: {', '.join(nodes)}"
        ]
    return dataclasses.replace(request, nodes=()), [
        "no nodes found for the workload in the window (no Scheduled events or lines); "
        "pass --node_names=NODE,NODE"
    ]


def _assume_nodes(request: Request) -> Request:
    nodes = request.target.node_names or (NODES_PLACEHOLDER,)
    return dataclasses.replace(request, nodes=nodes)


NODE_DISCOVERY = Stage(_discover, _learn_nodes, _assume_nodes)


def _nodes(request: Request) -> tuple[str, ...]:
    if request.nodes is None:
        raise ValueError("the workload's nodes must be discovered before this builder runs")
    return request.nodes


def build_node_ooms(request: Request, _: Results) -> list[Fetch]:
    oom_events = filters.one_of("jsonPayload.reason", terms.NODE_OOM_REASONS)
    node_events = filters.all_of(
        [
            selectors.cluster_scope("k8s_node", request.target, namespaced=False),
            filters.any_of(
                [
                    f'(log_id("events") AND {oom_events})',
                    filters.message_has_any(terms.NODE_OOM_TERMS),
                ]
            ),
        ]
    )
    narrow = narrowing(request)
    fetches = [
        fetch(
            request,
            "node_ooms",
            "host OOM kills on the cluster's nodes (node events, kernel and kubelet lines)",
            node_events,
            narrow,
        )
    ]
    if _nodes(request):
        fetches.append(
            fetch(
                request,
                "serial_ooms",
                "kernel OOM kills in the serial console of the workload's nodes",
                selectors.serial_console_ooms(_nodes(request)),
                narrow,
            )
        )
    return fetches


def _instance_audit(nodes: tuple[str, ...]) -> str:
    instances = "|".join(filters.regex_literal(node) for node in nodes)
    methods = filters.any_of(
        [
            selectors.interruption_methods(),
            filters.one_of("operation.producer", terms.INTERRUPTION_METHODS),
        ]
    )
    resource = f'protoPayload.resourceName=~"/instances/({instances})$"'
    return filters.all_of([selectors.system_events(methods), resource])


def _node_interruption_events(request: Request, nodes: tuple[str, ...]) -> str:
    return filters.all_of(
        [
            filters.log_id("events"),
            selectors.cluster_scope("k8s_node", request.target, namespaced=False),
            filters.one_of("resource.labels.node_name", nodes),
            filters.any_of(
                [
                    filters.one_of("jsonPayload.reason", terms.NODE_INTERRUPTION_REASONS),
                    filters.message_has_any(
                        ("NodeNotReady", "Preemption", "Termination", "Maintenance")
                    ),
                ]
            ),
        ]
    )


def build_interruptions(request: Request, _: Results) -> list[Fetch]:
    nodes = _nodes(request)
    if not nodes:
        return []
    narrow = narrowing(request)
    return [
        fetch(
            request,
            "audit",
            "preemption, host maintenance and host errors of the workload's nodes (GCE audit)",
            _instance_audit(nodes),
            narrow,
        ),
        fetch(
            request,
            "node_events",
            "node events of the workload's nodes (not ready, reboots, repairs, terminations)",
            _node_interruption_events(request, nodes),
            narrow,
        ),
        fetch(
            request,
            "nodepools",
            "node pool repairs, upgrades and resizes in the cluster",
            selectors.nodepool_operations(request.target),
            narrow,
        ),
    ]


def build_neighbors(request: Request, _: Results) -> list[Fetch]:
    if not _nodes(request):
        return []
    selection = filters.all_of(
        [
            selectors.cluster_scope("k8s_container", request.target, namespaced=False),
            selectors.on_nodes(_nodes(request)),
        ]
    )
    purpose = "every container that logged on the workload's nodes"
    return [fetch(request, "neighbors", purpose, selection, narrowing(request))]


def present_neighbors(request: Request, results: Results) -> TableReport:
    """Every container that logged on the workload's nodes, marking outsiders."""
    result = results.one("neighbors")
    member = compile_checked(selectors.container_lines(request.target))
    rows: list[dict[str, Any]] = []
    for name, entries in sorted(per_key(result.entries, where).items()):
        first, last = time_span(entries)
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
    nodes = list(request.nodes or ())
    data = {
        "action": "neighbors",
        "nodes": nodes,
        "containers": rows,
        "outsiders": outsiders,
        "complete": not result.truncated,
    }
    title = (
        f"{len(rows)} containers logged on {len(nodes)} nodes; {outsiders} not part of the "
        f"workload{fetch_limit_note(result, 'containers')}"
    )
    return TableReport(data, rows, title)
