"""Whole SQL queries: the fetches of one stage answered by one window-bounded query.

Shape of every query (one scan of the view, whatever the number of fetches):

    WITH scan AS (      -- the window, the project, one flag per fetch
      SELECT <columns>, <predicate 0> AS match_0, ...
      FROM `PROJECT.DATASET.VIEW` AS log_entry
      WHERE timestamp >= ... AND timestamp <= ... AND STARTS_WITH(log_name, 'projects/P/logs/')),
    matched AS (        -- any fetch matched; one row per (insert_id, timestamp)
      SELECT * FROM scan WHERE match_0 OR ...
      QUALIFY ROW_NUMBER() OVER (PARTITION BY insert_id, timestamp ORDER BY log_name) = 1),
    tagged AS (         -- one row per (entry, fetch it answers), fetch_index naming the fetch
      ... CROSS JOIN UNNEST([IF(match_0, 0, NULL), ...]) AS fetch_index ...),
    numbered AS (       -- the entry's position in its fetch's order, the fetch's match count
      ...)
    SELECT fetch_index, position, fetch_matched, <columns> FROM numbered
    WHERE <position within the fetch's limit> ORDER BY fetch_index, position

A fetch returns its first `limit` entries in its order, `timestamp, insert_id`
(a fetch asked per source, its first `per_source` of every source, numbered
in `source_position` over a `source_key` the scan adds, up to MOST_SOURCE_ROWS
in all; with `source_last`, each source's last too, and per source key how
many entries the stage matched, `source_matched`)
(both descending for `desc`): BigQuery keeps microseconds, so entries within
one microsecond are ordered by insert_id, Cloud Logging's own tie-breaker.
`fetch_matched` says how many matched in all, so a cut answer says so.
Timestamps come back as RFC 3339 text with six fractional digits. The
window's start is rounded up and its end down to the microsecond, so no entry
the default engine leaves out before the start is returned. The
project scope is left out when the project is unknown (offline without --project).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from pathways_workload import labels
from pathways_workload.analytics import columns, operands, sql, where
from pathways_workload.errors import UsageError
from pathways_workload.lql import LqlError, nodes
from pathways_workload.sources.base import Fetch

DEDUP_WINDOW = "PARTITION BY insert_id, timestamp ORDER BY log_name"
LATEST_FIRST = "ORDER BY timestamp DESC, insert_id DESC"
EARLIEST_FIRST = "ORDER BY timestamp, insert_id"
RFC_3339 = "'%Y-%m-%dT%H:%M:%E6SZ'"
TIMESTAMPS = frozenset({"timestamp", "receive_timestamp"})
# What a fetch asked per source returns at most: 10,000 hosts' worth of lines.
MOST_SOURCE_ROWS = 200_000
# Every field `describe.source_group` names an entry's source by: rows with one key have one
# group (a source may span several keys, which only splits it further).
_SOURCE_FIELDS = (
    ("resource", "type"),
    ("resource", "labels"),
    ("labels", labels.NODE),
    ("protoPayload", "resourceName"),
    ("jsonPayload", "source", "host"),
    ("jsonPayload", "involvedObject", "kind"),
    ("jsonPayload", "involvedObject", "name"),
)


def _source_key() -> str:
    """The source fields as one text, each a JSON token, so no two sources share it."""
    parts = []
    for components in _SOURCE_FIELDS:
        text = ".".join(components)
        found = operands.resolve(nodes.Path(components, text, 0), text)
        value = found.json_value if found.keys else found.column
        parts.append(f"COALESCE(TO_JSON_STRING({value}), 'null')")  # DuckDB's is NULL
    joined = ", ',', ".join(parts)
    return f"CONCAT({joined}) AS source_key"


SOURCE_KEY = _source_key()
SOURCE_TOTALS = "COUNT(*) OVER (PARTITION BY source_key) AS source_matched"


@dataclasses.dataclass(frozen=True)
class Question:
    """One fetch in SQL terms: its filter, and the first `limit` entries in its order
    (with `per_source`, the first `per_source` of each pod and container instead)."""

    filter: str
    limit: int
    order: str = "asc"
    per_source: int = 0
    source_last: bool = False


def questions_of(fetches: Sequence[Fetch]) -> list[Question]:
    """The fetches as SQL questions."""
    return [
        Question(f.query.filter, f.limit, f.order, f.per_source, f.source_last) for f in fetches
    ]


@dataclasses.dataclass(frozen=True)
class View:
    """Where the entries are: a backquoted table path, and the project whose logs to read."""

    table: str
    project: str | None


def build(questions: Sequence[Question], view: View, full: bool) -> str:
    """One query answering every question; `full` selects every LogEntry column.

    Raises:
        UsageError: a filter is invalid, has no exact mapping, or has no time bound.
    """
    window = _window(questions)
    flags = [
        f"{_predicate(question.filter, window)} AS match_{index}"
        for index, question in enumerate(questions)
    ]
    selected = _columns(full)
    keyed = [SOURCE_KEY] if any(question.per_source for question in questions) else []
    ends = any(question.source_last for question in questions)
    tags = ", ".join(f"IF(match_{index}, {index}, NULL)" for index in range(len(questions)))
    names = ", ".join(column.rsplit(" AS ", 1)[-1] for column in selected)
    extra = ["source_key", "source_matched"] if ends else ["source_key"] if keyed else []
    carried = ", ".join([names, *extra])
    scope = (
        f"\n    AND STARTS_WITH(log_name, {sql.string(f'projects/{view.project}/logs/')})"
        if view.project
        else ""
    )
    return (
        "WITH scan AS (\n  SELECT\n    "
        + ",\n    ".join(selected + keyed + flags)
        + f"\n  FROM {view.table} AS {columns.VIEW_ALIAS}\n"
        + f"  WHERE timestamp >= {sql.timestamp(window.start_ns or 0, round_up=True)}\n"
        + f"    AND timestamp <= {sql.timestamp(window.end_ns or 0)}{scope}\n),\n"
        + "matched AS (\n  SELECT * FROM scan\n"
        + f"  WHERE {' OR '.join(f'match_{i}' for i in range(len(questions)))}\n"
        + f"  QUALIFY ROW_NUMBER() OVER ({DEDUP_WINDOW}) = 1\n),\n"
        + (f"sourced AS (\n  SELECT *, {SOURCE_TOTALS} FROM matched\n),\n" if ends else "")
        + f"tagged AS (\n  SELECT fetch_index, {carried}\n"
        + f"  FROM {'sourced' if ends else 'matched'} CROSS JOIN UNNEST([{tags}]) AS fetch_index\n"
        + "  WHERE fetch_index IS NOT NULL\n),\n"
        + _numbered(questions)
        + f"SELECT fetch_index, position, fetch_matched, {_as_text(names)}"
        + (", source_key, source_matched" if ends else "")
        + "\nFROM numbered\n"
        + f"WHERE {_within_limits(questions)}\nORDER BY fetch_index, position\n"
    )


def _as_text(names: str) -> str:
    """The selected columns, TIMESTAMPs as RFC 3339 text with their six fractional digits.

    So every reader gets the microseconds: the `bq` CLI prints TIMESTAMP
    columns without their fraction.
    """
    return ", ".join(
        f"FORMAT_TIMESTAMP({RFC_3339}, {name}, 'UTC') AS {name}" if name in TIMESTAMPS else name
        for name in names.split(", ")
    )


def _numbered(questions: Sequence[Question]) -> str:
    """Each row's position in its fetch's order (and in its source's, for fetches asked
    per source), and the fetch's match count."""
    by_fetch = "PARTITION BY fetch_index"
    by_source = by_fetch + ", source_key"
    per_source = (
        f"    {_position(questions, by_source)} AS source_position,\n"
        if any(question.per_source for question in questions)
        else ""
    )
    if any(question.source_last for question in questions):
        per_source += f"    COUNT(*) OVER ({by_source}) AS source_count,\n"
    return (
        "numbered AS (\n  SELECT *,\n"
        f"    {_position(questions, by_fetch)} AS position,\n"
        + per_source
        + f"    COUNT(*) OVER ({by_fetch}) AS fetch_matched\n"
        "  FROM tagged\n)\n"
    )


def _position(questions: Sequence[Question], partition: str) -> str:
    """A row's number within its partition, in its fetch's order."""
    descending = [str(i) for i, question in enumerate(questions) if question.order == "desc"]
    position = f"ROW_NUMBER() OVER ({partition} {EARLIEST_FIRST})"
    if descending:
        position = (
            f"IF(fetch_index IN ({', '.join(descending)}), "
            f"ROW_NUMBER() OVER ({partition} {LATEST_FIRST}), {position})"
        )
    return position


def _within_limits(questions: Sequence[Question]) -> str:
    """The rows each fetch returns: its first `limit` (or `per_source` of each source)."""
    if any(question.per_source for question in questions):
        cases = " ".join(f"WHEN {i} THEN {_kept(q)}" for i, q in enumerate(questions))
        return f"CASE fetch_index {cases} END"
    limits = {question.limit for question in questions}
    if len(limits) == 1:
        return f"position <= {limits.pop()}"
    cases = " ".join(f"WHEN {i} THEN {q.limit}" for i, q in enumerate(questions))
    return f"position <= CASE fetch_index {cases} END"


def _kept(question: Question) -> str:
    if question.per_source:
        first = f"source_position <= {question.per_source}"
        if question.source_last:  # the last two: a traceback header may precede its exception
            first = f"({first} OR source_position >= source_count - 1)"
        return f"{first} AND position <= {MOST_SOURCE_ROWS}"
    return f"position <= {question.limit}"


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
