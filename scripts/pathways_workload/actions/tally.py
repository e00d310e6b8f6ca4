"""Counting entries for the short reports: per key, their time span, and honest counts."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from pathways_workload.sources.base import Entry, Result, sort_key


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


def fetch_limit_note(truncated: bool, what: str) -> str:
    """Say when the fetch limit cut a report short."""
    if not truncated:
        return ""
    return (
        f" (fetch limit hit: {what} that logged later may be missing, and counts are lower "
        "bounds; raise --fetch_limit or narrow the window)"
    )
