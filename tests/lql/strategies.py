"""Hypothesis strategies: filters built from the grammar, LogEntry-like and arbitrary JSON."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

# Values chosen so that generated filters and entries often meet: case and
# width variants, numbers written as text, severity names, a slash, spaces.
WORDS = (
    "alpha",
    "Alpha",
    "ＡＬＰＨＡ",
    "beta",
    "al",
    "ERROR",
    "critical",
    "info",
    "5",
    "5.0",
    "-2",
    "true",
    "é",
    "straße",
    "a/b",
    "x y",
    "stdout",
    "k8s_container",
    "2026-10-22T11:10:00Z",
    "10.1.2.3",
    "1:2::3/64",
    "",
)
FIELDS = (
    "textPayload",
    "jsonPayload.message",
    "jsonPayload.code",
    "jsonPayload.tags",
    "jsonPayload.flag",
    "jsonPayload",
    "labels.env",
    "labels",
    "resource.type",
    "resource.labels.pod_name",
    "severity",
    "insertId",
    "logName",
    "timestamp",
    "httpRequest.status",
    "protoPayload.method_name",
)
OPERATORS = ("=", "!=", ":", "<", "<=", ">", ">=", "=~", "!~")


def quoted(text: str) -> str:
    """A filter string literal for `text`."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


@st.composite
def comparisons(draw: st.DrawFn, field: str | None = None) -> str:
    """One comparison, possibly with a parenthesized right-hand side."""
    path = field if field is not None else draw(st.sampled_from(FIELDS))
    operator = draw(st.sampled_from((*OPERATORS, ":*")))
    if operator == ":*":
        return f"{path}:*"
    if operator in ("=~", "!~"):
        pattern = draw(st.sampled_from(("^al", "(?i)ALPHA", "a/b", "^$", "[0-9]", "é")))
        return f"{path}{operator}{quoted(pattern)}"
    value = draw(st.sampled_from((*WORDS, "NULL_VALUE")))
    written = value if value in ("NULL_VALUE", "5", "true", "ERROR", "info") else quoted(value)
    if draw(st.booleans()):
        return f"{path}{operator}{written}"
    other = quoted(draw(st.sampled_from(WORDS)))
    joiner = draw(st.sampled_from((" OR ", " AND ", " ", " OR NOT ")))
    return f"{path}{operator}({written}{joiner}{other})"


@st.composite
def terms(draw: st.DrawFn) -> str:
    """A term: a comparison, a global restriction or a function."""
    kind = draw(
        st.sampled_from(("comparison", "comparison", "global", "search", "log_id", "ip_in_net"))
    )
    word = draw(st.sampled_from([word for word in WORDS if word]))
    if kind == "global":
        return quoted(word)
    if kind == "search":
        return f"SEARCH({quoted(word)})"
    if kind == "log_id":
        return f"log_id({quoted(draw(st.sampled_from(('stdout', 'a/b'))))})"
    if kind == "ip_in_net":
        field = draw(st.sampled_from(FIELDS))
        subnet = draw(st.sampled_from(("10.0.0.0/8", "10.1.2.3", "1:2::/48", "::/0")))
        return f"ip_in_net({field}, {quoted(subnet)})"
    return draw(comparisons())


def filters() -> st.SearchStrategy[str]:
    """Whole filters: terms joined by AND, OR, whitespace, NOT and parentheses."""
    return st.recursive(
        terms(),
        lambda inner: st.one_of(
            st.tuples(inner, st.sampled_from((" AND ", " OR ", " ", "\n")), inner).map("".join),
            inner.map(lambda text: f"NOT {text}"),
            inner.map(lambda text: f"-({text})"),
            inner.map(lambda text: f"({text})"),
        ),
        max_leaves=5,
    )


@st.composite
def constrained_terms(draw: st.DrawFn) -> str:
    """A term the fast path derives byte strings from: equality, has, global, SEARCH, severity."""
    word = draw(st.sampled_from(WORDS))
    kind = draw(st.sampled_from(("field", "field", "global", "search", "severity")))
    if kind == "field":
        field = draw(st.sampled_from(FIELDS))
        return f"{field}{draw(st.sampled_from(('=', ':')))}{quoted(word)}"
    if kind == "global":
        return quoted(word)
    if kind == "search":
        return f"SEARCH({quoted(word or 'alpha')})"
    level = draw(st.sampled_from(("ERROR", "critical", "INFO", "DEFAULT", "400")))
    return f"severity{draw(st.sampled_from(OPERATORS[:-2]))}{level}"


def constrained_filters() -> st.SearchStrategy[str]:
    """Filters of constrained terms joined by AND, OR and whitespace (no NOT)."""
    return st.recursive(
        constrained_terms(),
        lambda inner: st.one_of(
            st.tuples(inner, st.sampled_from((" AND ", " OR ", " ")), inner).map("".join),
            inner.map(lambda text: f"({text})"),
        ),
        max_leaves=4,
    )


def _texts() -> st.SearchStrategy[str]:
    words = st.lists(st.sampled_from(WORDS), max_size=4).map(" ".join)
    return st.one_of(words, st.text(max_size=12), st.sampled_from(('a"b', "a\\b", "a/b", "\n")))


def scalars() -> st.SearchStrategy[Any]:
    """JSON scalars, numbers of every shape included."""
    return st.one_of(
        st.sampled_from((5, 5.0, "5", "5.0", -2, -2.0, 1e3, True, False, None, "true")),
        st.integers(min_value=-(10**20), max_value=10**20),
        st.floats(allow_nan=False, allow_infinity=False),
        _texts(),
    )


def json_values() -> st.SearchStrategy[Any]:
    """Arbitrary JSON values."""
    return st.recursive(
        scalars(),
        lambda inner: st.one_of(
            st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)
        ),
        max_leaves=10,
    )


@st.composite
def log_entries(draw: st.DrawFn) -> dict[str, Any]:
    """LogEntry-shaped dicts, with any JSON in any field now and then."""
    entry: dict[str, Any] = {"insertId": draw(st.sampled_from(("alpha-1", "x", "é")))}
    options = {
        "logName": st.sampled_from(("projects/p/logs/stdout", "projects/p/logs/a%2Fb", "x")),
        "textPayload": _texts(),
        "jsonPayload": st.fixed_dictionaries(
            {},
            optional={
                "message": _texts(),
                "code": scalars(),
                "tags": st.lists(scalars(), max_size=3),
                "flag": scalars(),
            },
        ),
        "labels": st.dictionaries(st.sampled_from(("env", "Env")), _texts(), max_size=2),
        "resource": st.fixed_dictionaries(
            {"type": st.sampled_from(("k8s_container", "gce_instance"))},
            optional={"labels": st.fixed_dictionaries({"pod_name": _texts()})},
        ),
        "severity": st.sampled_from(("ERROR", "error", "Critical", "INFO", "DEFAULT", "WARN", 500)),
        "timestamp": st.sampled_from(("2026-10-22T11:10:00Z", "2026-10-22T11:10:00.5+01:00", "x")),
        "httpRequest": st.fixed_dictionaries({"status": scalars()}),
        "protoPayload": st.fixed_dictionaries({"methodName": _texts()}),
    }
    for name, strategy in options.items():
        if draw(st.booleans()):
            entry[name] = draw(
                st.one_of(strategy, json_values()) if draw(st.booleans()) else strategy
            )
    return entry


# Where `derived_cases` looks for a value in an entry, and how a filter names it.
ENTRY_PATHS = (
    (("textPayload",), "textPayload"),
    (("jsonPayload", "message"), "jsonPayload.message"),
    (("jsonPayload", "code"), "jsonPayload.code"),
    (("jsonPayload", "flag"), "jsonPayload.flag"),
    (("labels", "env"), "labels.env"),
    (("resource", "type"), "resource.type"),
    (("severity",), "severity"),
    (("httpRequest", "status"), "httpRequest.status"),
)


def _variants(value: Any) -> list[str]:
    """Ways a filter may write a value that should (or nearly) match it."""
    if isinstance(value, bool) or value is None:
        return ["true", "false", "NULL_VALUE", quoted(json.dumps(value))]
    if isinstance(value, (int, float)):
        number = float(value)
        forms = {str(value), repr(number), json.dumps(value)}
        if number.is_integer() and abs(number) < 1e15:
            forms.add(str(int(number)))
        return sorted(forms) + [quoted(form) for form in sorted(forms)]
    if isinstance(value, str):
        return [quoted(form) for form in (value, value.upper(), value[1:4], value[:2].swapcase())]
    return [quoted("alpha")]


@st.composite
def derived_cases(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    """An entry and a comparison on a value planted in it, so that matches are common."""
    entry = draw(log_entries())
    keys, path = draw(st.sampled_from(ENTRY_PATHS))
    planted = st.sampled_from((5, -2, 1e3, 2.5, True, "ERROR", "Alpha"))
    value = draw(st.one_of(planted, scalars()))
    parent = entry
    for key in keys[:-1]:
        if not isinstance(parent.get(key), dict):
            parent[key] = {}
        parent = parent[key]
    parent[keys[-1]] = value
    literal = draw(st.sampled_from(_variants(value)))
    operator = draw(st.sampled_from(("=", ":", "=", ">=", "<=", "!=")))
    return f"{path}{operator}{literal}", entry


def raw_lines(entry: dict[str, Any]) -> list[bytes]:
    """The ways an export may write one entry as a JSON line."""
    ascii_line = json.dumps(entry)
    return [
        ascii_line.encode("utf-8"),
        json.dumps(entry, ensure_ascii=False).encode("utf-8", "surrogatepass"),
        json.dumps(entry, separators=(",", ":"), sort_keys=True).encode("utf-8"),
        ascii_line.replace("/", "\\/").encode("utf-8"),
    ]
