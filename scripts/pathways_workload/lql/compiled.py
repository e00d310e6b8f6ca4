"""`compile_filter` and the `CompiledFilter` it returns: parse once, match many entries."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from pathways_workload.lql import compiler, diagnostics, parser, prefilter


class CompiledFilter:
    """A filter compiled for repeated matching against log entries."""

    __slots__ = ("_predicate", "_raw_test", "_text")

    def __init__(
        self, text: str, predicate: compiler.Predicate, raw_test: prefilter.RawLineTest
    ) -> None:
        self._text = text
        self._predicate = predicate
        self._raw_test = raw_test

    def __repr__(self) -> str:
        return f"CompiledFilter({self._text!r})"

    @property
    def text(self) -> str:
        """The filter as written."""
        return self._text

    @property
    def required(self) -> tuple[frozenset[bytes], ...]:
        """The prefilter's groups: a line that may match holds one string of each group.

        The strings are lowercase; search for them without regard to ASCII case.
        Valid only for ASCII lines without `\\u` or `\\/` escapes (others may
        always match).
        """
        return self._raw_test.required

    def matches(self, entry: Mapping[str, object]) -> bool:
        """Tell whether a LogEntry (API JSON shape, camelCase keys) matches.

        Anything that is not a JSON object is read as an entry with no fields.
        """
        if not isinstance(entry, dict):
            entry = {}
        return self._predicate(entry, {})

    def narrowed(self, also: Callable[[Mapping[str, object]], bool]) -> CompiledFilter:
        """This filter ANDed with `also` (asked only of entries this filter matches); the
        prefilter stays this filter's, which still holds."""
        first = self._predicate
        return CompiledFilter(
            self._text,
            lambda entry, memo: first(entry, memo) and also(entry),
            self._raw_test,
        )

    def may_match_raw(self, line: bytes | bytearray) -> bool:
        """Tell, without parsing it, whether a JSON line's entry may match.

        False only when `matches(json.loads(line))` is False; True when the
        line may match or cannot be decided cheaply (non-ASCII text, `\\u` or
        `\\/` escapes, or something other than bytes).
        """
        return self._raw_test(line)


def compile_filter(text: str) -> CompiledFilter:
    """Parse and compile a Logging query language filter.

    Raises:
        diagnostics.LqlError: with `kind` "syntax", "limit", "undefined-field" or
            "unsupported", saying what is wrong and where.
    """
    if not isinstance(text, str):
        raise diagnostics.LqlSyntaxError(f"a filter is text, not {type(text).__name__}")
    tree, unsupported = parser.parse_all(text)
    predicate = compiler.compile_tree(tree, text)  # its errors first: Cloud Logging's too
    if unsupported is not None:
        raise unsupported
    return CompiledFilter(text, predicate, prefilter.RawLineTest(tree, text))
