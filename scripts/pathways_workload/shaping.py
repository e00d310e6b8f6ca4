"""Shape the entries of an action's queries into one stream: merge, group, limit."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from pathways_workload.describe import where
from pathways_workload.query import Options
from pathways_workload.sources.base import Entry, Result, sort_key


@dataclasses.dataclass(frozen=True)
class Group:
    """One pod/container (or node) of a `--first_per_pod` answer."""

    where: str
    entries: list[Entry]
    total: int


@dataclasses.dataclass
class Stream:
    """What an entry action prints: entries (or groups of them) and notes for stderr."""

    entries: list[Entry]
    groups: list[Group] | None = None
    notes: list[str] = dataclasses.field(default_factory=list)


def _identity(entry: Entry) -> tuple[str, str, str]:
    return (
        str(entry.get("logName", "")),
        str(entry.get("insertId", "")),
        str(entry.get("timestamp", "")),
    )


def merge(results: Sequence[Result], order: str) -> list[Entry]:
    """All entries of several queries by timestamp (ties by insertId), each entry once."""
    seen: set[tuple[str, str, str]] = set()
    merged = []
    for result in results:
        for entry in result.entries:
            key = _identity(entry)
            if key not in seen:
                seen.add(key)
                merged.append(entry)
    merged.sort(key=sort_key, reverse=order == "desc")
    return merged


def group_first(entries: list[Entry], keep: int) -> list[Group]:
    """Group by where an entry came from; keep the first `keep` and the last of each."""
    grouped: dict[str, list[Entry]] = {}
    for entry in entries:
        grouped.setdefault(where(entry), []).append(entry)
    groups = []
    for name, members in grouped.items():
        shown = members[:keep] + (members[-1:] if len(members) > keep else [])
        groups.append(Group(name, shown, len(members)))
    return groups


def shape(results: Sequence[Result], options: Options) -> Stream:
    """Apply fetch limit, grouping and --limit, with a note for every cut."""
    merged = merge(results, options.order)
    notes = []
    if options.first_per_pod:
        if len(merged) > options.fetch_limit or any(r.truncated for r in results):
            notes.append(
                f"note: --fetch_limit={options.fetch_limit} was hit before grouping; later pods "
                "may be missing: narrow the window or raise --fetch_limit"
            )
        groups = group_first(merged[: options.fetch_limit], options.first_per_pod)
        kept, budget = [], options.limit
        for group in groups:
            if budget <= 0:
                break
            kept.append(dataclasses.replace(group, entries=group.entries[:budget]))
            budget -= len(kept[-1].entries)
        if budget <= 0 and sum(len(g.entries) for g in groups) > options.limit:
            notes.append(f"note: --limit={options.limit} cut the grouped output")
        return Stream([e for g in kept for e in g.entries], kept, notes)
    if len(merged) > options.limit or any(r.truncated for r in results):
        notes.append(
            f"note: --limit={options.limit} cut the output; more entries matched: "
            "narrow the window, raise --limit, or use --order=desc for the latest"
        )
    return Stream(merged[: options.limit], None, notes)
