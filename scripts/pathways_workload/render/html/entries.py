"""An entry action's answer as a page: the matched lines on a timeline, and as a table.

One lane per place a line came from (`namespace/pod/container`, node,
instance), in natural order; each line a mark coloured by its severity.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pathways_workload.describe import message, node_of, severity, where
from pathways_workload.render.entries import NODE_MARK, entry_line
from pathways_workload.render.html.escape import text
from pathways_workload.render.html.lanes import Group, Lane, Mark, Timeline, timeline_html
from pathways_workload.render.html.page import document, notes_html, section
from pathways_workload.render.html.tables import cell, table, time_cell
from pathways_workload.reports import EntryReport
from pathways_workload.shaping import Stream
from pathways_workload.sources.base import Entry, entry_time_ns

SEVERITY_CLASSES = {
    "EMERGENCY": "k-sev-critical",
    "ALERT": "k-sev-critical",
    "CRITICAL": "k-sev-critical",
    "ERROR": "k-sev-error",
    "WARNING": "k-sev-warning",
}
LEGEND = (
    ("error", "k-sev-critical", "CRITICAL and above"),
    ("error", "k-sev-error", "ERROR"),
    ("error", "k-sev-warning", "WARNING"),
    ("error", "k-sev-info", "lower, or none"),
)
_NUMBER_RE = re.compile(r"(\d+)")
HEADERS = ("timestamp", "severity", "where", "message")


def _natural(name: str) -> list[object]:
    """`worker-10` after `worker-9`."""
    return [int(part) if part.isdigit() else part for part in _NUMBER_RE.split(name)]


def _node_mark(entry: Entry, marked: frozenset[str]) -> str:
    """`[workload node]` after where a line about one of the workload's nodes came from, as
    the text output writes it (node-ooms reads every node of the cluster)."""
    return NODE_MARK if node_of(entry) in marked else ""


def _timeline(report: EntryReport, entries: Sequence[Entry]) -> Timeline:
    start, end = report.window.start_ns, max(report.window.end_ns, report.window.start_ns + 1)
    lanes: dict[str, list[Mark]] = {}
    for entry in entries:
        kind = SEVERITY_CLASSES.get(severity(entry), "k-sev-info")
        mark = _node_mark(entry, report.marked_nodes)
        line = Mark(entry_time_ns(entry) - start, "error", kind, entry_line(entry, mark))
        lanes.setdefault(where(entry) + mark, []).append(line)
    rows = [
        Lane(name, _short(name), name, marks, "entry")
        for name, marks in sorted(lanes.items(), key=lambda pair: _natural(pair[0]))
    ]
    return Timeline(start, end, [Group("entries", "", rows)], legend=LEGEND, kind="wide")


def _short(place: str) -> str:
    """`pod/container` for a container's lines (the namespace is the same for all)."""
    parts = place.split("/")
    return "/".join(parts[1:]) if len(parts) == 3 else place


def _table(entries: Sequence[Entry], marked: frozenset[str], ident: str = "") -> str:
    rows = [
        [
            time_cell(entry.get("timestamp")),
            cell(severity(entry)),
            cell(where(entry) + _node_mark(entry, marked)),
            cell(message(entry), kind="msg pre"),
        ]
        for entry in entries
    ]
    return table(HEADERS, rows, sortable=True, ident=ident)


def _lines(stream: Stream, marked: frozenset[str]) -> str:
    """The lines as one table; with `--first_per_pod`, a table per group under a heading
    saying how many of its matching lines it shows, as the text output does."""
    if stream.groups is None:
        return _table(stream.entries, marked, ident="lines-table")
    return "".join(
        f"<h3>{text(group.heading())}</h3>{_table(group.entries, marked)}"
        for group in stream.groups
    )


def _count(entries: Sequence[Entry]) -> str:
    return "1 log entry" if len(entries) == 1 else f"{len(entries)} log entries"


def entries_page(report: EntryReport, run_notes: Sequence[str] = ()) -> str:
    """The matched lines as one HTML document; `run_notes` are the run's notes (see
    `write_html`)."""
    entries = report.stream.entries
    notes = notes_html([*run_notes, *report.stream.notes])
    if not entries:
        empty = f"No entries matched in {report.span}. {report.empty_hint}"
        notes += f'<p class="warn">{text(empty)}</p>'
    body = (
        f"<header><h1>{_count(entries)}</h1>"
        f'<p class="meta">{text(report.span)}</p></header>{notes}'
        + (
            section("timeline", "Timeline", timeline_html(_timeline(report, entries)))
            if entries
            else ""
        )
        + section("lines", "Lines", _lines(report.stream, report.marked_nodes))
    )
    return document(_count(entries), body, {"span": report.span, "entries": len(entries)})
