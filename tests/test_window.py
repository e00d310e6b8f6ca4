"""The window flags: every combination DESIGN.md allows, and the ones it refuses."""

from __future__ import annotations

import pytest

from pathways_workload.errors import UsageError
from pathways_workload.timestamps import format_timestamp_ns, parse_timestamp_ns
from pathways_workload.window import (
    Window,
    WindowFlags,
    format_duration,
    parse_flag_duration_ns,
    resolve_window,
)
from tests.helpers import run_cli

NOW = parse_timestamp_ns("2026-10-22T12:00:00Z")
MINUTE = 60 * 10**9


def bounds(window: Window) -> tuple[str, str]:
    return window.start, window.end


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (WindowFlags(), ("2026-10-22T11:00:00Z", "2026-10-22T12:00:00Z")),
        (WindowFlags(duration="30m"), ("2026-10-22T11:30:00Z", "2026-10-22T12:00:00Z")),
        (
            WindowFlags(start_time="2026-10-22T11:10:00Z"),
            ("2026-10-22T11:10:00Z", "2026-10-22T12:10:00Z"),
        ),
        (
            WindowFlags(start_time="2026-10-22T11:10:00Z", duration="1h30m"),
            ("2026-10-22T11:10:00Z", "2026-10-22T12:40:00Z"),
        ),
        (
            WindowFlags(end_time="2026-10-22T11:10:00Z", duration="90s"),
            ("2026-10-22T11:08:30Z", "2026-10-22T11:10:00Z"),
        ),
        (
            WindowFlags(start_time="2026-10-22T11:00:00Z", end_time="2026-10-22T11:05:00.5Z"),
            ("2026-10-22T11:00:00Z", "2026-10-22T11:05:00.5Z"),
        ),
        (
            WindowFlags(issue_time="2026-10-22T11:40:00Z"),
            ("2026-10-22T11:10:00Z", "2026-10-22T12:10:00Z"),
        ),
        (
            WindowFlags(issue_time="2026-10-22T13:40:00+02:00"),
            ("2026-10-22T11:10:00Z", "2026-10-22T12:10:00Z"),
        ),
    ],
)
def test_window_flags(flags: WindowFlags, expected: tuple[str, str]) -> None:
    assert bounds(resolve_window(flags, NOW)) == expected


def test_export_span_is_the_default_offline() -> None:
    span = Window(NOW - 7 * MINUTE, NOW)
    assert resolve_window(WindowFlags(), span.end_ns, span) == span


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (WindowFlags(start_time="yesterday"), "--start_time=yesterday: not an RFC 3339 time"),
        (WindowFlags(duration="0m"), "--duration=0m: must be longer than zero"),
        (WindowFlags(duration="-5m"), "--duration=-5m: not a duration"),
        (WindowFlags(duration="an hour"), "--duration=an hour: not a duration"),
        (WindowFlags(issue_time="2026-10-22T11:40:00Z", duration="1h"), "--issue_time sets"),
        (
            WindowFlags(
                start_time="2026-10-22T11:00:00Z", end_time="2026-10-22T12:00:00Z", duration="1h"
            ),
            "--start_time and --end_time already set the window; drop",
        ),
        (
            WindowFlags(start_time="2026-10-22T12:00:00Z", end_time="2026-10-22T11:00:00Z"),
            "the window starts after it ends",
        ),
    ],
)
def test_bad_window_flags(flags: WindowFlags, message: str) -> None:
    with pytest.raises(UsageError, match="^" + message.replace("+", r"\+")):
        resolve_window(flags, NOW)


def test_durations() -> None:
    assert parse_flag_duration_ns("1h30m") == 90 * MINUTE
    assert parse_flag_duration_ns("2d") == 48 * 60 * MINUTE


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-10-22T11:10:00Z", "2026-10-22T11:10:00Z"),
        ("2026-10-22T11:10:00.000000001Z", "2026-10-22T11:10:00.000000001Z"),
        ("2026-10-22T13:10:00+0200", "2026-10-22T11:10:00Z"),
        ("2026-10-22T06:10:00-05:00", "2026-10-22T11:10:00Z"),
        ("2026-10-22", "2026-10-22T00:00:00Z"),
    ],
)
def test_timestamps_keep_nanoseconds(text: str, expected: str) -> None:
    assert format_timestamp_ns(parse_timestamp_ns(text)) == expected


def test_two_instants_inside_one_microsecond_differ() -> None:
    early = parse_timestamp_ns("2026-10-22T11:10:00.123456001Z")
    late = parse_timestamp_ns("2026-10-22T11:10:00.123456999Z")
    assert early < late


@pytest.mark.parametrize(
    ("nanos", "shown"),
    [(0, "0ns"), (250_000_000, "0.25s"), (1, "0.000000001s"), (90 * 10**9, "1m30s")],
)
def test_a_window_under_a_second_shows_its_fraction(nanos: int, shown: str) -> None:
    assert format_duration(nanos) == shown


@pytest.mark.parametrize(
    "flags",
    [
        ("--start_time=2028-01-01T10:00:00Z",),
        ("--issue_time=2027-01-01T00:30:00.000000001Z",),
        ("--start_time=2027-01-01T10:00:00+09:00", "--end_time=2027-01-01T11:00:00+09:00"),
    ],
)
def test_a_window_that_starts_after_now_is_said(flags: tuple[str, ...]) -> None:
    """Nothing can have been logged in it yet (a mistyped year, a local time read as UTC):
    an empty answer must not pass for a quiet workload. The clock reads 2027-01-01T00:00Z."""
    code, _, err = run_cli("--project=pw-demo", "--jobset_name=x", "--action=errors", *flags)
    assert code == 0, err
    assert err.splitlines()[1] == (
        "note: the window starts after now (2027-01-01T00:00:00Z): nothing can have been "
        "logged in it yet; check the date and the UTC offset of the window flags (a time "
        "without an offset is UTC)"
    )


def test_a_window_that_reaches_now_is_not_said() -> None:
    code, _, err = run_cli(
        "--project=pw-demo",
        "--jobset_name=gemma-train",
        "--action=errors",
        "--start_time=2027-01-01T00:00:00Z",
    )
    assert code == 0, err
    assert "after now" not in err
