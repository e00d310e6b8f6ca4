"""Keep a fetch's first (or latest) `limit` matches, parsing as few records as possible.

Candidates wait, unparsed, until the end of the pass or until they hold more
bytes than a budget: whole blocks (for a fetch whose every record is a
candidate) and single records; a whole block waits as its place in the file
(written to a temporary file first when the export is compressed), read again
if it is looked at, so it costs no memory. Then
they are taken in the fetch's order by what their text says of their time:
blocks by their earliest (latest) second, records by their time to the
nanosecond. Once more than `limit` entries matched, the limit-th one is a
bound: a block whose seconds, or a record whose time, lies strictly beyond it
can never be returned and is dropped unparsed. So a fetch of the latest
lines, read forwards, parses about `limit` records, and needs no reading
backwards, gzipped or not.

Entries are ordered as Cloud Logging orders them, by timestamp with
nanoseconds and then insertId, and last by their place in the exports, so
the answer never depends on the order records were looked at. How many
entries matched in all is known exactly unless something was dropped
unparsed; the first bound waits for a few matches past the limit, so small
answers keep their exact count.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import tempfile
from collections.abc import Callable, Sequence
from typing import IO, TypeVar

from pathways_workload.lql import CompiledFilter
from pathways_workload.shaping import identity
from pathways_workload.sources.base import Fetch, Result, sort_key
from pathways_workload.sources.export_reader import Block
from pathways_workload.sources.paging import as_paged
from pathways_workload.sources.records import Record
from pathways_workload.sources.span import BlockTimes, fine_text, instant_text

PENDING_BYTES = 64 << 20
# What a block waiting as its place in a file counts against that budget.
_SHELVED_BYTES = 256
# How much a fetch writes to its temporary file before it looks at what waits.
SPOOL_BYTES = 1 << 30
Key = tuple[int, str, tuple[int, int]]
# What a record's text says of its time: the instant as `span.instant_text` writes it, or None.
Estimate = bytes | None
T = TypeVar("T")


class _Spool:
    """A temporary file holding blocks of compressed exports while they wait."""

    def __init__(self) -> None:
        self._file: IO[bytes] | None = None
        self.size = 0

    def put(self, data: bytes) -> int:
        if self._file is None:
            self._file = tempfile.TemporaryFile(prefix="pathways-workload-")  # noqa: SIM115
        self._file.seek(self.size)
        self._file.write(data)
        self.size += len(data)
        return self.size - len(data)

    def get(self, offset: int, size: int) -> bytes:
        assert self._file is not None
        self._file.flush()
        return os.pread(self._file.fileno(), size, offset)

    def empty(self) -> None:
        """Forget what it holds (nothing waits on it any more)."""
        self.size = 0
        if self._file is not None:
            self._file.truncate(0)


@dataclasses.dataclass(frozen=True)
class _Shelved:
    """A block waiting as its place in a file: the export's, or the spool's at `spooled`."""

    block: Block
    size: int
    spool: _Spool | None = None
    spooled: int = 0

    def load(self) -> Block:
        if self.spool is not None:
            data = self.spool.get(self.spooled, self.size)
        else:
            data = self.block.export.read_at(self.block.offset, self.size)
        return dataclasses.replace(self.block, data=data)


class Collector:
    """The best `limit` matches of one fetch, with bounded memory."""

    def __init__(self, fetch: Fetch, compiled: CompiledFilter) -> None:
        self.fetch = fetch
        self.compiled = compiled
        self.descending = fetch.order == "desc"
        self.kept: list[tuple[Key, Record]] = []
        self.matched = 0
        self.duplicates = 0  # matches that were another match again (same time and insertId)
        self.past_bound = False  # a match was left out unseen by the duplicate check
        self.counted = True  # every candidate was matched: `matched` is the total
        self.slack = max(64, fetch.limit // 8)
        self.bound: Key | None = None
        self.bound_text = b""
        self._blocks: list[tuple[_Shelved, BlockTimes]] = []
        self._spool = _Spool()
        self._records: list[tuple[Estimate, Record]] = []
        self._pending = 0

    def beyond(self, text: bytes) -> bool:
        """Whether anything at this instant (or later, for earliest-first) can no longer enter;
        `text` is an instant as `instant_text` writes it, or its seconds alone (anything in
        that second)."""
        if self.bound is None:
            return False
        bound = self.bound_text[: len(text)]
        return text < bound if self.descending else text > bound

    def consider(self, record: Record) -> None:
        """Parse a record (once) and keep it if it matches and may enter."""
        entry = record.entry()
        if not self.compiled.matches(entry):
            return
        self.matched += 1
        key = (*sort_key(entry), record.order)
        if self.bound is not None and (key < self.bound if self.descending else key > self.bound):
            self.past_bound = True
            return
        self.kept.append((key, record))
        limit = self.fetch.limit
        if (self.bound is None and self.distinct > limit + self.slack) or len(
            self.kept
        ) >= 2 * limit + 64:
            self._trim()

    @property
    def distinct(self) -> int:
        """How many entries matched, each counted once."""
        return self.matched - self.duplicates

    def _trim(self) -> None:
        """Keep the best `limit` entries, each once (an entry found in two exports, or twice
        in one, is one entry, as Cloud Logging returns it: the copy first in the exports,
        whatever the order); the last of them bounds the rest."""

        def rank(pair: tuple[Key, Record]) -> tuple[int, str, int, int]:
            time, insert_id, (export, offset) = pair[0]
            return (
                (time, insert_id, -export, -offset)
                if self.descending
                else (time, insert_id, export, offset)
            )

        self.kept.sort(key=rank, reverse=self.descending)
        distinct: list[tuple[Key, Record]] = []
        unnamed: set[tuple[str, str, str]] = set()
        for pair in self.kept:
            if _repeats(pair, distinct, unnamed):
                self.duplicates += 1
            else:
                distinct.append(pair)
        self.kept = distinct[: self.fetch.limit]
        if self.distinct > self.fetch.limit and len(self.kept) == self.fetch.limit:
            self.bound = self.kept[-1][0]
            self.bound_text = instant_text(self.bound[0])

    def _dropped(self) -> None:
        """Candidates were dropped unparsed: how many matched in all is no longer known."""
        self.counted = False

    def offer_block(self, block: Block, times: BlockTimes) -> None:
        """Every record of a block is a candidate."""
        if times.complete and self.beyond(times.high if self.descending else times.low):
            self._dropped()
            return
        empty = dataclasses.replace(block, data=b"")
        if block.reloadable:
            self._blocks.append((_Shelved(empty, len(block.data)), times))
        else:
            spooled = self._spool.put(block.data)
            self._blocks.append((_Shelved(empty, len(block.data), self._spool, spooled), times))
        self._wait(_SHELVED_BYTES)

    def offer_record(self, record: Record, estimate: Estimate) -> None:
        if estimate is not None and self.beyond(estimate):
            self._dropped()
            return
        self._records.append((estimate, record))
        self._wait(len(record.raw))

    def _wait(self, size: int) -> None:
        self._pending += size
        if self._pending > PENDING_BYTES or self._spool.size > SPOOL_BYTES:
            self.settle()

    def settle(self) -> None:
        """Look at every waiting candidate, best first, dropping what can no longer enter."""
        blocks, records = self._blocks, self._records
        self._blocks, self._records, self._pending = [], [], 0
        unsure = [pair for pair in blocks if not pair[1].complete]
        sure = sorted(
            (pair for pair in blocks if pair[1].complete),
            key=lambda pair: pair[1].high if self.descending else pair[1].low,
            reverse=self.descending,
        )
        for waiting, times in unsure + sure:
            if times.complete and self.beyond(times.high if self.descending else times.low):
                self._dropped()
                break
            block = waiting.load()
            spans = block.framing.spans(block.data)
            self._look(
                list(zip(_estimates(block, times, len(spans)), spans)),
                functools.partial(_span_record, block),
                owned=True,
            )
        self._look(records, lambda record: record, owned=False)
        self._spool.empty()

    def _look(
        self,
        candidates: Sequence[tuple[Estimate, T]],
        make: Callable[[T], Record],
        owned: bool,
    ) -> None:
        """Records whose time is unknown first, then the rest in the fetch's order.

        A record this fetch alone looks at (`owned`) drops its parsed entry after:
        a kept one is parsed again at the end, since holding parsed entries would
        cost several times their text.
        """
        unknown = [item for estimate, item in candidates if estimate is None]
        known = [(estimate, item) for estimate, item in candidates if estimate is not None]
        known.sort(key=lambda pair: pair[0] or b"", reverse=self.descending)
        for estimate, item in [(None, item) for item in unknown] + known:
            if estimate is not None and self.beyond(estimate):
                self._dropped()
                break
            record = make(item)
            self.consider(record)
            if owned:
                record.parsed = None

    def result(self) -> Result:
        """The kept entries, as Cloud Logging's pages would give them."""
        self.settle()
        self._trim()
        result = as_paged(self.fetch, [record.entry() for _, record in self.kept], self.distinct)
        # Where duplicates are, one left out past the bound was counted, not recognised.
        exact = self.counted and not (self.duplicates and self.past_bound)
        return result if exact else dataclasses.replace(result, matched=None)


def _repeats(
    pair: tuple[Key, Record],
    distinct: list[tuple[Key, Record]],
    unnamed: set[tuple[str, str, str]],
) -> bool:
    """Whether a kept entry is one already kept: the same time and insertId as the last one
    (they sort together), or, without an insertId, the same content as one in `unnamed`
    (which learns it)."""
    key, record = pair
    if key[1]:
        return bool(distinct) and key[:2] == distinct[-1][0][:2]
    seen = identity(record.entry())
    if seen in unnamed:
        return True
    unnamed.add(seen)
    return False


def _span_record(block: Block, span: tuple[int, int]) -> Record:
    return block.record(*span)


def _estimates(block: Block, times: BlockTimes, count: int) -> Sequence[Estimate]:
    """What the text says of the time of each record of a block."""
    if times.times is not None:
        return [None if t is None else instant_text(t) for t in times.times]
    if times.aligned:
        stamps: list[bytes] = block.framing.block_stamps.findall(block.data)
        return [fine_text(stamp) for stamp in stamps]
    return [None] * count
