"""RFC 3339 timestamps as integer nanoseconds since the Unix epoch.

Python datetimes keep microseconds only; log entries carry nanoseconds, so every
comparison and sort in this tool goes through these integers instead.
"""

from __future__ import annotations

import datetime
import functools
import re

NANOS_PER_SECOND = 1_000_000_000
_EPOCH_ORDINAL = datetime.date(1970, 1, 1).toordinal()

_TIMESTAMP_RE = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})"
    r"(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?"
    r"(?:([Zz])|([+-])(\d{2}):?(\d{2})?)?)?",
    re.ASCII,  # digits are 0-9 only
)


# Where the digits of `YYYY-MM-DDTHH:MM:SS.f…Z` are (the fraction up to the `Z`).
_DIGIT_FIELDS = ((0, 4), (5, 7), (8, 10), (11, 13), (14, 16), (17, 19), (20, -1))


@functools.lru_cache(maxsize=64)
def _day_seconds(date: str) -> int:
    """Seconds from the epoch to midnight UTC of a `YYYY-MM-DD` date."""
    year, month, day = int(date[:4]), int(date[5:7]), int(date[8:10])
    return (datetime.date(year, month, day).toordinal() - _EPOCH_ORDINAL) * 86400


def parse_timestamp_ns(text: str) -> int:
    """Parse an RFC 3339 timestamp (or a date, meaning midnight UTC) to nanoseconds.

    Accepts `Z`, `+HH:MM`, `+HHMM` and `+HH` offsets, up to nine fractional
    digits (more are truncated) and no offset (UTC). Raises ValueError otherwise.
    """
    if (
        21 < len(text) <= 30  # a fraction of one digit or more
        and text[-1] == "Z"
        and text[19] == "."
        and text[10] == "T"
        and text[4] == text[7] == "-"
        and text[13] == text[16] == ":"
        and text.isascii()
        and "".join(text[a:b] for a, b in _DIGIT_FIELDS).isdigit()  # no sign, no blank
    ):
        try:  # the shape Cloud Logging writes: 2026-10-22T11:10:00.123456789Z
            hours, minutes, seconds = int(text[11:13]), int(text[14:16]), int(text[17:19])
            if hours <= 23 and minutes <= 59 and seconds <= 60:
                clock = hours * 3600 + minutes * 60 + seconds
                return (_day_seconds(text[:10]) + clock) * NANOS_PER_SECOND + int(
                    text[20:-1].ljust(9, "0")
                )
        except ValueError:
            pass
    match = _TIMESTAMP_RE.fullmatch(text.strip())
    if match is None:
        raise ValueError(f"not an RFC 3339 timestamp: {text!r}")
    year, month, day, hour, minute, second, fraction, _, sign, off_h, off_m = match.groups()
    try:
        ordinal = datetime.date(int(year), int(month), int(day)).toordinal()
    except ValueError as error:
        raise ValueError(f"not a valid date: {text!r}") from error
    hours, minutes, seconds = int(hour or 0), int(minute or 0), int(second or 0)
    if hours > 23 or minutes > 59 or seconds > 60:
        raise ValueError(f"not a valid time of day: {text!r}")
    total = (ordinal - _EPOCH_ORDINAL) * 86400 + hours * 3600 + minutes * 60 + seconds
    if sign:
        if int(off_h) > 23 or int(off_m or 0) > 59:
            raise ValueError(f"not a valid UTC offset: {text!r}")
        offset = int(off_h) * 3600 + int(off_m or 0) * 60
        total -= offset if sign == "+" else -offset
    nanos = int((fraction or "")[:9].ljust(9, "0"))
    return total * NANOS_PER_SECOND + nanos


def format_timestamp_ns(nanos: int) -> str:
    """Format nanoseconds as RFC 3339 UTC with `Z` and a four-digit year, keeping only the
    fraction needed."""
    seconds, fraction = divmod(nanos, NANOS_PER_SECOND)
    moment = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=seconds)
    text = moment.isoformat(timespec="seconds")
    if fraction:
        text += "." + f"{fraction:09d}".rstrip("0")
    return text + "Z"
