"""One comparison (`field op value`) as a GoogleSQL boolean, with the query language's meaning.

- Strings compare case-insensitively after NFKC case folding: the column
  through `NORMALIZE_AND_CASEFOLD(..., NFKC)`, the literal folded here the
  same way; `:` is `CONTAINS_SUBSTR`, which normalises and folds itself.
- `=~` and `!~` are `REGEXP_CONTAINS` (RE2 in both), case-sensitive.
- Severity compares by level: the set of names the comparison admits.
- Timestamps compare as instants, the literal truncated to the microsecond.
- A literal that does not convert to the field's type makes the comparison
  FALSE, and regular expressions never match typed fields, as in the engine.
- A scalar inside a JSON column compares by its JSON type: a string as a
  string, a number as a double, a boolean as a boolean.

The result may be NULL where the field is missing; `where` wraps every
comparison in `COALESCE(..., FALSE)`, so NULL never reaches NOT.
"""

from __future__ import annotations

import dataclasses
import operator
import re
from collections.abc import Callable, Iterator, Mapping

from pathways_workload.analytics import columns, sql
from pathways_workload.analytics.operands import AUDIT_LOG_COLUMN, AUDIT_TYPE, Operand
from pathways_workload.lql import fields, nodes, values

NEVER = "FALSE"
# The characters of a JSON number's text (`-1.5e+20`).
_SCALAR_TEXT = re.compile(r"[0-9.e+-]*")
_ORDER_TESTS: Mapping[str, Callable[[int, int], bool]] = {
    "=": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


def compare(operand: Operand, op: str, literal: nodes.Literal) -> str:
    """SQL for `operand op literal` (not `:*`, which is `presence`)."""
    if operand.record:
        fields_ = _RECORDS[operand.column].children
        return _has_in(fields_, operand.column, literal) if op == ":" else NEVER
    if operand.kind == columns.JSON:
        return _json(operand, op, literal)
    if operand.kind == fields.STRING and operand.default is None and _is_null_value(literal):
        return f"{operand.column} IS NOT NULL" if op == "!=" else NEVER  # missing: not defaulted
    if operand.kind == fields.STRING:
        return _string(operand.value, op, literal)
    if operand.kind == fields.SEVERITY:
        return _severity(operand.column, op, literal)
    return _typed(operand, op, literal)


def anywhere(literal: nodes.Literal) -> str:
    """A global restriction: `:` on every field of the row (see `_has_in`)."""
    as_text = dataclasses.replace(literal, quoted=True)  # a bare NULL_VALUE is text here
    row = tuple(field for field in columns.VIEW_COLUMNS if field.key != "logId")
    return _has_in(row, "", as_text)


def _has_in(fields_: tuple[columns.Field, ...], prefix: str, literal: nodes.Literal) -> str:
    """`:` on every field under a record (or the row): OR of `field:value` on each field that
    is present (an absent one is not searched, so its default does not match), each with its
    type's meaning, as the engine searches an entry (`severity:WARNING`, never
    `severity:WARN`); an AuditLog's `@type` too."""
    if _is_null_value(literal):
        return NEVER
    found = [_present_has(operand, literal) for operand in _leaves(fields_, prefix)]
    if prefix in ("", AUDIT_LOG_COLUMN):
        found.append(compare(AUDIT_TYPE, ":", literal))
    kept = [predicate for predicate in found if predicate != NEVER]
    return f"({' OR '.join(kept)})" if kept else NEVER


def _leaves(fields_: tuple[columns.Field, ...], prefix: str) -> Iterator[Operand]:
    """Operands of every non-record field below a record, without defaults."""
    for field in fields_:
        path = f"{prefix}.{field.name}" if prefix else field.name
        if field.kind == columns.RECORD:
            yield from _leaves(field.children, path)
        else:
            yield Operand(field.kind, path)


def _present_has(operand: Operand, literal: nodes.Literal) -> str:
    """`field:value` on a field, false when the field is absent."""
    found = compare(operand, ":", literal)
    if operand.kind == fields.SEVERITY and found != NEVER:
        return f"({operand.column} IS NOT NULL AND {found})"
    return found


def _records(
    fields_: tuple[columns.Field, ...], prefix: str
) -> Iterator[tuple[str, columns.Field]]:
    """Every record of the view by its SQL path."""
    for field in fields_:
        path = f"{prefix}.{field.name}" if prefix else field.name
        if field.kind == columns.RECORD:
            yield path, field
            yield from _records(field.children, path)


def presence(operand: Operand) -> str:
    """`field:*`: the field is explicitly present."""
    if operand.kind == columns.JSON:
        return f"{operand.json_query} IS NOT NULL"
    return f"{operand.column} IS NOT NULL"


def _string(value: str, op: str, literal: nodes.Literal) -> str:
    """A STRING column (defaults applied)."""
    if _is_null_value(literal):
        return "TRUE" if op == "!=" else NEVER
    if op == ":":
        return f"CONTAINS_SUBSTR({value}, {sql.string(literal.text)})"
    if op == "=~":
        return f"REGEXP_CONTAINS({value}, {sql.regex(literal.text)})"
    if op == "!~":
        return f"NOT REGEXP_CONTAINS({value}, {sql.regex(literal.text)})"
    return f"NORMALIZE_AND_CASEFOLD({value}, NFKC) {op} {sql.string(values.fold(literal.text))}"


def _json(operand: Operand, op: str, literal: nodes.Literal) -> str:
    """A value inside a JSON column: strings compared as strings, `:` searches inside."""
    if _is_null_value(literal):
        null_text = f"TO_JSON_STRING({operand.json_query})"
        if op in ("=", ":"):
            return f"{null_text} = 'null'"
        return f"{null_text} != 'null'" if op == "!=" else NEVER
    if operand.column in columns.STRING_MAPS and operand.keys:
        return _string(operand.json_value, op, literal)
    if op == ":" and operand.keys:
        return _json_has(operand, literal)
    if op == ":":
        return f"CONTAINS_SUBSTR({operand.column}, {sql.string(literal.text)})"
    if not operand.keys:
        return _string(operand.json_value, op, literal)
    return _json_typed(operand, op, literal)


def _json_has(operand: Operand, literal: nodes.Literal) -> str:
    """`:` on a value inside a JSON column: by its type (`_json_typed`) when the literal could
    be read in a number's or boolean's text, where a substring search is wrong (`code:5`
    would match 15, `ok:"al"` false); else one substring search, which then only strings and
    what objects and arrays hold can match."""
    folded = values.fold(literal.text)
    if (
        _SCALAR_TEXT.fullmatch(folded)
        or folded in "true"
        or folded in "false"
        or values.parse_number(literal.text) is not None
        or values.parse_bool(literal.text) is not None
    ):
        return _json_typed(operand, ":", literal)
    return f"CONTAINS_SUBSTR({operand.json_query}, {sql.string(literal.text)})"


def _json_typed(operand: Operand, op: str, literal: nodes.Literal) -> str:
    """A JSON value compared by its type, as the engine compares it: a string as a string,
    a number as a double and a boolean as a boolean, each with the literal converted (false
    when it does not convert; `:` is equality on them, never a substring of their text);
    regular expressions match strings only; `:` searches inside an object or array."""
    kinds = [f"WHEN 'string' THEN {_string(operand.json_value, op, literal)}"]
    number = values.parse_number(literal.text)
    boolean = values.parse_bool(literal.text)
    test = "=" if op == ":" else op
    if op not in ("=~", "!~") and number is not None:
        double = f"CAST({sql.string(repr(number))} AS FLOAT64)"
        kinds.append(f"WHEN 'number' THEN LAX_FLOAT64({operand.json_query}) {test} {double}")
    if op not in ("=~", "!~") and boolean is not None:
        truth = "TRUE" if boolean else "FALSE"
        kinds.append(f"WHEN 'boolean' THEN LAX_BOOL({operand.json_query}) {test} {truth}")
    if op == ":":
        inside = f"CONTAINS_SUBSTR({operand.json_query}, {sql.string(literal.text)})"
        kinds.append(f"WHEN 'object' THEN {inside} WHEN 'array' THEN {inside}")
    return f"CASE JSON_TYPE({operand.json_query}) {' '.join(kinds)} ELSE FALSE END"


def _severity(value: str, op: str, literal: nodes.Literal) -> str:
    """Severity by level: the names the comparison admits (an absent one reads as DEFAULT)."""
    wanted = values.parse_severity(literal.text) if op not in ("=~", "!~") else None
    if wanted is None:
        return NEVER
    test = _ORDER_TESTS["=" if op == ":" else op]
    admitted = [name for name, level in values.SEVERITY_LEVELS.items() if test(level, wanted)]
    refused = [name for name in values.SEVERITY_LEVELS if name not in admitted]
    if not admitted:
        return NEVER
    if not refused:
        return "TRUE"
    if "DEFAULT" in admitted:
        return f"({value} IS NULL OR {value} NOT IN ({_names(refused)}))"
    return f"{value} IN ({_names(admitted)})"


def _typed(operand: Operand, op: str, literal: nodes.Literal) -> str:
    """Timestamps, integers and booleans: the literal converted to the field's type."""
    if op in ("=~", "!~"):
        return NEVER
    converted = _LITERALS[operand.kind](literal.text)
    if converted is None:
        return NEVER
    return f"{operand.value} {'=' if op == ':' else op} {converted}"


def _timestamp_literal(text: str) -> str | None:
    nanos = values.parse_timestamp(text)
    return None if nanos is None else sql.timestamp(nanos)


def _integer_literal(text: str) -> str | None:
    number = values.parse_integer(text)
    return None if number is None else str(number)


def _boolean_literal(text: str) -> str | None:
    truth = values.parse_bool(text)
    return None if truth is None else ("TRUE" if truth else "FALSE")


def _is_null_value(literal: nodes.Literal) -> bool:
    return not literal.quoted and literal.text == "NULL_VALUE"


def _names(names: list[str]) -> str:
    return ", ".join(sql.string(name) for name in names)


_RECORDS = dict(_records(columns.VIEW_COLUMNS, ""))

_LITERALS: Mapping[str, Callable[[str], str | None]] = {
    fields.TIMESTAMP: _timestamp_literal,
    fields.INTEGER: _integer_literal,
    fields.BOOLEAN: _boolean_literal,
}
