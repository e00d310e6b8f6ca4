"""Skipping records before parsing them must give exactly the engine's answer.

Every action's queries (and triage's) run over the recorded incidents in every
layout (JSON Lines, gcloud's indented array, one entry per line, one line,
`indent=0`, gzipped) and both encodings (raw UTF-8, `\\u` escapes), with small
blocks and a small memory budget so that skipping by time across blocks is
exercised; the answers and the span must be those of the reference path, which
parses every record of the gcloud array as recorded.
"""

from __future__ import annotations

import copy
import functools
import gzip
import json
import random
from pathlib import Path
from typing import Any

import pytest

from pathways_workload.query import Options, Request
from pathways_workload.registry import ACTIONS
from pathways_workload.sources import collect, export_reader, scan
from pathways_workload.sources.base import Fetch
from pathways_workload.sources.files import FileSource
from pathways_workload.target import Target, parse_workload
from pathways_workload.timestamps import parse_timestamp_ns
from pathways_workload.triage.fetches import triage_fetches
from pathways_workload.window import Window
from tests.helpers import container_entry, queries_of, run_cli
from tests.test_incidents import INCIDENTS, NAMES, expected


def _fetches(target: Target, window: Window, nodes: tuple[str, ...]) -> list[Fetch]:
    request = Request(target, window, Options(filter_text="severity>=WARNING"), nodes)
    queries = [q for action in ACTIONS.values() for q in queries_of(action, request)]
    return [Fetch(q, 50, order) for q in queries for order in ("asc", "desc")] + triage_fetches(
        ACTIONS["triage"].request_for(request)
    )


def _answers(paths: list[str], fetches: list[Fetch], fast: bool) -> list[Any]:
    """Each fetch's entries and whether it was cut, the span, and how many matched in all."""
    source = FileSource(paths, fast_path=fast)
    results = source.run(fetches)
    return [(r.entries, r.truncated) for r in results] + [source.span(), _Counts(results)]


class _Counts:
    """How many entries each fetch matched in all; a count the fast path does not know (None)
    equals any."""

    def __init__(self, results: list[Any]) -> None:
        self.counts = [result.matched for result in results]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Counts) and all(
            None in (mine, theirs) or mine == theirs
            for mine, theirs in zip(self.counts, other.counts)
        )

    __hash__ = None  # type: ignore[assignment]


def _write_lines(path: Path, entries: list[dict[str, Any]], ensure_ascii: bool) -> Path:
    path.write_text("".join(json.dumps(e, ensure_ascii=ensure_ascii) + "\n" for e in entries))
    return path


def _layout(entries: list[dict[str, Any]], layout: str, ensure_ascii: bool) -> str:
    if layout == "lines":
        return "".join(json.dumps(e, ensure_ascii=ensure_ascii) + "\n" for e in entries)
    if layout == "gcloud":
        return json.dumps(entries, indent=2, sort_keys=True, ensure_ascii=ensure_ascii) + "\n"
    if layout == "per-line":
        lines = [json.dumps(e, ensure_ascii=ensure_ascii) for e in entries]
        return "[\n" + ",\n".join(lines) + "\n]\n"
    if layout == "compact":
        return json.dumps(entries, ensure_ascii=ensure_ascii)
    return json.dumps(entries, indent=0, ensure_ascii=ensure_ascii)


# (layout, ensure_ascii, gzipped, entries in time order)
VARIANTS = [
    ("lines", True, False, True),
    ("lines", False, False, False),
    ("lines", False, True, True),
    ("gcloud", True, False, False),
    ("gcloud", False, True, False),
    ("per-line", False, False, True),
    ("compact", True, False, False),
    ("indent0", False, False, False),
]


def _incident(name: str) -> tuple[list[Fetch], list[Any]]:
    """The incident's fetches, and the reference answers (every record parsed)."""
    planted = expected(name)
    target = Target(
        namespace=planted["target"]["namespace"],
        workloads=tuple(parse_workload(w) for w in planted["target"]["workload"]),
    )
    window = Window(
        parse_timestamp_ns(planted["target"]["start_time"]),
        parse_timestamp_ns(planted["target"]["end_time"]),
    )
    fetches = _fetches(target, window, tuple(planted["workload_nodes"]))
    return fetches, _answers([str(INCIDENTS / f"{name}.json")], fetches, fast=False)


_reference = functools.lru_cache(maxsize=None)(_incident)


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of about 64 kB and a 256 kB budget: many blocks, settling and skipping."""
    monkeypatch.setattr(export_reader, "READ_BYTES", 1 << 16)
    monkeypatch.setattr(collect, "PENDING_BYTES", 1 << 18)
    monkeypatch.setattr(scan, "_SAMPLE_BYTES", 1 << 14)


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: "-".join(map(str, v)))
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.usefixtures("small_blocks")
def test_the_fast_path_changes_nothing_on_the_incidents(
    tmp_path: Path, name: str, variant: tuple[str, bool, bool, bool]
) -> None:
    layout, ensure_ascii, gzipped, ordered = variant
    fetches, reference = _reference(name)
    entries = json.loads((INCIDENTS / f"{name}.json").read_text())
    if ordered:
        entries.sort(key=lambda entry: entry["timestamp"])
    data = _layout(entries, layout, ensure_ascii).encode()
    path = tmp_path / "export"
    path.write_bytes(gzip.compress(data) if gzipped else data)
    assert _answers([str(path)], fetches, fast=True) == reference
    if name in NAMES[:2]:
        assert _answers([str(path)], fetches, fast=False) == reference


def _structured(message: str) -> dict[str, Any]:
    """A JSON payload with its own "timestamp" before its message, the entry's after."""
    entry = container_entry("", severity="INFO")
    del entry["textPayload"]
    entry["jsonPayload"] = {"timestamp": "2026-10-22T10:59:59Z", "message": message}
    entry["timestamp"] = entry.pop("timestamp")
    return entry


def test_escapes_non_ascii_and_severity_only_lines(tmp_path: Path) -> None:
    tricky = [
        _structured("Check failed: a structured logger's line"),
        container_entry("Check failed: x", severity="INFO"),
        container_entry("Check failed \u2013 escaped as \\u2013 when ensure_ascii is on"),
        container_entry("ＣＨＥＣＫ ＦＡＩＬＥＤ in fullwidth letters"),
        container_entry('quotes " and backslashes \\ Check failed'),
        container_entry("nothing to see", severity="CRITICAL"),
        container_entry("nothing to see", severity="critical"),
        container_entry('Traceback (most recent call last):\n  File "x"\nValueError: ü'),
        container_entry("path with a slash \\/ Check failed"),
    ]
    fetch = Fetch(
        queries_of(
            ACTIONS["errors"],
            Request(
                Target(workloads=(parse_workload("jobset:llama-train"),)),
                Window(
                    parse_timestamp_ns("2026-10-22T11:00:00Z"),
                    parse_timestamp_ns("2026-10-22T12:00:00Z"),
                ),
            ),
        )[0],
        100,
    )
    for ensure_ascii in (True, False):
        quiet = [container_entry("all is well", severity="INFO") for _ in range(30)]
        lines = quiet + tricky + quiet  # crash terms are rare: the prefilter is used
        path = _write_lines(tmp_path / f"t{ensure_ascii}.jsonl", lines, ensure_ascii)
        slow = _answers([str(path)], [fetch], fast=False)
        assert _answers([str(path)], [fetch], fast=True) == slow
        assert len(slow[0][0]) == 9
        assert slow[1] is not None


def _mutated(entries: list[dict[str, Any]], rng: random.Random) -> list[dict[str, Any]]:
    """Entries as real exports hold them now and then: no timestamp, an empty or offset one,
    a payload with its own "timestamp" before its message (the entry's after), non-ASCII
    text, the word "timestamp" as a value, and bare crash lines."""
    mutated = []
    for entry in map(copy.deepcopy, entries):
        draw = rng.random()
        if draw < 0.03:
            entry.pop("timestamp", None)
        elif draw < 0.06:
            entry.setdefault("jsonPayload", {})["timestamp"] = "2026-10-22T11:00:00Z"
            entry["timestamp"] = entry.pop("timestamp", "")
        elif draw < 0.08:
            entry["timestamp"] = ""
        elif draw < 0.10:
            entry["timestamp"] = str(entry.get("timestamp", "")).replace("Z", "+00:00")
        elif draw < 0.12:
            entry.setdefault("jsonPayload", {})["message"] = "Check failed: ünïcode \u2013 x"
        elif draw < 0.14:
            entry.setdefault("jsonPayload", {})["note"] = "timestamp"
        elif draw < 0.15:
            entry = {"textPayload": "Check failed: a bare line"}
        mutated.append(entry)
    return mutated


@pytest.mark.parametrize("layout", ["lines", "gcloud", "per-line"])
@pytest.mark.parametrize("name", NAMES[:3])
@pytest.mark.usefixtures("small_blocks")
def test_the_fast_path_changes_nothing_on_odd_entries(
    tmp_path: Path, name: str, layout: str
) -> None:
    """Incidents with odd entries mixed in: every answer, the span and the warnings' counts
    are those of reading every record."""
    fetches, _ = _reference(name)
    rng = random.Random(f"{name}/{layout}")
    entries = _mutated(json.loads((INCIDENTS / f"{name}.json").read_text()), rng)
    path = tmp_path / "export"
    path.write_text(_layout(entries, layout, ensure_ascii=layout != "lines"))
    assert _answers([str(path)], fetches, fast=True) == _answers([str(path)], fetches, fast=False)


HOUR = "2026-10-22T11"


# How an export's last record may end (the reader normalises its last block).
ENDS = {
    "lines-no-final-newline": ("", "\n", ""),
    "lines-crlf-no-final-newline": ("", "\r\n", ""),
    "per-line-crlf": ("[\r\n", ",\r\n", "\r\n]\r\n"),
    "per-line-bracket-on-the-last-line": ("[\n", ",\n", "]\n"),
    "per-line-space-before-the-bracket": ("[\n", ",\n", " \n]\n"),
}


@pytest.mark.parametrize("end", ENDS)
def test_the_last_record_is_read_however_the_file_ends(tmp_path: Path, end: str) -> None:
    """Every record holds what the filter looks for, so whole blocks wait and are read again
    from the file: the last one must be the block that was scanned, its last entry neither
    lost nor said to have changed."""
    entries = [
        container_entry(f"Check failed: number {i}", severity="INFO", timestamp=f"{HOUR}:0{i}:00Z")
        for i in range(3)
    ]
    entries.append(container_entry("Check failed: the last one", timestamp=f"{HOUR}:30:00Z"))
    opening, between, closing = ENDS[end]
    path = tmp_path / "export.json"
    path.write_bytes((opening + between.join(map(json.dumps, entries)) + closing).encode())
    code, out, err = run_cli("--action=errors", "--jobset_name=llama-train", f"--logs_file={path}")
    assert code == 0, err
    assert [line.split(": ", 1)[1] for line in out.splitlines()] == [
        *(f"Check failed: number {i}" for i in range(3)),
        "Check failed: the last one",
    ]


@pytest.mark.parametrize("key", ["time\\u0073tamp", "\\u0074imestamp", "ti\\u006Destamp"])
@pytest.mark.parametrize("extra", [(), ("--limit=1",), ("--limit=1", "--fetch_limit=10")])
def test_a_top_level_timestamp_key_spelt_with_escapes_is_the_entry_s_time(
    tmp_path: Path, key: str, extra: tuple[str, ...]
) -> None:
    """JSON reads `"time\\u0073tamp"` as the key; the text shows only the payload's own
    `timestamp` (later), which must not be taken for the entry's time: not for the span,
    nor for which entry comes first (the crash lines are few enough to be searched for, and
    with a small --fetch_limit the first ten bound what may still enter)."""
    later = [
        container_entry(
            f"Check failed: later {i}" if i % 3 == 0 else "fine",
            severity="INFO",
            timestamp=f"{HOUR}:{20 + i % 39}:00Z",
        )
        for i in range(450)
    ]
    first = container_entry("", severity="CRITICAL", timestamp=f"{HOUR}:05:00Z")
    del first["textPayload"]
    first["jsonPayload"] = {"message": "Check failed: the first", "timestamp": f"{HOUR}:58:00Z"}
    line = json.dumps(first).replace('"timestamp": ', f'"{key}": ', 1)
    assert json.loads(line)["timestamp"] == f"{HOUR}:05:00Z"
    path = tmp_path / "export.jsonl"
    path.write_text(
        "".join(json.dumps(entry) + "\n" for entry in later[:225])
        + line
        + "\n"
        + "".join(json.dumps(entry) + "\n" for entry in later[225:])
    )
    code, out, err = run_cli(
        "--action=errors", "--jobset_name=llama-train", f"--logs_file={path}", *extra
    )
    assert code == 0, err
    assert out.splitlines()[0].endswith(": Check failed: the first")
    assert f"window: {HOUR}:05:00Z .. {HOUR}:58:00Z" in err
