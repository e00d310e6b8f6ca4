"""Find the records of a block that some filter may match, in one RE2 pass over the block.

Each compiled filter knows groups of byte strings a matching record must
contain (one string of every group). For each filter the scanner picks the
group the first block shows to be rarest (among groups it shows equally rare,
often not at all, the one whose shortest string is longest: "jobset-system"
before "error"); a filter whose rarest group is in
most records anyway gets none, and every record is its candidate. One RE2
search over the whole block (Latin-1 mode: bytes are bytes) looks at once for
all chosen groups' strings and for everything that needs attention:

- bytes that break the block's framing (then the block is read record by
  record, which names a bad line; so is a block with a record cut short,
  which one RE2 match over the block's braces and quotes finds: `whole_records`),
- control characters, which no JSON text holds (the export is corrupt),
- a record with a second "timestamp" key, or none (its time needs a parse,
  and the block's records cannot be counted by their keys),
- non-ASCII bytes, `\\u` or `\\/` escapes and a severity written as a number:
  the prefilter cannot decide such a record, so it is a candidate for every
  filter.

Records no match falls in cost no Python work at all. Each record a match
falls in is tested against each filter's own strings (one RE2 set match), so a
string hidden inside another filter's match is never missed; what the search
skips of a record it settles whole is checked on the record itself (`_settle`).
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable, Sequence
from typing import Any

import re2

from pathways_workload.lql import CompiledFilter
from pathways_workload.sources.export_reader import Block
from pathways_workload.sources.framing import (
    CONTROL,
    KEY,
    ORDINARY,
    Framing,
    escaped_key,
    skeleton,
)
from pathways_workload.sources.records import corrupt, line_at
from pathways_workload.sources.span import Extremes

_SAMPLE_BYTES = 1 << 19
# A group found in more than this share of the sample's records is not worth searching for.
COMMON_FRACTION = 0.5
# A severity written as the enum's number: the prefilter looks for names.
_NUMERIC_SEVERITY = rb'"severity"[ \t]*:[ \t]*"?-?[0-9]'
_UNDECIDABLE = rb"[\x09\x0d\x20-\x7f][\x80-\xff]|\\[u/]" + ORDINARY + b"|" + _NUMERIC_SEVERITY
_MAX_MEMORY = 256 << 20
_CONTROL = re.compile(CONTROL)
# The same bytes for `bytes.translate`, which tells whether any is there far faster than `re`.
_CONTROL_BYTES = bytes(byte for byte in range(256) if _CONTROL.fullmatch(bytes([byte])))
_NUMBERED = re.compile(_NUMERIC_SEVERITY)


def _options() -> re2.Options:
    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1
    options.log_errors = False
    options.max_mem = _MAX_MEMORY
    return options


def _terms(group: frozenset[bytes]) -> bytes:
    """An alternation of a group's ASCII strings, any case (non-ASCII text is undecidable
    anyway: a record holding it is a candidate for every filter)."""
    return b"|".join(re2.escape(term) for term in sorted(group) if term.isascii())


@dataclasses.dataclass
class Scan:
    """What one pass over a block found.

    `candidates`: (start, end, filters) of each record some filter with a
    chosen group may match; `broken`: the block's framing is broken;
    `ambiguous`: a line holds two "timestamp" keys; `unstamped`: a line holds
    none; `extremes`: the block's earliest and latest time, when the reader
    asked for them (span.py).
    """

    candidates: list[tuple[int, int, tuple[int, ...]]] = dataclasses.field(default_factory=list)
    broken: bool = False
    ambiguous: bool = False
    unstamped: bool = False
    extremes: Extremes | None = None

    @property
    def one_key_each(self) -> bool:
        """Each record of the block holds exactly one (top-level) "timestamp" key."""
        return not (self.ambiguous or self.unstamped)


class BlockScanner:
    """Candidate records of framed blocks, each with the filters it may match; `whole` tells
    whether a block's records are whole (`whole_records`, or a cache of its answers)."""

    def __init__(
        self, filters: Sequence[CompiledFilter], whole: Callable[[Block], bool] | None = None
    ) -> None:
        self._filters = filters
        self._whole = whole or whole_records
        self._chosen: list[bytes | None] | None = None
        self._union: dict[Framing, Any] = {}
        self._set: re2.Set | None = None
        self._set_filters: list[int] = []

    @property
    def everything(self) -> tuple[int, ...]:
        """The filters every record is a candidate of (no group worth searching for)."""
        assert self._chosen is not None
        return tuple(i for i, chosen in enumerate(self._chosen) if chosen is None)

    def _choose(self, block: Block) -> None:
        """Each filter's rarest group in a sample of whole records, and a set of them."""
        framing = block.framing
        sample = block.data[: framing.cut(block.data[:_SAMPLE_BYTES]) or len(block.data)]
        records = max(framing.count(sample), 1)
        self._chosen = [_rarest(compiled, sample, framing, records) for compiled in self._filters]
        self._set = re2.Set.SearchSet(_options())
        for index, chosen in enumerate(self._chosen):
            if chosen:
                self._set.Add(b"(?i:" + chosen + b")")
                self._set_filters.append(index)
        if self._set_filters:
            self._set.Compile()

    def _pattern(self, framing: Framing) -> Any:
        """The one search of a framing: its alarms, then every chosen string, then escapes."""
        if framing not in self._union:
            assert self._chosen is not None
            terms = b"|".join(chosen for chosen in self._chosen if chosen)
            parts = [framing.alarms, CONTROL]
            if framing.ambiguous:
                parts.append(framing.ambiguous)
            if framing.unstamped:
                parts.append(framing.unstamped)
            if terms:
                parts.append(b"(?i:" + terms + b")" + ORDINARY)
            parts.append(_UNDECIDABLE)
            self._union[framing] = re2.compile(b"|".join(parts), _options())
        return self._union[framing]

    def look(self, block: Block) -> Scan:
        """One pass over a block. In JSON Lines, the first match in a line settles the whole
        line (`_settle`), and the search goes on from the line's end; in an indented array,
        so does a match that is a whole entry or spans several of its lines."""
        if self._chosen is None:
            self._choose(block)
        data, framing = block.data, block.framing
        if not framing.opens(data):
            return Scan(broken=True)
        scan = Scan()
        found_in: dict[int, tuple[int, set[int]]] = {}
        pattern, position = self._pattern(framing), 0
        while (found := pattern.search(data, position)) is not None:
            matched, position = found.span()  # one accessor call: pyre2's are slow
            text, at = data[matched:position], matched
            kind = _kind(text, framing)
            if kind == "control":
                raise _control(block, at)
            if kind == "framing":
                return Scan(broken=True)
            # A record with two "timestamp" keys or none is still a candidate of the filters
            # whose strings it holds.
            scan.ambiguous = scan.ambiguous or kind == "ambiguous"
            scan.unstamped = scan.unstamped or kind == "unstamped"
            if kind in ("ambiguous", "unstamped"):
                at += framing.inside(text, kind)
            start = framing.start(data, at)
            if start in found_in and kind != "undecidable":
                continue
            end = framing.end(data, at)
            wanted = self._undecided if kind == "undecidable" else self._wanted(block, start, end)
            found_in.setdefault(start, (end, set()))[1].update(wanted)
            if framing.settles(kind):
                found_in[start][1].update(self._settle(block, matched, end, scan))
                position = max(matched + 1, framing.resume(position, end))
        if not self._whole(block):
            return Scan(broken=True)
        scan.candidates = [
            (start, end, tuple(sorted(wanted)))
            for start, (end, wanted) in found_in.items()
            if wanted
        ]
        return scan

    def _settle(self, block: Block, found: int, end: int, scan: Scan) -> tuple[int, ...]:
        """What the rest of a candidate record, from the match at `found`, would have raised
        had the search gone through it: a control character (refused), a second
        "timestamp" key (`scan.ambiguous`), text the prefilter cannot decide (the filters
        that get such records)."""
        rest = block.data[found:end]
        if len(rest.translate(None, _CONTROL_BYTES)) != len(rest):
            control = _CONTROL.search(rest)
            assert control is not None
            raise _control(block, found + control.start())
        record = block.data[block.framing.start(block.data, found) : end]
        if block.framing.two_keys(record) or escaped_key(record):
            scan.ambiguous = True
        undecidable = (
            not record.isascii()
            or b"\\u" in record
            or b"\\/" in record
            or _NUMBERED.search(record) is not None
        )
        return self._undecided if undecidable else ()

    @property
    def _undecided(self) -> tuple[int, ...]:
        """The filters that get a record the prefilter cannot decide (the rest get them all)."""
        assert self._chosen is not None
        return tuple(i for i, chosen in enumerate(self._chosen) if chosen is not None)

    def _wanted(self, block: Block, start: int, end: int) -> tuple[int, ...]:
        if not self._set_filters:  # no set to ask (RE2 complains on stderr if asked)
            return ()
        assert self._set is not None
        found = self._set.Match(block.data[start:end]) or []
        return tuple(sorted(self._set_filters[index] for index in found))


@functools.cache
def _whole(framing: Framing) -> Any:
    return re2.compile(framing.whole, _options())


def whole_records(block: Block) -> bool:
    """Whether every record of a block is whole: one object whose braces pair up (one RE2
    match over the block's skeleton). A record cut short never is (a truncated export, a
    line cut mid-write), and the search never parses a record it does not select, so a
    block that is not whole is read record by record (an array is decoded from there on),
    each record parsed: a valid one nested too deep is read, a torn one refused."""
    return _whole(block.framing).fullmatch(skeleton(block.data)) is not None


def _control(block: Block, position: int) -> Exception:
    line = line_at(block.export, block.offset + position)
    what = f"a control character (0x{block.data[position]:02x}), which JSON text cannot hold raw"
    return corrupt(block.export, line, what)


def _kind(text: bytes, framing: Framing) -> str:
    """Which alternative of the union a match is."""
    if len(text) == 1:
        return "control"
    if b"\n" in text:
        return framing.alarm_kind(text)
    if text[: len(KEY)].lower() == KEY:
        return "ambiguous"
    if text.startswith((b"\\", b'"severity"')) or not text.isascii():
        return "undecidable"
    return "term"


def _rarest(
    compiled: CompiledFilter, sample: bytes, framing: Framing, records: int
) -> bytes | None:
    """The filter's rarest group in the sample as an alternation (b"": it cannot match an
    ASCII record), ties going to the longest shortest string; None when every record must be
    its candidate."""
    counted: list[tuple[int, int, bytes]] = []
    common = int(records * COMMON_FRACTION)
    for group in compiled.required:
        terms = _terms(group)
        # Counting stops past the rarest so far (or past common): such a group is not chosen.
        most = min([common, *(hits for hits, _, _ in counted)])
        hits = _records_with(sample, framing, terms, most) if terms else 0
        counted.append((hits, -min(map(len, group), default=0), terms))
    if not counted:
        return None
    hits, _, terms = min(counted, key=lambda triple: triple[:2])
    return None if hits > common else terms


def _records_with(sample: bytes, framing: Framing, terms: bytes, most: int) -> int:
    """How many records of the sample hold one of the terms, counted up to `most` + 1."""
    pattern = re2.compile(b"(?i:" + terms + b")", _options())
    starts: set[int] = set()
    for found in pattern.finditer(sample):
        starts.add(framing.start(sample, found.start()))
        if len(starts) > most:
            break
    return len(starts)
