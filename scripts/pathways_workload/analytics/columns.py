"""The log view's column layout, and where each LogEntry field lives in it.

A Log Analytics log view (`_Default`, `_AllLogs`, ...) has one row per
LogEntry with snake_case columns: `timestamp` and `receive_timestamp` as
TIMESTAMP (microseconds), `labels`, `resource.labels` and `json_payload` as
JSON, `proto_payload.audit_log` as a typed record whose `request`, `response`,
`metadata`, `service_data` and `resource_original_state` are JSON, and the
other LogEntry messages as records. Google's published Log Analytics queries
use exactly these paths (GoogleCloudPlatform/observability-analytics-samples,
GoogleCloudPlatform/security-analytics `backends/log_analytics/sql`).

The same table drives the SQL compiler (LogEntry path to column), the
offline loader (LogEntry JSON to row) and the row reader (row back to a
LogEntry), so the three cannot drift apart.
"""

from __future__ import annotations

import dataclasses
import re

from pathways_workload.lql import fields

JSON = "json"
RECORD = "record"
VIEW_ALIAS = "log_entry"
AUDIT_LOG_TYPE = "type.googleapis.com/google.cloud.audit.AuditLog"
_CAMEL_HUMP = re.compile(r"(?<=[a-z0-9])([A-Z])")


@dataclasses.dataclass(frozen=True)
class Field:
    """One column or record field: its LogEntry key, its kind, and its own fields if a record."""

    key: str
    kind: str
    children: tuple[Field, ...] = ()

    @property
    def name(self) -> str:
        """The view's snake_case name for the LogEntry key."""
        return _CAMEL_HUMP.sub(r"_\1", self.key).lower()


def _record(key: str, *children: Field) -> Field:
    return Field(key, RECORD, children)


def _strings(*keys: str) -> tuple[Field, ...]:
    return tuple(Field(key, fields.STRING) for key in keys)


AUDIT_LOG = _record(
    "auditLog",
    *_strings("serviceName", "methodName", "resourceName"),
    Field("numResponseItems", fields.INTEGER),
    _record("status", Field("code", fields.INTEGER), Field("message", fields.STRING)),
    _record("authenticationInfo", *_strings("principalEmail")),
    _record("requestMetadata", *_strings("callerIp", "callerSuppliedUserAgent")),
    *(Field(key, JSON) for key in ("request", "response", "metadata", "serviceData")),
    Field("resourceOriginalState", JSON),
)

VIEW_COLUMNS = (
    Field("timestamp", fields.TIMESTAMP),
    Field("receiveTimestamp", fields.TIMESTAMP),
    Field("logName", fields.STRING),
    Field("logId", fields.STRING),
    Field("insertId", fields.STRING),
    Field("severity", fields.SEVERITY),
    _record("resource", Field("type", fields.STRING), Field("labels", JSON)),
    Field("labels", JSON),
    Field("textPayload", fields.STRING),
    Field("jsonPayload", JSON),
    _record("protoPayload", AUDIT_LOG),
    _record(
        "httpRequest",
        *_strings("requestMethod", "requestUrl", "userAgent", "remoteIp", "serverIp"),
        *_strings("referer", "protocol"),
        *(Field(key, fields.INTEGER) for key in ("requestSize", "status", "responseSize")),
        Field("cacheFillBytes", fields.INTEGER),
        *(Field(key, fields.BOOLEAN) for key in ("cacheLookup", "cacheHit")),
        Field("cacheValidatedWithOriginServer", fields.BOOLEAN),
    ),
    _record(
        "operation",
        *_strings("id", "producer"),
        Field("first", fields.BOOLEAN),
        Field("last", fields.BOOLEAN),
    ),
    Field("trace", fields.STRING),
    Field("spanId", fields.STRING),
    Field("traceSampled", fields.BOOLEAN),
    _record(
        "sourceLocation",
        Field("file", fields.STRING),
        Field("line", fields.INTEGER),
        Field("function", fields.STRING),
    ),
    _record(
        "split",
        Field("uid", fields.STRING),
        Field("index", fields.INTEGER),
        Field("totalSplits", fields.INTEGER),
    ),
)

# int64 fields, which the LogEntry's JSON form writes as strings (proto3's JSON mapping).
INT64_KEYS = frozenset(
    {"requestSize", "responseSize", "cacheFillBytes", "line", "numResponseItems"}
)


def _json_paths(fields_: tuple[Field, ...], prefix: str = "") -> frozenset[str]:
    paths: set[str] = set()
    for field in fields_:
        path = prefix + field.name
        if field.kind == JSON:
            paths.add(path)
        paths |= _json_paths(field.children, path + ".")
    return frozenset(paths)


# Every JSON column or record field of the view, by its SQL path.
JSON_PATHS = _json_paths(VIEW_COLUMNS)

# JSON columns that hold maps of strings (label values are always strings).
STRING_MAPS = ("labels", "resource.labels")

# Columns a text line needs (see describe.where and describe.message): the
# node label is read alone, so `labels`, the costly column, is not selected.
NODE_LABEL_COLUMN = "node_label"
AUDIT_TEXT_COLUMNS = {
    "audit_method_name": "proto_payload.audit_log.method_name",
    "audit_resource_name": "proto_payload.audit_log.resource_name",
    "audit_status_message": "proto_payload.audit_log.status.message",
}
TEXT_COLUMNS = (
    "timestamp",
    "log_name",
    "insert_id",
    "severity",
    "resource",
    "text_payload",
    "json_payload",
)


def column(key: str) -> Field:
    """The top-level column holding a LogEntry key."""
    for field in VIEW_COLUMNS:
        if field.key == key:
            return field
    raise KeyError(key)


def child(record: Field, key: str, ignore_case: bool = False) -> Field | None:
    """A field of a record by LogEntry key; optionally ignoring case and underscores."""
    wanted = _loose(key) if ignore_case else key
    for field in record.children:
        if (_loose(field.key) if ignore_case else field.key) == wanted:
            return field
    return None


def _loose(name: str) -> str:
    return name.replace("_", "").casefold()
