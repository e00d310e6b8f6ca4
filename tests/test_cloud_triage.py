"""Triage against the fake Logging API: few requests, and the same answer as offline."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.fake_logging import FakeLogging, point_at
from tests.helpers import run_cli
from tests.test_incidents import INCIDENTS, expected, target_args

# The first wave (crashes, start-up lines of the workers and of the rest, the latest lines,
# events, node evidence, the controller, coverage probes), then the follow-ups a small
# incident needs.
MOST_REQUESTS = 11


@pytest.mark.parametrize("name", ["host-oom-worker", "two-failures", "silent-hang"])
def test_triage_in_the_cloud_makes_few_requests_and_agrees_with_offline(
    monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    offline = target_args(name, by_issue_time=True)
    with FakeLogging.from_file(INCIDENTS / f"{name}.json") as fake:
        point_at(monkeypatch, fake)
        cloud = [arg for arg in offline if not arg.startswith("--logs_file=")]
        code, out, err = run_cli(*cloud, "--action=triage", "--format=json", "--execute")
        requests = fake.list_requests
    assert code == 0, err
    assert len(expected(name)["workload_pods"]) >= 7
    assert requests <= MOST_REQUESTS
    code, replayed, err = run_cli(*offline, "--action=triage", "--format=json")
    assert code == 0, err
    in_cloud, from_file = json.loads(out), json.loads(replayed)
    assert in_cloud["root_cause"] == from_file["root_cause"]
    assert [c["count"] for c in in_cloud["checks"]] == [c["count"] for c in from_file["checks"]]


def _triage_in_pages(monkeypatch: pytest.MonkeyPatch, name: str, cap: int) -> dict[str, Any]:
    """Triage's JSON report of a bundled incident with --execute, against a fake that sends
    at most `cap` entries a page."""
    with FakeLogging.from_file(INCIDENTS / f"{name}.json") as fake:
        fake.page_cap = cap
        point_at(monkeypatch, fake)
        cloud = [arg for arg in target_args(name) if not arg.startswith("--logs_file=")]
        code, out, err = run_cli(*cloud, "--action=triage", "--format=json", "--execute")
    assert code == 0, err
    report: dict[str, Any] = json.loads(out)
    return report


def test_latest_lines_read_in_short_pages_that_stop_after_a_hang_say_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A hang detector's report is the cause; the host that went quiet 5.5 minutes before it
    shows only in the lines before it. Offline one page of the latest lines reached back
    that far; a server sending 37 entries a page stopped the read within the last 5
    minutes, after the restart, and the report named the detector's host as the lead,
    saying nothing was missing."""
    name = "megascale-hang-detected"
    report = _triage_in_pages(monkeypatch, name, 37)
    quiet_first = expected(name)["hang"]["quiet_first"]["pod"]
    assert report["lead_host"]["pod"] == quiet_first or report["quiet_hosts_missing"]


def test_a_finished_run_read_in_short_pages_still_completed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A server sending 50 entries a page cut the first read of the events before the
    JobSet's AllJobsCompleted, and the read-on left that reason out with the routine ones:
    the teardown's Killing events were named the root cause of a run that finished."""
    name = "finished-run"
    report = _triage_in_pages(monkeypatch, name, 50)
    assert report["completed"]["timestamp"] == expected(name)["completed"]["timestamp"]
    assert report["root_cause"] is None
