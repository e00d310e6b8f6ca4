"""The offline source: every fetch of a wave answered in one pass over the exports."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

from pathways_workload.errors import UsageError
from pathways_workload.lql import CompiledFilter, LqlError, compile_filter
from pathways_workload.sources.base import Entry, Fetch, Result, sort_key
from pathways_workload.sources.export_reader import (
    Record,
    export_files,
    is_json_lines,
    iter_line_blocks,
    iter_records,
)
from pathways_workload.sources.scan import BlockScanner
from pathways_workload.timestamps import parse_timestamp_ns
from pathways_workload.window import Window

_TIMESTAMP_FIELD_RE = re.compile(rb'"timestamp":\s*"([^"]+)"')


class _Collector:
    """Keeps the first `limit` matches in the fetch's order, with bounded memory."""

    def __init__(self, fetch: Fetch) -> None:
        self.fetch = fetch
        self.kept: list[Entry] = []
        self.matched = 0

    def add(self, entry: Entry) -> None:
        self.matched += 1
        self.kept.append(entry)
        if len(self.kept) >= 2 * self.fetch.limit + 64:
            self._trim()

    def _trim(self) -> None:
        self.kept.sort(key=sort_key, reverse=self.fetch.order == "desc")
        del self.kept[self.fetch.limit :]

    def result(self) -> Result:
        self._trim()
        return Result(self.fetch, self.kept, truncated=self.matched > self.fetch.limit)


def compile_checked(text: str) -> CompiledFilter:
    """Compile a filter, turning the engine's error into a usage error with a caret."""
    try:
        return compile_filter(text)
    except LqlError as error:
        raise UsageError(error.render()) from None


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
        pairs = list(zip(filters, collectors))
        self.passes += 1
        for path in self.files():
            for record in self._records(path, filters):
                wanted = [
                    pair
                    for pair in pairs
                    if not self.fast_path or pair[0].may_match_raw(record.raw)
                ]
                if not wanted:
                    continue
                entry = record.entry()
                for compiled, collector in wanted:
                    if compiled.matches(entry):
                        collector.add(entry)
        return [collector.result() for collector in collectors]

    def _records(self, path: Path, filters: list[CompiledFilter]) -> Iterator[Record]:
        """The records worth looking at: JSON Lines through the block scanner when fast."""
        if not (self.fast_path and is_json_lines(path)):
            yield from iter_records(path)
            return
        scanner = BlockScanner(filters)
        for block, offset in iter_line_blocks(path):
            yield from scanner.records(block, path, offset)

    def span(self) -> Window | None:
        """The span of the exports' timestamps (a quick scan, no JSON parsing), or None."""
        low = high = None
        for path in self.files():
            for record in iter_records(path):
                for found in _TIMESTAMP_FIELD_RE.findall(record.raw):
                    try:
                        value = parse_timestamp_ns(found.decode())
                    except (ValueError, UnicodeDecodeError):
                        continue
                    low = value if low is None else min(low, value)
                    high = value if high is None else max(high, value)
        return None if low is None or high is None else Window(low, high)
