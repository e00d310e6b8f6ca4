"""Which nodes hosted the workload: from Scheduled events and the lines' node label."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from pathways_workload import labels
from pathways_workload.describe import entry_labels, message
from pathways_workload.sources.base import Entry, Result

ASSIGNED_RE = re.compile(r"Successfully assigned \S+ to (\S+)")
# What can be a node's name (as print mode's guard says): nothing a log line says can widen
# or break a query built from the names.
NODE_NAME_RE = re.compile(r"[a-z0-9][-a-z0-9.]*")


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
