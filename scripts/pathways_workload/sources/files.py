"""The offline source: every fetch of a wave answered in one pass over the exports.

The same pass learns the exports' span (their earliest and latest top-level
timestamps), so `span()` after a run costs nothing; before any run it reads
the exports once for it. To replay an export as a whole in one pass, build
the queries with `plausible_window()`: every instant an entry may count with
(after the epoch, to a day after now), which selects exactly the entries the
span would, and report `span()` as the window afterwards.

With `fast_path`, blocks of records go through the scanner and only records
some filter may match are parsed (and of those, only the ones that can still
enter a fetch's limit); without it every record is parsed, the reference the
fast path must agree with.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from collections.abc import Callable, Generator, Sequence
from typing import TextIO

from pathways_workload.filters import compile_checked
from pathways_workload.lql import CompiledFilter
from pathways_workload.sources.background import Ahead
from pathways_workload.sources.base import Fetch, Result
from pathways_workload.sources.collect import Collector, Estimate
from pathways_workload.sources.export_reader import (
    Block,
    Decoded,
    LookedT,
    Seen,
    line_records,
    read_export,
    simple_export,
)
from pathways_workload.sources.framing import LineFraming, escaped_key
from pathways_workload.sources.inputs import ExportFile, export_files
from pathways_workload.sources.project_scope import ProjectScope
from pathways_workload.sources.records import Record
from pathways_workload.sources.scan import BlockScanner, Scan, whole_records
from pathways_workload.sources.span import (
    CANONICAL,
    DAY_NS,
    SpanTracker,
    canonical_extremes,
    fine_text,
)
from pathways_workload.sources.text_logs import TextLogs
from pathways_workload.window import Window

# What makes two fetches the same question: filter, limit, order, stopping rule, per source.
_Asked = tuple[str, int, str, object, int]


def _asked(fetch: Fetch) -> _Asked:
    return (fetch.query.filter, fetch.limit, fetch.order, fetch.until, fetch.per_source)


def plausible_window(now_ns: int) -> Window:
    """Every instant an entry's timestamp may have and still count for the export's span:
    after the epoch (which an entry without a timestamp has by default), to a day after now."""
    return Window(1, now_ns + DAY_NS)


@dataclasses.dataclass(frozen=True)
class _SpanLook:
    """The look at a block when only its span is wanted: whether its records are whole (the
    span learns the rest by counting)."""

    broken: bool
    ambiguous: bool | None = None


def _estimate(record: Record, block: Block) -> Estimate:
    """A candidate record's top-level timestamp to the nanosecond, when its text settles it."""
    values = block.framing.stamps.findall(record.raw)
    if len(values) != 1 or not CANONICAL.fullmatch(values[0]) or escaped_key(record.raw):
        return None
    if isinstance(block.framing, LineFraming) and record.raw.count(b'"timestamp"') != 1:
        return None
    return fine_text(values[0])


@dataclasses.dataclass
class FileSource:
    """Recorded exports (or text container logs, read as `text` says) as a source; warnings
    (odd timestamps, a span outside the given `window`) go to `err`. With `project`, only
    that project's logs match, as Cloud Logging reads them for --project."""

    paths: list[str]
    fast_path: bool = True
    err: TextIO | None = None
    now_ns: int | None = None
    passes: int = 0
    text: TextLogs = dataclasses.field(default_factory=TextLogs)
    window: Window | None = None
    project: str | None = None
    _files: list[ExportFile] | None = dataclasses.field(default=None, repr=False)
    _tracker: SpanTracker | None = dataclasses.field(default=None, repr=False)
    _span_told: bool = dataclasses.field(default=False, repr=False)
    _ahead: dict[_Asked, Result] = dataclasses.field(default_factory=dict, repr=False)
    _whole: set[tuple[int, int, int]] = dataclasses.field(default_factory=set, repr=False)
    _scope: ProjectScope | None = dataclasses.field(init=False, default=None, repr=False)

    def __post_init__(self) -> None:
        if self.project is not None:
            self._scope = ProjectScope(self.project)

    def files(self) -> list[ExportFile]:
        """The exports (streams are copied aside on first use, to be read again later)."""
        if self._files is None:
            self._files = export_files(self.paths)
            self._tell([f"warning: {f.name} is empty (0 bytes)" for f in self._files if f.empty])
        return self._files

    def _whole_records(self, block: Block) -> bool:
        """`whole_records`, checked once per block: every pass cuts an export the same way."""
        key = (block.number, block.offset, len(block.data))
        if key in self._whole:
            return True
        whole = whole_records(block)
        if whole:
            self._whole.add(key)
        return whole

    def _now(self) -> int:
        return time.time_ns() if self.now_ns is None else self.now_ns

    def _tell(self, notes: Sequence[str]) -> None:
        for note in notes:
            (self.err or sys.stderr).write(note + "\n")

    def run(self, fetches: Sequence[Fetch], anticipated: Sequence[Fetch] = ()) -> list[Result]:
        """Answer every fetch in one pass (which also learns the span, the first time), and
        the anticipated ones in the same pass, kept for when they are asked. Fetches
        answered ahead cost no pass."""
        if not fetches:
            return []
        wanted = {_asked(fetch): fetch for fetch in [*fetches, *anticipated]}
        if any(_asked(fetch) not in self._ahead for fetch in fetches):
            unknown = [fetch for key, fetch in wanted.items() if key not in self._ahead]
            self._ahead.update(zip(map(_asked, unknown), self._pass(unknown)))
        answers = [
            dataclasses.replace(self._ahead[_asked(fetch)], fetch=fetch) for fetch in fetches
        ]
        for fetch in fetches:
            self._ahead.pop(_asked(fetch), None)
        return answers

    def _pass(self, fetches: Sequence[Fetch]) -> list[Result]:
        """One pass; again unscoped when --project turned out to name no project of the
        exports (see `ProjectScope`)."""
        results = self._read(fetches)
        if self._scope is not None and self._scope.settle():
            results = self._read(fetches)
        if self._scope is not None:
            self._tell(self._scope.notes())
        return results

    def _read(self, fetches: Sequence[Fetch]) -> list[Result]:
        filters = [self._scoped(compile_checked(fetch.query.filter)) for fetch in fetches]
        collectors = [Collector(fetch, compiled) for fetch, compiled in zip(fetches, filters)]
        tracker = SpanTracker(self._now())
        self.passes += 1
        if self.fast_path:
            self._scan_pass(filters, collectors, tracker)
        else:
            self._simple_pass(collectors, tracker)
        self._learnt(tracker)
        return [collector.result() for collector in collectors]

    def _scoped(self, compiled: CompiledFilter) -> CompiledFilter:
        """The fetch's filter as --project reads it: another project's entries do not match."""
        return compiled if self._scope is None else self._scope.narrowed(compiled)

    def span(self) -> Window | None:
        """The exports' span (None: no plausible timestamp); free after a pass."""
        if self._tracker is None:
            tracker = SpanTracker(self._now())
            if self.fast_path:
                self._span_pass(tracker)
            else:
                self._simple_pass([], tracker)
            self._learnt(tracker)
        assert self._tracker is not None
        if not self._span_told:
            self._span_told = True
            self._tell(self._tracker.span_notes())
        return self._tracker.window()

    def learnt_end_ns(self) -> int | None:
        """The end of the exports' span as the passes so far learnt it, with no pass and no
        note of its own; None before any pass, or with no plausible timestamp."""
        span = self._tracker.window() if self._tracker is not None else None
        return span.end_ns if span is not None else None

    def _learnt(self, tracker: SpanTracker) -> None:
        if self._tracker is None:
            self._tracker = tracker
            tracker.refuse_timeless()
            self._tell(tracker.notes() + self._missed(tracker))

    def _missed(self, tracker: SpanTracker) -> list[str]:
        """The note when the exports' span lies wholly outside the given window (unless some
        entries' absurd times, left out of the span, may be what the window is set on)."""
        span = tracker.window()
        if self.window is None or span is None or tracker.absurd.count:
            return []
        if span.end_ns >= self.window.start_ns and span.start_ns <= self.window.end_ns:
            return []
        return [
            f"note: the export spans {span.span()}, outside the window: check the window "
            "flags (a time without an offset is UTC), or leave them out to read the whole export"
        ]

    def _simple_pass(self, collectors: list[Collector], tracker: SpanTracker) -> None:
        for number, export in enumerate(self.files()):
            for item in simple_export(export, number, self.text):
                _every(
                    item if isinstance(item, list) else list(line_records(item)),
                    collectors,
                    tracker,
                )

    def _span_pass(self, tracker: SpanTracker) -> None:
        def look(block: Block) -> _SpanLook:
            return _SpanLook(broken=not self._whole_records(block))

        with Ahead(self._items(look)) as items:
            for item in items:
                if isinstance(item, list) or item.look.broken:
                    records = item if isinstance(item, list) else line_records(item.block)
                    for record in records:
                        tracker.entry(record)
                else:
                    tracker.block(item.block, item.look.ambiguous)

    def _items(
        self, look: Callable[[Block], LookedT]
    ) -> Generator[Seen[LookedT] | Decoded, None, None]:
        for number, export in enumerate(self.files()):
            yield from read_export(export, number, look, self.text)

    def _scan_pass(
        self, filters: list[CompiledFilter], collectors: list[Collector], tracker: SpanTracker
    ) -> None:
        scanner = BlockScanner(filters, self._whole_records)
        learn = self._tracker is None  # after the first pass, times only for whole blocks

        def look(block: Block) -> Scan:
            """The scan, and the block's extremes where its times are wanted, in the worker
            thread that scanned it."""
            scan = scanner.look(block)
            if (learn or scanner.everything) and not scan.broken and scan.one_key_each:
                scan.extremes = canonical_extremes(block, one_key_each=True)
            return scan

        with Ahead(self._items(look)) as items:
            for item in items:
                if isinstance(item, list):
                    _every(item, collectors, tracker)
                elif item.look.broken:
                    _every(list(line_records(item.block)), collectors, tracker)
                else:
                    _offer(item.block, item.look, scanner.everything, collectors, tracker, learn)
        for collector in collectors:
            collector.settle()


def _every(records: Sequence[Record], collectors: list[Collector], tracker: SpanTracker) -> None:
    """Records every fetch must look at (decoded, or from a block read line by line)."""
    for record in records:
        tracker.entry(record)
        for collector in collectors:
            collector.consider(record)
        record.parsed = None  # a kept record is parsed again at the end


def _offer(
    block: Block,
    scan: Scan,
    everything: tuple[int, ...],
    collectors: list[Collector],
    tracker: SpanTracker,
    learn: bool,
) -> None:
    """A scanned block's candidates to the fetches they may match."""
    if learn or everything:
        times = tracker.extremes(block, scan.extremes)
        for index in everything:
            collectors[index].offer_block(block, times)
    for start, end, wanted in scan.candidates:
        record = block.record(start, end)
        estimate = _estimate(record, block)
        for index in wanted:
            collectors[index].offer_record(record, estimate)
