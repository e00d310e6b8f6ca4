"""Time in the corpus: nanoseconds since the epoch, and the ways logs print it."""

from __future__ import annotations

import calendar
import time

NS = 1_000_000_000
MS = 1_000_000
US = 1_000


def parse_ts(text: str) -> int:
    """RFC 3339 in UTC (`YYYY-MM-DDTHH:MM:SS[.fraction]Z`) to nanoseconds."""
    base, _, fraction = text.rstrip("Z").partition(".")
    seconds = calendar.timegm(time.strptime(base, "%Y-%m-%dT%H:%M:%S"))
    return seconds * NS + int((fraction or "0").ljust(9, "0")[:9])


def fmt_ts(nanos: int) -> str:
    """RFC 3339 in UTC with 0, 3, 6 or 9 fractional digits, as proto3 JSON prints it."""
    seconds, fraction = divmod(nanos, NS)
    base = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
    if fraction == 0:
        return base + "Z"
    if fraction % MS == 0:
        return f"{base}.{fraction // MS:03d}Z"
    if fraction % US == 0:
        return f"{base}.{fraction // US:06d}Z"
    return f"{base}.{fraction:09d}Z"


def whole(nanos: int) -> int:
    """Round down to the second (events carry whole-second timestamps)."""
    return nanos - nanos % NS


def sec(seconds: float) -> int:
    """Seconds to nanoseconds."""
    return round(seconds * NS)


def glog_header(letter: str, nanos: int, thread: int, source: tuple[str, int]) -> str:
    """The glog/absl prefix `Lmmdd hh:mm:ss.uuuuuu  thread file:line] `."""
    seconds, fraction = divmod(nanos, NS)
    moment = time.gmtime(seconds)
    clock = time.strftime("%H:%M:%S", moment)
    day = f"{moment.tm_mon:02d}{moment.tm_mday:02d}"
    return f"{letter}{day} {clock}.{fraction // US:06d} {thread:>5} {source[0]}:{source[1]}] "


def date_line(nanos: int) -> str:
    """What `date` prints in a UTC container."""
    return time.strftime("%a %b %d %H:%M:%S UTC %Y", time.gmtime(nanos // NS))


def zap_stamp(nanos: int) -> str:
    """The controller-runtime (zap) timestamp: RFC 3339 with milliseconds."""
    return fmt_ts(whole(nanos))[:-1] + f".{nanos % NS // MS:03d}Z"
