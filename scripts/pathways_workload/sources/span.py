"""The export's span, learnt while reading: its earliest and latest top-level timestamps.

Per block, one regex pass collects the `"timestamp": "..."` values in the shape
Cloud Logging writes (`2026-10-22T11:10:00.123456789Z`). When every record has
exactly one, the block's extremes come from comparing the values as bytes
(without their `Z`, such texts sort as their instants do), and only those two
are parsed. Any other block (a record without a timestamp,
a second "timestamp" key in a payload, an offset, spaces) is read record by
record, and a record its text cannot settle is parsed.

Only instants after the Unix epoch and up to a day after now make the span
(a time of zero is the mark of an unset one): an entry with an absurd time is
counted and named in a warning instead of stretching the window, and so is an
entry without a usable top-level timestamp (none, not a string, not a time),
which no query with a time window can return.

Known limit: in JSON Lines, a record whose only "timestamp" keys are nested
in its payload is read by those; Cloud Logging gives every entry a top-level
timestamp. (gcloud's indented arrays show which key is top-level.)
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from pathways_workload.errors import InputFileError
from pathways_workload.sources.export_reader import Block
from pathways_workload.sources.framing import LineFraming, escaped_key
from pathways_workload.sources.records import Record
from pathways_workload.timestamps import NANOS_PER_SECOND, format_timestamp_ns, parse_timestamp_ns
from pathways_workload.window import Window

CANONICAL = re.compile(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?Z")
DAY_NS = 86400 * NANOS_PER_SECOND
SECONDS = 19  # `YYYY-MM-DDTHH:MM:SS`


def seconds_text(instant_ns: int) -> bytes:
    """The fixed-width seconds of an instant, comparable with timestamps' text."""
    return format_timestamp_ns(instant_ns)[:SECONDS].encode()


def instant_text(instant_ns: int) -> bytes:
    """An instant as fixed-width text to the nanosecond (`YYYY-MM-DDTHH:MM:SS.fffffffff`):
    comparing two such texts compares the instants."""
    return seconds_text(instant_ns) + b".%09d" % (instant_ns % NANOS_PER_SECOND)


def fine_text(stamp: bytes) -> bytes:
    """A canonical timestamp's text (`Z` optional) as `instant_text` writes its instant."""
    fraction = stamp[SECONDS + 1 :].rstrip(b"Z")
    return stamp[:SECONDS] + b"." + fraction.ljust(9, b"0")


@dataclasses.dataclass(frozen=True)
class BlockTimes:
    """What a block's text says about its records' times.

    `low` and `high` bound the seconds of every record's time (as text);
    `complete`: every record has a usable top-level timestamp, so none sorts
    outside them; `aligned`: the stamps pattern finds exactly one value per
    record, in record order; `times`: per record, its instant when known.
    """

    low: bytes = b""
    high: bytes = b"\xff"
    complete: bool = False
    aligned: bool = False
    times: Sequence[int | None] | None = None


@dataclasses.dataclass
class _Odd:
    """Entries of one kind of trouble: how many, and where and what the first was."""

    count: int = 0
    first: tuple[Record, str] | None = None

    def add(self, record: Record, what: str) -> None:
        self.count += 1
        if self.first is None:
            self.first = (record, what)

    def where(self) -> str:
        assert self.first is not None
        record = self.first[0]
        return f"{record.export.name}:{record.line_number()}"


# A block's earliest and latest top-level time, as canonical text without its `Z`.
Extremes = tuple[bytes, bytes]


def canonical_extremes(block: Block, one_key_each: bool = False) -> Extremes | None:
    """The earliest and latest time of a block whose lines hold at most one "timestamp"
    key (exactly one, `one_key_each`, as the scan can tell), or None when some record has
    no canonical one. It reads only the block, so it can run in the thread that scanned it."""
    stamps, one_each = block.framing.canonical_stamps(block.data, one_key_each)
    return (min(stamps), max(stamps)) if one_each and stamps else None


def top_level_time(entry: dict[str, object]) -> int | None:
    value = entry.get("timestamp")
    if not isinstance(value, str):
        return None
    try:
        return parse_timestamp_ns(value)
    except ValueError:
        return None


class SpanTracker:
    """The earliest and latest plausible top-level timestamps seen, and the odd entries."""

    def __init__(self, now_ns: int) -> None:
        self.earliest: int | None = None
        self.latest: int | None = None
        self.absurd = _Odd()
        self.missing = _Odd()
        self._ceiling = now_ns + DAY_NS
        self._low = seconds_text(0)
        self._high = seconds_text(self._ceiling)

    def window(self) -> Window | None:
        if self.earliest is None or self.latest is None:
            return None
        return Window(self.earliest, self.latest)

    def instant(self, instant: int | None, record: Record, text: str = "") -> None:
        """Count one record's top-level time (None: it has no usable one)."""
        if instant is None:
            self.missing.add(record, text)
        elif not 0 < instant <= self._ceiling:
            self.absurd.add(record, text or format_timestamp_ns(instant))
        else:
            self._widen(instant)

    def _widen(self, instant: int) -> None:
        self.earliest = instant if self.earliest is None else min(self.earliest, instant)
        self.latest = instant if self.latest is None else max(self.latest, instant)

    def entry(self, record: Record) -> None:
        """A parsed record."""
        value = record.entry().get("timestamp")
        self.instant(
            top_level_time(record.entry()), record, value if isinstance(value, str) else ""
        )

    def block(self, block: Block, ambiguous: bool | None = None) -> BlockTimes:
        """Learn a block's times; `ambiguous`: some record has more than one "timestamp"
        key (None: not known, count them)."""
        framing = block.framing
        if ambiguous is None:  # with a value on every line, as many keys as lines: one each
            keys = block.data.count(b'"timestamp"')
            ambiguous = isinstance(framing, LineFraming) and keys != framing.count(block.data)
        return self.extremes(block, None if ambiguous else canonical_extremes(block))

    def extremes(self, block: Block, extremes: Extremes | None) -> BlockTimes:
        """Learn a block's times from its `canonical_extremes` (None: it has none, so it is
        read record by record)."""
        if extremes is None:
            return self._by_record(block)
        earliest, latest = extremes
        low, high = earliest[:SECONDS], latest[:SECONDS]
        if low <= self._low or high >= self._high:
            return dataclasses.replace(self._by_record(block), aligned=True)
        self._widen(parse_timestamp_ns(earliest.decode() + "Z"))
        self._widen(parse_timestamp_ns(latest.decode() + "Z"))
        return BlockTimes(low, high, complete=True, aligned=True)

    def _by_record(self, block: Block) -> BlockTimes:
        """Read a block record by record (parsing those the text cannot settle)."""
        times: list[int | None] = []
        complete = True
        for start, end in block.framing.spans(block.data):
            record = block.record(start, end)
            instant, text, settled = self._record_time(block, record)
            if settled:
                self.instant(instant, record, text)
            times.append(instant if settled else None)
            complete = complete and settled and instant is not None
        known = [instant for instant in times if instant is not None]
        if not known:
            return BlockTimes(complete=False, times=times)
        return BlockTimes(seconds_text(min(known)), seconds_text(max(known)), complete, times=times)

    def _record_time(self, block: Block, record: Record) -> tuple[int | None, str, bool]:
        """A record's top-level time, its text, and whether it is known (False: unknown,
        but one of its several "timestamp" values, all inside the span so far)."""
        raw = record.raw
        if escaped_key(raw):
            return top_level_time(record.entry()), _text(record.entry().get("timestamp")), True
        values = block.framing.stamps.findall(raw)
        keys = raw.count(b'"timestamp"') if isinstance(block.framing, LineFraming) else len(values)
        if len(values) == 1 and keys == 1 and b"\\" not in values[0]:
            text = values[0].decode()
            try:
                return parse_timestamp_ns(text), text, True
            except ValueError:
                return None, text, True
        if keys == 0 and b"\\u" not in raw:
            return None, "", True
        if values and len(values) == keys and self._inside(values):
            return None, "", False
        return top_level_time(record.entry()), _text(record.entry().get("timestamp")), True

    def _inside(self, values: list[bytes]) -> bool:
        """Every value is canonical and strictly inside the span's seconds so far."""
        if self.earliest is None or self.latest is None:
            return False
        low, high = seconds_text(self.earliest), seconds_text(self.latest)
        return all(CANONICAL.fullmatch(v) and low < v[:SECONDS] < high for v in values)

    def refuse_timeless(self) -> None:
        """Refuse an export none of whose entries has a usable top-level timestamp (and none
        an absurd one): no query could return any of them."""
        if self.missing.first is None or self.earliest is not None or self.absurd.count:
            return
        record, value = self.missing.first
        if self.missing.count == 1 and _api_response(record):
            raise InputFileError(
                f"{self.missing.where()}: a Cloud Logging API response, not an export: its "
                'entries are in its "entries" list; extract them first (e.g. with jq '
                "'.entries'), or record them with `gcloud logging read --format=json`"
            )
        first = f"the first reads {value!r}" if value else "the first has none"
        raise InputFileError(
            f"{self.missing.where()}: none of the export's {self.missing.count} entries has a "
            f"usable top-level timestamp ({first}), so no query can return them: give each a "
            '"timestamp" in RFC 3339, as `gcloud logging read --format=json` writes it '
            "(2026-10-22T11:30:00.5Z), or copy its receiveTimestamp there if that is all it has"
        )

    def notes(self) -> list[str]:
        """The warning about entries without a usable timestamp, if any."""
        count = self.missing.count
        if not count:
            return []
        entries = "1 entry has" if count == 1 else f"{count} entries have"
        them = "it" if count == 1 else "them"
        return [
            f"warning: {entries} no usable top-level timestamp (first at {self.missing.where()}); "
            f"no query can return {them}"
        ]

    def span_notes(self) -> list[str]:
        """The warning about entries left out of the span for their absurd time, if any."""
        count = self.absurd.count
        if not count or self.absurd.first is None:
            return []
        entries = "1 entry has" if count == 1 else f"{count} entries have"
        it, them = ("it is", "it") if count == 1 else ("they are", "them")
        return [
            f"warning: {entries} a timestamp at or before 1970-01-01T00:00:00Z or more "
            "than a day after now "
            f"(first at {self.absurd.where()}: {self.absurd.first[1]}); {it} outside the "
            f"export's span: pass --start_time and --end_time to include {them}"
        ]


def _api_response(record: Record) -> bool:
    """Whether the record is the body `entries.list` answers: its entries in a list under
    "entries" (an empty body has no such list to read)."""
    entry = record.entry()
    return isinstance(entry, dict) and isinstance(entry.get("entries"), list)


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""
