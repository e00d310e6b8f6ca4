"""The bundled incidents as real exports differ from generated ones: the root cause stays put.

Each test rewrites a recorded incident the way another logging set-up or export
would have written it, and triage must name the root cause that was planted.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import run_cli
from tests.test_incidents import INCIDENTS, NAMES, _same_failure, expected, target_args, triage_of

Entry = dict[str, Any]


def _entries(name: str) -> list[Entry]:
    entries: list[Entry] = json.loads((INCIDENTS / f"{name}.json").read_text())
    return entries


def _triage(
    name: str, tmp_path: Path, change: Callable[[Entry], None], by_issue_time: bool = True
) -> dict[str, Any]:
    """Triage's JSON report of a bundled incident with `change` applied to every entry."""
    entries = _entries(name)
    for entry in entries:
        change(entry)
    return triage_of(name, tmp_path, entries, by_issue_time)


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


@pytest.mark.parametrize("name", [n for n in NAMES if expected(n)["versions"]["jax"]])
def test_colour_codes_hide_no_version(name: str, tmp_path: Path) -> None:
    """The client's `jax version` line in colour still gives the JAX version."""
    report = _triage(name, tmp_path, _coloured, by_issue_time=False)
    assert report["versions"]["jax"] == expected(name)["versions"]["jax"]


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


def _killing(scheduled: Entry, when: str) -> Entry:
    """The kubelet's `Killing` event of the pod a `Scheduled` event placed (kubernetes
    pkg/kubelet/events/event.go), as when the JobSet is deleted or restarted."""
    event = json.loads(json.dumps(scheduled))
    event["jsonPayload"].update(
        reason="Killing",
        message="Stopping container pathways-worker",
        source={"component": "kubelet"},
        lastTimestamp=when,
    )
    event.update(timestamp=when, receiveTimestamp=when, insertId=f"kill-{event['insertId']}")
    return event


def test_a_hang_stopped_from_outside_is_still_the_hang(tmp_path: Path) -> None:
    """A run that hung until someone deleted it (or its JobSet restarted it): the pods'
    `Killing` events at the end are the hang's aftermath, not a failure known only
    downstream, and the worker that went quiet first is still the lead."""
    entries = _entries("silent-hang")
    scheduled = [e for e in entries if e.get("jsonPayload", {}).get("reason") == "Scheduled"]
    entries += [_killing(event, "2026-11-25T14:59:30Z") for event in scheduled]
    report = triage_of("silent-hang", tmp_path, entries, by_issue_time=True)
    planted = expected("silent-hang")
    _same_failure(report["root_cause"], planted["root_cause"])
    assert report["lead_host"]["pod"] == planted["root_cause"]["pod"]
    assert len(report["failures"]) == 1


def _later(timestamp: str, seconds: int) -> str:
    """An RFC 3339 UTC time `seconds` later, its fraction kept."""
    whole, dot, fraction = timestamp.removesuffix("Z").partition(".")
    moved = datetime.fromisoformat(whole) + timedelta(seconds=seconds)
    return f"{moved.isoformat()}{dot}{fraction}Z"


def _next_attempt(entry: Entry, seconds: int) -> Entry:
    """A workload container line as the JobSet's next attempt logs it `seconds` later: in
    a new pod (another name suffix) labelled with the next restart attempt."""
    line = json.loads(json.dumps(entry))
    pod = line["resource"]["labels"]["pod_name"]
    line["resource"]["labels"]["pod_name"] = f"{pod[:-5]}{pod[-5:][::-1]}"
    line["labels"]["k8s-pod/jobset_sigs_k8s_io/restart-attempt"] = "1"
    for key in ("timestamp", "receiveTimestamp"):
        line[key] = _later(line[key], seconds)
    line["insertId"] = f"next-{line['insertId']}"
    return line


def _restarted_healthily(entries: list[Entry]) -> list[Entry]:
    """The silent-hang workload's lines of 14:05 to 14:20 again as the next restart attempt
    logs them, 55 minutes later: an attempt that trains on healthily."""
    return [
        _next_attempt(e, 55 * 60)
        for e in entries
        if e["resource"]["type"] == "k8s_container"
        and e["labels"].get("k8s-pod/jobset_sigs_k8s_io/jobset-name") == "dpo-train"
        and "2026-11-25T14:05" <= e["timestamp"] < "2026-11-25T14:20"
    ]


def _triage_restarted(tmp_path: Path, entries: list[Entry]) -> dict[str, Any]:
    """Triage of the silent-hang workload restarted (see `_restarted_healthily`)."""
    path = tmp_path / "restarted.json"
    path.write_text(json.dumps(entries))
    coordinates = target_args("silent-hang")[1:5]  # the project, cluster and namespace
    window = ("--start_time=2026-11-25T14:00:00Z", "--end_time=2026-11-25T15:20:00Z")
    workload = ("--workload=jobset:dpo-train", "--action=triage", "--format=json")
    code, out, err = run_cli(f"--logs_file={path}", *coordinates, *window, *workload)
    assert code == 0, err
    report: dict[str, Any] = json.loads(out)
    return report


def test_a_hang_the_jobset_restarted_from_is_still_the_hang(tmp_path: Path) -> None:
    """The hung run is restarted (its pods killed) and the next attempt trains on healthily:
    the hang is still the failure of the window, not the `Killing` events."""
    entries = _entries("silent-hang")
    scheduled = [e for e in entries if e.get("jsonPayload", {}).get("reason") == "Scheduled"]
    entries += [_killing(event, "2026-11-25T14:59:30Z") for event in scheduled]
    report = _triage_restarted(tmp_path, entries + _restarted_healthily(entries))
    _same_failure(report["root_cause"], expected("silent-hang")["root_cause"])
    assert len(report["failures"]) == 1


@pytest.mark.parametrize("events", ["scheduled only", "none"])
def test_a_hang_restarted_with_no_event_read_is_still_the_hang(tmp_path: Path, events: str) -> None:
    """The same, with no `Killing` event read (the export lacks the events, or has only the
    first attempt's `Scheduled` ones): the earlier attempt is read alone, and it hung."""
    entries = _entries("silent-hang")
    if events == "none":
        entries = [e for e in entries if not e["logName"].endswith("/events")]
    report = _triage_restarted(tmp_path, entries + _restarted_healthily(entries))
    _same_failure(report["root_cause"], expected("silent-hang")["root_cause"])
    assert report["root_cause"]["restart_attempt"] == "0"
    assert len(report["failures"]) == 1


GLOG_LETTERS = {"INFO": "I", "WARNING": "W", "ERROR": "E", "CRITICAL": "F"}


def _glog_header_kept(container: str, marked: str) -> Callable[[Entry], None]:
    """A change that gives `container`'s one-line messages the glog header that the logging
    agent did not parse (its letter from the line's severity), and marks them `marked` as
    GKE marks a stream: ERROR for stderr, INFO for stdout (a launcher's `2>&1 | tee`)."""

    def change(entry: Entry) -> None:
        text = entry.get("textPayload")
        if entry["resource"]["labels"].get("container_name") != container or not text:
            return
        if "\n" in text.strip() or text.startswith((" ", "Traceback", "[rank")):
            return
        stamp = entry["timestamp"]
        letter = GLOG_LETTERS.get(entry.get("severity", ""), "I")
        where = entry.pop("sourceLocation", {"file": "main.py", "line": "1"})
        header = f"{letter}{stamp[5:7]}{stamp[8:10]} {stamp[11:26]}  1402 "
        entry["textPayload"] = f"{header}{where['file']}:{where['line']}] {text}"
        entry["severity"] = marked

    return change


@pytest.mark.parametrize(
    ("name", "container", "marked"),
    [
        ("elastic-restore-failure", "jax-tpu", "ERROR"),
        ("lost-connection-to-peer", "pathways-worker", "INFO"),
        ("topology-mismatch", "pathways-rm", "INFO"),
    ],
)
def test_a_glog_line_is_read_by_its_own_letter(
    name: str, container: str, marked: str, tmp_path: Path
) -> None:
    """With the glog header left in the message, the severity is the stream's: an `I` line
    on stderr (the client's `DATA_LOSS` recovery step) is still context, and an `F` or `E`
    line on stdout is still the error it says it is."""
    report = _triage(name, tmp_path, _glog_header_kept(container, marked))
    _same_failure(report["root_cause"], expected(name)["root_cause"])


def _restatement_drawn_first(entry: Entry) -> None:
    """InsertIds (random) that happen to put the kubelet's `Error: <error>` event before the
    event of the step that failed, which the kubelet recorded first in the same second."""
    said = entry.get("jsonPayload", {}).get("message")
    first = isinstance(said, str) and said.startswith("Error: ")
    entry["insertId"] = ("0" if first else "1") + entry.get("insertId", "")


def test_a_pull_failure_is_named_by_its_own_event_whatever_the_insert_ids(
    tmp_path: Path,
) -> None:
    """The kubelet records `Failed to pull image "...": <why>` and then restates it as
    `Error: ErrImagePull`, both reason Failed, in one second (events keep seconds): the
    cause is the pull failure's own event, which names the image and the reason, not its
    restatement, whichever insertId GKE drew."""
    report = _triage("image-pull-backoff", tmp_path, _restatement_drawn_first)
    _same_failure(report["root_cause"], expected("image-pull-backoff")["root_cause"])


def _structured_as(key: str) -> Callable[[Entry], None]:
    """A container line as a structured logger writes it and GKE's agent parses it: a JSON
    object whose text is under `key`, landed in jsonPayload."""

    def change(entry: Entry) -> None:
        if isinstance(entry.get("textPayload"), str) and entry["resource"]["type"] == (
            "k8s_container"
        ):
            entry["jsonPayload"] = {key: entry.pop("textPayload")}

    return change


@pytest.mark.parametrize("name", ["lost-connection-to-peer", "jax-version-mismatch"])
def test_a_structured_loggers_msg_key_is_the_message(name: str, tmp_path: Path) -> None:
    """zap's and klog's JSON encoders (controller-runtime with `--zap-encoder=json`, Go
    programs, klog's `--logging-format=json`) put the text under `msg`: it is searched and
    read as the message, so the cause and every host that failed are still found."""
    report = _triage(name, tmp_path, _structured_as("msg"))
    planted = expected(name)
    _same_failure(report["root_cause"], planted["root_cause"])
    assert [host["pod"] for host in report["failing_hosts"]] == [
        host["pod"] for host in planted["failing_hosts"]
    ]


def _all_quiet_from(entries: list[Entry], jobset: str, at: str) -> list[Entry]:
    """The export with every container line of `jobset`'s pods after `at` left out: the whole
    workload went quiet at once while the cluster (its nodes, other pods) logged on."""
    return [
        e
        for e in entries
        if not (
            e["resource"]["type"] == "k8s_container"
            and e["labels"].get("k8s-pod/jobset_sigs_k8s_io/jobset-name") == jobset
            and e["timestamp"] > at
        )
    ]


@pytest.mark.parametrize("by_issue_time", [True, False])
def test_a_workload_gone_quiet_all_at_once_is_a_hang(tmp_path: Path, by_issue_time: bool) -> None:
    """Every component of the healthy run stops logging at 10:30, no event says it completed,
    and the logs run on to the window's end: that is a hang (of all of it), not a run with
    nothing wrong, though no component went quiet before the others."""
    entries = _all_quiet_from(_entries("healthy-run"), "qwen-pretrain", "2026-11-26T10:30:00Z")
    report = triage_of("healthy-run", tmp_path, entries, by_issue_time)
    cause = report["root_cause"]
    assert cause is not None, "the workload went quiet for 30 minutes: no hang found"
    assert (cause["source"], cause["scenario"]) == ("hang", 14)
    assert "2026-11-26T10:2" <= cause["timestamp"] < "2026-11-26T10:30:00Z"
    hosts = [lane for lane in report["timeline"]["lanes"] if lane["lane"] == "host"]
    assert hosts and all(lane["quiet"] and lane["due_at"] for lane in hosts)
