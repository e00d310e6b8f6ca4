"""`compile_filter` and the `CompiledFilter` it returns: parse once, match many entries."""

from __future__ import annotations

from collections.abc import Mapping

from pathways_workload.lql import compiler, errors, parser, prefilter


class CompiledFilter:
    """A filter compiled for repeated matching against log entries."""

    __slots__ = ("_predicate", "_required", "_text")

    def __init__(
        self,
        text: str,
        predicate: compiler.Predicate,
        required: tuple[frozenset[bytes], ...],
    ) -> None:
        self._text = text
        self._predicate = predicate
        self._required = required

    def __repr__(self) -> str:
        return f"CompiledFilter({self._text!r})"

    @property
    def text(self) -> str:
        """The filter as written."""
        return self._text

    def matches(self, entry: Mapping[str, object]) -> bool:
        """Tell whether a LogEntry (API JSON shape, camelCase keys) matches.

        Anything that is not a JSON object is read as an entry with no fields.
        """
        if not isinstance(entry, dict):
            entry = {}
        return self._predicate(entry, {})

    def may_match_raw(self, line: bytes) -> bool:
        """Tell, without parsing it, whether a JSON line's entry may match.

        False only when `matches(json.loads(line))` is False; True when the
        line may match or cannot be decided cheaply (non-ASCII text, `\\u` or
        `\\/` escapes, or something other than bytes).
        """
        if not self._required:
            return True
        if not isinstance(line, (bytes, bytearray)):
            return True
        if not line.isascii() or b"\\u" in line or b"\\/" in line:
            return True
        lowered = line.lower()
        for group in self._required:
            for term in group:
                if term in lowered:
                    break
            else:
                return False
        return True


def compile_filter(text: str) -> CompiledFilter:
    """Parse and compile a Logging query language filter.

    Raises:
        errors.LqlError: with `kind` "syntax", "limit", "undefined-field" or
            "unsupported", saying what is wrong and where.
    """
    if not isinstance(text, str):
        raise errors.LqlSyntaxError(f"a filter is text, not {type(text).__name__}")
    tree = parser.parse(text)
    predicate = compiler.compile_tree(tree, text)
    return CompiledFilter(text, predicate, prefilter.required_groups(tree, text))
