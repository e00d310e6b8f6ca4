"""Find the lines of a JSON Lines block that may match, without touching the others.

Each compiled filter knows groups of byte strings a matching line must contain
(one string of every group). For each filter the scanner picks the group that
the first block shows to be rarest; one RE2 pass over the whole block looks for
all of them at once, so lines that no filter can match cost no Python work at
all, and each candidate line comes with the filters it may match. Lines the
prefilter cannot decide (non-ASCII text, `\\u` or `\\/` escapes) are candidates
for every filter. A fetch that is already full and whose limit the whole block
lies beyond (by its timestamps) takes nothing from the block. Framing (every
line one `{...}` object) is checked for the whole block with byte counts; a
block that fails it goes line by line, which names the bad line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path

import re2

from pathways_workload.lql import CompiledFilter
from pathways_workload.sources.export_reader import Record, block_records
from pathways_workload.timestamps import NANOS_PER_SECOND, format_timestamp_ns

_UNDECIDABLE = re2.compile(rb"[\x80-\xff]|\\u|\\/")
_SAMPLE_BYTES = 1 << 19
# A group found in more than this share of the sample's lines is not worth searching for.
COMMON_FRACTION = 0.5
Candidate = tuple[Record, tuple[int, ...]]
# Once a fetch is full: the instant past which it keeps nothing, and whether that is "later".
TimeBound = tuple[int, bool]


def _alternation(terms: frozenset[bytes]) -> re2._Regexp:
    return re2.compile(b"(?i)" + b"|".join(re2.escape(term) for term in sorted(terms)))


def is_framed(block: bytes, lines: int) -> bool:
    """Every line of the block is `{...}`, with no blank lines or stray spaces."""
    return block.startswith(b"{") and block.endswith(b"}\n") and lines == block.count(b"}\n{") + 1


def _undecidable(text: bytes) -> bool:
    """Non-ASCII text or `\\u`/`\\/` escapes: the prefilter cannot decide these."""
    if not text.isascii():
        return True
    return b"\\" in text and (b"\\u" in text or b"\\/" in text)


def _line_starts(block: bytes, pattern: re2._Regexp) -> set[int]:
    return {block.rfind(b"\n", 0, found.start()) + 1 for found in pattern.finditer(block)}


def _all_line_starts(block: bytes) -> list[int]:
    starts, position = [0], block.find(b"\n")
    while position != -1 and position + 1 < len(block):
        starts.append(position + 1)
        position = block.find(b"\n", position + 1)
    return starts


def _seconds_pattern(instant_ns: int, later: bool) -> re.Pattern[bytes]:
    """A timestamp whose second is at or after (or at or before) the instant's second.

    Timestamps share one fixed-width shape, so comparing them is comparing the
    first digit that differs: one alternative per digit position.
    """
    prefix = format_timestamp_ns(instant_ns)[:19].encode()
    alternatives = [re.escape(prefix)]
    for index, digit in enumerate(prefix):
        if chr(digit).isdigit() and (digit < ord("9") if later else digit > ord("0")):
            others = f"[{chr(digit + 1)}-9]" if later else f"[0-{chr(digit - 1)}]"
            alternatives.append(re.escape(prefix[:index]) + others.encode())
    return re.compile(b'"timestamp": ?"(?:' + b"|".join(alternatives) + b")")


def _beyond(block: bytes, lines: int, bounds: Sequence[TimeBound | None]) -> set[int]:
    """The full fetches whose bound every entry of the block lies beyond (a second to spare).

    An entry without a timestamp sorts first: it can never enter a full fetch of
    the latest entries, but it can enter one of the earliest.
    """
    beyond = set()
    for index, bound in enumerate(bounds):
        if bound is None:
            continue
        instant, later = bound
        edge = instant - NANOS_PER_SECOND if later else instant + NANOS_PER_SECOND
        if not later and block.count(b'"timestamp"') < lines:
            continue
        if _seconds_pattern(edge, later).search(block) is None:
            beyond.add(index)
    return beyond


class BlockScanner:
    """Candidate records of JSON Lines blocks, each with the filters it may match."""

    def __init__(self, filters: Sequence[CompiledFilter]) -> None:
        self._filters = filters
        self._patterns: list[re2._Regexp | None] = []
        self._any: re2._Regexp | None = None
        self._everything = tuple(range(len(filters)))

    def _choose(self, sample: bytes) -> None:
        """Each filter's rarest group in a sample, and one pattern for all of them.

        A filter gets no pattern (every line is its candidate) when it has no
        groups, or when its rarest group is in most lines anyway.
        """
        lines = max(sample.count(b"\n"), 1)
        chosen: set[bytes] = set()
        for compiled in self._filters:
            counted = [(len(_line_starts(sample, _alternation(g))), g) for g in compiled.required]
            hits, rarest = min(counted, key=lambda pair: pair[0], default=(lines, frozenset()))
            common = not rarest or hits > lines * COMMON_FRACTION
            self._patterns.append(None if common else _alternation(rarest))
            chosen |= set() if common else rarest
        self._any = _alternation(frozenset(chosen)) if chosen else None

    def records(
        self, block: bytes, path: Path, offset: int, bounds: Sequence[TimeBound | None] = ()
    ) -> Iterator[Candidate]:
        """The records of a block that some filter may match, with those filters."""
        if not self._patterns:
            self._choose(block[:_SAMPLE_BYTES])
        lines = block.count(b"\n")
        if not is_framed(block, lines):
            for record in block_records(block, path, offset):
                yield record, self._everything
            return
        beyond = _beyond(block, lines, bounds)
        active = [(i, p) for i, p in enumerate(self._patterns) if i not in beyond]
        if any(pattern is None for _, pattern in active):
            starts: Sequence[int] = _all_line_starts(block)
        else:
            found = _line_starts(block, self._any) if self._any else set()
            if _undecidable(block):
                found |= _line_starts(block, _UNDECIDABLE)
            starts = sorted(found)
        for start in starts:
            raw = block[start : block.index(b"\n", start)]
            undecided = _undecidable(raw)
            wanted = tuple(
                i
                for i, pattern in active
                if pattern is None or undecided or pattern.search(raw) is not None
            )
            if wanted:
                yield Record(raw, path, offset=offset + start), wanted
