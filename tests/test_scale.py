"""Triage of JobSets of 1,024 and 4,096 TPU hosts: the planted cause, every failing host, and
a request count within the budget, offline and against the fake Logging API alike.

The incidents are generated at test time (tests/corpus/large.py) and cached.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from pathways_workload.sources import cloud as cloud_source
from pathways_workload.sources import retry
from pathways_workload.timestamps import format_timestamp_ns, parse_timestamp_ns
from pathways_workload.triage.shape import UNSEEN_TEXT, WorkloadShape
from tests.corpus.large import Planted, export, variant
from tests.fake_logging import FakeLogging, point_at
from tests.helpers import run_cli


def triage_large(name: str, *more: str) -> tuple[dict[str, Any], Planted]:
    """Triage of a generated large incident offline, as its JSON report (and what it planted)."""
    path, planted = export(name)
    return triage_export(path, planted, *more), planted


def triage_export(path: Path, planted: Planted, *more: str) -> dict[str, Any]:
    """Triage of an export of a large incident offline, as its JSON report."""
    code, out, err = run_cli(
        f"--logs_file={path}",
        "--project=pw-demo",
        *planted.target(),
        "--action=triage",
        "--format=json",
        *more,
    )
    assert code == 0, err
    report: dict[str, Any] = json.loads(out)
    return report


@pytest.mark.parametrize(
    ("name", "budget"), [("cascade-1024", 25), ("late-peers-1024", 25), ("cascade-4096", 40)]
)
def test_a_cascade_names_the_first_host_and_every_failing_host(name: str, budget: int) -> None:
    report, planted = triage_large(name)
    root = report["root_cause"]
    assert (root["pod"], root["timestamp"]) == (planted.root_pod, planted.root_time)
    assert planted.root_contains in root["message"]
    assert report["lead_host"]["pod"] == planted.root_pod
    assert {host["pod"] for host in report["failing_hosts"]} == planted.failing_pods
    assert report["failing_hosts_missing"] is None
    assert report["quiet_hosts_missing"] is None
    assert report["requests"] <= budget
    assert report["requests"] == sum(check["requests"] for check in report["checks"])


def test_a_silent_hang_names_the_host_that_went_quiet() -> None:
    report, planted = triage_large("silent-hang-1024")
    root = report["root_cause"]
    assert root["source"] == "hang"
    assert (root["pod"], root["host"], root["timestamp"]) == (
        planted.root_pod,
        planted.root_host,
        planted.root_time,
    )
    assert root["due_at"] > root["timestamp"]
    assert report["requests"] <= 25


def test_each_of_two_quiet_hosts_shows_when_its_next_line_was_due() -> None:
    """Two hosts went quiet before the latest lines (the planted one first): the read of
    their last lines shows enough of each to tell when its next line was due."""
    path, planted = variant("silent-hang-1024", "second-host-quiet")
    report = triage_export(path, planted)
    root = report["root_cause"]
    assert (root["pod"], root["timestamp"]) == (planted.root_pod, planted.root_time)
    assert root["due_at"] > root["timestamp"]
    assert report["requests"] <= 25


def test_a_host_whose_next_line_was_due_around_the_last_step_is_a_suspect() -> None:
    """The quiet host logs every three minutes and its last line came five minutes and 20 s
    before the last step: its next line was due two minutes before it, so it went quiet
    around the last step, and it is the hang's root cause, not the client."""
    path, planted = variant("silent-hang-1024", "quiet-earlier")
    report = triage_export(path, planted)
    root = report["root_cause"]
    assert (root["source"], root["pod"], root["host"]) == ("hang", planted.root_pod, "7/21")
    assert root["timestamp"] < planted.root_time  # its last line, before the ones dropped
    assert root["due_at"] > root["timestamp"]
    assert report["lead_host"]["pod"] == planted.root_pod


def test_a_crash_long_after_the_steps_stopped_does_not_hide_the_hang() -> None:
    """A host went quiet and the steps stopped; 20 minutes later another host's chip halted.
    The hang is the root cause (the earliest failure), the crash a failure after it."""
    path, planted = variant("silent-hang-1024", "crash-later")
    report = triage_export(path, planted)
    assert [failure["source"] for failure in report["failures"]] == ["hang", "container"]
    root = report["root_cause"]
    assert (root["source"], root["pod"], root["timestamp"]) == (
        "hang",
        planted.root_pod,
        planted.root_time,
    )
    assert report["lead_host"]["pod"] == planted.root_pod


def test_a_host_that_never_logged_in_the_window_is_the_quiet_one() -> None:
    report, planted = triage_large("unseen-hang-1024")
    root = report["root_cause"]
    assert root["source"] == "hang"
    assert (root["pod"], root["host"], root["timestamp"]) == (
        None,
        planted.root_host,
        planted.start,
    )
    assert report["requests"] <= 25
    slice_, host = planted.root_host.split("/")
    row = {"pod": None, "node": None, "slice": slice_, "host": host, "downstream": False}
    assert report["lead_host"].items() >= row.items()
    assert report["lead_host"]["first_error_time"] == planted.start
    assert report["failing_hosts"][0] == report["lead_host"]


def test_a_host_that_never_logged_reads_as_its_host_in_the_text_report() -> None:
    path, planted = export("unseen-hang-1024")
    code, out, err = run_cli(
        f"--logs_file={path}", "--project=pw-demo", *planted.target(), "--action=triage"
    )
    assert code == 0, err
    host = f"host {planted.root_host}"
    assert f"** {host} (hang):" in out
    assert f"Lead: {host}; lowest index: {host};" in out
    assert "None" not in out


@pytest.mark.parametrize("name", ["first-host-hang-1024", "first-host-unseen-1024"])
def test_the_first_host_of_the_first_slice_is_told_from_the_head_pod(name: str) -> None:
    """The head pod is slice 0, index 0 of its own replicated job: the read of the last lines
    of host 0/0 must not take the head pod's lines for the host's."""
    report, planted = triage_large(name)
    root = report["root_cause"]
    assert root["source"] == "hang"
    assert (root["pod"], root["host"]) == (planted.root_pod, planted.root_host)
    assert root["timestamp"] == planted.root_time
    assert report["quiet_hosts_missing"] is None
    assert report["requests"] <= 25


def test_every_host_of_a_slice_that_went_quiet_together_is_a_failing_host() -> None:
    report, planted = triage_large("slice-hang-1024")
    root = report["root_cause"]
    assert root["source"] == "hang"
    assert root["host"].split("/")[0] == planted.root_host
    assert report["lead_host"]["pod"] == root["pod"]
    assert {host["pod"] for host in report["failing_hosts"]} == planted.failing_pods
    # In the order the hosts went quiet: the lead first, though others logged last earlier.
    assert report["failing_hosts"][0]["pod"] == root["pod"]
    assert min(host["first_error_time"] for host in report["failing_hosts"]) < root["timestamp"]
    assert report["requests"] <= 25


def test_a_host_whose_image_cannot_be_pulled_is_found_past_the_start_up_events() -> None:
    """1,024 hosts start in the window: their routine start-up events fill the first read of
    the events, and the one pod whose image cannot be pulled is still the root cause."""
    report, planted = triage_large("pull-fail-1024")
    root = report["root_cause"]
    assert (root["pod"], root["timestamp"], root["source"]) == (
        planted.root_pod,
        planted.root_time,
        "pod-event",
    )
    assert planted.root_contains in root["message"]
    assert root["host"] == planted.root_host
    assert report["lead_host"]["pod"] == planted.root_pod
    assert {host["pod"] for host in report["failing_hosts"]} == planted.failing_pods
    (lane,) = [lane for lane in report["timeline"]["lanes"] if lane["name"] == root["host"]]
    assert lane["pods"] == [planted.root_pod]  # it logged nothing: its events name it
    assert report["requests"] <= 25


def test_a_hang_after_a_restart_is_a_failure_of_its_own() -> None:
    """Attempt 0 crashed and the JobSet restarted; attempt 1 trained until a host went quiet.
    The hang is a failure apart from the crash the run recovered from, and at an issue time
    after it, the root cause."""
    path, planted = export("restart-hang-1024")
    issue = format_timestamp_ns(parse_timestamp_ns(planted.root_time) + 8 * 60 * 10**9)
    code, out, err = run_cli(
        f"--logs_file={path}",
        f"--jobset_name={planted.jobset}",
        f"--issue_time={issue}",
        "--action=triage",
        "--format=json",
    )
    assert code == 0, err
    report = json.loads(out)
    assert [failure["source"] for failure in report["failures"]] == ["container", "hang"]
    root = report["root_cause"]
    assert (root["source"], root["pod"], root["host"], root["timestamp"]) == (
        "hang",
        planted.root_pod,
        planted.root_host,
        planted.root_time,
    )
    assert report["lead_host"]["pod"] == planted.root_pod
    # The pods attempt 0 ran were replaced: none of them can have gone quiet.
    assert report["quiet_hosts_missing"] is None
    assert report["requests"] <= 25


def test_the_text_report_says_a_later_failure_went_quiet() -> None:
    """Attempt 1's failure is a host going quiet: the text report's list of failures and the
    page's table say so before its last line (a routine status line), rather than giving
    that line as what failed."""
    path, planted = export("restart-hang-1024")
    code, out, err = run_cli(f"--logs_file={path}", *planted.target(), "--action=triage")
    assert code == 0, err
    section = out.split("failures in the window")[1].split("\n## ")[0].splitlines()
    (line,) = [line for line in section if planted.root_time in line]
    assert f"/{planted.root_pod}/pathways-worker went quiet; its last line: " in line
    code, page, err = run_cli(
        f"--logs_file={path}", *planted.target(), "--action=triage", "--format=html"
    )
    assert code == 0, err
    failures = page[page.index('id="failures"') :]
    assert "went quiet; its last line: Executed" in failures[: failures.index("</table>")]


def test_a_pod_a_restart_replaced_is_not_a_quiet_one() -> None:
    """A host's seat is its slice and index, another pod's its name without the random
    suffix; a name with no such suffix (an LWS pod) is its own seat."""
    shape = WorkloadShape(
        pods=frozenset(
            {
                "js-worker-0-1-abcde",
                "js-worker-0-1-fghij",
                "js-worker-0-2-uvwxy",
                "js-pathways-head-0-0-klmno",
                "js-pathways-head-0-0-pqrst",
                "lws-1",
                "lws-2",
            }
        ),
        host_of={
            "js-worker-0-1-abcde": ("0", "1"),
            "js-worker-0-1-fghij": ("0", "1"),
            "js-worker-0-2-uvwxy": ("0", "2"),
        },
        expected=frozenset([("0", "1"), ("0", "2")]),
    )
    alive = {"js-worker-0-1-fghij", "js-pathways-head-0-0-pqrst", "lws-2"}
    assert shape.unheard(alive) == {"lws-1", "js-worker-0-2-uvwxy"}


def test_hosts_without_a_completion_index_label_are_known_by_their_pod_names() -> None:
    """Four slices' hosts lack the label (as before Kubernetes 1.28): they are not silent
    hosts, and the host that logged nothing is still the quiet one."""
    path, planted = variant("unseen-hang-1024", "no-completion-index")
    report = triage_export(path, planted)
    root = report["root_cause"]
    assert (root["source"], root["pod"], root["host"]) == ("hang", None, planted.root_host)
    assert report["quiet_hosts_missing"] is None
    silent = [gap for gap in report["coverage"]["gaps"] if "silent" in gap]
    assert silent == [
        "1023 of the 1024 TPU hosts the labels say exist logged; "
        f"silent (slice/host): {planted.root_host}"
    ]


def test_a_quiet_host_without_a_completion_index_label_is_read_by_its_pod_name() -> None:
    """Host 0/0 lacks the label (as before Kubernetes 1.28) and went quiet before the latest
    lines: the read of its last lines finds it by its pod's name, and it is the quiet one."""
    path, planted = variant("first-host-hang-1024", "no-completion-index")
    report = triage_export(path, planted)
    root = report["root_cause"]
    assert (root["source"], root["pod"], root["host"]) == ("hang", planted.root_pod, "0/0")
    assert root["timestamp"] == planted.root_time
    assert not [gap for gap in report["coverage"]["gaps"] if "silent" in gap]


def _entries(name: str) -> list[dict[str, Any]]:
    path, _ = export(name)
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


@pytest.mark.parametrize("name", ["cascade-1024", "silent-hang-1024"])
def test_the_cloud_and_the_export_agree_and_count_the_same_requests(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    offline, planted = triage_large(name)
    unlimited = retry.RequestBudget(per_minute=10**9, burst=10**6)
    monkeypatch.setattr(cloud_source, "RequestBudget", lambda: unlimited)
    with FakeLogging(_entries(name)) as fake:
        point_at(monkeypatch, fake)
        code, out, err = run_cli(
            "--project=pw-demo",
            *planted.target(),
            "--action=triage",
            "--format=json",
            "--execute",
        )
        assert code == 0, err
        cloud = json.loads(out)
        assert fake.list_requests == cloud["requests"] == offline["requests"]
    assert cloud["root_cause"] == offline["root_cause"]
    assert cloud["failing_hosts"] == offline["failing_hosts"]


def triage_short_pages(
    name: str, cap: int, monkeypatch: pytest.MonkeyPatch, *target: str
) -> tuple[dict[str, Any], Planted]:
    """Triage of a large incident against the fake sending at most `cap` entries a page (of
    its JobSet and window, unless `target` says otherwise)."""
    _, planted = export(name)
    unlimited = retry.RequestBudget(per_minute=10**9, burst=10**6)
    monkeypatch.setattr(cloud_source, "RequestBudget", lambda: unlimited)
    with FakeLogging(_entries(name)) as fake:
        fake.page_cap = cap
        point_at(monkeypatch, fake)
        code, out, err = run_cli(
            "--project=pw-demo",
            *(target or planted.target()),
            "--action=triage",
            "--format=json",
            "--execute",
        )
        assert code == 0, err
        report: dict[str, Any] = json.loads(out)
        assert fake.list_requests == report["requests"]
    return report, planted


@pytest.mark.parametrize(
    ("name", "cap", "budget"),
    [("cascade-1024", 100, 25), ("silent-hang-1024", 100, 25), ("cascade-4096", 300, 40)],
)
def test_a_server_sending_short_pages_costs_no_more_requests(
    name: str, cap: int, budget: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Short pages (Cloud Logging may send fewer entries than asked): the budget holds, and
    the report says which crash lines or last lines it left unread (of 4,096 hosts, some
    showed no line at all before the budget ran out)."""
    report, planted = triage_short_pages(name, cap, monkeypatch)
    assert report["requests"] <= budget
    root = report["root_cause"]
    if name.startswith("cascade"):
        assert root["pod"] == planted.root_pod
        assert report["failing_hosts_missing"] is not None
    else:  # the quiet host's lines were not all read: the report must not keep quiet
        assert root["pod"] == planted.root_pod or report["quiet_hosts_missing"] is not None
        # nor call the hosts it left unread silent: each of them logged
        assert not any("silent (slice/host)" in gap for gap in report["coverage"]["gaps"])


@pytest.mark.parametrize("action", ["pods", "neighbors"])
def test_pods_and_neighbors_are_complete_for_a_thousand_hosts(action: str) -> None:
    path, planted = export("silent-hang-1024")
    code, out, err = run_cli(
        f"--logs_file={path}",
        *planted.target(),
        f"--action={action}",
        "--format=json",
    )
    assert code == 0, err
    report = json.loads(out)
    assert report["complete"] is True
    if action == "pods":
        ours = [row for row in report["pods"] if row["owner"] == f"jobset:{planted.jobset}"]
        assert sum("-worker-" in row["pod"] for row in ours) == 1024
    else:
        assert len(report["nodes"]) >= 1024
        ours = [row for row in report["containers"] if row["workload"] == "yes"]
        assert sum(row["container"].endswith("/pathways-worker") for row in ours) == 1024


def test_a_host_whose_last_lines_were_left_unread_is_not_called_quiet(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Short pages cut the reads of 226 hosts' last lines, and the root cause was the first
    of them by index, a host that "logged nothing from the window's start" (it logged all
    along). Unread is not quiet: no unread host is a hang or a quiet lane, and the report
    says whose last lines it did not read."""
    report, planted = triage_short_pages("unseen-hang-1024", 100, monkeypatch)
    assert report["quiet_hosts_missing"] is not None
    called_quiet = {f["host"] for f in report["failures"] if f["message"] == UNSEEN_TEXT}
    quiet_lanes = {
        lane["name"] for lane in report["timeline"]["lanes"] if lane.get("due_at") == planted.start
    }
    assert called_quiet <= {planted.root_host}
    assert quiet_lanes <= {planted.root_host}


@pytest.mark.parametrize(("action", "most"), [("pods", 26), ("neighbors", 60)])
def test_a_report_read_in_short_pages_says_it_is_incomplete(
    action: str, most: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server sending 100 entries a page: pods read on for 100 pages, then exited 4 saying
    to lower --limit (a flag it refuses), and neighbors made 219 requests. Each read stays
    within the requests its limit needs at full pages, and the report says it is incomplete,
    with the lines it read (not the 25,000 it would have read at full pages), and calls no
    node it did not read from silent."""
    _, planted = export("silent-hang-1024")
    unlimited = retry.RequestBudget(per_minute=10**9, burst=10**6)
    monkeypatch.setattr(cloud_source, "RequestBudget", lambda: unlimited)
    args = ("--project=pw-demo", *planted.target(), f"--action={action}", "--execute")
    with FakeLogging(_entries("silent-hang-1024")) as fake:
        fake.page_cap = 100
        point_at(monkeypatch, fake)
        code, out, err = run_cli(*args, "--format=json")
        assert code == 0, err
        assert fake.list_requests <= most
        report = json.loads(out)
        assert report["complete"] is False
        assert report.get("silent_nodes", []) == []  # unread, not silent
        code, out, err = run_cli(*args)
    assert code == 0, err
    title = out.splitlines()[0]
    assert "(incomplete: the logs held more than the " in title
    assert "25,000" not in title


def test_the_crash_a_run_restarted_from_is_not_where_a_later_hang_began(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Short pages left the quiet worker's last lines unread, so the hang was put on the head
    pod; its failing and lead host were then the worker whose crash attempt 0 died of, 20
    minutes before, which the JobSet restarted from. A hang's hosts are its own."""
    _, planted = export("restart-hang-1024")
    issue = format_timestamp_ns(parse_timestamp_ns(planted.root_time) + 8 * 60 * 10**9)
    target = (f"--jobset_name={planted.jobset}", f"--issue_time={issue}")
    report, _ = triage_short_pages("restart-hang-1024", 100, monkeypatch, *target)
    crash, hang = report["failures"]
    assert (crash["source"], hang["source"], report["root_cause"]) == ("container", "hang", hang)
    assert report["quiet_hosts_missing"] is not None
    assert crash["pod"] not in {host["pod"] for host in report["failing_hosts"]}
    assert report["lead_host"] is None or report["lead_host"]["pod"] != crash["pod"]


def test_partial_scan_pages_cannot_take_triage_past_its_request_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Cloud Logging answered an empty partial-scan page before every page of entries:
    each read paged through empty pages to its first entry, and the second stage's checks
    were sent with the budget spent: 28 requests against a budget of 25. The budget is a hard
    cap on requests sent, and the report names every check it stopped short."""
    _, planted = export("cascade-1024")
    unlimited = retry.RequestBudget(per_minute=10**9, burst=10**6)
    monkeypatch.setattr(cloud_source, "RequestBudget", lambda: unlimited)
    with FakeLogging(_entries("cascade-1024")) as fake:
        fake.partial_pages = 1
        point_at(monkeypatch, fake)
        code, out, err = run_cli(
            "--project=pw-demo", *planted.target(), "--action=triage", "--format=json", "--execute"
        )
        assert code == 0, err
        report = json.loads(out)
        assert fake.list_requests == report["requests"] <= 25
    assert report["root_cause"]["pod"] == planted.root_pod
    (cut,) = [
        gap
        for gap in report["coverage"]["gaps"]
        if gap.startswith("the run's request budget ran out")
    ]
    unread = [c for c in report["checks"] if c["status"] == "truncated" and c["count"] == 0]
    assert unread
    assert all(check["purpose"] in cut for check in unread)
    # a check cut before it read anything does not say the logs lack what it looks for
    if any("serial console in the logs" in check["purpose"] for check in unread):
        assert not any(gap.startswith("no serial-console") for gap in report["coverage"]["gaps"])


def test_retries_count_against_triages_request_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """A retry is a request: 503s on the first ten requests took triage of 1,024 hosts past
    its budget of 25. The retries come out of the budget, the report counts every request
    the server saw, and says what the budget left unread."""
    _, planted = export("cascade-1024")
    backoff = retry.Backoff(initial=0.01, maximum=0.01, uniform=max)
    unlimited = retry.RequestBudget(per_minute=10**9, burst=10**6)
    monkeypatch.setattr(cloud_source, "RequestBudget", lambda: unlimited)
    monkeypatch.setattr(cloud_source, "Backoff", lambda: backoff)
    with FakeLogging(_entries("cascade-1024")) as fake:
        fake.fail(503, times=10)
        point_at(monkeypatch, fake)
        code, out, err = run_cli(
            "--project=pw-demo", *planted.target(), "--action=triage", "--format=json", "--execute"
        )
        assert code == 0, err
        report = json.loads(out)
        assert fake.list_requests == report["requests"] <= 25
    assert report["root_cause"]["pod"] == planted.root_pod
    assert report["failing_hosts_missing"] is not None
