"""Where the failure began: the lead host is the root cause's host, whatever the clocks of its
peers say; a container's errors while it shuts down are symptoms; a root cause known only
downstream at the window's start says the failure may have begun before it."""

from __future__ import annotations

import copy
import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from pathways_workload.describe import message
from pathways_workload.triage.evidence import Evidence
from pathways_workload.triage.hosts import HostPod, host_of
from pathways_workload.triage.timeline import host_on_node
from tests.helpers import run_cli

INCIDENTS = Path(__file__).resolve().parent / "fixtures" / "incidents"
PEER_LOST_AT = "2026-11-20T04:47:33.738460Z"  # the chip halt of lost-connection-to-peer
PEER_HOST = "llama-train-worker-1-2-75wk5"
WORKERS = "mistral-pretrain-worker-"


def _load(name: str) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = json.loads((INCIDENTS / f"{name}.json").read_text())
    return entries


def _triage(tmp_path: Path, entries: list[dict[str, Any]], *flags: str) -> dict[str, Any]:
    path = tmp_path / "export.json"
    path.write_text(json.dumps(entries))
    code, out, err = run_cli("--action=triage", f"--logs_file={path}", "--format=json", *flags)
    assert code == 0, err
    report: dict[str, Any] = json.loads(out)
    return report


def _peer_lines(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The peers' lost-peer and closed-pipe lines of the crash's second."""
    return [
        entry
        for entry in entries
        if entry["resource"]["type"] == "k8s_container"
        and entry["timestamp"].startswith("2026-11-20T04:47:3")
        and ("lost connection to peer" in message(entry) or "Pipe from scheduler" in message(entry))
    ]


def test_peers_logging_at_the_same_instant_do_not_lead(tmp_path: Path) -> None:
    entries = _load("lost-connection-to-peer")
    for entry in _peer_lines(entries):
        entry["timestamp"] = PEER_LOST_AT
        entry["insertId"] = "0000" + entry["insertId"]  # ties go to insertId: the peers first
    report = _triage(tmp_path, entries, "--jobset_name=llama-train")
    assert report["root_cause"]["pod"] == PEER_HOST
    assert report["lead_host"]["pod"] == PEER_HOST
    assert report["failing_hosts"][0]["pod"] == PEER_HOST


def test_peers_whose_clocks_run_ahead_do_not_lead(tmp_path: Path) -> None:
    entries = _load("lost-connection-to-peer")
    for entry in _peer_lines(entries):
        stamp = datetime.strptime(entry["timestamp"][:26], "%Y-%m-%dT%H:%M:%S.%f")
        entry["timestamp"] = (stamp - timedelta(milliseconds=200)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    report = _triage(tmp_path, entries, "--jobset_name=llama-train")
    assert report["root_cause"]["pod"] == PEER_HOST
    assert report["lead_host"]["pod"] == PEER_HOST
    assert report["origin_hosts"] == [PEER_HOST]


def _preemption_without_audit() -> list[dict[str, Any]]:
    """The preemption incident as an export without the _Required bucket (no audit entry)."""
    return [
        entry
        for entry in _load("preemption-sigterm")
        if entry.get("protoPayload", {}).get("methodName") != "compute.instances.preempted"
    ]


def _first_sigterm(entries: list[dict[str, Any]]) -> dict[str, Any]:
    """The workload's first SIGTERM (the export holds another JobSet's pods too)."""
    return min(
        (
            e
            for e in entries
            if e["resource"].get("labels", {}).get("pod_name", "").startswith(WORKERS)
            and "SIGTERM" in message(e)
        ),
        key=lambda e: e["timestamp"],
    )


def test_the_sigterm_root_cause_host_leads(tmp_path: Path) -> None:
    entries = _preemption_without_audit()
    sigterm = _first_sigterm(entries)
    report = _triage(tmp_path, entries, "--jobset_name=mistral-pretrain")
    pod = sigterm["resource"]["labels"]["pod_name"]
    assert report["root_cause"]["pod"] == pod and report["root_cause"]["downstream_only"]
    assert report["lead_host"]["pod"] == pod
    assert report["lead_host"]["first_error"] == message(sigterm)
    assert report["origin_hosts"] == []


def test_text_says_when_no_host_logged_an_error_of_its_own(tmp_path: Path) -> None:
    path = tmp_path / "export.json"
    path.write_text(json.dumps(_preemption_without_audit()))
    code, out, err = run_cli(
        "--action=triage", f"--logs_file={path}", "--jobset_name=mistral-pretrain"
    )
    assert code == 0, err
    assert "Where the failure began" not in out
    assert "No host logged an error of its own (4 only lost a peer" in out
    assert "(downstream); lowest index:" in out


def test_a_crash_while_shutting_down_is_a_symptom_of_the_sigterm(tmp_path: Path) -> None:
    entries = _preemption_without_audit()
    sigterm = _first_sigterm(entries)
    crash = copy.deepcopy(sigterm)
    crash["insertId"] = "crash-after-sigterm"
    stamp = datetime.strptime(sigterm["timestamp"][:26], "%Y-%m-%dT%H:%M:%S.%f")
    crash["timestamp"] = (stamp + timedelta(milliseconds=200)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    crash["severity"] = "CRITICAL"
    crash["textPayload"] = "Check failed: pending_transfers_.empty() 3 transfers in flight"
    report = _triage(tmp_path, [*entries, crash], "--jobset_name=mistral-pretrain")
    without = _triage(tmp_path, entries, "--jobset_name=mistral-pretrain")
    assert report["root_cause"]["message"] == message(sigterm)
    assert report["root_cause"]["scenario"] == without["root_cause"]["scenario"] is not None
    assert report["lead_host"] == without["lead_host"]
    assert any("pending_transfers_" in s["message"] for s in report["symptoms"])


def test_a_crash_long_after_a_sigterm_is_a_cause(tmp_path: Path) -> None:
    entries = _preemption_without_audit()
    sigterm = _first_sigterm(entries)
    crash = copy.deepcopy(sigterm)
    crash["insertId"] = "crash-later"
    crash["severity"] = "CRITICAL"
    crash["textPayload"] = "Check failed: pending_transfers_.empty() 3 transfers in flight"
    stamp = datetime.strptime(sigterm["timestamp"][:26], "%Y-%m-%dT%H:%M:%S.%f")
    for later, cause in ((timedelta(seconds=59), False), (timedelta(seconds=61), True)):
        crash["timestamp"] = (stamp + later).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        report = _triage(tmp_path, [*entries, crash], "--jobset_name=mistral-pretrain")
        messages = [failure["message"] for failure in report["failures"]]
        assert (crash["textPayload"] in messages) is cause


def test_a_downstream_root_cause_at_the_window_start_asks_for_an_earlier_start(
    tmp_path: Path,
) -> None:
    window = ("--start_time=2026-11-20T04:47:33.770Z", "--end_time=2026-11-20T05:20:00Z")
    report = _triage(
        tmp_path, _load("lost-connection-to-peer"), "--jobset_name=llama-train", *window
    )
    root = report["root_cause"]
    assert root["downstream_only"]
    (gap,) = [gap for gap in report["coverage"]["gaps"] if "may have begun before it" in gap]
    flags = "--start_time=2026-11-20T04:37:33.77Z --end_time=2026-11-20T05:20:00Z"
    assert flags in gap
    assert not any(step.startswith("--start_time") for step in root["read_next"])
    rerun = _triage(
        tmp_path, _load("lost-connection-to-peer"), "--jobset_name=llama-train", *flags.split()
    )
    assert rerun["root_cause"]["message"].startswith("Check failed: !chip_halted")
    assert report["origin_hosts"] == [] and report["lead_host"]["downstream"]
    whole = _triage(tmp_path, _load("lost-connection-to-peer"), "--jobset_name=llama-train")
    assert not any("may have begun before it" in gap for gap in whole["coverage"]["gaps"])


def test_hosts_are_listed_when_lines_lack_the_node_label(tmp_path: Path) -> None:
    entries = _load("lost-connection-to-peer")
    for entry in entries:
        if entry["resource"]["type"] == "k8s_container":
            entry.get("labels", {}).pop("compute.googleapis.com/resource_name", None)
    report = _triage(tmp_path, entries, "--jobset_name=llama-train")
    with_nodes = _triage(tmp_path, _load("lost-connection-to-peer"), "--jobset_name=llama-train")
    assert report["lead_host"]["pod"] == PEER_HOST
    # the node from the pod's Scheduled event
    assert report["lead_host"]["node"] == with_nodes["lead_host"]["node"]
    assert [row["pod"] for row in report["failing_hosts"]] == [
        row["pod"] for row in with_nodes["failing_hosts"]
    ]


def test_node_evidence_before_any_line_read_on_its_node_is_the_pod_there() -> None:
    """SQL reads a container's first crash lines and latest lines: a kernel OOM kill can come
    before the earliest line read from the pod it killed. It is that pod's, unless the pod's
    Scheduled event says it reached the node after the kill."""
    second = 1_000_000_000
    node_event = {
        "resource": {"type": "k8s_node", "labels": {"node_name": "gke-n1"}},
        "timestamp": "2026-11-20T04:00:10Z",
    }
    item = Evidence(node_event, 10 * second, "node-event", False)
    pod = HostPod("w-0-1-abcde", "gke-n1", "0", "1", first_ns=20 * second, last_ns=30 * second)
    assert host_of(item, {pod.pod: pod}) is pod
    pod.scheduled_ns = 5 * second
    assert host_of(item, {pod.pod: pod}) is pod
    pod.scheduled_ns = 15 * second
    assert host_of(item, {pod.pod: pod}) is None


def test_node_evidence_after_a_later_pod_was_scheduled_there_is_that_pods() -> None:
    """A node reused after a restart: evidence after the new pod's Scheduled event but before
    its first line read is the new pod's, not the replaced pod's that ran there before."""
    second = 1_000_000_000
    serial = {
        "resource": {"type": "gce_instance", "labels": {"instance_id": "1"}},
        "labels": {"compute.googleapis.com/resource_name": "gke-n1"},
        "timestamp": "2026-11-20T04:00:10Z",
    }
    item = Evidence(serial, 10 * second, "serial-console", False)
    old = HostPod("w-0-1-old", "gke-n1", "0", "1", first_ns=1 * second, last_ns=5 * second)
    new = HostPod("w-1-0-new", "gke-n1", "1", "0", first_ns=20 * second, last_ns=30 * second)
    new.scheduled_ns = 8 * second
    pods = {old.pod: old, new.pod: new}
    assert host_of(item, pods) is new
    assert host_on_node(list(pods.values()), "gke-n1", 10 * second) == ("host", "1/0")
    new.scheduled_ns = 12 * second
    assert host_of(item, pods) is old
    assert host_on_node(list(pods.values()), "gke-n1", 10 * second) == ("host", "0/1")


def test_node_evidence_finds_its_host_from_the_scheduled_event(tmp_path: Path) -> None:
    """Container lines without the node label: the Scheduled event names the pod's node, so
    the kernel OOM kill is still the killed host's first error and that host leads."""
    entries = _load("host-oom-worker")
    for entry in entries:
        if entry["resource"]["type"] == "k8s_container":
            entry.get("labels", {}).pop("compute.googleapis.com/resource_name", None)
    report = _triage(tmp_path, entries, "--jobset_name=gemma-train")
    lead = report["lead_host"]
    assert lead["pod"] == "gemma-train-worker-1-1-wc8nh"
    assert lead["node"] == "gke-pw-cluster-tpu-np-2-42c1eb49-45h5"
    assert not lead["downstream"]
