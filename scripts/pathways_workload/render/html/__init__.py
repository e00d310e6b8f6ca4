"""The HTML report: one self-contained page for triage and for the entry actions.

The page builders load when a page is written, not when the command line asks which
reports have a page.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from pathways_workload.reports import EntryReport, Report, TriageReport

HTML_REPORTS: tuple[type[Report], ...] = (EntryReport, TriageReport)


def write_html(report: Report, out: TextIO, notes: Sequence[str] = ()) -> None:
    """The report as one HTML document; `notes` are the run's notes and warnings (on
    standard error too), which the page shows under its heading."""
    from pathways_workload.render.html.entries import entries_page
    from pathways_workload.render.html.triage import triage_page

    if isinstance(report, TriageReport):
        page = triage_page(report.data, notes)
    elif isinstance(report, EntryReport):
        page = entries_page(report, notes)
    else:
        raise TypeError(f"no HTML report for {type(report).__name__}")
    out.write(page)
