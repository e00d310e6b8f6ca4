"""A short report as text: its title, a table (tabulate) and footer lines."""

from __future__ import annotations

from typing import TextIO

from tabulate import tabulate

from pathways_workload.reports import TableReport


def write_table(report: TableReport, out: TextIO) -> None:
    if report.title is not None:
        out.write(report.title + "\n")
    if report.rows:
        out.write(tabulate(report.rows, headers="keys") + "\n")
    for line in report.footer:
        out.write(line + "\n")
