"""Reading log entries: values at resolved paths, and every scalar of an entry.

Entries are LogEntry objects in the API's JSON shape, but any JSON may arrive,
so nothing here assumes a type: a step into something that is not an object
finds nothing. Arrays are transparent: a path continues into each element,
and a getter may return a list whose (nested) elements are all candidates.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Final

from pathways_workload.lql import fields


class _Missing:
    """The type of `MISSING`."""

    def __repr__(self) -> str:
        return "MISSING"


# What a getter returns for a missing field (a payload or label key that is absent).
MISSING: Final = _Missing()

# What an absent scalar LogEntry field reads as.
DEFAULTS: Final[Mapping[str, object]] = {
    fields.STRING: "",
    fields.INTEGER: 0,
    fields.BOOLEAN: False,
    fields.SEVERITY: "DEFAULT",
    fields.TIMESTAMP: "1970-01-01T00:00:00Z",
    fields.DURATION: "0s",
}

Getter = Callable[[Mapping[str, object]], object]


def getter(field: fields.FieldRef, explicit: bool = False) -> Getter:
    """Build a function that reads `field` from an entry.

    The function returns the value, a list of candidate values, or MISSING.
    An absent scalar LogEntry field reads as its default unless `explicit`,
    which asks whether the field is really there (for `:*`).
    """
    absent = MISSING if explicit or not field.defaulted else DEFAULTS[field.kind]
    keys = field.entry_keys + field.free_keys

    def read(entry: Mapping[str, object]) -> object:
        return _read(entry, field, absent)

    if field.keys_ignore_case or len(keys) > 3:
        return read
    return _unrolled_getter(keys, absent, not field.free_keys, read)


def _unrolled_getter(
    keys: tuple[str, ...], absent: object, null_is_absent: bool, fallback: Getter
) -> Getter:
    """A getter for one to three keys through plain objects, `fallback` for other shapes.

    It only saves time: what it returns is what `fallback` would return.
    """
    if len(keys) == 1:
        only = keys[0]
        return lambda entry: absent if (value := entry.get(only)) is None else value
    if len(keys) == 2:
        outer, inner = keys

        def read_two(entry: Mapping[str, object]) -> object:
            parent = entry.get(outer)
            if isinstance(parent, dict):
                value = parent.get(inner, MISSING)
                return absent if value is MISSING or (null_is_absent and value is None) else value
            return absent if parent is None else fallback(entry)

        return read_two
    first, second, third = keys

    def read_three(entry: Mapping[str, object]) -> object:
        parent = entry.get(first)
        child = parent.get(second) if isinstance(parent, dict) else None
        if isinstance(child, dict):
            value = child.get(third, MISSING)
            return absent if value is MISSING or (null_is_absent and value is None) else value
        return fallback(entry)

    return read_three


def _read(entry: Mapping[str, object], field: fields.FieldRef, absent: object) -> object:
    """Read a field from an entry, whatever its shape; see `getter`."""
    value: object = entry
    for key in field.entry_keys:
        value = value.get(key) if isinstance(value, dict) else None
        if value is None:
            return absent
    if not field.free_keys:
        return value
    return _walk(value, field.free_keys, field.keys_ignore_case)


def _walk(start: object, keys: tuple[str, ...], ignore_case: bool) -> object:
    """Follow free keys from `start`, into every element of arrays on the way."""
    if start is MISSING:
        return MISSING
    found = [start]
    for key in keys:
        found = [
            value
            for item in flatten(found)
            if isinstance(item, dict) and (value := _lookup(item, key, ignore_case)) is not MISSING
        ]
        if not found:
            return MISSING
    return found[0] if len(found) == 1 else found


def _lookup(mapping: dict[object, object], key: str, ignore_case: bool) -> object:
    """Return mapping[key], or MISSING; optionally ignoring case and underscores."""
    value = mapping.get(key, MISSING)
    if value is MISSING and ignore_case:
        wanted = _loose(key)
        for name, candidate in mapping.items():
            if isinstance(name, str) and _loose(name) == wanted:
                return candidate
    return value


def _loose(name: str) -> str:
    """Spell a protoPayload key for case- and underscore-insensitive comparison."""
    return name.replace("_", "").casefold()


def flatten(values: object) -> Iterator[object]:
    """Yield `values`, or each element of it and of nested lists, in order."""
    if not isinstance(values, list):
        yield values
        return
    stack = [iter(values)]
    while stack:
        for value in stack[-1]:
            if isinstance(value, list):
                stack.append(iter(value))
                break
            yield value
        else:
            stack.pop()


def scalars(value: object) -> Iterator[object]:
    """Yield every scalar (not an object or array) nested in `value`; keys are not scalars."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))
        else:
            yield item


def typed_scalars(value: object, spec: fields.FieldSpec) -> Iterator[tuple[str, object]]:
    """Yield `(kind, scalar)` for every scalar nested in `value`, a value of the field `spec`.

    The kind is that of a typed LogEntry field (severity, timestamp, integer,
    ...; elements of an array each count), and `fields.STRUCT` for everything
    else (text fields, payloads, labels, keys the LogEntry does not define, and
    a message that is not an object): those are JSON values. Null is absent.
    """
    if spec.kind == fields.MESSAGE and isinstance(value, dict):
        for key, item in value.items():
            child = fields.child_named(spec, key)
            if child is None:
                yield from ((fields.STRUCT, scalar) for scalar in scalars(item))
            else:
                yield from typed_scalars(item, child)
    elif spec.kind in fields.SCALAR_KINDS and spec.kind != fields.STRING:
        yield from ((spec.kind, item) for item in flatten(value) if item is not None)
    else:
        yield from ((fields.STRUCT, scalar) for scalar in scalars(value))
