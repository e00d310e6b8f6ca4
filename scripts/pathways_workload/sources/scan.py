"""Find the lines of a JSON Lines block that may match, without touching the others.

Each compiled filter knows groups of byte strings a matching line must contain
(one string of every group). For each filter the scanner picks the group that
the first block shows to be rarest and searches the whole block for it at once
with RE2, so lines that cannot match cost no Python work at all. Lines the
prefilter cannot decide (non-ASCII text, `\\u` or `\\/` escapes) are always
candidates. Framing (every line one `{...}` object) is checked for the whole
block with byte counts; a block that fails it goes line by line, which names
the bad line.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import re2

from pathways_workload.lql import CompiledFilter
from pathways_workload.sources.export_reader import Record, block_records

_UNDECIDABLE = re2.compile(rb"[\x80-\xff]|\\u|\\/")
_SAMPLE_BYTES = 1 << 19


def _alternation(terms: frozenset[bytes]) -> bytes:
    return b"|".join(re2.escape(term) for term in sorted(terms))


def is_framed(block: bytes) -> bool:
    """Every line of the block is `{...}`, with no blank lines or stray spaces."""
    return (
        block.startswith(b"{")
        and block.endswith(b"}\n")
        and block.count(b"\n") == block.count(b"}\n{") + 1
    )


def _undecidable(block: bytes) -> bool:
    return not block.isascii() or b"\\u" in block or b"\\/" in block


class BlockScanner:
    """Candidate records of JSON Lines blocks for a set of filters."""

    def __init__(self, filters: Sequence[CompiledFilter]) -> None:
        self._filters = filters
        self._pattern: re2._Regexp | None = None
        self._decided = False

    def _choose(self, sample: bytes) -> None:
        """Pick each filter's rarest group in a sample; no pattern if any filter has none."""
        self._decided = True
        chosen: set[bytes] = set()
        for compiled in self._filters:
            groups = compiled.required
            if not groups:
                return
            rarest = min(
                groups,
                key=lambda group: len(re2.compile(b"(?i)" + _alternation(group)).findall(sample)),
            )
            chosen |= rarest
        self._pattern = re2.compile(b"(?i)" + _alternation(frozenset(chosen)))

    def records(self, block: bytes, path: Path, offset: int) -> Iterator[Record]:
        """The records of a block that may match (all of them when undecidable)."""
        if not self._decided:
            self._choose(block[:_SAMPLE_BYTES])
        if self._pattern is None or not is_framed(block):
            yield from block_records(block, path, offset)
            return
        starts: set[int] = set()
        patterns = (self._pattern, _UNDECIDABLE) if _undecidable(block) else (self._pattern,)
        for pattern in patterns:
            for found in pattern.finditer(block):
                starts.add(block.rfind(b"\n", 0, found.start()) + 1)
        for start in sorted(starts):
            yield Record(block[start : block.index(b"\n", start)], path, offset=offset + start)
