"""Write any report in the chosen format: entries to stdout with notes on stderr, or a report."""

from __future__ import annotations

import json
from typing import TextIO

from pathways_workload.render.entries import write_stream
from pathways_workload.render.markdown import write_triage
from pathways_workload.render.tables import write_table
from pathways_workload.reports import EntryReport, Report, TableReport, TriageReport


def _write_entries(report: EntryReport, out: TextIO, err: TextIO, as_json: bool) -> None:
    stream = report.stream
    write_stream(stream, out, as_json, report.marked_nodes)
    for note in stream.notes:
        err.write(note + "\n")
    if not stream.entries:
        err.write(f"no entries matched in {report.span}\n")
        err.write(report.empty_hint + "\n")
    else:
        err.write(f"{len(stream.entries)} entries\n")


def write_report(report: Report, out: TextIO, err: TextIO, as_json: bool) -> None:
    """Entries as lines or JSON Lines; a table or triage as text, or one JSON object."""
    if isinstance(report, EntryReport):
        _write_entries(report, out, err, as_json)
    elif as_json:
        out.write(json.dumps(report.data, ensure_ascii=False) + "\n")
    elif isinstance(report, TableReport):
        write_table(report, out)
    elif isinstance(report, TriageReport):
        write_triage(report.data, out)
