"""Keep a fetch's first (or latest) `limit` matches, parsing as few records as possible.

Candidates wait, unparsed, until the end of the pass or until they hold more
bytes than a budget: whole blocks (for a fetch whose every record is a
candidate) and single records; a block of an uncompressed export waits as its
place in the file, read again if it is looked at, so it costs no memory. Then
they are taken in the fetch's order by what their text says of their time:
blocks by their earliest (latest) second, records by their second. Once more
than `limit` entries matched, the limit-th one is a bound: a block or record
whose second lies strictly beyond it can never be returned and is dropped
unparsed. So a fetch of the latest lines, read forwards, parses about `limit`
records (per budget's worth of a gzipped export), and needs no reading
backwards.

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
from collections.abc import Callable, Sequence
from typing import TypeVar

from pathways_workload.lql import CompiledFilter
from pathways_workload.sources.base import Fetch, Result, sort_key
from pathways_workload.sources.export_reader import Block
from pathways_workload.sources.paging import as_paged
from pathways_workload.sources.records import Record
from pathways_workload.sources.span import SECONDS, BlockTimes, seconds_text

PENDING_BYTES = 64 << 20
# What a block waiting as its place in the file counts against the budget.
_SHELVED_BYTES = 256
Key = tuple[int, str, tuple[int, int]]
# What a record's text says of its time: its seconds (`YYYY-MM-DDTHH:MM:SS`), or None.
Estimate = bytes | None
T = TypeVar("T")


@dataclasses.dataclass(frozen=True)
class _Shelved:
    """A block of an uncompressed export, waiting as its place in the file."""

    block: Block
    size: int

    def load(self) -> Block:
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
        self.counted = True  # every candidate was matched: `matched` is the total
        self.slack = max(64, fetch.limit // 8)
        self.bound: Key | None = None
        self.bound_text = b""
        self._blocks: list[tuple[Block | _Shelved, BlockTimes]] = []
        self._records: list[tuple[Estimate, Record]] = []
        self._pending = 0

    def beyond(self, seconds: bytes) -> bool:
        """Whether anything in this second (or later, for earliest-first) can no longer enter."""
        if self.bound is None:
            return False
        return seconds < self.bound_text if self.descending else seconds > self.bound_text

    def consider(self, record: Record) -> None:
        """Parse a record (once) and keep it if it matches and may enter."""
        entry = record.entry()
        if not self.compiled.matches(entry):
            return
        self.matched += 1
        key = (*sort_key(entry), record.order)
        if self.bound is not None and (key < self.bound if self.descending else key > self.bound):
            return
        self.kept.append((key, record))
        limit = self.fetch.limit
        if (self.bound is None and self.matched > limit + self.slack) or len(
            self.kept
        ) >= 2 * limit + 64:
            self._trim()

    def _trim(self) -> None:
        self.kept.sort(key=lambda pair: pair[0], reverse=self.descending)
        del self.kept[self.fetch.limit :]
        if self.matched > self.fetch.limit and self.kept:
            self.bound = self.kept[-1][0]
            self.bound_text = seconds_text(self.bound[0])

    def _dropped(self) -> None:
        """Candidates were dropped unparsed: how many matched in all is no longer known."""
        self.counted = False

    def offer_block(self, block: Block, times: BlockTimes) -> None:
        """Every record of a block is a candidate."""
        if times.complete and self.beyond(times.high if self.descending else times.low):
            self._dropped()
            return
        if block.reloadable:
            shelved = dataclasses.replace(block, data=b"")
            self._blocks.append((_Shelved(shelved, len(block.data)), times))
            self._wait(_SHELVED_BYTES)
        else:
            self._blocks.append((block, times))
            self._wait(len(block.data))

    def offer_record(self, record: Record, estimate: Estimate) -> None:
        if estimate is not None and self.beyond(estimate):
            self._dropped()
            return
        self._records.append((estimate, record))
        self._wait(len(record.raw))

    def _wait(self, size: int) -> None:
        self._pending += size
        if self._pending > PENDING_BYTES:
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
            block = waiting.load() if isinstance(waiting, _Shelved) else waiting
            spans = block.framing.spans(block.data)
            self._look(
                list(zip(_estimates(block, times, len(spans)), spans)),
                functools.partial(_span_record, block),
                owned=True,
            )
        self._look(records, lambda record: record, owned=False)

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
            if estimate is not None and self.beyond(estimate[:SECONDS]):
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
        result = as_paged(self.fetch, [record.entry() for _, record in self.kept], self.matched)
        return result if self.counted else dataclasses.replace(result, matched=None)


def _span_record(block: Block, span: tuple[int, int]) -> Record:
    return block.record(*span)


def _estimates(block: Block, times: BlockTimes, count: int) -> Sequence[Estimate]:
    """What the text says of the time of each record of a block."""
    if times.times is not None:
        return [None if t is None else seconds_text(t) for t in times.times]
    if times.aligned:
        stamps: list[bytes] = block.framing.block_stamps.findall(block.data)
        return stamps
    return [None] * count
