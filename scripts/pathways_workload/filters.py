"""Small builders for Logging query language text.

Every value is double-quoted and escaped, every OR group parenthesized, so no
user-supplied string can close its quotes or add a clause.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from pathways_workload.errors import UsageError
from pathways_workload.lql import CompiledFilter, LqlError, LqlUnsupportedError, compile_filter
from pathways_workload.lql.parser import MAX_FILTER_LENGTH
from pathways_workload.window import Window

T = TypeVar("T")
# Room left under Cloud Logging's filter length limit for the window and the scope clauses.
FILTER_BUDGET = MAX_FILTER_LENGTH - 1_000
# Where a line's text is: plain lines, JSON lines (`message`), node journal entries
# (`MESSAGE`), and JSON lines of zap or klog (`msg`, as controller-runtime's
# `--zap-encoder=json` and klog's `--logging-format=json` write them).
MESSAGE_FIELDS = ("textPayload", "jsonPayload.message", "jsonPayload.MESSAGE", "jsonPayload.msg")
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f]")
_RE2_SPECIAL_RE = re.compile(r"([\\.^$|?*+()\[\]{}-])")


def unsearchable(value: str) -> str | None:
    """Why a value cannot be searched for as a filter string, or None when it can."""
    if _CONTROL_RE.search(value):
        return "control characters cannot be searched for; remove them"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "it has a byte that is not UTF-8; write it in UTF-8"
    return None


def quote(value: str) -> str:
    """Quote a value as a filter string; control characters and non-UTF-8 bytes are refused."""
    problem = unsearchable(value)
    if problem:
        raise UsageError(f"{value!r}: {problem}")
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def regex_literal(value: str) -> str:
    """Escape a literal for use inside an RE2 pattern."""
    return _RE2_SPECIAL_RE.sub(r"\\\1", value)


def label(key: str) -> str:
    """The path of an entry label whose key has slashes or dots: `labels."k"`."""
    return f"labels.{quote(key)}"


def equals(field: str, value: str) -> str:
    return f"{field}={quote(value)}"


def one_of(field: str, values: Sequence[str], operator: str = "=") -> str:
    """`field=("a" OR "b")`, or `field="a"` for a single value."""
    if not values:
        raise ValueError("one_of needs at least one value")
    if len(values) == 1:
        return f"{field}{operator}{quote(values[0])}"
    return f"{field}{operator}(" + " OR ".join(quote(value) for value in values) + ")"


def any_of(clauses: Iterable[str]) -> str:
    """OR the clauses, parenthesized; a single clause is returned as is.

    A clause that is itself a conjunction (several lines) gets its own
    parentheses, since OR binds tighter than AND.
    """
    items = [f"({clause})" if "\n" in clause else clause for clause in clauses if clause]
    if len(items) == 1:
        return items[0]
    return "(" + " OR ".join(items) + ")"


def all_of(clauses: Iterable[str]) -> str:
    """AND the clauses, one per line (a newline is an implicit AND)."""
    return "\n".join(clause for clause in clauses if clause)


def message_has_any(terms: Sequence[str]) -> str:
    """Case-insensitive substring match of any term in the message fields only."""
    return any_of(one_of(field, terms, ":") for field in MESSAGE_FIELDS)


def within(window: Window) -> str:
    """The explicit, inclusive time bounds every filter carries."""
    return f'timestamp>="{window.start}"\ntimestamp<="{window.end}"'


def log_id(name: str) -> str:
    return f"log_id({quote(name)})"


_compiled = functools.lru_cache(maxsize=64)(compile_filter)  # once per text


def compile_checked(text: str) -> CompiledFilter:
    """Compile a filter, the engine's error turned into a usage error."""
    try:
        return _compiled(text)
    except LqlError as error:
        raise UsageError(error.render()) from None


def check_valid(text: str) -> None:
    """Check a filter Cloud Logging will evaluate: valid, though it may call a function only
    Cloud Logging can evaluate (refused where the offline engine must run it)."""
    try:
        _compiled(text)
    except LqlUnsupportedError:
        return
    except LqlError as error:
        raise UsageError(error.render()) from None


def split_to_fit(
    items: Sequence[T], build: Callable[[Sequence[T]], str], budget: int = FILTER_BUDGET
) -> list[tuple[Sequence[T], str]]:
    """The filters `build` makes for the items, split in halves until each is within budget;
    each with the items it covers."""
    text = build(items)
    if len(text) <= budget or len(items) < 2:
        return [(items, text)]
    half = len(items) // 2
    return split_to_fit(items[:half], build, budget) + split_to_fit(items[half:], build, budget)
