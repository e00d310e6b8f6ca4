"""The block scanner's building blocks: framing, and timestamps compared by their text."""

from __future__ import annotations

import datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from pathways_workload.sources.scan import _seconds_pattern, is_framed
from pathways_workload.timestamps import parse_timestamp_ns

SECONDS = st.datetimes(min_value=datetime.datetime(1000, 1, 1)).map(
    lambda moment: moment.strftime("%Y-%m-%dT%H:%M:%S")
)


@settings(deadline=None)
@given(SECONDS, SECONDS)
def test_a_timestamp_is_found_exactly_when_it_is_at_or_beyond_the_instant(
    bound: str, seen: str
) -> None:
    line = f'{{"timestamp": "{seen}.25Z"}}'.encode()
    instant = parse_timestamp_ns(bound + "Z")
    assert (_seconds_pattern(instant, True).search(line) is not None) == (seen >= bound)
    assert (_seconds_pattern(instant, False).search(line) is not None) == (seen <= bound)


def test_framing() -> None:
    def framed(block: bytes) -> bool:
        return is_framed(block, block.count(b"\n"))

    assert framed(b'{"a": 1}\n{"b": 2}\n')
    assert not framed(b'{"a": 1}\n\n{"b": 2}\n')
    assert not framed(b'{"a": 1}\n{"b": 2\n')
    assert not framed(b'{"a": 1}\n {"b": 2}\n')
