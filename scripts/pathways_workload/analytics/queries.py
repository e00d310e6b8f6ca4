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

from pathways_workload import labels
from pathways_workload.analytics import columns, grouping, sql, where
from pathways_workload.errors import UsageError
from pathways_workload.lql import LqlError

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
    key = grouping.group_key() if grouped else "CAST(NULL AS STRING)"
    selected = [*_columns(full), f"{key} AS group_key"]
    tags = ", ".join(f"IF(match_{index}, {index}, NULL)" for index in range(len(questions)))
    names = ", ".join(column.rsplit(" AS ", 1)[-1] for column in selected)
    return (
        "WITH scan AS (\n  SELECT\n    "
        + ",\n    ".join(selected + flags)
        + f"\n  FROM {view.table} AS {columns.VIEW_ALIAS}\n"
        + f"  WHERE timestamp >= {sql.timestamp(window.start_ns or 0)}\n"
        + f"    AND timestamp <= {sql.timestamp(window.end_ns or 0)}\n"
        + f"    AND STARTS_WITH(log_name, {sql.string(f'projects/{view.project}/logs/')})\n),\n"
        + "matched AS (\n  SELECT * FROM scan\n"
        + f"  WHERE {' OR '.join(f'match_{i}' for i in range(len(questions)))}\n"
        + f"  QUALIFY ROW_NUMBER() OVER ({DEDUP_WINDOW}) = 1\n),\n"
        + f"tagged AS (\n  SELECT fetch_index, {names}\n"
        + f"  FROM matched CROSS JOIN UNNEST([{tags}]) AS fetch_index\n"
        + "  WHERE fetch_index IS NOT NULL\n),\n"
        + _numbered(questions)
        + _kept(questions)
        + _final(questions, names)
    )


def _numbered(questions: Sequence[Question]) -> str:
    """Each row's position in its fetch's order, the fetch's match count, group sizes."""
    descending = [str(i) for i, question in enumerate(questions) if question.order == "desc"]
    latest = "ORDER BY timestamp DESC, insert_id DESC"
    by_fetch = "PARTITION BY fetch_index"
    position = f"ROW_NUMBER() OVER ({by_fetch} ORDER BY timestamp, insert_id)"
    if descending:
        position = (
            f"IF(fetch_index IN ({', '.join(descending)}), "
            f"ROW_NUMBER() OVER ({by_fetch} {latest}), {position})"
        )
    return (
        "numbered AS (\n  SELECT *,\n"
        f"    {position} AS position,\n"
        f"    COUNT(*) OVER ({by_fetch}) AS fetch_matched,\n"
        f"    ROW_NUMBER() OVER ({by_fetch}, group_key {latest}) AS latest_in_group,\n"
        f"    COUNT(*) OVER ({by_fetch}, group_key) AS group_size\n"
        "  FROM tagged\n  WHERE TRUE\n),\n"
    )


def _kept(questions: Sequence[Question]) -> str:
    """The rows each fetch reads before grouping: its first `limit`, or each group's last."""
    cases = " ".join(
        f"WHEN {index} THEN "
        + ("latest_in_group = 1" if q.shape == LAST_PER_GROUP else f"position <= {q.limit}")
        for index, q in enumerate(questions)
    )
    return (
        "kept AS (\n  SELECT *,\n"
        "    ROW_NUMBER() OVER (PARTITION BY fetch_index, group_key ORDER BY position) "
        "AS group_rank,\n"
        "    COUNT(*) OVER (PARTITION BY fetch_index, group_key) AS kept_in_group,\n"
        "    ROW_NUMBER() OVER (PARTITION BY fetch_index ORDER BY position) AS kept_position,\n"
        "    COUNT(*) OVER (PARTITION BY fetch_index) AS kept_rows\n"
        f"  FROM numbered\n  WHERE CASE fetch_index {cases} END\n)\n"
    )


def _final(questions: Sequence[Question], names: str) -> str:
    """Each fetch's rows in its shape, tagged with its index, in order."""
    keeps, matched, totals = [], [], []
    for index, question in enumerate(questions):
        if question.shape == FIRST_PER_GROUP:
            keeps.append(
                f"WHEN {index} THEN group_rank <= {question.keep} OR group_rank = kept_in_group"
            )
            totals.append(f"WHEN {index} THEN kept_in_group")
        elif question.shape == LAST_PER_GROUP:
            keeps.append(f"WHEN {index} THEN kept_position <= {question.limit}")
            matched.append(f"WHEN {index} THEN kept_rows")
            totals.append(f"WHEN {index} THEN group_size")
    keep = f"CASE fetch_index {' '.join(keeps)} ELSE TRUE END" if keeps else "TRUE"
    count = (
        f"CASE fetch_index {' '.join(matched)} ELSE fetch_matched END"
        if matched
        else ("fetch_matched")
    )
    total = f"CASE fetch_index {' '.join(totals)} END" if totals else "CAST(NULL AS INT64)"
    return (
        f"SELECT fetch_index, kept_position AS position, {count} AS fetch_matched,\n"
        f"  {total} AS group_total, {names}\n"
        f"FROM kept\nWHERE {keep}\nORDER BY fetch_index, position\n"
    )


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
    node = sql.json_path((labels.NODE,))
    return [
        *columns.TEXT_COLUMNS,
        f"JSON_VALUE(labels, {node}) AS {columns.NODE_LABEL_COLUMN}",
        *(f"{path} AS {name}" for name, path in columns.AUDIT_TEXT_COLUMNS.items()),
    ]
