"""Write any report in the chosen format: entries to stdout with notes on stderr, or a report.

The table and triage-text writers (and tabulate) load only when a report asks for them:
entry actions, the most common runs, start without them (the HTML package defers its own
page builders).
"""

from __future__ import annotations

from typing import Any, TextIO

from pathways_workload.errors import OutputError
from pathways_workload.exact_json import json_line
from pathways_workload.output_file import destination
from pathways_workload.output_stream import recorded_notes
from pathways_workload.render.entries import write_stream
from pathways_workload.render.html import write_html
from pathways_workload.reports import EntryReport, Report, TableReport, TriageReport


def _write_entries(report: EntryReport, out: TextIO, err: TextIO, fmt: str) -> None:
    stream = report.stream
    if fmt == "html":
        write_html(report, out, recorded_notes(err))
    else:
        write_stream(stream, out, fmt == "json", report.marked_nodes)
    for note in stream.notes:
        err.write(note + "\n")
    if not stream.entries:
        err.write(f"no entries matched in {report.span}\n")
        err.write(report.empty_hint + "\n")
    else:
        count = len(stream.entries)
        err.write(f"{count} {'entry' if count == 1 else 'entries'}\n")


def write_commands_file(path: str, checks: list[dict[str, Any]]) -> None:
    """Every check's command, for a person to rerun, in a file of its own: written whole or
    not at all, as `--output` is."""
    text = "".join(
        f"# {check['purpose']} ({check['count']} entries, {check['status']})\n"
        f"{check['command']}\n\n"
        for check in checks
    )
    try:
        with destination(path, None, "--commands_out") as file:
            if file is not None:  # `-` (standard output) is refused with the other flags
                file.write(text)
    except OSError as error:
        raise OutputError(
            f"--commands_out={path}: cannot write it ({error.strerror}); choose a writable path"
        ) from None


def write_report(
    report: Report,
    out: TextIO,
    err: TextIO,
    fmt: str,
    *,
    verbose: bool = False,
    commands_out: str | None = None,
) -> None:
    """Entries as lines or JSON Lines; a table or triage as text, or one JSON object; triage
    and entries as an HTML page.

    `verbose` shows each check's command in a text triage report; `commands_out`
    writes the commands of a report's checks to that file.
    """
    if commands_out is not None and not isinstance(report, EntryReport):
        write_commands_file(commands_out, report.data.get("checks", []))
    if isinstance(report, EntryReport):
        _write_entries(report, out, err, fmt)
    elif fmt == "html":
        write_html(report, out, recorded_notes(err))
    elif fmt == "json":
        out.write(json_line(report.data) + "\n")
    elif isinstance(report, TableReport):
        from pathways_workload.render.tables import write_table

        write_table(report, out)
    elif isinstance(report, TriageReport):
        from pathways_workload.render.markdown import write_triage

        write_triage(report.data, out, verbose)
