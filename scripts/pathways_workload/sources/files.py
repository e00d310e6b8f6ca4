"""The offline source: every fetch of a wave answered in one pass over the exports."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

from pathways_workload.filters import compile_checked
from pathways_workload.lql import CompiledFilter
from pathways_workload.sources.base import Entry, Fetch, Result, sort_key
from pathways_workload.sources.export_reader import (
    Record,
    export_files,
    is_compressed,
    is_json_lines,
    iter_line_blocks,
    iter_line_blocks_backwards,
    iter_records,
)
from pathways_workload.sources.paging import as_paged
from pathways_workload.sources.scan import BlockScanner
from pathways_workload.timestamps import parse_timestamp_ns
from pathways_workload.window import Window

_TIMESTAMP_FIELD_RE = re.compile(rb'"timestamp":\s*"([^"]+)"')


class _Collector:
    """Keeps the first `limit` matches in the fetch's order, with bounded memory.

    Once it holds `limit` entries, anything that sorts after the last of them
    can never be returned, so it is not even stored.
    """

    def __init__(self, fetch: Fetch) -> None:
        self.fetch = fetch
        self.descending = fetch.order == "desc"
        self.kept: list[tuple[tuple[int, str], Entry]] = []
        self.bound: tuple[int, str] | None = None
        self.matched = 0

    def time_bound(self) -> tuple[int, bool] | None:
        """Once full: the instant past which nothing can enter, and whether that is later."""
        return None if self.bound is None else (self.bound[0], self.descending)

    def may_enter(self, time_ns: int | None) -> bool:
        """Whether an entry at this time could still be kept (None: time unknown).

        A bound is only set once more than `limit` entries matched, so skipping
        never hides that the fetch was cut.
        """
        if self.bound is None or time_ns is None:
            return True
        return time_ns >= self.bound[0] if self.descending else time_ns <= self.bound[0]

    def add(self, entry: Entry) -> None:
        self.matched += 1
        key = sort_key(entry)
        if self.bound is not None and (key <= self.bound if self.descending else key >= self.bound):
            return
        self.kept.append((key, entry))
        if len(self.kept) >= 2 * self.fetch.limit + 64:
            self._trim()

    def _trim(self) -> None:
        self.kept.sort(key=lambda pair: pair[0], reverse=self.descending)
        del self.kept[self.fetch.limit :]
        if len(self.kept) == self.fetch.limit:
            self.bound = self.kept[-1][0]

    def result(self) -> Result:
        self._trim()
        return as_paged(self.fetch, [entry for _, entry in self.kept], self.matched)


def raw_time_ns(raw: bytes) -> int | None:
    """The entry's timestamp read off its raw JSON, or None when unsure (nested keys)."""
    if raw.count(b'"timestamp"') != 1:
        return None
    start = raw.find(b'"', raw.find(b":", raw.find(b'"timestamp"') + 11)) + 1
    try:
        return parse_timestamp_ns(raw[start : raw.find(b'"', start)].decode("ascii"))
    except (ValueError, UnicodeDecodeError):
        return None


def _worth_parsing(
    raw: bytes, wanted: tuple[int, ...], filters: list[CompiledFilter], collectors: list[_Collector]
) -> tuple[int, ...]:
    """The filters that may match the raw line and whose collector could still keep it."""
    time_ns = raw_time_ns(raw) if any(collectors[i].bound for i in wanted) else None
    return tuple(
        i for i in wanted if collectors[i].may_enter(time_ns) and filters[i].may_match_raw(raw)
    )


@dataclasses.dataclass
class FileSource:
    """Recorded exports as a source; `fast_path` skips lines that cannot match."""

    paths: list[str]
    fast_path: bool = True
    passes: int = 0

    def files(self) -> list[Path]:
        return export_files(self.paths)

    def run(self, fetches: Sequence[Fetch]) -> list[Result]:
        filters = [compile_checked(fetch.query.filter) for fetch in fetches]
        collectors = [_Collector(fetch) for fetch in fetches]
        self.passes += 1
        for path in self.files():
            for record, wanted in self._candidates(path, filters, collectors):
                if self.fast_path:
                    wanted = _worth_parsing(record.raw, wanted, filters, collectors)
                if not wanted:
                    continue
                entry = record.entry()
                for index in wanted:
                    if filters[index].matches(entry):
                        collectors[index].add(entry)
        return [collector.result() for collector in collectors]

    def _candidates(
        self, path: Path, filters: list[CompiledFilter], collectors: list[_Collector]
    ) -> Iterator[tuple[Record, tuple[int, ...]]]:
        """Records worth a look, with the filters they may match (block scanner when fast).

        When a fetch wants the latest entries, an uncompressed JSON Lines file is
        read from its end, so that fetch fills up first and skips the rest.
        """
        if not (self.fast_path and is_json_lines(path)):
            everything = tuple(range(len(filters)))
            for record in iter_records(path):
                yield record, everything
            return
        scanner = BlockScanner(filters)
        latest_first = any(c.descending for c in collectors) and not is_compressed(path)
        blocks = iter_line_blocks_backwards(path) if latest_first else iter_line_blocks(path)
        for block, offset in blocks:
            yield from scanner.records(block, path, offset, [c.time_bound() for c in collectors])

    def span(self) -> Window | None:
        """The span of the exports' timestamps (a quick scan, no JSON parsing), or None."""
        low = high = None
        for chunk in self._raw_chunks():
            for text in _TIMESTAMP_FIELD_RE.findall(chunk):
                try:
                    value = parse_timestamp_ns(text.decode())
                except (ValueError, UnicodeDecodeError):
                    continue
                low = value if low is None else min(low, value)
                high = value if high is None else max(high, value)
        return None if low is None or high is None else Window(low, high)

    def _raw_chunks(self) -> Iterator[bytes]:
        """The exports' raw text: whole blocks of JSON Lines, else one record at a time."""
        for path in self.files():
            if is_json_lines(path):
                yield from (block for block, _ in iter_line_blocks(path))
            else:
                yield from (record.raw for record in iter_records(path))
