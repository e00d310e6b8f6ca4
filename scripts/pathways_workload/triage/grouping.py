"""Symptoms grouped by what they say and who says it, so a cascade reads as a few lines."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pathways_workload.tracebacks import headline
from pathways_workload.triage.evidence import Evidence

# Numbers, ids, names with digits (pods, nodes) and addresses vary between the lines of one
# cascade; the words do not. A word is tried from its start only, and its letters before the
# first digit are not gone over again (a long word without one costs its length, not its
# square).
_WORD = r"[^\s()/:,\"'=\[\]]"
_VARYING_RE = re.compile(rf"(?<!{_WORD})[^\s()/:,\"'=\[\]\d]*+\d{_WORD}*")


def shape_of(text: str) -> str:
    """A line with what varies between hosts (numbers, ids) replaced by `#`."""
    return _VARYING_RE.sub("#", headline(text))


def symptom_groups(symptoms: Sequence[Evidence]) -> list[dict[str, Any]]:
    """Symptoms by component and message shape: how many, from how many pods, first and last,
    and one line as it was logged; earliest group first."""
    groups: dict[tuple[str, str], list[Evidence]] = {}
    for item in symptoms:
        who = item.container or item.source
        groups.setdefault((who, shape_of(item.message)), []).append(item)
    rows = []
    for (who, _), items in groups.items():
        ordered = sorted(items, key=lambda item: item.time_ns)
        row = {
            "component": who,
            "count": len(items),
            "pods": len({item.pod for item in items if item.pod}),
            "first": ordered[0].entry.get("timestamp"),
            "last": ordered[-1].entry.get("timestamp"),
            "example": headline(ordered[0].message),
        }
        rows.append((ordered[0].time_ns, row))
    # By instant: timestamps as read differ in their fraction ("...07Z", "...07.03Z").
    return [row for _, row in sorted(rows, key=lambda pair: pair[0])]
