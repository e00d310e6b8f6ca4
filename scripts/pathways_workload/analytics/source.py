"""Fetches answered with SQL: each call of `run` (one stage) is one query, whatever its fetches.

`AnalyticsSource` is a Source like the Cloud Logging and file sources: it
takes the fetches of one stage (filters, orders, limits) and returns one
Result per fetch, the entries LogEntry-shaped (`rows`). The query returns
each fetch's first `limit` matches and how many matched in all; the answer
is then played back as Cloud Logging's pages (`paging.as_paged`), so a
fetch's `until` question cuts it at the same page, and the requests counted
are those `entries.list` would have needed. A fetch asked per source (every
container's first lines) is answered whole: no page limit applies to it.
Where the SQL runs is a function from SQL text to rows: BigQuery
(`bigquery.BigQueryRunner.rows`) or DuckDB (`offline.OfflineStore.rows`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from pathways_workload.analytics import queries, rows
from pathways_workload.describe import source_group
from pathways_workload.sources.base import Entry, Fetch, Result
from pathways_workload.sources.paging import as_paged, pages_needed

RunSql = Callable[[str], list[dict[str, Any]]]


@dataclasses.dataclass
class AnalyticsSource:
    """Runs each stage's fetches as one SQL query; `full` selects every LogEntry column."""

    run_sql: RunSql
    view: queries.View
    full: bool = True
    sql_run: list[str] = dataclasses.field(default_factory=list)

    def run(self, fetches: Sequence[Fetch], anticipated: Sequence[Fetch] = ()) -> list[Result]:
        """The Source interface: the first `limit` entries of each fetch, in its order (a
        later stage is one more query anyway: nothing is asked ahead)."""
        if not fetches:
            return []
        asked = queries.questions_of(fetches)
        text = queries.build(asked, self.view, self.full)
        self.sql_run.append(text)
        found: list[list[Entry]] = [[] for _ in fetches]
        matched = [0] * len(fetches)
        totals: list[_GroupTotals] = [_GroupTotals() for _ in fetches]
        for row in self.run_sql(text):
            index = int(row["fetch_index"])
            entry = rows.entry_from_row(row)
            found[index].append(entry)
            matched[index] = int(row["fetch_matched"])
            if "source_key" in row and "source_matched" in row:
                totals[index].add(entry, row["source_key"], int(row["source_matched"]))
        return [
            _answer(f, entries, n, totals[i].by_group if f.source_last else None)
            for i, (f, entries, n) in enumerate(zip(fetches, found, matched))
        ]


@dataclasses.dataclass
class _GroupTotals:
    """Entries matched per group (`source_group`), summed over the source keys seen in it."""

    by_group: dict[str, int] = dataclasses.field(default_factory=dict)
    _keys: set[str] = dataclasses.field(default_factory=set)

    def add(self, entry: Entry, key: str, matched: int) -> None:
        if key not in self._keys:
            self._keys.add(key)
            group = source_group(entry)
            self.by_group[group] = self.by_group.get(group, 0) + matched


def _answer(
    fetch: Fetch, entries: list[Entry], matched: int, totals: dict[str, int] | None
) -> Result:
    """A fetch's result: as Cloud Logging's pages, or every source's lines when asked so.

    Lines asked per source answer their question (every source's first lines) unless
    the query's cap on rows cut them; `requests` counts the pages entries.list would
    have needed for them.
    """
    if not fetch.per_source:
        return as_paged(fetch, entries, matched)
    capped = len(entries) >= queries.MOST_SOURCE_ROWS
    return Result(
        fetch,
        entries,
        matched > len(entries),
        pages_needed(len(entries)),
        not capped,
        matched,
        totals,
    )
