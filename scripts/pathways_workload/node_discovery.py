"""Which nodes hosted the workload: from Scheduled events and the lines' node label."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence

from pathways_workload import labels
from pathways_workload.describe import entry_labels, message, node_of, nodepool_of
from pathways_workload.sources.base import Entry, Result

ASSIGNED_RE = re.compile(r"Successfully assigned \S+ to (\S+)")
# What can be a node's name (as print mode's guard says): nothing a log line says can widen
# or break a query built from the names.
NODE_NAME_RE = re.compile(r"[a-z0-9][-a-z0-9.]*")
# A GKE node's name: `gke-<cluster>-<node pool>-<8 hex>-<4 chars>`.
_GKE_NODE_RE = re.compile(r"gke-(.+)-[0-9a-f]{8}-[a-z0-9]{4}")


def nodes_from(results: Sequence[Result]) -> tuple[str, ...]:
    """Node names found in discovery results, sorted (what cannot be a name is left out)."""
    return nodes_in(entry for result in results for entry in result.entries)


def nodes_in(entries: Iterable[Entry]) -> tuple[str, ...]:
    """Node names the entries give (Scheduled events, the node label), sorted."""
    found: set[str] = set()
    for entry in entries:
        assigned = ASSIGNED_RE.search(message(entry))
        if assigned:
            found.add(assigned.group(1))
        node = entry_labels(entry).get(labels.NODE)
        if isinstance(node, str) and node:
            found.add(node)
    return tuple(sorted(name for name in found if NODE_NAME_RE.fullmatch(name)))


def nodepool_nodes(cluster: str, pool: str, nodes: Iterable[str]) -> list[str]:
    """The nodes of that cluster's node pool, by their GKE names, in the order given."""
    return [
        node
        for node in nodes
        if (name := _GKE_NODE_RE.fullmatch(node)) and name.group(1) == f"{cluster}-{pool}"
    ]


def nodes_about(entry: Entry, nodes: Collection[str]) -> list[str]:
    """Which of `nodes` a node-level entry is about: its own node, or for a node pool operation
    (which names no node) every node of that pool among them."""
    pool = nodepool_of(entry)
    if pool is not None:
        return nodepool_nodes(*pool, nodes)
    node = node_of(entry)
    return [node] if node is not None and node in nodes else []
