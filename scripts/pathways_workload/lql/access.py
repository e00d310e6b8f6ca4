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
    default = MISSING if explicit or not field.defaulted else DEFAULTS[field.kind]
    read_typed = _typed_getter(field.entry_keys, default)
    if not field.free_keys:
        return read_typed
    keys = field.free_keys
    if len(keys) == 1 and not field.keys_ignore_case:
        key = keys[0]

        def read_one_key(entry: Mapping[str, object]) -> object:
            parent = read_typed(entry)
            if type(parent) is dict:
                return parent.get(key, MISSING)
            return _walk(parent, keys, False)

        return read_one_key
    ignore_case = field.keys_ignore_case
    return lambda entry: _walk(read_typed(entry), keys, ignore_case)


def _typed_getter(keys: tuple[str, ...], default: object) -> Getter:
    """Read a LogEntry field by its JSON keys; absent or null reads as `default`."""
    if len(keys) == 1:
        key = keys[0]

        def read_top(entry: Mapping[str, object]) -> object:
            value = entry.get(key)
            return default if value is None else value

        return read_top

    def read_nested(entry: Mapping[str, object]) -> object:
        value: object = entry
        for key in keys:
            if not isinstance(value, dict):
                return default
            value = value.get(key)
        return default if value is None else value

    return read_nested


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
    if type(values) is not list:
        yield values
        return
    stack = [iter(values)]
    while stack:
        for value in stack[-1]:
            if type(value) is list:
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
