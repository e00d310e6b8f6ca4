"""Entries as text lines (`TIMESTAMP SEVERITY WHERE: MESSAGE`) or as JSON Lines."""

from __future__ import annotations

from typing import TextIO

from pathways_workload.describe import message, node_of, severity, where
from pathways_workload.exact_json import output_line
from pathways_workload.shaping import Stream
from pathways_workload.sources.base import Entry

NODE_MARK = " [workload node]"


def entry_line(entry: Entry, mark: str = "") -> str:
    """`TIMESTAMP SEVERITY WHERE: MESSAGE`, continuation lines indented (a message's
    lines may end in CRLF)."""
    text = message(entry).replace("\r\n", "\n").rstrip("\n")
    head, *rest = text.split("\n") if text else [""]
    line = f"{entry.get('timestamp', '?')} {severity(entry)} {where(entry)}{mark}: {head}"
    return "\n".join([line, *("    " + part for part in rest)])


def write_stream(
    stream: Stream, out: TextIO, as_json: bool, marked_nodes: frozenset[str] = frozenset()
) -> None:
    """Entries as text lines (group boundaries marked) or as JSON Lines exactly as read."""
    if as_json:
        for entry in stream.entries:
            out.write(output_line(entry) + "\n")
        return

    def line(entry: Entry) -> str:
        return entry_line(entry, NODE_MARK if node_of(entry) in marked_nodes else "")

    if stream.groups is None:
        for entry in stream.entries:
            out.write(line(entry) + "\n")
        return
    for group in stream.groups:
        out.write(f"== {group.heading()} ==\n")
        for entry in group.entries:
            out.write(line(entry) + "\n")
