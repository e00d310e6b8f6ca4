"""Where a filter's field path lives in the log view: a typed column or a path into JSON.

Paths resolve against the LogEntry field table first (`lql.fields.resolve`,
so an undefined field is the same error as in the query-language engine),
then against the view's layout (`columns`). A path the view has no column
for (e.g. `metadata`, a Duration, a `protoPayload` field of a payload that
is not an AuditLog) is an "unsupported" error: no exact mapping exists.
"""

from __future__ import annotations

import dataclasses

from pathways_workload.analytics import columns, sql
from pathways_workload.lql import diagnostics, fields, nodes

# SQL for the value an absent (defaulted) typed field reads as.
DEFAULTS = {
    fields.STRING: "''",
    fields.INTEGER: "0",
    fields.BOOLEAN: "FALSE",
    fields.TIMESTAMP: sql.timestamp(0),
}
AUDIT_LOG_COLUMN = "proto_payload.audit_log"


@dataclasses.dataclass(frozen=True)
class Operand:
    """A resolved field: its kind, its column, and for JSON the keys below the column.

    `column` is the SQL of the column (the JSON column for JSON, whose `keys`
    then lead to the value); `default` the SQL an absent typed field reads
    as, or None when absence means missing. `record` is set when the path
    ends at a record, which only `:*` can test.
    """

    kind: str
    column: str
    keys: tuple[str, ...] = ()
    default: str | None = None
    record: bool = False

    @property
    def value(self) -> str:
        """The typed value, the default applied."""
        return self.column if self.default is None else f"COALESCE({self.column}, {self.default})"

    @property
    def json_value(self) -> str:
        """The scalar at a JSON path as a STRING (NULL for objects, arrays, null, missing)."""
        return f"JSON_VALUE({self.column}, {sql.json_path(self.keys)})"

    @property
    def json_query(self) -> str:
        """The JSON at a JSON path (NULL when missing)."""
        return f"JSON_QUERY({self.column}, {sql.json_path(self.keys)})"


# `protoPayload."@type"`: the view types only AuditLog payloads.
AUDIT_TYPE = Operand(
    fields.STRING,
    f"IF({AUDIT_LOG_COLUMN} IS NULL, NULL, {sql.string(columns.AUDIT_LOG_TYPE)})",
)


def resolve(path: nodes.Path, filter_text: str) -> Operand:
    """The operand of a path.

    Raises:
        diagnostics.LqlUndefinedFieldError: the path names no LogEntry field.
        diagnostics.LqlUnsupportedError: the log view has no column for it.
    """
    ref = fields.resolve(path, filter_text)
    top = ref.entry_keys[0]
    if top == "protoPayload":
        return _proto_operand(ref, path, filter_text)
    if top == "metadata":
        raise _unsupported(path, filter_text, "the log view has no metadata column")
    field = columns.column(top)
    names = [field.name]
    for key in ref.entry_keys[1:]:
        found = columns.child(field, key)
        if found is None:
            raise _unsupported(path, filter_text, f"the log view has no column for {key}")
        field = found
        names.append(field.name)
    return _operand(field, ".".join(names), ref.free_keys, path, filter_text, defaulted=True)


def _proto_operand(ref: fields.FieldRef, path: nodes.Path, filter_text: str) -> Operand:
    """protoPayload paths: the AuditLog record's typed fields, `@type`, or JSON below them."""
    keys = ref.free_keys
    if not keys:
        return Operand(columns.RECORD, AUDIT_LOG_COLUMN, record=True)
    if keys == ("@type",):
        return AUDIT_TYPE
    field, names = columns.AUDIT_LOG, [AUDIT_LOG_COLUMN]
    for position, key in enumerate(keys):
        if field.kind == columns.JSON:
            return _json_operand(".".join(names), keys[position:], path, filter_text)
        found = columns.child(field, key, ignore_case=True)
        if found is None:
            reason = (
                f"the log view types only AuditLog payloads, and an AuditLog has no field {key}"
            )
            raise _unsupported(path, filter_text, reason)
        field = found
        names.append(field.name)
    return _operand(field, ".".join(names), (), path, filter_text, defaulted=False)


def _operand(
    field: columns.Field,
    column_sql: str,
    free_keys: tuple[str, ...],
    path: nodes.Path,
    filter_text: str,
    defaulted: bool,
) -> Operand:
    """The operand of a resolved view field, with the free keys below it."""
    if field.kind == columns.JSON:
        return _json_operand(column_sql, free_keys, path, filter_text)
    if field.kind == columns.RECORD:
        return Operand(columns.RECORD, column_sql, record=True)
    if defaulted and field.kind in DEFAULTS and field.name != "timestamp":
        return Operand(field.kind, column_sql, default=DEFAULTS[field.kind])
    return Operand(field.kind, column_sql)


def _json_operand(
    column_sql: str, keys: tuple[str, ...], path: nodes.Path, filter_text: str
) -> Operand:
    """The operand of keys below a JSON column; a key holding a double quote or backslash has
    no JSON path BigQuery documents (`sql.json_path`)."""
    for key in keys:
        if '"' in key or "\\" in key:
            reason = (
                f"the JSON key {key!r} has a quote or backslash, which a JSON path cannot address"
            )
            raise _unsupported(path, filter_text, reason)
    return Operand(columns.JSON, column_sql, keys)


def _unsupported(
    path: nodes.Path, filter_text: str, reason: str
) -> diagnostics.LqlUnsupportedError:
    at = diagnostics.position(filter_text, path.start)
    return diagnostics.LqlUnsupportedError(
        f"{diagnostics.shorten(path.text)} at {at} has no exact Log Analytics mapping: "
        f"{reason}; use --engine=logging",
        filter_text,
        path.start,
    )
