"""Warnings a run survived are not its root cause: a healthy run with a retried read, or a
Python deprecation notice on stderr (which GKE marks ERROR), stays healthy."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import run_cli

HEALTHY = Path(__file__).resolve().parent / "fixtures" / "incidents" / "healthy-run.json"
RETRY = (
    "GCS read of gs://pw-demo-data/shard-00017 failed with UNAVAILABLE: Connection reset by "
    "peer; retrying (attempt 1 of 10)"
)
DEPRECATION = (
    "/usr/local/lib/python3.12/site-packages/orbax/checkpoint/checkpoint_manager.py:1101: "
    "DeprecationWarning: ImportError handling of optional module is deprecated"
)


def _line(container: str, severity: str, text: str, at: str) -> dict[str, Any]:
    """A line of the healthy run's `container`, at `at`, with another text and severity."""
    entries = json.loads(HEALTHY.read_text())
    model = next(
        e
        for e in entries
        if e["resource"]["type"] == "k8s_container"
        and e["resource"]["labels"]["container_name"] == container
    )
    line = copy.deepcopy(model)
    line.pop("jsonPayload", None)
    line.update(insertId="added-line", timestamp=at, severity=severity, textPayload=text)
    return line


def _triage(tmp_path: Path, *added: dict[str, Any]) -> dict[str, Any]:
    path = tmp_path / "export.json"
    path.write_text(json.dumps([*json.loads(HEALTHY.read_text()), *added]))
    code, out, err = run_cli(
        "--action=triage", f"--logs_file={path}", "--jobset_name=qwen-pretrain", "--format=json"
    )
    assert code == 0, err
    report: dict[str, Any] = json.loads(out)
    return report


def test_the_healthy_run_is_healthy(tmp_path: Path) -> None:
    report = _triage(tmp_path)
    assert report["root_cause"] is None and report["survived"] == []


def test_a_retried_warning_the_run_kept_going_after_is_survived(tmp_path: Path) -> None:
    warning = _line("pathways-worker", "WARNING", RETRY, "2026-11-26T10:20:00.000001Z")
    report = _triage(tmp_path, warning)
    assert report["root_cause"] is None and report["failures"] == []
    assert [row["message"] for row in report["survived"]] == [RETRY]


def test_a_warning_in_the_last_minute_of_progress_is_still_a_cause(tmp_path: Path) -> None:
    warning = _line("pathways-worker", "WARNING", RETRY, "2026-11-26T10:59:30Z")
    report = _triage(tmp_path, warning)
    assert report["root_cause"]["message"] == RETRY and report["survived"] == []


@pytest.mark.parametrize("severity", ["ERROR", "CRITICAL"])
def test_an_error_the_run_kept_going_after_is_still_a_cause(tmp_path: Path, severity: str) -> None:
    error = _line("pathways-worker", severity, RETRY, "2026-11-26T10:20:00.000001Z")
    report = _triage(tmp_path, error)
    assert report["root_cause"]["message"] == RETRY


def test_a_python_warnings_line_on_stderr_is_no_evidence(tmp_path: Path) -> None:
    notice = _line("workload-container", "ERROR", DEPRECATION, "2026-11-26T10:20:00.000001Z")
    report = _triage(tmp_path, notice)
    assert report["root_cause"] is None and report["survived"] == []


def test_a_warning_an_error_followed_stays_the_cause(tmp_path: Path) -> None:
    """The run recovered and kept going, but an error came after the warning on the same
    host: the warning may be where it began, so it is evidence, and the earlier one."""
    warning = _line("pathways-worker", "WARNING", RETRY, "2026-11-26T10:20:00.000001Z")
    error = _line("pathways-worker", "ERROR", "DATA_LOSS: link went down", "2026-11-26T10:23:00Z")
    error["insertId"] = "added-error"
    report = _triage(tmp_path, warning, error)
    assert report["root_cause"]["message"] == RETRY
    assert report["survived"] == []
