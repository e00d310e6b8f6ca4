"""Cheap questions about what the logs hold at all: one entry of each log kind, and the first
lines of the head pod's containers. An empty answer here means the evidence is not there,
which is different from "nothing went wrong".
"""

from __future__ import annotations

from collections.abc import Sequence

from pathways_workload import filters, selectors, terms
from pathways_workload.actions.common import fetch
from pathways_workload.query import Request
from pathways_workload.sources.base import Fetch

EVENTS_ANY, NODE_ANY, SERIAL_ANY = "events_any", "node_any", "serial_any"
ALL_KINDS = (EVENTS_ANY, NODE_ANY, SERIAL_ANY)
HEAD_LINES = "head_lines"
HEAD_CONTAINERS = (
    terms.USER_CONTAINERS + terms.PROXY_CONTAINERS + terms.RM_CONTAINERS + terms.SIDECAR_CONTAINERS
)


def probe_fetches(request: Request, kinds: Sequence[str]) -> list[Fetch]:
    """Whether the logs hold these kinds at all: Kubernetes events, node logs, serial console."""
    events = filters.all_of(
        [
            filters.log_id("events"),
            selectors.cluster_scope("k8s_pod", request.target, namespaced=True),
        ]
    )
    nodes = selectors.cluster_scope("k8s_node", request.target, namespaced=False)
    serial = filters.all_of([selectors.GCE_INSTANCE, filters.log_id(selectors.SERIAL_CONSOLE_LOG)])
    probes = {
        EVENTS_ANY: ("are Kubernetes events of the namespace in the logs at all", events),
        NODE_ANY: (
            "are the cluster's node logs (kubelet, kernel, events) in the logs at all",
            nodes,
        ),
        SERIAL_ANY: ("is any node's serial console in the logs at all", serial),
    }
    return [
        fetch(request, kind, probes[kind][0], probes[kind][1], limit=1, order="asc", until=bool)
        for kind in kinds
    ]


def head_lines_fetch(request: Request) -> Fetch:
    """The first lines of the client, proxy, RM and sidecar: did each log at all, and when."""
    head = selectors.container_lines(request.target, HEAD_CONTAINERS)
    purpose = "the first lines of the client, proxy, RM and sidecar containers"
    return fetch(request, HEAD_LINES, purpose, head, limit=request.options.fetch_limit, order="asc")
