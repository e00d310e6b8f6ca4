"""The syntax tree of a filter: plain frozen dataclasses, built by the parser.

Offsets (`start`) point into the filter text so later stages can report
errors with a column. A parenthesized right-hand side never reaches the tree:
the parser distributes its field and operator over each value, so
`f:("a" AND "b")` arrives as `And(Comparison(f, ":", a), Comparison(f, ":", b))`.
"""

from __future__ import annotations

import dataclasses
from typing import TypeAlias

# Operators whose value is an RE2 pattern; the parser accepts only a quoted one.
REGEX_OPERATORS = frozenset({"=~", "!~"})


@dataclasses.dataclass(frozen=True)
class Path:
    """A field path such as `resource.labels.pod_name`, one string per component."""

    components: tuple[str, ...]
    text: str
    start: int


@dataclasses.dataclass(frozen=True)
class Literal:
    """A value as written: its decoded text and whether it was double-quoted."""

    text: str
    quoted: bool
    start: int


@dataclasses.dataclass(frozen=True)
class Comparison:
    """`path op value`; `value` is None for the presence test `:*`."""

    path: Path
    op: str
    value: Literal | None


@dataclasses.dataclass(frozen=True)
class Restriction:
    """A global restriction: a bare value searched for in every field."""

    value: Literal


@dataclasses.dataclass(frozen=True)
class Search:
    """`SEARCH("query")` over the whole entry, or `SEARCH(path, "query")`."""

    query: Literal
    path: Path | None


@dataclasses.dataclass(frozen=True)
class LogId:
    """`log_id("name")`: the entry's log is that (unescaped) log ID."""

    log_id: Literal


@dataclasses.dataclass(frozen=True)
class IpInNet:
    """`ip_in_net(path, "subnet")`: the field holds an IP address or range inside the subnet.

    `subnet` is the quoted string as written; the parser has checked that it
    is a legal IPv4 or IPv6 address or CIDR range (`networks.subnet` reads it,
    `networks` says what is legal). The term holds when a string value at
    `path` (any element, if the value is an array) is an address or range
    that lies within the subnet, of the same IP version. It is false for a
    missing or defaulted field, a value that is not a string, text that is not
    a legal address or range, and any typed LogEntry field (severity,
    timestamps, numbers, booleans); so `NOT ip_in_net(...)` holds for all of those.
    Any other backend (a SQL compiler) must keep exactly these semantics.
    """

    path: Path
    subnet: Literal


@dataclasses.dataclass(frozen=True)
class And:
    """Both sides hold (explicit `AND` or whitespace)."""

    left: Node
    right: Node


@dataclasses.dataclass(frozen=True)
class Or:
    """Either side holds."""

    left: Node
    right: Node


@dataclasses.dataclass(frozen=True)
class Not:
    """The operand does not hold (`NOT` or a leading `-`)."""

    operand: Node


@dataclasses.dataclass(frozen=True)
class Everything:
    """The empty filter, which every entry matches."""


Node: TypeAlias = Comparison | Restriction | Search | LogId | IpInNet | And | Or | Not | Everything


def operands(node: And | Or) -> list[Node]:
    """The operands of a chain of ANDs (or of ORs), left to right, however long the chain."""
    junction = type(node)
    found: list[Node] = []
    pending: list[Node] = [node]
    while pending:
        item = pending.pop()
        if isinstance(item, (And, Or)) and type(item) is junction:
            pending += (item.right, item.left)
        else:
            found.append(item)
    return found
