"""SQL rows back to LogEntry-shaped dicts, so renderers and reports read them unchanged.

What an entry made from a row holds (the README lists it too):
- every column selected, under its LogEntry (camelCase) key, records as
  objects with camelCase keys and no null members;
- `timestamp` and `receiveTimestamp` in RFC 3339 with six fractional digits
  (BigQuery keeps microseconds);
- `protoPayload` as the AuditLog it holds, with `@type`;
- int64 fields (`sourceLocation.line`, the sizes of `httpRequest`) as
  strings, as the LogEntry's JSON form writes them;
- in text output, of `labels` only the node label, and of the AuditLog only
  `methodName`, `resourceName` and `status.message`.
JSON columns arrive parsed (BigQuery client) or as text (DuckDB); both work.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any

from pathways_workload import labels
from pathways_workload.analytics import columns
from pathways_workload.errors import InputFileError
from pathways_workload.exact_json import decode_value
from pathways_workload.lql import fields
from pathways_workload.sources.records import INCOMPLETE

Entry = dict[str, Any]
_SKIPPED = frozenset({"logId"})


def entry_from_row(row: Mapping[str, Any]) -> Entry:
    """The LogEntry a row of the view stands for.

    Raises InputFileError for a JSON column nested too deeply to read (DuckDB loads what
    the default engine refuses when it parses the entry).
    """
    try:
        return _entry(row)
    except RecursionError:
        raise InputFileError(
            f"the entry with insertId {row.get('insert_id')!r} is nested too deeply to read; "
            f"{INCOMPLETE}"
        ) from None


def _entry(row: Mapping[str, Any]) -> Entry:
    entry: Entry = {}
    for field in columns.VIEW_COLUMNS:
        value = row.get(field.name)
        if value is not None and field.key not in _SKIPPED:
            converted = _convert(field, value)
            if converted is not None:
                entry[field.key] = converted
    if "protoPayload" in entry:
        entry["protoPayload"] = _audit_log(entry["protoPayload"].get("auditLog"))
    _add_text_columns(entry, row)
    return {key: value for key, value in entry.items() if value is not None}


def timestamp_text(value: Any) -> str:
    """A TIMESTAMP value (datetime, or text as BigQuery's REST API may send) in RFC 3339."""
    if isinstance(value, datetime.datetime):
        moment = value.astimezone(datetime.timezone.utc) if value.tzinfo else value
        return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return str(value)


def _convert(field: columns.Field, value: Any) -> Any:
    if field.kind == fields.TIMESTAMP:
        return timestamp_text(value)
    if field.kind == columns.JSON:
        return decode_value(value) if isinstance(value, str) else value
    if field.kind == columns.RECORD:
        return _record(field, value)
    if field.key in columns.INT64_KEYS:
        return str(value)
    return value


def _record(field: columns.Field, value: Any) -> dict[str, Any] | None:
    if not isinstance(value, Mapping):
        return None
    found = {}
    for child in field.children:
        member = value.get(child.name)
        if member is not None:
            converted = _convert(child, member)
            if converted not in (None, {}):
                found[child.key] = converted
    return found or None


def _audit_log(audit: Any) -> dict[str, Any] | None:
    if not isinstance(audit, dict):
        return None
    return {"@type": columns.AUDIT_LOG_TYPE, **audit}


def _add_text_columns(entry: Entry, row: Mapping[str, Any]) -> None:
    """The narrow columns text output selects instead of `labels` and `proto_payload`."""
    node = row.get(columns.NODE_LABEL_COLUMN)
    if isinstance(node, str):
        entry.setdefault("labels", {})[labels.NODE] = node
    method, resource, status = (row.get(name) for name in columns.AUDIT_TEXT_COLUMNS)
    if method is None and resource is None and status is None:
        return
    audit: dict[str, Any] = {"@type": columns.AUDIT_LOG_TYPE}
    for key, value in (("methodName", method), ("resourceName", resource)):
        if value is not None:
            audit[key] = value
    if status is not None:
        audit["status"] = {"message": status}
    entry["protoPayload"] = audit
