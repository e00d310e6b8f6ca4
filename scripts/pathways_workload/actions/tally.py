"""Counting entries for the short reports: per key, their time span, and honest counts."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from pathways_workload.query import Request
from pathways_workload.sources.base import PAGE_SIZE, Entry, Result, sort_key

# Pages a report action reads before it stops and says it is incomplete: the same request
# budget as triage of up to 1,024 hosts.
REPORT_PAGES = 25


def count(result: Result) -> str:
    """How many entries; `≥N` when the fetch limit cut the result."""
    return f"≥{len(result.entries)}" if result.truncated else str(len(result.entries))


def time_span(entries: list[Entry]) -> tuple[str, str]:
    """The first and the last timestamp, as written."""
    ordered = sorted(entries, key=sort_key)
    return str(ordered[0].get("timestamp", "")), str(ordered[-1].get("timestamp", ""))


def per_key(entries: Iterable[Entry], key: Callable[[Entry], str]) -> dict[str, list[Entry]]:
    grouped: dict[str, list[Entry]] = {}
    for entry in entries:
        grouped.setdefault(key(entry), []).append(entry)
    return grouped


def report_limit(request: Request) -> int:
    """How many lines a report action reads: pages up to the request budget, or more if asked."""
    return max(request.options.fetch_limit, REPORT_PAGES * PAGE_SIZE)


def budget_note(truncated: bool, what: str, read: int) -> str:
    """Say when the logs held more lines than the `read` a report read (it is then
    incomplete); a server sending short pages may have cut it below its limit."""
    if not truncated:
        return ""
    return (
        f" (incomplete: the logs held more than the {read:,} lines read; {what} that logged "
        "only later may be missing, and counts are lower bounds: narrow the window, or raise "
        "--fetch_limit)"
    )
