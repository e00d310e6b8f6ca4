"""Compiler: a syntax tree to one closure that tells whether an entry matches.

Everything that does not depend on the entry happens here, once: paths are
resolved (undefined fields are errors now), literals converted, regular
expressions compiled. Comparisons on the same field under one AND or OR are
fused into one check that reads the field once and folds its string once, so
`textPayload:("a" OR "b" OR ...)` is one folded string and a loop of `in`.

Predicates take the entry and a per-entry memo (a fresh dict per entry) where
whole-entry work, such as the folded scalars that global restrictions search,
is kept for the other predicates of the same entry.
"""

from __future__ import annotations

import dataclasses
import urllib.parse
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from pathways_workload.lql import (
    access,
    analyzer,
    checks,
    diagnostics,
    fields,
    networks,
    nodes,
    values,
)

Entry = Mapping[str, object]
Memo = dict[str, object]
Predicate = Callable[[Entry, Memo], bool]
# What makes comparisons on the same field: its LogEntry keys, kind and free keys.
_FieldKey = tuple[tuple[str, ...], str, tuple[str, ...]]

LOG_NAME = fields.FieldRef("logName", ("logName",), fields.STRING, ())


def always(entry: Entry, memo: Memo) -> bool:
    """The predicate of the empty filter."""
    return True


def never(entry: Entry, memo: Memo) -> bool:
    """The predicate of a comparison that cannot hold (its value does not convert)."""
    return False


@dataclasses.dataclass(frozen=True)
class _Scalars:
    """The scalars of one entry (or LogEntry message), as `:` searches them.

    JSON values (text fields, payloads, labels) by type: folded strings,
    numbers as doubles, booleans; typed LogEntry fields as their keys, by kind
    (`checks.KEY_CONVERTERS`), so they match only what `field:value` matches.
    """

    strings: tuple[str, ...]
    numbers: tuple[int | float, ...]
    booleans: frozenset[bool]
    keys: Mapping[str, frozenset[object]]


@dataclasses.dataclass(frozen=True)
class _Tokens:
    """The SEARCH tokens of one entry: per string, and all together."""

    lists: list[list[str]]
    present: frozenset[str]


def compile_tree(tree: nodes.Node, filter_text: str) -> Predicate:
    """Compile a syntax tree to a predicate.

    Raises:
        diagnostics.LqlError: a path is undefined, or a literal cannot be compiled
            (a malformed regular expression or SEARCH query).
    """
    return _Compiler(filter_text).node(tree)


class _Compiler:
    """Compiles the nodes of one filter (kept for its text, used in errors)."""

    def __init__(self, filter_text: str) -> None:
        self._text = filter_text

    def node(self, node: nodes.Node) -> Predicate:
        """Compile any node."""
        if isinstance(node, (nodes.And, nodes.Or)):
            return self._junction(node)
        if isinstance(node, nodes.Not):
            return _negation(self.node(node.operand))
        if isinstance(node, nodes.Comparison) and node.op == ":*":
            read_explicit = access.getter(fields.resolve(node.path, self._text), explicit=True)
            return lambda entry, memo: read_explicit(entry) is not access.MISSING
        if isinstance(node, nodes.Comparison):
            return self._comparisons([node], conjunctive=True)
        if isinstance(node, nodes.Restriction):
            return _global_restriction(node.value)
        if isinstance(node, nodes.Search):
            return self._search(node)
        if isinstance(node, nodes.LogId):
            return _log_id(node.log_id)
        if isinstance(node, nodes.IpInNet):
            return self._ip_in_net(node)
        return always

    def _junction(self, node: nodes.And | nodes.Or) -> Predicate:
        """Compile a chain of ANDs or ORs, fusing comparisons on the same field."""
        conjunctive = isinstance(node, nodes.And)
        groups: dict[_FieldKey, list[nodes.Comparison]] = {}
        order: list[nodes.Node | _FieldKey] = []
        for operand in nodes.operands(node):
            if isinstance(operand, nodes.Comparison) and operand.op != ":*":
                field = fields.resolve(operand.path, self._text)
                key = (field.entry_keys, field.kind, field.free_keys)
                if key not in groups:
                    groups[key] = []
                    order.append(key)
                groups[key].append(operand)
            else:
                order.append(operand)
        predicates = [
            self._comparisons(groups[item], conjunctive)
            if isinstance(item, tuple)
            else self.node(item)
            for item in order
        ]
        return _conjunction(predicates) if conjunctive else _disjunction(predicates)

    def _comparisons(self, comparisons: list[nodes.Comparison], conjunctive: bool) -> Predicate:
        """Compile comparisons on one field, joined by AND or by OR."""
        field = fields.resolve(comparisons[0].path, self._text)
        for comparison in comparisons:
            if comparison.op in checks.REGEX_OPERATORS and comparison.value is not None:
                checks.regex_search(comparison.value, self._text)
        if field.kind in checks.KEY_CONVERTERS and not field.free_keys:
            return _typed_field(field, comparisons, conjunctive)
        if field.kind == fields.MESSAGE:
            return _message_field(field, comparisons, conjunctive)
        text_checks = [
            checks.text_check(comparison.op, comparison.value, self._text)
            for comparison in comparisons
            if comparison.value is not None
        ]
        return _text_field(field, text_checks, conjunctive)

    def _search(self, node: nodes.Search) -> Predicate:
        """Compile SEARCH, over the whole entry or one field."""
        try:
            query = analyzer.parse_query(node.query.text)
        except ValueError as error:
            raise diagnostics.LqlSyntaxError(
                f"{error} (at {diagnostics.position(self._text, node.query.start)})",
                self._text,
                node.query.start,
            ) from error
        if node.path is None:
            return lambda entry, memo: analyzer.matches(query, *_entry_tokens(entry, memo))
        field = fields.resolve(node.path, self._text)
        if field.kind in checks.KEY_CONVERTERS and not field.free_keys:
            return never
        read = access.getter(field)
        spec = fields.spec_of(field) if not field.free_keys else fields.FieldSpec("", field.kind)

        def search_field(entry: Entry, memo: Memo) -> bool:
            value = read(entry)
            if value is access.MISSING:
                return False
            token_lists = [analyzer.tokens(item) for item in _text_strings(value, spec)]
            present = frozenset(token for tokens in token_lists for token in tokens)
            return analyzer.matches(query, token_lists, present)

        return search_field

    def _ip_in_net(self, node: nodes.IpInNet) -> Predicate:
        """Compile ip_in_net: a string value of the field (any element) lies in the subnet."""
        network = networks.subnet(node.subnet, self._text)
        field = fields.resolve(node.path, self._text)
        if field.kind in checks.KEY_CONVERTERS and not field.free_keys:
            return never
        read = access.getter(field)

        def ip_in_net(entry: Entry, memo: Memo) -> bool:
            return any(networks.contains(network, item) for item in access.flatten(read(entry)))

        return ip_in_net


def _negation(inner: Predicate) -> Predicate:
    """NOT of a predicate."""
    if inner is always:
        return never
    if inner is never:
        return always
    return lambda entry, memo: not inner(entry, memo)


def _conjunction(predicates: Sequence[Predicate]) -> Predicate:
    """AND of predicates, evaluated left to right until one fails."""
    if never in predicates:
        return never
    kept = tuple(predicate for predicate in predicates if predicate is not always)
    if not kept:
        return always
    if len(kept) == 1:
        return kept[0]

    def all_hold(entry: Entry, memo: Memo) -> bool:
        for predicate in kept:  # noqa: SIM110 (a loop is twice as fast as all() here)
            if not predicate(entry, memo):
                return False
        return True

    return all_hold


def _disjunction(predicates: Sequence[Predicate]) -> Predicate:
    """OR of predicates, evaluated left to right until one holds."""
    if always in predicates:
        return always
    kept = tuple(predicate for predicate in predicates if predicate is not never)
    if not kept:
        return never
    if len(kept) == 1:
        return kept[0]

    def any_holds(entry: Entry, memo: Memo) -> bool:
        for predicate in kept:  # noqa: SIM110 (a loop is twice as fast as any() here)
            if predicate(entry, memo):
                return True
        return False

    return any_holds


def _typed_field(
    field: fields.FieldRef, comparisons: list[nodes.Comparison], conjunctive: bool
) -> Predicate:
    """Comparisons on a typed LogEntry field: convert the value once, test the key."""
    found = [
        checks.key_test(field.kind, comparison.op, comparison.value)
        for comparison in comparisons
        if comparison.value is not None
    ]
    tests = tuple(test for test in found if test is not None)
    if not tests or (conjunctive and len(tests) < len(found)):
        return never
    read = access.getter(field)
    convert = checks.KEY_CONVERTERS[field.kind]
    joined = _join_key_tests(tests, conjunctive)
    join = all if conjunctive else any

    def on_list(value: list[object]) -> bool:
        keys = [convert(item) for item in access.flatten(value)]
        return join(any(test(key) for key in keys) for test in tests)

    if field.kind == fields.SEVERITY:
        return _severity_field(read, joined, on_list)

    def typed(entry: Entry, memo: Memo) -> bool:
        value = read(entry)
        return on_list(value) if isinstance(value, list) else joined(convert(value))

    return typed


def _severity_field(
    read: access.Getter, joined: checks.KeyTest, on_list: Callable[[list[object]], bool]
) -> Predicate:
    """Severity comparisons, decided in advance for each of the nine level names."""
    by_name = {name: joined(level) for name, level in values.SEVERITY_LEVELS.items()}

    def severity(entry: Entry, memo: Memo) -> bool:
        value = read(entry)
        if isinstance(value, str):
            decided = by_name.get(value.upper())
            return joined(values.severity_level(value)) if decided is None else decided
        if isinstance(value, list):
            return on_list(value)
        return joined(values.severity_level(value))

    return severity


def _join_key_tests(tests: Sequence[checks.KeyTest], conjunctive: bool) -> checks.KeyTest:
    """One test of a key for all (or any) of `tests`: short-circuits for the usual two."""
    if len(tests) == 1:
        return tests[0]
    if len(tests) == 2:
        first, second = tests
        if conjunctive:
            return lambda key: first(key) and second(key)
        return lambda key: first(key) or second(key)
    join = all if conjunctive else any
    return lambda key: join(test(key) for test in tests)


def _text_field(
    field: fields.FieldRef, text_checks: list[checks.TextCheck], conjunctive: bool
) -> Predicate:
    """Comparisons on a text field (JSON values), fused into one test per value."""
    read = access.getter(field)
    if not conjunctive or len(text_checks) == 1:
        return _any_on(read, text_checks)
    every = _all_checks(text_checks)
    each = [_any_on(_itself, [check]) for check in text_checks]

    def all_on_field(entry: Entry, memo: Memo) -> bool:
        value = read(entry)
        if isinstance(value, list):
            items = list(access.flatten(value))
            return all(any(single(item, memo) for item in items) for single in each)
        return value is not access.MISSING and every(value)

    return all_on_field


def _itself(value: object) -> object:
    """The getter of a value that is already at hand."""
    return value


def _any_on(
    read: Callable[[Any], object], text_checks: list[checks.TextCheck]
) -> Callable[[Any, Memo], bool]:
    """The value `read` finds (or any element of it, if a list) passes any of the checks.

    Strings are folded once, then looked up in the set of equalities and
    searched for each contained term before the other checks run. (One
    function for reading and testing: a call fewer per field and entry.)
    """
    equal = frozenset(check.equal for check in text_checks if check.equal is not None)
    contains = tuple(check.contains for check in text_checks if check.contains is not None)
    on_strings = tuple(
        check.test for check in text_checks if check.equal is None and check.contains is None
    )
    on_others = tuple(check.test for check in text_checks)
    folds = any(check.folds for check in text_checks)
    fold = values.fold

    def any_on(source: Any, memo: Memo) -> bool:
        value = read(source)
        if isinstance(value, str):
            folded = (value.lower() if value.isascii() else fold(value)) if folds else ""
            if folded in equal:
                return True
            for term in contains:
                if term in folded:
                    return True
            return bool(on_strings) and any(check(value, folded) for check in on_strings)
        if isinstance(value, list):
            return any(each_item(item, memo) for item in access.flatten(value))
        return value is not access.MISSING and any(check(value, "") for check in on_others)

    each_item = any_on if read is _itself else _any_on(_itself, text_checks)
    return any_on


def _all_checks(text_checks: list[checks.TextCheck]) -> Callable[[object], bool]:
    """One value passes every check, folded once."""
    tests = tuple(check.test for check in text_checks)
    folds = any(check.folds for check in text_checks)

    def test(value: object) -> bool:
        folded = values.fold(value) if folds and isinstance(value, str) else ""
        return all(each(value, folded) for each in tests)

    return test


def _message_field(
    field: fields.FieldRef, comparisons: list[nodes.Comparison], conjunctive: bool
) -> Predicate:
    """Comparisons on a LogEntry message (`sourceLocation:42`): `:` searches its fields as
    a global restriction searches the entry's; no other operator holds on a message."""
    spec = fields.spec_of(field)
    read = access.getter(field)
    tests = [
        _has(comparison.value)
        if comparison.op == ":" and not _is_null_value(comparison.value)
        else None
        for comparison in comparisons
        if comparison.value is not None
    ]
    kept = tuple(test for test in tests if test is not None)
    if not kept or (conjunctive and len(kept) < len(tests)):
        return never
    join = all if conjunctive else any

    def message(entry: Entry, memo: Memo) -> bool:
        value = read(entry)
        if value is access.MISSING:
            return False
        found = _scalars_of(access.typed_scalars(value, spec))
        return join(test(found) for test in kept)

    return message


def _is_null_value(literal: nodes.Literal) -> bool:
    """Whether a literal is the bare `NULL_VALUE`."""
    return not literal.quoted and literal.text == "NULL_VALUE"


def _global_restriction(literal: nodes.Literal) -> Predicate:
    """A bare value: some field of the entry has it, as `field:value` has it (`_has`)."""
    has = _has(literal)
    return lambda entry, memo: has(_entry_scalars(entry, memo))


def _has(literal: nodes.Literal) -> Callable[[_Scalars], bool]:
    """The test `:` makes of scalars: a string contains the value (case-folded); a number or
    boolean equals it when it converts to one; a typed field's key equals the value converted
    to the field's type (`severity:WARNING`, never `severity:WARN`). Null and keys never match.
    """
    folded = values.fold(literal.text)
    number = values.parse_number(literal.text)
    boolean = values.parse_bool(literal.text)
    wanted = [
        (kind, key)
        for kind, convert in checks.LITERAL_CONVERTERS.items()
        if (key := convert(literal.text)) is not None
    ]

    def has(found: _Scalars) -> bool:
        if any(folded in string for string in found.strings):
            return True
        if number is not None and number in found.numbers:
            return True
        if boolean is not None and boolean in found.booleans:
            return True
        return any(key in found.keys.get(kind, ()) for kind, key in wanted)

    return has


def _scalars_of(pairs: Iterable[tuple[str, object]]) -> _Scalars:
    """Sort `(kind, scalar)` pairs (`access.typed_scalars`) into what `_has` searches."""
    strings: list[str] = []
    numbers: list[float] = []
    booleans: set[bool] = set()
    keys: dict[str, set[object]] = {}
    for kind, item in pairs:
        convert = checks.KEY_CONVERTERS.get(kind)
        if convert is not None:
            key = convert(item)
            if key is not None:
                keys.setdefault(kind, set()).add(key)
        elif isinstance(item, str):
            strings.append(values.fold(item))
        elif isinstance(item, bool):
            booleans.add(item)
        elif isinstance(item, (int, float)):
            numbers.append(values.as_double(item))
    frozen = {kind: frozenset(found) for kind, found in keys.items()}
    return _Scalars(tuple(strings), tuple(numbers), frozenset(booleans), frozen)


def _entry_scalars(entry: Entry, memo: Memo) -> _Scalars:
    """The entry's scalars as `_has` searches them, computed once per entry."""
    cached = memo.get("scalars")
    if isinstance(cached, _Scalars):
        return cached
    found = _scalars_of(access.typed_scalars(entry, fields.LOG_ENTRY_FIELDS))
    memo["scalars"] = found
    return found


def _entry_tokens(entry: Entry, memo: Memo) -> tuple[list[list[str]], frozenset[str]]:
    """The SEARCH tokens of every string of the entry, computed once per entry."""
    cached = memo.get("tokens")
    if not isinstance(cached, _Tokens):
        lists = [analyzer.tokens(text) for text in _text_strings(entry, fields.LOG_ENTRY_FIELDS)]
        cached = _Tokens(lists, frozenset(token for tokens in lists for token in tokens))
        memo["tokens"] = cached
    return cached.lists, cached.present


def _text_strings(value: object, spec: fields.FieldSpec) -> list[str]:
    """The strings SEARCH reads in `value`, a value of the field `spec`: text fields,
    payloads and labels; never a typed LogEntry field written as a string (severity,
    timestamps, durations, int64), since SEARCH cannot match non-text fields."""
    return [
        item
        for kind, item in access.typed_scalars(value, spec)
        if kind == fields.STRUCT and isinstance(item, str)
    ]


def _log_id(literal: nodes.Literal) -> Predicate:
    """log_id("a/b"): the URL-decoded log ID of `logName` is the (decoded) argument."""
    wanted = values.fold(urllib.parse.unquote(literal.text))
    read = access.getter(LOG_NAME)

    def log_id(entry: Entry, memo: Memo) -> bool:
        name = read(entry)
        if not isinstance(name, str):
            return False
        _, separator, encoded = name.partition("/logs/")
        return bool(separator) and values.fold(urllib.parse.unquote(encoded)) == wanted

    return log_id
