"""Offline replay and time: the export's span, odd timestamps, and skipping by time.

The span is the export's window when no window flag is given, so it must come
from each entry's top-level `timestamp` only, and an entry with an absurd or
unusable timestamp must be reported instead of silently emptying or widening
the window.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pathways_workload.query import Request
from pathways_workload.registry import ACTIONS
from pathways_workload.sources import records
from pathways_workload.sources.base import Fetch
from pathways_workload.sources.export_reader import Block
from pathways_workload.sources.files import FileSource, plausible_window
from pathways_workload.sources.framing import LineFraming, ObjectFraming
from pathways_workload.sources.inputs import ExportFile
from pathways_workload.sources.span import SpanTracker
from pathways_workload.target import Target, parse_workload
from pathways_workload.timestamps import format_timestamp_ns, parse_timestamp_ns
from pathways_workload.window import Window
from tests.helpers import container_entry, queries_of, run_cli

# tests.helpers.run_cli's clock: 2027-01-01T00:00:00Z.
WORKLOAD = "--jobset_name=llama-train"


def _lines(path: Path, entries: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(entry) + "\n" for entry in entries))
    return path


def _crashes() -> list[dict[str, Any]]:
    return [
        container_entry("Check failed: first", timestamp="2026-10-22T11:20:00Z"),
        container_entry("Check failed: last", timestamp="2026-10-22T11:30:00.5Z"),
    ]


def _messages(out: str) -> list[str]:
    return [line.split(": ", 1)[1] for line in out.splitlines()]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0001-01-01T00:00:00Z", "0001-01-01T00:00:00Z"),
        ("0999-12-31T23:59:59.5Z", "0999-12-31T23:59:59.5Z"),
        ("9999-12-31T23:59:59.999999999Z", "9999-12-31T23:59:59.999999999Z"),
    ],
)
def test_timestamps_are_written_with_four_digit_years(text: str, expected: str) -> None:
    assert format_timestamp_ns(parse_timestamp_ns(text)) == expected


def test_a_nested_go_zero_time_does_not_touch_the_span(tmp_path: Path) -> None:
    entries = _crashes()
    entries.insert(1, container_entry("Check failed: nested", timestamp="2026-10-22T11:25:00Z"))
    entries[1].pop("textPayload")
    entries[1]["jsonPayload"] = {
        "message": "Check failed: nested",
        "timestamp": "0001-01-01T00:00:00Z",
    }
    path = _lines(tmp_path / "a.jsonl", entries)
    code, out, err = run_cli("--action=errors", f"--logs_file={path}", WORKLOAD)
    assert code == 0, err
    assert "window: 2026-10-22T11:20:00Z .. 2026-10-22T11:30:00.5Z (10m)" in err.splitlines()
    assert _messages(out) == ["Check failed: first", "Check failed: nested", "Check failed: last"]
    assert "warning" not in err


@pytest.mark.parametrize(
    "odd",
    [
        "0999-01-01T00:00:00Z",
        "1969-12-31T23:59:59Z",
        "2027-01-02T00:00:01Z",
        "2999-01-01T00:00:00Z",
    ],
)
def test_an_absurd_timestamp_is_a_warning_not_the_window(tmp_path: Path, odd: str) -> None:
    entries = _crashes()
    entries.insert(1, container_entry("unrelated", severity="INFO", timestamp=odd))
    path = _lines(tmp_path / "a.jsonl", entries)
    code, out, err = run_cli("--action=errors", f"--logs_file={path}", WORKLOAD)
    assert code == 0, err
    assert _messages(out) == ["Check failed: first", "Check failed: last"]
    assert "window: 2026-10-22T11:20:00Z .. 2026-10-22T11:30:00.5Z (10m)" in err.splitlines()
    assert (
        "warning: 1 entry has a timestamp at or before 1970-01-01T00:00:00Z or more than a day "
        f"after now "
        f"(first at {path}:2: {odd}); it is outside the export's span: pass "
        "--start_time and --end_time to include it"
    ) in err.splitlines()


@pytest.mark.parametrize("action", ["errors", "triage"])
def test_an_absurd_timestamp_is_no_warning_with_window_flags(tmp_path: Path, action: str) -> None:
    """With the window given, the export's span is not the window: an entry outside it is
    no news, and telling the user to pass the window flags they passed would mislead."""
    entries = _crashes()
    entries.insert(
        1, container_entry("unrelated", severity="INFO", timestamp="1969-12-31T23:59:59Z")
    )
    path = _lines(tmp_path / "a.jsonl", entries)
    window = ("--start_time=2026-10-22T11:00:00Z", "--end_time=2026-10-22T12:00:00Z")
    code, _, err = run_cli(f"--action={action}", f"--logs_file={path}", WORKLOAD, *window)
    assert code == 0, err
    assert "outside the export's span" not in err


def test_only_absurd_timestamps_leave_no_span(tmp_path: Path) -> None:
    path = _lines(
        tmp_path / "a.jsonl", [container_entry("Check failed", timestamp="0001-01-01T00:00:00Z")]
    )
    code, out, err = run_cli("--action=errors", f"--logs_file={path}", WORKLOAD)
    assert (code, out) == (0, "")
    assert "1 entry has a timestamp at or before 1970-01-01T00:00:00Z" in err
    assert "0001-01-01T00:00:00Z" in err
    assert "1-01-01T00:00:00Z .." not in err


def test_entries_without_a_usable_timestamp_are_counted(tmp_path: Path) -> None:
    entries = _crashes()
    missing = container_entry("Check failed: no time")
    missing.pop("timestamp")
    garbage = container_entry("Check failed: bad time", timestamp="yesterday")
    number = container_entry("Check failed: number")
    number["timestamp"] = 1792670400
    path = _lines(tmp_path / "a.jsonl", [entries[0], missing, garbage, number, entries[1]])
    code, out, err = run_cli("--action=errors", f"--logs_file={path}", WORKLOAD)
    assert code == 0, err
    assert _messages(out) == ["Check failed: first", "Check failed: last"]
    assert (
        f"warning: 3 entries have no usable top-level timestamp (first at {path}:2); "
        "no query can return them"
    ) in err.splitlines()


@pytest.mark.parametrize("layout", ["lines", "gcloud array"])
def test_odd_timestamps_among_many_are_counted_in_every_layout(tmp_path: Path, layout: str) -> None:
    """A block where some entries lack a usable top-level timestamp (none, empty; in an
    indented array, only a nested one, which JSON Lines would read as the entry's) is read
    entry by entry: the warning counts them, the window ignores them."""
    entries = [
        container_entry(f"ok {i}", severity="INFO", timestamp=f"2026-10-22T11:2{i % 10}:00Z")
        for i in range(200)
    ]
    missing = container_entry("Check failed: no time")
    missing.pop("timestamp")
    empty = container_entry("Check failed: empty time", timestamp="")
    nested = container_entry("Check failed: nested time")
    nested.pop("timestamp")
    nested["jsonPayload"] = {"timestamp": "2026-10-22T11:59:00Z"}
    odd = [missing, empty, nested] if layout == "gcloud array" else [missing, empty]
    entries[50:50] = odd
    entries.append(container_entry("Check failed: last", timestamp="2026-10-22T11:30:00.5Z"))
    path = tmp_path / "export.json"
    if layout == "lines":
        _lines(path, entries)
    else:
        path.write_text(json.dumps(entries, indent=2))
    code, out, err = run_cli("--action=errors", f"--logs_file={path}", WORKLOAD)
    assert code == 0, err
    assert _messages(out) == ["Check failed: last"]
    assert "window: 2026-10-22T11:20:00Z .. 2026-10-22T11:30:00.5Z" in err
    assert f"warning: {len(odd)} entries have no usable top-level timestamp" in err


def _stamp(instant: int, digits: int) -> str:
    """A canonical time with 0, 3, 6 or 9 fraction digits (as protobuf's JSON writes them)."""
    text = format_timestamp_ns(instant)[:19]
    fraction = f"{instant % 10**9:09d}"[:digits]
    return text + (f".{fraction}" if digits else "") + "Z"


@given(
    st.lists(
        st.tuples(
            st.integers(1792666800 * 10**9, 1792666803 * 10**9), st.sampled_from([0, 3, 6, 9])
        ),
        min_size=1,
        max_size=40,
    ),
    st.booleans(),
)
def test_a_block_span_is_its_earliest_and_latest_instant(
    stamps: list[tuple[int, int]], indented: bool
) -> None:
    """Values of mixed widths within a few seconds: the block's extremes, compared as text,
    are the extreme instants, in both framings."""
    texts = [_stamp(instant, digits) for instant, digits in stamps]
    entries = [container_entry("x", timestamp=text) for text in texts]
    if indented:
        framing: LineFraming | ObjectFraming = ObjectFraming(b"  ")
        text = json.dumps(entries, indent=2)
        body = text[text.index("\n") + 1 : text.rindex("\n")] + "\n"
    else:
        framing = LineFraming()
        body = "".join(json.dumps(entry) + "\n" for entry in entries)
    export = ExportFile("export.json", Path("export.json"))
    tracker = SpanTracker(parse_timestamp_ns("2027-01-01T00:00:00Z"))
    times = tracker.block(Block(body.encode(), export, 0, framing), ambiguous=False)
    instants = [parse_timestamp_ns(text) for text in texts]
    assert tracker.window() == Window(min(instants), max(instants))
    assert times.complete and times.aligned


def _filler(index: int) -> str:
    """A crash line at 11:30:00 plus 10 ms per index (about 1.4 kB, so 9000 span blocks)."""
    stamp = format_timestamp_ns(parse_timestamp_ns("2026-10-22T11:30:00Z") + index * 10**7)
    return json.dumps(container_entry(f"Check failed: {index} {'x' * 900}", timestamp=stamp))


def _spelled(entry: dict[str, Any], spelling: str) -> str:
    line = json.dumps(entry)
    return line.replace('"timestamp": ', '"timestamp" :  ') if spelling == "spaces" else line


@pytest.mark.parametrize(
    ("earliest", "spelling"),
    [
        ("2026-10-22T16:30:00+05:30", "offset"),
        ("2026-10-22T11:00:00Z", "spaces"),
        ("2026-10-22t11:00:00z", "lowercase"),
    ],
)
def test_limit_finds_the_earliest_entry_whatever_its_spelling(
    tmp_path: Path, earliest: str, spelling: str
) -> None:
    """Many later crash lines come first; the earliest one is in the file's last block."""
    path = tmp_path / "a.jsonl"
    special = container_entry("Check failed: earliest", timestamp=earliest)
    lines = [_filler(index) for index in range(9000)] + [_spelled(special, spelling)]
    path.write_text("\n".join(lines) + "\n")
    window = ("--start_time=2026-10-22T10:00:00Z", "--duration=2h")
    code, out, err = run_cli(
        "--action=errors", f"--logs_file={path}", WORKLOAD, *window, "--limit=1"
    )
    assert code == 0, err
    assert _messages(out) == ["Check failed: earliest"]


@pytest.mark.parametrize(
    ("latest", "spelling"),
    [("2026-10-22T07:00:00-05:00", "offset"), ("2026-10-22T11:50:00Z", "spaces")],
)
def test_desc_limit_finds_the_latest_entry_whatever_its_spelling(
    tmp_path: Path, latest: str, spelling: str
) -> None:
    """The latest crash line is the file's first line; many earlier ones follow."""
    path = tmp_path / "a.jsonl"
    special = container_entry("Check failed: latest", timestamp=latest)
    lines = [_spelled(special, spelling)] + [_filler(index) for index in range(9000)]
    path.write_text("\n".join(lines) + "\n")
    window = ("--start_time=2026-10-22T10:00:00Z", "--duration=2h")
    code, out, err = run_cli(
        "--action=errors", f"--logs_file={path}", WORKLOAD, *window, "--limit=1", "--order=desc"
    )
    assert code == 0, err
    assert _messages(out) == ["Check failed: latest"]


def test_one_pass_with_every_plausible_instant_answers_as_the_span_would(tmp_path: Path) -> None:
    """How the command line replays an export without window flags in one pass: queries
    whose window is every instant that counts for the span, the span reported after."""
    entries = _crashes()
    entries.append(container_entry("Check failed: absurd", timestamp="2999-01-01T00:00:00Z"))
    entries.append(container_entry("Check failed: no time"))
    entries[-1].pop("timestamp")
    path = _lines(tmp_path / "a.jsonl", entries)
    now = parse_timestamp_ns("2027-01-01T00:00:00Z")
    target = Target(workloads=(parse_workload("jobset:llama-train"),))

    def fetches(window: Window) -> list[Fetch]:
        return [
            Fetch(query, 10) for query in queries_of(ACTIONS["errors"], Request(target, window))
        ]

    err = io.StringIO()
    source = FileSource([str(path)], err=err, now_ns=now)
    answers = source.run(fetches(plausible_window(now)))
    span = source.span()
    assert source.passes == 1
    assert span == Window(
        parse_timestamp_ns("2026-10-22T11:20:00Z"), parse_timestamp_ns("2026-10-22T11:30:00.5Z")
    )
    reference = FileSource([str(path)], err=io.StringIO(), now_ns=now).run(fetches(span))
    assert [r.entries for r in answers] == [r.entries for r in reference]
    assert [e["textPayload"] for e in answers[0].entries] == [
        "Check failed: first",
        "Check failed: last",
    ]
    assert "no usable top-level timestamp" in err.getvalue()
    assert "2999-01-01T00:00:00Z" in err.getvalue()


@pytest.mark.parametrize("order", ["asc", "desc"])
def test_a_fetch_parses_about_its_limit_when_its_matches_share_a_second(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, order: str
) -> None:
    """A cascade's crash lines fall within a second or two: what the text says of a record's
    time, to the nanosecond, drops the records past the bound unparsed (by their second,
    every one of 3,000 was parsed)."""
    base = parse_timestamp_ns("2026-10-22T11:30:00Z")
    crashes = [
        container_entry(
            f"Check failed: {index}",
            timestamp=format_timestamp_ns(base + index * 7919 % 3000 * 300_000),
        )
        for index in range(3000)
    ]
    path = _lines(tmp_path / "a.jsonl", crashes)
    parsed: list[bytes] = []
    real = records.parse_entry

    def counting(raw: bytes) -> Any:
        parsed.append(raw)
        return real(raw)

    monkeypatch.setattr(records, "parse_entry", counting)
    window = ("--start_time=2026-10-22T11:00:00Z", "--duration=1h", "--limit=100")
    code, out, err = run_cli(
        "--action=errors", f"--logs_file={path}", WORKLOAD, *window, f"--order={order}"
    )
    assert code == 0, err
    assert len(out.splitlines()) == 100
    by_time = sorted(crashes, key=lambda e: parse_timestamp_ns(e["timestamp"]))
    expected = (by_time[::-1] if order == "desc" else by_time)[:100]
    assert _messages(out) == [e["textPayload"] for e in expected]
    assert len(parsed) < 600


@pytest.mark.parametrize("engine", ["logging", "analytics"])
def test_a_timestamp_written_with_an_escape_counts_for_the_span(
    tmp_path: Path, engine: str
) -> None:
    """`"\\u0032026-..."` is the JSON text of `2026-...`: it was counted as an entry without a
    usable timestamp, left out of the span, and then printed outside the window shown."""
    first, last = _crashes()
    line = json.dumps(last).replace('"timestamp": "2026', '"timestamp": "\\u0032026')
    path = tmp_path / "a.jsonl"
    path.write_text(json.dumps(first) + "\n" + line + "\n")
    code, out, err = run_cli(
        "--action=errors", f"--logs_file={path}", WORKLOAD, f"--engine={engine}"
    )
    assert code == 0, err
    assert _messages(out) == ["Check failed: first", "Check failed: last"]
    assert "window: 2026-10-22T11:20:00Z .. 2026-10-22T11:30:00.5Z" in err
    assert "no usable top-level timestamp" not in err


@pytest.mark.parametrize("engine", ["logging", "analytics"])
def test_the_earliest_entry_of_the_span_is_returned_to_the_nanosecond(
    tmp_path: Path, engine: str
) -> None:
    """The span starts at the earliest entry; BigQuery keeps its microsecond, so a start
    rounded up to the next microsecond left that entry (often the root cause) out."""
    first = container_entry("Check failed: first", timestamp="2026-10-22T11:30:00.123456789Z")
    last = container_entry("Check failed: last", timestamp="2026-10-22T11:30:01.5Z")
    path = _lines(tmp_path / "a.jsonl", [first, last])
    code, out, err = run_cli(
        "--action=errors", f"--logs_file={path}", WORKLOAD, f"--engine={engine}"
    )
    assert code == 0, err
    assert _messages(out) == ["Check failed: first", "Check failed: last"]


def test_a_window_that_misses_the_export_says_where_the_export_is(tmp_path: Path) -> None:
    """An issue time read in another time zone: the export is named with its span, not only
    "no entries matched" (and gaps that blame the export for what lies outside the window)."""
    path = _lines(tmp_path / "a.jsonl", _crashes())
    code, out, err = run_cli(
        "--action=errors", f"--logs_file={path}", WORKLOAD, "--issue_time=2026-10-22T04:25:00Z"
    )
    assert (code, out) == (0, "")
    assert (
        "note: the export spans 2026-10-22T11:20:00Z .. 2026-10-22T11:30:00.5Z (10m), outside "
        "the window: check the window flags (a time without an offset is UTC), or leave them "
        "out to read the whole export"
    ) in err.splitlines()


def test_a_window_that_meets_the_export_says_nothing_of_its_span(tmp_path: Path) -> None:
    path = _lines(tmp_path / "a.jsonl", _crashes())
    code, out, err = run_cli(
        "--action=errors", f"--logs_file={path}", WORKLOAD, "--end_time=2026-10-22T11:20:00Z"
    )
    assert code == 0, err
    assert _messages(out) == ["Check failed: first"]
    assert "export spans" not in err


def test_a_window_on_an_entry_outside_the_span_does_not_say_it_missed(tmp_path: Path) -> None:
    """The span leaves out absurd times, which window flags may still be aimed at."""
    entries = [*_crashes(), container_entry("Check failed: far", timestamp="2999-01-01T00:00:00Z")]
    path = _lines(tmp_path / "a.jsonl", entries)
    code, out, err = run_cli(
        "--action=errors", f"--logs_file={path}", WORKLOAD, "--issue_time=2999-01-01T00:00:00Z"
    )
    assert code == 0, err
    assert _messages(out) == ["Check failed: far"]
    assert "export spans" not in err


def test_duration_alone_ends_the_window_at_the_export_s_latest_entry(tmp_path: Path) -> None:
    path = _lines(tmp_path / "a.jsonl", _crashes())
    code, out, err = run_cli("--action=errors", f"--logs_file={path}", WORKLOAD, "--duration=5m")
    assert code == 0, err
    assert "window: 2026-10-22T11:25:00.5Z .. 2026-10-22T11:30:00.5Z (5m)" in err.splitlines()
    assert _messages(out) == ["Check failed: last"]


@pytest.mark.parametrize("action", ["errors", "triage"])
@pytest.mark.parametrize("shape", ["receiveTimestamp only", "BigQuery text", "number"])
def test_an_export_whose_every_entry_lacks_a_usable_timestamp_is_refused(
    tmp_path: Path, action: str, shape: str
) -> None:
    """No query can return any entry: exit 5 naming the first, not a report that blames the
    window (the same export with RFC 3339 times has a root cause)."""
    entries = _crashes()
    for entry in entries:
        instant = entry.pop("timestamp")
        if shape == "receiveTimestamp only":
            entry["receiveTimestamp"] = instant
        elif shape == "BigQuery text":
            entry["timestamp"] = instant.replace("T", " ").replace("Z", " UTC")
        else:
            entry["timestamp"] = parse_timestamp_ns(instant) // 10**9
    path = _lines(tmp_path / "a.jsonl", entries)
    code, out, err = run_cli(f"--action={action}", f"--logs_file={path}", WORKLOAD)
    assert (code, out) == (5, ""), err
    assert len(err.splitlines()) == 1, err
    assert f"{path}:1" in err
    assert "RFC 3339" in err
