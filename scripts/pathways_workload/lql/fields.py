"""The LogEntry field table, and resolution of a filter's field paths against it.

A path starts with a LogEntry field (`textPayload`, `resource.labels`, ...),
looked up without regard to case, in its JSON (camelCase) or proto
(snake_case) spelling. Below `jsonPayload`, `labels`, `resource.labels` and
`metadata` the keys are free and case-sensitive; below `protoPayload` they are
matched without regard to case. A path that leaves the table anywhere else is
undefined, an error before any entry is read.
"""

from __future__ import annotations

import dataclasses
import re

from pathways_workload.lql import diagnostics, nodes

# What a resolved path holds. Scalars have a default (the field is
# "defaulted" when absent); containers are "missing" when absent.
STRING = "string"
INTEGER = "integer"
BOOLEAN = "boolean"
SEVERITY = "severity"
TIMESTAMP = "timestamp"
DURATION = "duration"
MESSAGE = "message"
MAP = "map"
STRUCT = "struct"
PROTO = "proto"

SCALAR_KINDS = frozenset({STRING, INTEGER, BOOLEAN, SEVERITY, TIMESTAMP, DURATION})
FREE_KEY_KINDS = frozenset({MAP, STRUCT, PROTO})


@dataclasses.dataclass(frozen=True)
class FieldSpec:
    """A LogEntry field: its JSON key, its kind, and its own fields if a message."""

    name: str
    kind: str
    children: tuple[FieldSpec, ...] = ()


LOG_ENTRY_FIELDS = FieldSpec(
    "",
    MESSAGE,
    (
        FieldSpec("logName", STRING),
        FieldSpec("resource", MESSAGE, (FieldSpec("type", STRING), FieldSpec("labels", MAP))),
        FieldSpec("textPayload", STRING),
        FieldSpec("jsonPayload", STRUCT),
        FieldSpec("protoPayload", PROTO),
        FieldSpec("timestamp", TIMESTAMP),
        FieldSpec("receiveTimestamp", TIMESTAMP),
        FieldSpec("severity", SEVERITY),
        FieldSpec("insertId", STRING),
        FieldSpec(
            "httpRequest",
            MESSAGE,
            (
                FieldSpec("requestMethod", STRING),
                FieldSpec("requestUrl", STRING),
                FieldSpec("requestSize", INTEGER),
                FieldSpec("status", INTEGER),
                FieldSpec("responseSize", INTEGER),
                FieldSpec("userAgent", STRING),
                FieldSpec("remoteIp", STRING),
                FieldSpec("serverIp", STRING),
                FieldSpec("referer", STRING),
                FieldSpec("latency", DURATION),
                FieldSpec("cacheLookup", BOOLEAN),
                FieldSpec("cacheHit", BOOLEAN),
                FieldSpec("cacheValidatedWithOriginServer", BOOLEAN),
                FieldSpec("cacheFillBytes", INTEGER),
                FieldSpec("protocol", STRING),
            ),
        ),
        FieldSpec("labels", MAP),
        FieldSpec(
            "metadata",
            MESSAGE,
            (FieldSpec("systemLabels", STRUCT), FieldSpec("userLabels", MAP)),
        ),
        FieldSpec(
            "operation",
            MESSAGE,
            (
                FieldSpec("id", STRING),
                FieldSpec("producer", STRING),
                FieldSpec("first", BOOLEAN),
                FieldSpec("last", BOOLEAN),
            ),
        ),
        FieldSpec("trace", STRING),
        FieldSpec("spanId", STRING),
        FieldSpec("traceSampled", BOOLEAN),
        FieldSpec(
            "sourceLocation",
            MESSAGE,
            (
                FieldSpec("file", STRING),
                FieldSpec("line", INTEGER),
                FieldSpec("function", STRING),
            ),
        ),
        FieldSpec(
            "split",
            MESSAGE,
            (
                FieldSpec("uid", STRING),
                FieldSpec("index", INTEGER),
                FieldSpec("totalSplits", INTEGER),
            ),
        ),
    ),
)

CAMEL_HUMP = re.compile(r"(?<=[a-z0-9])([A-Z])")


@dataclasses.dataclass(frozen=True)
class FieldRef:
    """A resolved path: the LogEntry keys to its typed part, then free keys.

    `kind` is the kind of the last typed field (`STRUCT` for every path into
    `jsonPayload`); `free_keys` are the keys below a map, struct or proto.
    """

    text: str
    entry_keys: tuple[str, ...]
    kind: str
    free_keys: tuple[str, ...]

    @property
    def defaulted(self) -> bool:
        """Whether an absent value reads as the type's default (else it is missing)."""
        return self.kind in SCALAR_KINDS

    @property
    def keys_ignore_case(self) -> bool:
        """Whether free keys match without regard to case (inside protoPayload)."""
        return self.kind == PROTO


def resolve(path: nodes.Path, filter_text: str) -> FieldRef:
    """Resolve a path written in a filter against the LogEntry field table.

    Raises:
        diagnostics.LqlUndefinedFieldError: the path names no LogEntry field.
    """
    spec = LOG_ENTRY_FIELDS
    entry_keys: list[str] = []
    for position, component in enumerate(path.components):
        if spec.kind in FREE_KEY_KINDS:
            return FieldRef(path.text, tuple(entry_keys), spec.kind, path.components[position:])
        child = _child(spec, component)
        if child is None:
            raise diagnostics.LqlUndefinedFieldError(
                _undefined_message(path, spec, component, filter_text), filter_text, path.start
            )
        spec = child
        entry_keys.append(child.name)
    return FieldRef(path.text, tuple(entry_keys), spec.kind, ())


def child_named(spec: FieldSpec, key: str) -> FieldSpec | None:
    """The field of a message whose JSON key is exactly `key` (as entries spell it)."""
    for child in spec.children:
        if child.name == key:
            return child
    return None


def spec_of(ref: FieldRef) -> FieldSpec:
    """The LogEntry field a resolved path ends at (before any free keys)."""
    spec = LOG_ENTRY_FIELDS
    for key in ref.entry_keys:
        found = child_named(spec, key)
        assert found is not None, key
        spec = found
    return spec


def _child(spec: FieldSpec, name: str) -> FieldSpec | None:
    """Find a field of a message by name, ignoring case, in either spelling."""
    wanted = name.casefold()
    for child in spec.children:
        if wanted in (child.name.casefold(), CAMEL_HUMP.sub(r"_\1", child.name).casefold()):
            return child
    return None


def _undefined_message(path: nodes.Path, spec: FieldSpec, component: str, text: str) -> str:
    """Say why a path is undefined."""
    where = diagnostics.position(text, path.start)
    start = f"unknown field {diagnostics.shorten(path.text)} at {where}"
    if spec is LOG_ENTRY_FIELDS:
        return (
            f"{start}: a field path starts with a LogEntry field such as textPayload, "
            "jsonPayload, labels, resource, severity or timestamp"
        )
    if spec.kind == MESSAGE:
        return f"{start}: {spec.name} has only {', '.join(child.name for child in spec.children)}"
    return f"{start}: {spec.name} has no field {diagnostics.shorten(component)}"
