"""Errors of the Logging query language engine.

Every problem with a filter is an `LqlError` whose `kind` names the class of
problem, the same words the conformance data uses: "syntax", "limit",
"undefined-field" and "unsupported". An error that points at a place in the
filter renders that line with a caret under the column, as jmespath does (its
control characters shown as `\\xNN`, the caret placed by terminal cells).
"""

from __future__ import annotations

import unicodedata

from pathways_workload.visible_text import visible

SYNTAX = "syntax"
LIMIT = "limit"
UNDEFINED_FIELD = "undefined-field"
UNSUPPORTED = "unsupported"

# How much of a long filter line the rendered error shows around the caret.
RENDER_WIDTH = 100


class LqlError(Exception):
    """A filter the engine cannot compile: says what is wrong and where.

    Attributes:
        kind: "syntax", "limit", "undefined-field" or "unsupported".
        message: one line saying what is wrong.
        filter_text: the whole filter.
        offset: 0-based character offset of the place in `filter_text`, or None.
        column: 1-based column within `line`, or None when no place applies.
        line: 1-based line of the filter the column is on, or None.
    """

    kind = SYNTAX

    def __init__(self, message: str, filter_text: str = "", offset: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.filter_text = filter_text
        self.offset = offset
        self.line: int | None = None
        self.column: int | None = None
        if offset is not None:
            self.line, self.column = line_and_column(filter_text, offset)

    def __str__(self) -> str:
        return self.message

    def render(self) -> str:
        """Return the message, then the filter line and a caret under the column."""
        if self.line is None or self.column is None:
            return self.message
        text = self.filter_text.split("\n")[self.line - 1].rstrip("\r").replace("\t", " ")
        text = text.encode("utf-8", "replace").decode("utf-8")
        start = max(0, min(self.column - 1 - RENDER_WIDTH // 2, len(text) - RENDER_WIDTH))
        shown = text[start : start + RENDER_WIDTH]
        prefix = "..." if start else ""
        suffix = "..." if start + RENDER_WIDTH < len(text) else ""
        before = visible(prefix + shown[: self.column - 1 - start])
        caret = " " * display_width(before) + "^"
        return f"{self.message}\n{prefix}{visible(shown)}{suffix}\n{caret}"


class LqlSyntaxError(LqlError):
    """The filter does not follow the grammar (or a literal in it is malformed)."""

    kind = SYNTAX


class LqlLimitError(LqlError):
    """The filter is longer than Cloud Logging accepts."""

    kind = LIMIT


class LqlUndefinedFieldError(LqlError):
    """A field path does not start from a LogEntry field, or leaves a scalar."""

    kind = UNDEFINED_FIELD


class LqlUnsupportedError(LqlError):
    """Valid Logging query language that this engine cannot evaluate faithfully."""

    kind = UNSUPPORTED


def display_width(text: str) -> int:
    """How many terminal cells `text` takes: wide (East Asian) characters two, combining
    marks and format characters none, the rest one."""
    width = 0
    for char in text:
        if unicodedata.combining(char) or unicodedata.category(char) == "Cf":
            continue  # combining marks and format characters (zero-width space) take none
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width


def line_and_column(text: str, offset: int) -> tuple[int, int]:
    """Return the 1-based line and column of a 0-based character offset."""
    offset = max(0, min(offset, len(text)))
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - line_start + 1


def position(text: str, offset: int) -> str:
    """Describe an offset for a message: "column 7", or "line 2, column 7"."""
    line, column = line_and_column(text, offset)
    if "\n" in text:
        return f"line {line}, column {column}"
    return f"column {column}"


def shorten(text: str, width: int = 60) -> str:
    """Quote a piece of filter for a message, cut to about `width` characters."""
    if len(text) > width:
        text = text[: width - 3] + "..."
    return repr(text)
