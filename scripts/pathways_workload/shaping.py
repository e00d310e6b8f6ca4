"""Shape the entries of an action's queries into one stream: merge, group, limit."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence

from pathways_workload.describe import source_group
from pathways_workload.filters import compile_checked
from pathways_workload.query import Options
from pathways_workload.sources.base import Entry, Result, sort_key


@dataclasses.dataclass(frozen=True)
class Group:
    """One pod/container (or node) of a `--first_per_pod` answer: the lines shown, of `total`."""

    where: str
    entries: list[Entry]
    total: int
    cut: bool = False  # the fetch limit cut the lines read: `total` is a lower bound

    def heading(self) -> str:
        """`WHERE: N of TOTAL matching lines`, the total `at least` one when it was cut."""
        total = f"at least {self.total}" if self.cut else str(self.total)
        return f"{self.where}: {len(self.entries)} of {total} matching lines"


@dataclasses.dataclass
class Stream:
    """What an entry action prints: entries (or groups of them) and notes for stderr."""

    entries: list[Entry]
    groups: list[Group] | None = None
    notes: list[str] = dataclasses.field(default_factory=list)


def identity(entry: Entry) -> tuple[str, str, str]:
    """What makes an entry the same entry across queries: its log, insertId and time; for
    an entry without an insertId (a hand-made export), its whole content instead."""
    insert_id = str(entry.get("insertId") or "")
    if not insert_id:
        insert_id = "\x00" + json.dumps(entry, sort_keys=True, default=str)
    return str(entry.get("logName", "")), insert_id, str(entry.get("timestamp", ""))


def merge(results: Sequence[Result], order: str, extra: Sequence[Entry] = ()) -> list[Entry]:
    """All entries of several queries (and `extra`) by timestamp (ties by insertId), each once."""
    seen: set[tuple[str, str, str]] = set()
    merged = []
    for entry in [*(e for result in results for e in result.entries), *extra]:
        key = identity(entry)
        if key not in seen:
            seen.add(key)
            merged.append(entry)
    merged.sort(key=sort_key, reverse=order == "desc")
    return merged


Unit = list[Entry]


def _units(entries: list[Entry], attached: Mapping[tuple[str, str, str], Entry]) -> list[Unit]:
    """Entries in order, each line that is attached to another kept right after it."""
    followers = {identity(entry) for entry in attached.values()}
    units = []
    for entry in entries:
        if identity(entry) in followers:
            continue
        companion = attached.get(identity(entry))
        units.append([entry, companion] if companion is not None else [entry])
    return units


def group_first(
    entries: list[Entry],
    keep: int,
    attached: Mapping[tuple[str, str, str], Entry],
    totals: Mapping[str, int] | None = None,
) -> list[Group]:
    """Group by where an entry came from; keep the first `keep` and the last of each.

    A line with an attached line (a traceback header and its exception) counts once
    and brings the attached line along. `totals`, when the entries are already each
    group's ends, say how many lines each group has.
    """
    grouped: dict[str, list[Unit]] = {}
    for unit in _units(entries, attached):
        grouped.setdefault(source_group(unit[0]), []).append(unit)
    groups = []
    for name, units in grouped.items():
        shown = units[:keep] + (units[-1:] if len(units) > keep else [])
        total = (totals or {}).get(name, sum(len(unit) for unit in units))  # lines, as shown
        groups.append(Group(name, [e for unit in shown for e in unit], total))
    return groups


def _fetch_cut_note(options: Options) -> str:
    """What grouping may miss when the fetch limit cut the lines: the pods whose lines all
    lie beyond the cut, which newest first are the ones that went quiet first."""
    missing = (
        "pods whose lines all came earlier (in a hang, the first to go quiet)"
        if options.order == "desc"
        else "later pods"
    )
    return (
        f"note: --fetch_limit={options.fetch_limit} was hit before grouping; {missing} "
        "may be missing: narrow the window or raise --fetch_limit"
    )


def shape(
    results: Sequence[Result],
    options: Options,
    attached: Mapping[tuple[str, str, str], Entry] | None = None,
) -> Stream:
    """Apply fetch limit, grouping and --limit, with a note for every cut.

    `attached` maps an entry's identity to a line shown with it (the exception
    that ends a traceback, after its header).
    """
    attached = attached or {}
    fetched = merge(results, options.order)  # what the queries matched: no attached line
    merged = merge([], options.order, [*fetched, *attached.values()]) if attached else fetched
    notes = []
    if options.first_per_pod:
        attached = _riders(results, attached)  # a line a query matched keeps its place
        totals = _group_totals(results, attached)
        cut = len(fetched) > options.fetch_limit or any(r.truncated for r in results)
        if totals is None and cut:
            notes.append(_fetch_cut_note(options))
        grouped = merge([], options.order, [*fetched, *attached.values()])
        if totals is None:
            within = fetched[: options.fetch_limit]
            followers = [attached[key] for key in map(identity, within) if key in attached]
            grouped = merge([], options.order, [*within, *followers])
        groups = group_first(grouped, options.first_per_pod, attached, totals)
        if totals is None and cut:
            groups = [dataclasses.replace(group, cut=True) for group in groups]
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
        fetched_ids = set(map(identity, fetched))
        riding = sum(identity(e) not in fetched_ids for e in merged[: options.limit])
        notes.append(_cut_note(len(merged), results, options, riding))
    return Stream(merged[: options.limit], None, notes)


def _group_totals(
    results: Sequence[Result], attached: Mapping[tuple[str, str, str], Entry]
) -> dict[str, int] | None:
    """Each group's lines, when every result holds each group's ends (SQL grouped them):
    what the query counted, and the attached lines (which its filters do not match)."""
    if not results or any(r.group_totals is None or not r.answered for r in results):
        return None
    totals: dict[str, int] = {}
    for result in results:  # one stage's query counts each group once: the same for all
        for group, count in (result.group_totals or {}).items():
            totals[group] = max(totals.get(group, 0), count)
    for line in attached.values():
        totals[source_group(line)] = totals.get(source_group(line), 0) + 1
    return totals


def _riders(
    results: Sequence[Result], attached: Mapping[tuple[str, str, str], Entry]
) -> dict[tuple[str, str, str], Entry]:
    """The attached lines no query matched: they ride with the line they follow, where a
    line a query matched is one of its group's lines, in its own place."""
    asked = [compile_checked(result.fetch.query.filter) for result in results]
    return {
        key: line
        for key, line in attached.items()
        if not any(compiled.matches(line) for compiled in asked)
    }


def _cut_note(merged: int, results: Sequence[Result], options: Options, riding: int) -> str:
    """How many lines --limit left out (`riding`: shown lines no query matched, the attached
    ones, which took places under the limit), and how to see the end of the answer."""
    counts = [r.matched if r.truncated else len(r.entries) for r in results]
    known = None if None in counts else sum(c or 0 for c in counts)
    shown = options.limit - riding
    left = max(0, (known if known is not None else merged - riding) - shown)
    more = f"{left} more"
    if known is None:  # the queries stopped at the limit: how many more matched is not known
        more = f"at least {left} more" if left else "more"
    end, flip = (
        ("the earliest", "--order=asc")
        if options.order == "desc"
        else (
            "the latest",
            "--order=desc",
        )
    )
    return (
        f"note: --limit={options.limit} cut the output: {more} matching "
        f"{'line is' if left == 1 else 'lines are'} not shown; "
        f"to see {end} first use {flip}, for each pod's first and last line "
        "--first_per_pod=1, or raise --limit or narrow the window"
    )
