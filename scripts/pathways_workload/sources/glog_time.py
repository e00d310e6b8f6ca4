"""The instant of a glog header, read as UTC: its year comes from the window, else is assumed.

With window flags, a header takes the year of the window's end or start that
puts it inside the window (else nearest to it). Without them it takes the
latest year that does not put it more than a day after now (this year or the
last), and the run says on stderr which year it assumed. A day that neither
year has (29 February) gives no instant.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable

from pathways_workload.sources.text_lines import GlogHeader
from pathways_workload.timestamps import NANOS_PER_SECOND
from pathways_workload.window import Window

DAY_NS = 86400 * NANOS_PER_SECOND
_EPOCH = datetime.date(1970, 1, 1).toordinal()
# Years tried back from now: this one, and the last for a header ahead of today. A 29 February
# neither has is a bad header (its line is placed after its neighbour), not one years back.
_YEARS_BACK = 2


def _year_of(instant_ns: int) -> int:
    return datetime.date.fromordinal(_EPOCH + instant_ns // DAY_NS).year


def header_instant(header: GlogHeader, year: int) -> int | None:
    """The header's instant in that year (None: no such day, e.g. 29 February)."""
    try:
        day = datetime.date(year, header.month, header.day).toordinal() - _EPOCH
    except ValueError:
        return None
    return day * DAY_NS + header.clock_ns


class GlogClock:
    """Turns glog headers into instants, telling once which year it assumed."""

    def __init__(self, window: Window | None, now_ns: int, tell: Callable[[str], None]) -> None:
        self._window = window
        self._now_ns = now_ns
        self._tell = tell
        self._told: set[int] = set()

    def instant(self, header: GlogHeader) -> int | None:
        """The header's instant, or None when no year gives its day."""
        if self._window is not None:
            return self._in_window(header, self._window)
        for year in range(_year_of(self._now_ns), _year_of(self._now_ns) - _YEARS_BACK, -1):
            instant = header_instant(header, year)
            if instant is not None and instant <= self._now_ns + DAY_NS:
                self._assumed(year)
                return instant
        return None

    def _in_window(self, header: GlogHeader, window: Window) -> int | None:
        years = dict.fromkeys((_year_of(window.end_ns), _year_of(window.start_ns)))
        found = [i for i in (header_instant(header, y) for y in years) if i is not None]
        inside = [i for i in found if window.start_ns <= i <= window.end_ns]
        if inside or not found:
            return inside[0] if inside else None
        return min(found, key=lambda i: min(abs(i - window.start_ns), abs(i - window.end_ns)))

    def _assumed(self, year: int) -> None:
        if year not in self._told:
            self._told.add(year)
            self._tell(
                f"note: glog headers carry no year; read as {year} (the latest year not after "
                "today); give --start_time and --end_time to set it"
            )
