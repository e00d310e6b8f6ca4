"""The time window every query is bounded by, from the window flags."""

from __future__ import annotations

import dataclasses
import re

from pathways_workload.errors import UsageError
from pathways_workload.timestamps import NANOS_PER_SECOND, format_timestamp_ns, parse_timestamp_ns

DEFAULT_DURATION = "1h"
# The instants RFC 3339 can write (years 0001 to 9999).
EARLIEST_NS = parse_timestamp_ns("0001-01-01T00:00:00Z")
LATEST_NS = parse_timestamp_ns("9999-12-31T23:59:59.999999999Z")
ISSUE_HALF_WIDTH_NS = 30 * 60 * NANOS_PER_SECOND
# At most 30 digits a unit: more is no duration (and past what int() reads from text).
_DURATION_RE = re.compile(
    r"(?:([0-9]{1,30})d)?(?:([0-9]{1,30})h)?(?:([0-9]{1,30})m)?(?:([0-9]{1,30})s)?"
)
_UNIT_SECONDS = (86400, 3600, 60, 1)
# A date alone, which the timestamp parser reads as its midnight UTC.
_DATE_ONLY_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


@dataclasses.dataclass(frozen=True)
class Window:
    """A closed interval of instants, in nanoseconds since the epoch.

    `note`, when set, is said instead of the bounds, which then mean nothing to
    a reader (an export without one usable timestamp has no span).
    """

    start_ns: int
    end_ns: int
    note: str = ""

    @property
    def start(self) -> str:
        return format_timestamp_ns(self.start_ns)

    @property
    def end(self) -> str:
        return format_timestamp_ns(self.end_ns)

    def span(self) -> str:
        """The bounds and the length: `START .. END (1h)` (or the note)."""
        if self.note:
            return self.note
        return f"{self.start} .. {self.end} ({format_duration(self.end_ns - self.start_ns)})"

    def as_json(self) -> dict[str, str]:
        """The bounds, and the note when there is one."""
        bounds = {"start": self.start, "end": self.end}
        return {**bounds, "note": self.note} if self.note else bounds

    def describe(self) -> str:
        """One line for stderr."""
        return f"window: {self.span()}"


@dataclasses.dataclass(frozen=True)
class WindowFlags:
    """The window flags as given; None where the flag was not passed."""

    start_time: str | None = None
    end_time: str | None = None
    duration: str | None = None
    issue_time: str | None = None

    def any_given(self) -> bool:
        return any(value is not None for value in dataclasses.astuple(self))


def as_given(text: str) -> str:
    """A flag's value for a one-line message: as typed, quoted when it holds a line break or
    another character that does not print."""
    return text if text.isprintable() else repr(text)


def parse_flag_duration_ns(text: str) -> int:
    """Parse `30m`, `1h`, `1h30m`, `90s`, `2d` to nanoseconds; it must be positive."""
    match = _DURATION_RE.fullmatch(text.strip())
    if not text.strip() or match is None:
        raise UsageError(
            f"--duration={as_given(text)}: not a duration; use e.g. 30m, 1h, 1h30m or 90s"
        )
    seconds = sum(int(part or 0) * unit for part, unit in zip(match.groups(), _UNIT_SECONDS))
    if seconds <= 0:
        raise UsageError(f"--duration={as_given(text)}: must be longer than zero, e.g. 30m or 1h")
    return seconds * NANOS_PER_SECOND


def format_duration(nanos: int) -> str:
    """Format a duration compactly (`1h30m`, `90s` stays `1m30s`; under a second, its
    fraction: `0.25s`)."""
    if 0 < nanos < NANOS_PER_SECOND:
        return f"{nanos / NANOS_PER_SECOND:.9f}".rstrip("0") + "s"
    seconds = nanos // NANOS_PER_SECOND
    parts = []
    for unit, suffix in zip(_UNIT_SECONDS, "dhms"):
        count, seconds = divmod(seconds, unit)
        if count:
            parts.append(f"{count}{suffix}")
    return "".join(parts) or f"{nanos}ns"


def _duration_ns(flags: WindowFlags) -> int:
    """--duration, or the default when it was not given (an empty value is an error)."""
    return parse_flag_duration_ns(DEFAULT_DURATION if flags.duration is None else flags.duration)


def _timestamp(flag: str, text: str) -> int:
    """A window flag's instant. A date alone is refused: read as its midnight, `--end_time=D`
    would end as the day begins, and `--start_time=D --end_time=D` span nothing."""
    if _DATE_ONLY_RE.fullmatch(text.strip()):
        raise UsageError(
            f"--{flag}={as_given(text)}: a date without a time of day; give the time too, "
            f"e.g. {text.strip()}T00:00:00Z"
        )
    try:
        return parse_timestamp_ns(text)
    except ValueError:
        raise UsageError(
            f"--{flag}={as_given(text)}: not an RFC 3339 time; use e.g. 2026-10-22T11:10:00Z"
        ) from None


def resolve_window(flags: WindowFlags, now_ns: int | None, span: Window | None = None) -> Window:
    """Turn the window flags into a window.

    With no flag, the window is `span` when given (an export's span offline),
    else the hour before `now_ns`.
    """
    if flags.issue_time is not None:
        if (flags.start_time, flags.end_time, flags.duration) != (None, None, None):
            raise UsageError(
                "--issue_time sets the window to issue_time +/- 30m; "
                "drop --start_time, --end_time and --duration, or drop --issue_time"
            )
        issue = _timestamp("issue_time", flags.issue_time)
        window = Window(issue - ISSUE_HALF_WIDTH_NS, issue + ISSUE_HALF_WIDTH_NS)
    elif flags.start_time is not None and flags.end_time is not None:
        if flags.duration is not None:
            raise UsageError("--start_time and --end_time already set the window; drop --duration")
        window = Window(
            _timestamp("start_time", flags.start_time), _timestamp("end_time", flags.end_time)
        )
    elif flags.start_time is not None:
        start = _timestamp("start_time", flags.start_time)
        window = Window(start, start + _duration_ns(flags))
    elif flags.end_time is not None:
        end = _timestamp("end_time", flags.end_time)
        window = Window(end - _duration_ns(flags), end)
    elif span is not None and flags.duration is None:
        return span
    else:
        if now_ns is None:
            raise UsageError("give the window: --issue_time, or --start_time/--end_time")
        window = Window(now_ns - _duration_ns(flags), now_ns)
    if window.start_ns < EARLIEST_NS or window.end_ns > LATEST_NS:
        raise UsageError(
            "the window reaches outside the years 0001 to 9999; check --start_time, "
            "--end_time, --duration and --issue_time"
        )
    if window.start_ns > window.end_ns:
        raise UsageError(
            f"the window starts after it ends ({window.start} > {window.end}); "
            "check --start_time and --end_time"
        )
    return window
