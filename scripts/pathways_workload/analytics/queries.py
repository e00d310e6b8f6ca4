"""Whole SQL queries: the fetches of one stage answered by one window-bounded query.

Shape of every query (one scan of the view, whatever the number of fetches):

    WITH scan AS (                      -- the window, the project, one flag per fetch
      SELECT <columns>, <group key>, <predicate 0> AS match_0, ...
      FROM `PROJECT.DATASET.VIEW` AS log_entry
      WHERE timestamp >= ... AND timestamp <= ... AND STARTS_WITH(log_name, 'projects/P/logs/')),
    matched AS (                        -- any fetch matched; one row per (insert_id, timestamp)
      SELECT * FROM scan WHERE match_0 OR ...
      QUALIFY ROW_NUMBER() OVER (PARTITION BY insert_id, timestamp ORDER BY log_name) = 1)
    (SELECT 0 AS fetch_index, ... FROM matched WHERE match_0 ...)   -- one branch per fetch
    UNION ALL (...)
    ORDER BY fetch_index, position

BigQuery runs a non-recursive CTE once, so the branches share the scan.
A branch has one of three shapes: the first `limit` in the fetch's order
(`ordered`), the first `keep` of each group plus its last among the first
`limit` (`first_per_group`, the `--first_per_pod` rule), or the last entry
of each group (`last_per_group`). Order is `timestamp, insert_id` (both
descending for `desc`): BigQuery keeps microseconds, so entries within one
microsecond are ordered by insert_id, Cloud Logging's own tie-breaker.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from pathways_workload.analytics import columns, grouping, sql, where
from pathways_workload.errors import UsageError
from pathways_workload.lql import LqlError
from pathways_workload.target import NODE_LABEL

ORDERED = "ordered"
FIRST_PER_GROUP = "first_per_group"
LAST_PER_GROUP = "last_per_group"
SHAPES = (ORDERED, FIRST_PER_GROUP, LAST_PER_GROUP)
DEDUP_WINDOW = "PARTITION BY insert_id, timestamp ORDER BY log_name"


@dataclasses.dataclass(frozen=True)
class Question:
    """One fetch in SQL terms: its filter, order and limit, and its shape."""

    filter: str
    limit: int
    order: str = "asc"
    shape: str = ORDERED
    keep: int = 1  # first_per_group: the first `keep` entries of each group


@dataclasses.dataclass(frozen=True)
class View:
    """Where the entries are: a backquoted table path, and the project whose logs to read."""

    table: str
    project: str


def build(questions: Sequence[Question], view: View, full: bool) -> str:
    """One query answering every question; `full` selects every LogEntry column.

    Raises:
        UsageError: a filter is invalid, has no exact mapping, or has no time bound.
    """
    window = _window(questions)
    grouped = any(question.shape != ORDERED for question in questions)
    flags = [
        f"{_predicate(question.filter, window)} AS match_{index}"
        for index, question in enumerate(questions)
    ]
    selected = [*_columns(full), *([f"{grouping.group_key()} AS group_key"] if grouped else [])]
    any_match = " OR ".join(f"match_{index}" for index in range(len(questions)))
    scan = (
        "WITH scan AS (\n  SELECT\n    "
        + ",\n    ".join(selected + flags)
        + f"\n  FROM {view.table} AS {columns.VIEW_ALIAS}\n"
        + f"  WHERE timestamp >= {sql.timestamp(window.start_ns or 0)}\n"
        + f"    AND timestamp <= {sql.timestamp(window.end_ns or 0)}\n"
        + f"    AND STARTS_WITH(log_name, {sql.string(f'projects/{view.project}/logs/')})\n),\n"
        + "matched AS (\n  SELECT * FROM scan\n"
        + f"  WHERE {any_match}\n"
        + f"  QUALIFY ROW_NUMBER() OVER ({DEDUP_WINDOW}) = 1\n)\n"
    )
    names = _output_names(full, grouped)
    branches = [_branch(index, question, names) for index, question in enumerate(questions)]
    return scan + "\nUNION ALL\n".join(branches) + "\nORDER BY fetch_index, position\n"


def _window(questions: Sequence[Question]) -> where.Bounds:
    """The union of the questions' windows; every question must be bounded on both sides."""
    starts, ends = [], []
    for question in questions:
        bounds = _bounds(question.filter)
        if bounds.start_ns is None or bounds.end_ns is None:
            raise UsageError(
                "a Log Analytics query must be bounded in time: the filter needs "
                'timestamp>="START" and timestamp<="END" at its top level'
            )
        starts.append(bounds.start_ns)
        ends.append(bounds.end_ns)
    return where.Bounds(min(starts), max(ends))


def _bounds(text: str) -> where.Bounds:
    try:
        return where.bounds(text)
    except LqlError as error:
        raise UsageError(error.render()) from None


def _predicate(text: str, window: where.Bounds) -> str:
    try:
        return where.compile_filter(text, window)
    except LqlError as error:
        raise UsageError(error.render()) from None


def _columns(full: bool) -> list[str]:
    """The columns a result needs: every LogEntry column, or those a text line prints."""
    if full:
        return [field.name for field in columns.VIEW_COLUMNS if field.name != "log_id"]
    node = sql.json_path((NODE_LABEL,))
    return [
        *columns.TEXT_COLUMNS,
        f"JSON_VALUE(labels, {node}) AS {columns.NODE_LABEL_COLUMN}",
        *(f"{path} AS {name}" for name, path in columns.AUDIT_TEXT_COLUMNS.items()),
    ]


def _output_names(full: bool, grouped: bool) -> list[str]:
    names = [column.rsplit(" AS ", 1)[-1] for column in _columns(full)]
    return names + (["group_key"] if grouped else ["CAST(NULL AS STRING) AS group_key"])


def _order(question: Question, prefix: str = "") -> str:
    direction = "DESC" if question.order == "desc" else "ASC"
    return f"{prefix}timestamp {direction}, {prefix}insert_id {direction}"


def _branch(index: int, question: Question, names: list[str]) -> str:
    """One fetch's rows, tagged with its index, its position, the match count and group sizes."""
    listed = ", ".join(names)
    head = f"(SELECT {index} AS fetch_index, position, fetch_matched, "
    numbered = (
        f"ROW_NUMBER() OVER (ORDER BY {_order(question)}) AS position, "
        "COUNT(*) OVER () AS fetch_matched"
    )
    if question.shape == ORDERED:
        return (
            f"(SELECT {index} AS fetch_index, {numbered}, CAST(NULL AS INT64) AS group_total, "
            f"{listed}\n FROM matched WHERE match_{index}\n QUALIFY position <= {question.limit})"
        )
    if question.shape == FIRST_PER_GROUP:
        return (
            f"{head}group_total, {listed}\n FROM (\n"
            "  SELECT *,\n"
            "    ROW_NUMBER() OVER (PARTITION BY group_key ORDER BY position) AS group_rank,\n"
            "    COUNT(*) OVER (PARTITION BY group_key) AS group_total\n"
            f"  FROM (SELECT {numbered}, * FROM matched WHERE match_{index}\n"
            f"    QUALIFY position <= {question.limit}) AS fetched\n"
            "  WHERE TRUE\n ) AS grouped\n"
            f" WHERE group_rank <= {question.keep} OR group_rank = group_total)"
        )
    latest = f"ORDER BY {_order(Question('', 0, 'desc'))}"
    return (
        f"{head}group_total, {listed}\n FROM (\n"
        f"  SELECT {numbered}, * FROM (\n"
        "    SELECT *, COUNT(*) OVER (PARTITION BY group_key) AS group_total\n"
        f"    FROM matched WHERE match_{index}\n"
        f"    QUALIFY ROW_NUMBER() OVER (PARTITION BY group_key {latest}) = 1) AS last_lines\n"
        f"  WHERE TRUE\n  QUALIFY position <= {question.limit}) AS numbered)"
    )
