"""Checks: one comparison (`field op value`) as a test of one value of the field.

Two families, after the type of the field:

- Typed LogEntry fields (severity, timestamps, integers, booleans, durations)
  compare keys: the value is converted once (`KEY_CONVERTERS`), then each
  comparison is a test of the key. A literal that does not convert to the
  field's type makes the comparison false (`key_test` returns None).
- Text fields (string LogEntry fields, and everything in payloads and labels)
  hold JSON values, compared by their JSON type: strings case-folded,
  numbers as doubles, booleans, null (`NULL_VALUE`); `:` on an object looks
  for the value among the object's nested scalars. A `TextCheck` also says
  when it is a plain folded equality or containment, so the compiler can fuse
  many of them into one pass over one folded string.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable, Mapping
from typing import Any

import re2

from pathways_workload.lql import access, diagnostics, fields, nodes, values

# Operators as functions of (field value, literal); `:` on non-strings is equality.
ORDERING = {
    "=": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    ":": operator.eq,
}
REGEX_OPERATORS = nodes.REGEX_OPERATORS
EQUALITY_OPERATORS = frozenset({"=", ":"})

# A key converted from a field value or a literal: str, int or bool, and the
# same type on both sides of a comparison (None when a value does not convert).
Key = Any
KeyTest = Callable[[Key], bool]
ValueTest = Callable[[object, str], bool]

# Tests of a key against a wanted key, by operator; a value that did not convert fails.
KEY_TESTS: Mapping[str, Callable[[Key], KeyTest]] = {
    "=": lambda wanted: lambda key: key == wanted,
    ":": lambda wanted: lambda key: key == wanted,
    "!=": lambda wanted: lambda key: key is not None and key != wanted,
    "<": lambda wanted: lambda key: key is not None and key < wanted,
    "<=": lambda wanted: lambda key: key is not None and key <= wanted,
    ">": lambda wanted: lambda key: key is not None and key > wanted,
    ">=": lambda wanted: lambda key: key is not None and key >= wanted,
}


def _duration_key(value: object) -> object:
    """A Duration field, written as text such as "0.5s"."""
    return values.parse_field_duration_ns(value) if isinstance(value, str) else None


def _integer_key(value: object) -> object:
    """An int64 field: a JSON number, or a string of digits (how int64 is written)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    return values.parse_integer(value) if isinstance(value, str) else None


def _boolean_key(value: object) -> object:
    """A bool field: a JSON boolean, or "true"/"false" in any case."""
    if isinstance(value, bool):
        return value
    return values.parse_bool(value) if isinstance(value, str) else None


# Converters of a field value to a comparable key (None: it does not convert).
KEY_CONVERTERS: Mapping[str, Callable[[object], object]] = {
    fields.SEVERITY: values.severity_level,
    fields.TIMESTAMP: values.timestamp_key,
    fields.DURATION: _duration_key,
    fields.INTEGER: _integer_key,
    fields.BOOLEAN: _boolean_key,
}
# Converters of a literal to a key of the field's type.
LITERAL_CONVERTERS: Mapping[str, Callable[[str], object]] = {
    fields.SEVERITY: values.parse_severity,
    fields.TIMESTAMP: values.timestamp_key,
    fields.DURATION: values.parse_field_duration_ns,
    fields.INTEGER: values.parse_integer,
    fields.BOOLEAN: values.parse_bool,
}


def key_test(kind: str, op: str, literal: nodes.Literal) -> KeyTest | None:
    """Test of a converted key for `op literal`; None when it can never hold."""
    if op in REGEX_OPERATORS:
        return None
    wanted = LITERAL_CONVERTERS[kind](literal.text)
    if wanted is None:
        return None
    return KEY_TESTS[op](wanted)


@dataclasses.dataclass(frozen=True)
class TextCheck:
    """A test of one JSON value, given with its folded form ("" unless a string).

    When `equal` (or `contains`) is set, a string value passes exactly when its
    folded form equals (or contains) it, and `test` need only run for others.
    """

    test: ValueTest
    equal: str | None = None
    contains: str | None = None
    folds: bool = True


def text_check(op: str, literal: nodes.Literal, filter_text: str) -> TextCheck:
    """Build the check of `op literal` on a text field.

    Raises:
        diagnostics.LqlSyntaxError: `op` is a regex operator and the pattern is invalid.
    """
    if op in REGEX_OPERATORS:
        return TextCheck(_regex_test(op, literal, filter_text), folds=False)
    if not literal.quoted and literal.text == "NULL_VALUE":
        return TextCheck(_null_test(op))
    folded = values.fold(literal.text)
    test = _json_test(
        op, folded, values.parse_number(literal.text), values.parse_bool(literal.text)
    )
    if op == "=":
        return TextCheck(test, equal=folded)
    if op == ":":
        return TextCheck(test, contains=folded)
    return TextCheck(test)


def _json_test(op: str, folded: str, number: float | None, boolean: bool | None) -> ValueTest:
    """Compare a JSON value with a literal converted to the value's type."""
    compare = ORDERING[op]
    scalar_test = _scalar_matcher(folded, number, boolean)

    def test(value: object, folded_value: str) -> bool:
        if isinstance(value, str):
            return folded in folded_value if op == ":" else bool(compare(folded_value, folded))
        if isinstance(value, bool):
            return boolean is not None and bool(compare(value, boolean))
        if isinstance(value, (int, float)):
            return number is not None and bool(compare(values.as_double(value), number))
        if isinstance(value, dict) and op == ":":
            return any(scalar_test(item) for item in access.scalars(value))
        return False

    return test


def _scalar_matcher(folded: str, number: float | None, boolean: bool | None) -> KeyTest:
    """Test of one scalar for a search term: a string containing it, or an equal number or bool.

    This is `:` on an object, the same test a global restriction makes of the
    whole entry: keys are not searched, numbers and booleans only match a term
    that converts to an equal number or boolean, and null matches nothing.
    """

    def test(value: object) -> bool:
        if isinstance(value, str):
            return folded in values.fold(value)
        if isinstance(value, bool):
            return value is boolean
        if isinstance(value, (int, float)):
            return number is not None and values.as_double(value) == number
        return False

    return test


def _null_test(op: str) -> ValueTest:
    """`NULL_VALUE`: `=` and `:` hold for null, `!=` for any other present value."""
    if op in EQUALITY_OPERATORS:
        return lambda value, _folded: value is None
    if op == "!=":
        return lambda value, _folded: value is not None
    return lambda value, _folded: False


def _regex_test(op: str, literal: nodes.Literal, filter_text: str) -> ValueTest:
    """RE2 search on string values, case-sensitive and unnormalized."""
    search = regex_search(literal, filter_text)
    wanted = op == "=~"

    def test(value: object, _folded: str) -> bool:
        if not isinstance(value, str):
            return False
        try:
            found = search(value) is not None
        except UnicodeEncodeError:
            found = search(value.encode("utf-8", "replace").decode("utf-8")) is not None
        return found is wanted

    return test


def regex_search(literal: nodes.Literal, filter_text: str) -> Callable[[str], object]:
    """Compile an RE2 pattern quietly (RE2 would log errors to stderr); return its search.

    Raises:
        diagnostics.LqlSyntaxError: the pattern is not a valid RE2 expression.
    """
    options = re2.Options()
    options.log_errors = False
    try:
        pattern = re2.compile(literal.text, options=options)
    except re2.error as error:
        reason = error.args[0] if error.args else b""
        problem = reason.decode("utf-8", "replace") if isinstance(reason, bytes) else str(reason)
    except UnicodeEncodeError:
        problem = "it contains a lone surrogate"
    else:
        search: Callable[[str], object] = pattern.search
        return search
    raise diagnostics.LqlSyntaxError(
        f"invalid regular expression {diagnostics.shorten(literal.text)} at "
        f"{diagnostics.position(filter_text, literal.start)}: {problem}",
        filter_text,
        literal.start,
    )
