"""Fetches answered with SQL: each call of `run` is one query, whatever the number of fetches.

`AnalyticsSource` is a Source like the Cloud Logging and file sources: it
takes the fetches of one stage (filters, orders, limits) and returns one
Result per fetch, the entries LogEntry-shaped (`rows`). `answer` does the
same for the SQL-only shapes (first entries per group, last per group).
Where the SQL runs is a function from SQL text to rows: BigQuery
(`bigquery.BigQueryRunner.rows`) or DuckDB (`offline.OfflineStore.rows`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pathways_workload.analytics import queries, rows
from pathways_workload.sources.base import Entry, Fetch, Result

RunSql = Callable[[str], list[dict[str, Any]]]


@dataclasses.dataclass
class Answer:
    """What one question returned: its entries in order, how many matched, group sizes."""

    question: queries.Question
    entries: list[Entry]
    matched: int
    group_totals: dict[str, int]

    @property
    def truncated(self) -> bool:
        """Whether more entries matched than the question's limit let through."""
        return self.matched > self.question.limit


@dataclasses.dataclass
class AnalyticsSource:
    """Runs questions as one SQL query each call; `full` selects every LogEntry column."""

    run_sql: RunSql
    view: queries.View
    full: bool = True
    queries_run: int = 0
    last_sql: list[str] = dataclasses.field(default_factory=list)

    def run(self, fetches: Sequence[Fetch]) -> list[Result]:
        """The Source interface: the first `limit` entries of each fetch, in its order."""
        answers = self.answer(
            [queries.Question(fetch.query.filter, fetch.limit, fetch.order) for fetch in fetches]
        )
        return [
            Result(fetch, answer.entries, truncated=answer.truncated, requests=1 if i == 0 else 0)
            for i, (fetch, answer) in enumerate(zip(fetches, answers))
        ]

    def answer(self, questions: Sequence[queries.Question]) -> list[Answer]:
        """Every question answered by one query."""
        if not questions:
            return []
        text = queries.build(questions, self.view, self.full)
        self.queries_run += 1
        self.last_sql.append(text)
        answers = [Answer(question, [], 0, {}) for question in questions]
        for row in self.run_sql(text):
            _add(answers[int(row["fetch_index"])], row)
        return answers


def _add(answer: Answer, row: Mapping[str, Any]) -> None:
    answer.entries.append(rows.entry_from_row(row))
    answer.matched = int(row["fetch_matched"])
    if row.get("group_total") is not None and row.get("group_key") is not None:
        answer.group_totals[str(row["group_key"])] = int(row["group_total"])
