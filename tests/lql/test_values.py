"""Value conversions: folding, numbers, durations, severities and timestamp keys."""

from __future__ import annotations

import datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathways_workload import timestamps
from pathways_workload.lql import values


@pytest.mark.parametrize(
    ("text", "folded"),
    [
        ("MiXeD", "mixed"),
        ("ＦＵＬＬ", "full"),
        ("eﬃcient", "efficient"),
        ("Straße", "strasse"),
        ("\u212a", "k"),
        ("soft\u00adhyphen", "softhyphen"),
        ("ÉCOLE", "école"),
    ],
)
def test_fold(text: str, folded: str) -> None:
    assert values.fold(text) == folded


@given(st.text())
@settings(max_examples=200)
def test_fold_is_idempotent(text: str) -> None:
    assert values.fold(values.fold(text)) == values.fold(text)


@pytest.mark.parametrize(
    ("text", "number"),
    [("5", 5.0), ("-2.5", -2.5), ("1e3", 1000.0), (".5", 0.5), ("5.", 5.0), ("+7", 7.0)],
)
def test_numbers(text: str, number: float) -> None:
    assert values.parse_number(text) == number


@pytest.mark.parametrize("text", ["", "abc", "1_000", "0x10", "1e", " 5", "٣"])
def test_not_numbers(text: str) -> None:
    assert values.parse_number(text) is None


def test_infinity_and_nan_in_any_case() -> None:
    assert values.parse_number("-INFINITY") == float("-inf")
    assert values.parse_number("inf") == float("inf")
    number = values.parse_number("NaN")
    assert number is not None and number != number


@pytest.mark.parametrize(
    ("text", "integer"),
    [
        ("42", 42),
        ("-0007", -7),
        ("18446744073709551615", 2**64 - 1),
        ("9" * 30, None),
        ("4.0", None),
    ],
)
def test_integers(text: str, integer: int | None) -> None:
    assert values.parse_integer(text) == integer


def test_huge_digit_strings_do_not_raise() -> None:
    assert values.parse_integer("1" * 10_000) is None
    assert values.parse_field_duration_ns("1" * 10_000 + "s") is None
    assert values.parse_number("1" * 10_000) == float("inf")


@pytest.mark.parametrize(
    ("text", "nanos"),
    [
        ("0.008142579s", 8_142_579),
        ("3.2s", 3_200_000_000),
        ("-5ms", -5_000_000),
        ("1.5h", 5_400_000_000_000),
        ("250us", 250_000),
        ("7ns", 7),
        ("5", None),
        ("1h30m", None),
    ],
)
def test_durations(text: str, nanos: int | None) -> None:
    assert values.parse_field_duration_ns(text) == nanos


@pytest.mark.parametrize(
    ("text", "level"),
    [("ERROR", 500), ("warning", 400), ("Default", 0), ("800", 800), ("450", None), ("WARN", None)],
)
def test_severities(text: str, level: int | None) -> None:
    assert values.parse_severity(text) == level


def test_timestamp_key_shapes() -> None:
    key = "2026-10-22T11:10:00.000000000"
    assert values.timestamp_key("2026-10-22T11:10:00Z") == key
    assert values.timestamp_key("2026-10-22T13:10:00+02:00") == key
    assert values.timestamp_key("2026-10-22T11:10:00+0000") == key
    assert values.timestamp_key("2026-10-22") == "2026-10-22T00:00:00.000000000"
    assert values.timestamp_key("2026-10-22T11:09:60Z") == key
    assert values.timestamp_key("2026-02-30T00:00:00Z") is None
    assert values.timestamp_key("0001-01-01T00:00:00+01:00") is None
    assert values.timestamp_key(5) is None


INSTANTS = st.integers(
    min_value=timestamps.parse_timestamp_ns("0001-01-02T00:00:00Z"),
    max_value=timestamps.parse_timestamp_ns("9999-12-30T00:00:00Z"),
)


def _written(nanos: int, digits: int, offset_minutes: int) -> str:
    """Write an instant with `digits` fraction digits (truncating) and an offset."""
    seconds, fraction = divmod(nanos, timestamps.NANOS_PER_SECOND)
    moment = datetime.datetime(1970, 1, 1) + datetime.timedelta(
        seconds=seconds + offset_minutes * 60
    )
    text = moment.strftime("%Y-%m-%dT%H:%M:%S").rjust(19, "0")
    if digits:
        text += "." + f"{fraction:09d}"[:digits]
    if offset_minutes == 0:
        return text + "Z"
    sign = "+" if offset_minutes > 0 else "-"
    hours, minutes = divmod(abs(offset_minutes), 60)
    return f"{text}{sign}{hours:02d}:{minutes:02d}"


@given(
    INSTANTS,
    INSTANTS,
    st.sampled_from([0, 3, 6, 9]),
    st.sampled_from([0, 0, 60, -300, 330]),
)
@settings(max_examples=300)
def test_timestamp_keys_order_like_nanoseconds(
    first: int, second: int, digits: int, offset: int
) -> None:
    first_text, second_text = _written(first, digits, offset), _written(second, 9, 0)
    first_nanos = timestamps.parse_timestamp_ns(first_text)
    second_nanos = timestamps.parse_timestamp_ns(second_text)
    first_key, second_key = values.timestamp_key(first_text), values.timestamp_key(second_text)
    assert first_key is not None and second_key is not None
    assert (first_key < second_key) == (first_nanos < second_nanos)
    assert (first_key == second_key) == (first_nanos == second_nanos)
