"""A terminal picture of how a failure spread: each slice's first errors after the root cause.

One row per slice (or per range of slices, at most MAX_ROWS rows), one
character per step of a logarithmic time scale from the root cause to
about 17 minutes after it; a block's height is how many of the row's hosts
had their first error in that step (the row's busiest step is a full block);
`◆` marks the root cause.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from pathways_workload.timestamps import parse_timestamp_ns
from pathways_workload.triage.timeline import FAILED_KINDS

MAX_ROWS = 8
BLOCKS = "▁▂▃▄▅▆▇█"
ROOT = "◆"
EMPTY = "·"
# The first step holds everything within 1 ms of the root cause; then CELLS_PER_DECADE
# steps per power of ten, from 1 ms to 10^(3 + DECADES) ms.
FIRST_NS = 10**6
DECADES = 6
CELLS_PER_DECADE = 6
DECADE_LABELS = ("1ms", "10ms", "100ms", "1s", "10s", "100s")
LABEL_WIDTH = 14


def _cell(offset_ns: int) -> int:
    """The step an offset from the root cause falls in (earlier ones in the first)."""
    if offset_ns < FIRST_NS:
        return 0
    steps = int(math.log10(offset_ns / FIRST_NS) * CELLS_PER_DECADE)
    return min(1 + steps, DECADES * CELLS_PER_DECADE)


def _first_errors(lane: dict[str, Any], attempt: object) -> list[dict[str, Any]]:
    return [
        e
        for e in lane.get("events", [])
        if e.get("kind") in FAILED_KINDS and (attempt is None or e.get("attempt") == attempt)
    ]


def _rows(hosts: Sequence[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    """Host lanes grouped by slice; ranges of slices when there are more than MAX_ROWS."""
    slices: dict[str, list[dict[str, Any]]] = {}
    for lane in hosts:
        slices.setdefault(str(lane.get("slice")), []).append(lane)
    names = list(slices)
    size = math.ceil(len(names) / MAX_ROWS)
    rows = []
    for at in range(0, len(names), size):
        chunk = names[at : at + size]
        label = f"slice {chunk[0]}" if len(chunk) == 1 else f"slices {chunk[0]}-{chunk[-1]}"
        rows.append((label, [lane for name in chunk for lane in slices[name]]))
    return rows


def _row(label: str, lanes: Sequence[dict[str, Any]], root_ns: int, attempt: object) -> str:
    counts = [0] * (1 + DECADES * CELLS_PER_DECADE)
    root_here, failed, earliest = False, 0, None
    for lane in lanes:
        events = _first_errors(lane, attempt)
        if not events:
            continue
        first = min(events, key=lambda e: parse_timestamp_ns(str(e["timestamp"])))
        offset = parse_timestamp_ns(str(first["timestamp"])) - root_ns
        counts[_cell(offset)] += 1
        failed += 1
        earliest = offset if earliest is None else min(earliest, offset)
        root_here = root_here or any(e.get("kind") == "root_cause" for e in events)
    busiest = max(counts)
    cells = [BLOCKS[math.ceil(len(BLOCKS) * n / busiest) - 1] if n else EMPTY for n in counts]
    if root_here:
        cells[0] = ROOT
        lead = ", the root cause first"
    elif earliest is not None and earliest < 0:  # a host that failed (or went quiet) before
        lead = f", first {_human(-earliest)} before the root cause"
    else:
        lead = f", first +{_human(earliest)}" if earliest is not None else ""
    chart = f"{cells[0]} {''.join(cells[1:])}"
    return f"{label:<{LABEL_WIDTH}}{chart}  {failed} of {len(lanes)} hosts{lead}"


def _human(offset_ns: int) -> str:
    if offset_ns < 10**6:
        return f"{offset_ns // 1000} µs"
    if offset_ns < 10**9:
        return f"{offset_ns // 10**6} ms"
    return f"{offset_ns / 10**9:.1f} s"


def _axis() -> str:
    """`0`, then the start of each decade, over the chart's columns."""
    text = "0 " + " " * (DECADES * CELLS_PER_DECADE)
    for decade, name in enumerate(DECADE_LABELS):
        at = 2 + decade * CELLS_PER_DECADE
        text = text[:at] + name + text[at + len(name) :]
    return (" " * LABEL_WIDTH + text).rstrip()


def first_errors_by_slice(report: dict[str, Any]) -> list[str]:
    """The picture's lines (none when no TPU host failed in the root cause's attempt)."""
    root = report.get("root_cause") or {}
    lanes = (report.get("timeline") or {}).get("lanes") or []
    hosts = [lane for lane in lanes if lane.get("lane") == "host"]
    attempt = root.get("restart_attempt")
    if not root.get("timestamp") or not any(_first_errors(lane, attempt) for lane in hosts):
        return []
    root_ns = parse_timestamp_ns(root["timestamp"])
    rows = [_row(label, members, root_ns, attempt) for label, members in _rows(hosts)]
    return [
        "",
        f"First error per slice after the root cause ({ROOT}; log time scale; a block's height: "
        "how many of the row's hosts failed first in that step)",
        "```text",
        _axis(),
        *rows,
        "```",
    ]
