"""Skipping lines before parsing them must give exactly the engine's answer.

Every action's queries (and triage's) run over the recorded incidents, as the
gcloud JSON array and as JSON Lines (read forwards and backwards), with the
fast path on and off; the answers must be identical.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pathways_workload.query import Options, Request
from pathways_workload.registry import ACTIONS
from pathways_workload.sources.base import Fetch
from pathways_workload.sources.files import FileSource
from pathways_workload.target import Target, parse_workload
from pathways_workload.timestamps import parse_timestamp_ns
from pathways_workload.triage.fetches import triage_fetches
from pathways_workload.window import Window
from tests.helpers import container_entry, queries_of
from tests.test_incidents import INCIDENTS, NAMES, expected


def _fetches(target: Target, window: Window, nodes: tuple[str, ...]) -> list[Fetch]:
    request = Request(target, window, Options(filter_text="severity>=WARNING"), nodes)
    queries = [q for action in ACTIONS.values() for q in queries_of(action, request)]
    return [Fetch(q, 50, order) for q in queries for order in ("asc", "desc")] + triage_fetches(
        ACTIONS["triage"].request_for(request)
    )


def _answers(paths: list[str], fetches: list[Fetch], fast: bool) -> list[Any]:
    source = FileSource(paths, fast_path=fast)
    return [(r.entries, r.truncated) for r in source.run(fetches)]


def _write_lines(path: Path, entries: list[dict[str, Any]], ensure_ascii: bool) -> Path:
    path.write_text("".join(json.dumps(e, ensure_ascii=ensure_ascii) + "\n" for e in entries))
    return path


@pytest.mark.parametrize("name", NAMES)
def test_the_fast_path_changes_nothing_on_the_incidents(tmp_path: Path, name: str) -> None:
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
    array = INCIDENTS / f"{name}.json"
    entries = json.loads(array.read_text())
    lines = _write_lines(
        tmp_path / "export.jsonl", sorted(entries, key=lambda e: e["timestamp"]), ensure_ascii=True
    )
    slow = _answers([str(array)], fetches, fast=False)
    assert _answers([str(array)], fetches, fast=True) == slow
    assert _answers([str(lines)], fetches, fast=True) == slow


def test_escapes_non_ascii_and_severity_only_lines(tmp_path: Path) -> None:
    tricky = [
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
        path = _write_lines(tmp_path / f"t{ensure_ascii}.jsonl", tricky, ensure_ascii)
        slow = _answers([str(path)], [fetch], fast=False)
        assert _answers([str(path)], [fetch], fast=True) == slow
        assert len(slow[0][0]) == 8
