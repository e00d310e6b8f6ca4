"""The HTML report: one self-contained page for triage and for the entry actions.

The page builders load when a page is written, not when the command line asks which
reports have a page.
"""

from __future__ import annotations

from typing import TextIO

from pathways_workload.reports import EntryReport, Report, TriageReport

HTML_REPORTS: tuple[type[Report], ...] = (EntryReport, TriageReport)


def write_html(report: Report, out: TextIO) -> None:
    """The report as one HTML document."""
    from pathways_workload.render.html.entries import entries_page
    from pathways_workload.render.html.triage import triage_page

    if isinstance(report, TriageReport):
        page = triage_page(report.data)
    elif isinstance(report, EntryReport):
        page = entries_page(report)
    else:
        raise TypeError(f"no HTML report for {type(report).__name__}")
    out.write(page)
