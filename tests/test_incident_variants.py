"""The bundled incidents as real exports differ from generated ones: the root cause stays put.

Each test rewrites a recorded incident the way another logging set-up or export
would have written it, and triage must name the root cause that was planted.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import run_cli
from tests.test_incidents import INCIDENTS, NAMES, _same_failure, expected, target_args

Entry = dict[str, Any]


def _triage(name: str, tmp_path: Path, change: Callable[[Entry], None]) -> dict[str, Any]:
    """Triage's JSON report of a bundled incident with `change` applied to every entry."""
    entries = json.loads((INCIDENTS / f"{name}.json").read_text())
    for entry in entries:
        change(entry)
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(entries))
    args = target_args(name, by_issue_time=True)[1:]
    code, out, err = run_cli(f"--logs_file={path}", *args, "--action=triage", "--format=json")
    assert code == 0, err
    report: dict[str, Any] = json.loads(out)
    return report


def _coloured(entry: Entry) -> None:
    """A container line as a logger writes it to a terminal: in colour."""
    if isinstance(entry.get("textPayload"), str) and "container_name" in entry["resource"].get(
        "labels", {}
    ):
        entry["textPayload"] = f"\x1b[1;31m{entry['textPayload']}\x1b[0m"


@pytest.mark.parametrize("name", [n for n in NAMES if expected(n)["root_cause"]])
def test_colour_codes_change_no_root_cause(name: str, tmp_path: Path) -> None:
    """Colour codes around a line (a logger that thinks it writes to a terminal) hide no
    signature: a coloured traceback still ends with its exception, which is the cause."""
    report = _triage(name, tmp_path, _coloured)
    _same_failure(report["root_cause"], expected(name)["root_cause"])


def _milliseconds(timestamp: str) -> str:
    whole, _, fraction = timestamp.removesuffix("Z").partition(".")
    return f"{whole}.{fraction[:3].ljust(3, '0')}Z"


def _in_milliseconds(entry: Entry) -> None:
    """Timestamps as a logger that keeps milliseconds writes them: lines a few microseconds
    apart now share an instant, and their insertIds (random) decide nothing."""
    for key in ("timestamp", "receiveTimestamp"):
        entry[key] = _milliseconds(entry[key])


@pytest.mark.parametrize("name", [n for n in NAMES if expected(n)["root_cause"]])
def test_lines_sharing_a_millisecond_keep_the_root_cause(name: str, tmp_path: Path) -> None:
    """A fatal check's stack-trace banner logged in the same millisecond as the check (and
    the error it checked) is not the cause; nor, so, is a crash loop's later attempt."""
    planted = dict(expected(name)["root_cause"])
    planted["timestamp"] = _milliseconds(planted["timestamp"])
    report = _triage(name, tmp_path, _in_milliseconds)
    _same_failure(report["root_cause"], planted)
