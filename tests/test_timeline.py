"""Triage's `timeline`: a lane per host (failed or not), the root cause on the planted lane,
quiet hosts, restart attempts and node-level evidence, from what each incident planted.

Hosts, attempts and nodes are read from the recorded exports' own labels (what
the corpus generator wrote), never from the tool's output.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from pathways_workload.triage.timeline import FAILED_KINDS
from tests.corpus.large import export
from tests.helpers import run_cli
from tests.test_incidents import INCIDENTS, NAMES, expected, target_args, triage

JOB_INDEX = "k8s-pod/jobset_sigs_k8s_io/job-index"
COMPLETION_INDEX = "k8s-pod/batch_kubernetes_io/job-completion-index"
LWS_GROUP = "k8s-pod/leaderworkerset_sigs_k8s_io/group-index"
LWS_WORKER = "k8s-pod/leaderworkerset_sigs_k8s_io/worker-index"
ATTEMPT = "k8s-pod/jobset_sigs_k8s_io/restart-attempt"
HOST_CONTAINERS = ("pathways-worker", "colocated-python-sidecar")


def _recorded(name: str) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = json.loads((INCIDENTS / f"{name}.json").read_text())
    return entries


def _workload_lines(name: str) -> list[dict[str, Any]]:
    pods = set(expected(name)["workload_pods"])
    return [
        e
        for e in _recorded(name)
        if e.get("resource", {}).get("labels", {}).get("pod_name") in pods
    ]


def _host_of_pod(name: str) -> dict[str, str]:
    """pod -> "slice/host", from the worker lines' labels."""
    found = {}
    for entry in _workload_lines(name):
        resource, labels = entry["resource"]["labels"], entry.get("labels", {})
        if resource.get("container_name") not in HOST_CONTAINERS:
            continue
        for slice_key, host_key in ((JOB_INDEX, COMPLETION_INDEX), (LWS_GROUP, LWS_WORKER)):
            if slice_key in labels:
                found[resource["pod_name"]] = f"{labels[slice_key]}/{labels[host_key]}"
    return found


def _lanes(report: dict[str, Any], kind: str) -> dict[str, dict[str, Any]]:
    return {lane["name"]: lane for lane in report["timeline"]["lanes"] if lane["lane"] == kind}


def _root_lane(name: str) -> tuple[str, str]:
    """The lane the planted root cause belongs on."""
    root = expected(name)["root_cause"]
    hosts = _host_of_pod(name)
    if root["source"] == "container":
        if root["container"] in HOST_CONTAINERS:
            return "host", hosts[root["pod"]]
        groups = {
            e["labels"][LWS_GROUP]
            for e in _workload_lines(name)
            if e["resource"]["labels"]["pod_name"] == root["pod"]
            and LWS_GROUP in e.get("labels", {})
        }
        group = f" (group {groups.pop()})" if groups else ""
        return "head", root["container"] + group
    if root["source"] in ("serial-console", "audit", "node-event"):
        on_node = [
            hosts[e["resource"]["labels"]["pod_name"]]
            for e in _workload_lines(name)
            if e.get("labels", {}).get("compute.googleapis.com/resource_name") == root["node"]
            and e["resource"]["labels"].get("pod_name") in hosts
        ]
        return ("host", on_node[0]) if on_node else ("node", root["node"])
    return (
        ("controller", "JobSet controller")
        if root["source"] == "controller"
        else (
            "events",
            "Kubernetes events",
        )
    )


@pytest.mark.parametrize("name", NAMES)
def test_every_host_has_a_lane_failed_or_not(name: str) -> None:
    report = triage(name, by_issue_time=True)
    assert set(_lanes(report, "host")) == set(_host_of_pod(name).values())


@pytest.mark.parametrize("name", [n for n in NAMES if expected(n)["root_cause"]])
def test_the_root_cause_is_marked_once_on_the_planted_lane(name: str) -> None:
    planted = expected(name)["root_cause"]
    report = triage(name, by_issue_time=True)
    marked = [
        (lane["lane"], lane["name"], event)
        for lane in report["timeline"]["lanes"]
        for event in lane["events"]
        if event["kind"] == "root_cause"
    ]
    assert len(marked) == 1
    kind, lane, event = marked[0]
    assert (kind, lane) == _root_lane(name)
    assert event["timestamp"] == planted["timestamp"]
    assert planted["message_contains"] in event["message"]


@pytest.mark.parametrize("name", [n for n in NAMES if expected(n)["failing_hosts"]])
def test_the_planted_failing_hosts_failed_on_the_timeline(name: str) -> None:
    report = triage(name, by_issue_time=True)
    lanes = _lanes(report, "host")
    hosts = {f"{h['slice']}/{h['host']}" for h in expected(name)["failing_hosts"]}
    assert {name for name, lane in lanes.items() if lane["failed"]} >= hosts


@pytest.mark.parametrize("name", NAMES)
def test_restart_attempts_are_the_recorded_ones(name: str) -> None:
    report = triage(name, by_issue_time=True)
    recorded = {
        e["labels"][ATTEMPT] for e in _workload_lines(name) if ATTEMPT in e.get("labels", {})
    }
    attempts = report["timeline"]["attempts"]
    assert {a["attempt"] for a in attempts} == recorded
    starts = [a["first_line"] for a in attempts]
    assert starts == sorted(starts)


@pytest.mark.parametrize("name", [n for n in NAMES if expected(n).get("hang")])
def test_the_host_that_went_quiet_first_has_its_hang_point(name: str) -> None:
    planted = expected(name)["hang"]["quiet_first"]
    report = triage(name, by_issue_time=True)
    hosts = _host_of_pod(name)
    if planted["pod"] in hosts:
        lane = _lanes(report, "host")[hosts[planted["pod"]]]
    else:
        lane = _lanes(report, "head")[planted["container"]]
    (point,) = [e for e in lane["events"] if e["kind"] in ("root_cause", "hang", "quiet")]
    assert point["timestamp"] == planted["last_line_time"]
    assert point["due_at"] > point["timestamp"]


def test_a_silent_host_is_the_quiet_lane_and_the_root_cause() -> None:
    planted = expected("silent-hang")["hang"]["quiet_first"]
    report = triage("silent-hang", by_issue_time=True)
    host = _host_of_pod("silent-hang")[planted["pod"]]
    quiet = {name for name, lane in _lanes(report, "host").items() if lane["quiet"]}
    assert quiet == {host}
    lane = _lanes(report, "host")[host]
    assert lane["last_line"] == planted["last_line_time"]
    assert lane["due_at"] > lane["last_line"]


def test_a_hang_marks_no_older_line_of_the_quiet_host_as_its_first_error() -> None:
    """The quiet host's sidecar logged its last (periodic, INFO) line 95 s before the
    worker's last line: it went quiet with the worker and is drawn as its last line; the
    hang point is the lane's only failure, as the report's failing hosts say."""
    planted = expected("silent-hang")["hang"]["quiet_first"]
    report = triage("silent-hang", by_issue_time=True)
    lane = _lanes(report, "host")[_host_of_pod("silent-hang")[planted["pod"]]]
    failed = [e for e in lane["events"] if e["kind"] in FAILED_KINDS]
    assert [(e["kind"], e["timestamp"]) for e in failed] == [
        ("root_cause", planted["last_line_time"])
    ]
    assert any(e["kind"] == "last_line" and "sidecar" in e["where"] for e in lane["events"])


def test_a_node_oom_lands_on_the_lane_of_the_host_it_killed() -> None:
    report = triage("host-oom-worker", by_issue_time=True)
    kinds = [e["kind"] for e in _lanes(report, "host")[_root_lane("host-oom-worker")[1]]["events"]]
    assert "root_cause" in kinds and "oom" in kinds


def test_symptoms_are_capped_per_lane_and_counted() -> None:
    path, planted = export("cascade-1024")
    code, out, err = run_cli(
        f"--logs_file={path}",
        *planted.target(),
        "--action=triage",
        "--format=json",
    )
    assert code == 0, err
    report = json.loads(out)
    hosts = _lanes(report, "host")
    assert len(hosts) == 1024 and all(lane["failed"] for lane in hosts.values())
    root = [
        lane for lane in hosts.values() if any(e["kind"] == "root_cause" for e in lane["events"])
    ]
    assert [lane["pods"] for lane in root] == [[planted.root_pod]]
    assert root[0]["name"] == planted.root_host
    for lane in hosts.values():
        assert sum(e["kind"] == "symptom" for e in lane["events"]) <= 3
    events = _lanes(report, "events")["Kubernetes events"]
    assert events["omitted"] > 0 and len(events["events"]) <= 12


@pytest.mark.parametrize("name", ["silent-hang-1024", "unseen-hang-1024"])
def test_a_large_hang_marks_the_quiet_host(name: str) -> None:
    path, planted = export(name)
    code, out, err = run_cli(
        f"--logs_file={path}",
        *planted.target(),
        "--action=triage",
        "--format=json",
    )
    assert code == 0, err
    hosts = _lanes(json.loads(out), "host")
    assert len(hosts) == 1024
    lane = hosts[planted.root_host]
    assert lane["quiet"]
    (root,) = [e for e in lane["events"] if e["kind"] == "root_cause"]
    assert root["timestamp"] == planted.root_time
    if planted.root_pod is None:  # it never logged in the window
        assert lane["pods"] == [] and root["due_at"] == planted.start


def test_offline_checks_name_the_recorded_project() -> None:
    project = expected("two-failures")["target"]["project"]
    args = [a for a in target_args("two-failures") if not a.startswith("--project=")]
    code, out, err = run_cli(*args, "--action=triage", "--format=json")
    assert code == 0, err
    for check in json.loads(out)["checks"]:
        assert f"--project={project}" in check["command"]
        assert check["url"].endswith(f"?project={project}")
        assert "PROJECT_ID" not in check["command"]


@pytest.mark.parametrize("name", NAMES)
def test_every_event_says_where_it_came_from(name: str) -> None:
    """Node, instance and cluster evidence on a host's lane names its node or instance."""
    code, out, err = run_cli(*target_args(name), "--action=triage", "--format=json")
    assert code == 0, err
    events = [e for lane in json.loads(out)["timeline"]["lanes"] for e in lane["events"]]
    assert events
    assert all(event["where"] and "?" not in event["where"] for event in events), name


@pytest.mark.parametrize("name", ["host-oom-worker", "co-tenant-oom", "preemption-sigterm"])
def test_a_node_level_root_cause_names_the_tpu_host_that_ran_there(name: str) -> None:
    """The kernel's or Compute Engine's line about a TPU host's node: `host` is that host, as
    the lead host and the root cause's lane say."""
    code, out, err = run_cli(*target_args(name), "--action=triage", "--format=json")
    assert code == 0, err
    report = json.loads(out)
    lead = report["lead_host"]
    assert report["root_cause"]["host"] == f"{lead['slice']}/{lead['host']}"
    lanes = [lane for lane in report["timeline"]["lanes"] if lane["lane"] == "host"]
    marked = [
        lane["name"] for lane in lanes if any(e["kind"] == "root_cause" for e in lane["events"])
    ]
    assert marked == [report["root_cause"]["host"]]


def test_a_host_pod_event_that_is_the_root_cause_is_on_its_host_lane() -> None:
    """The pod whose image cannot be pulled logged nothing; its pull failure is the root
    cause and the report's failing host. Its host's lane carries the root cause and failed,
    so the page's hosts and the text picture name the host the failing hosts do."""
    path, planted = export("pull-fail-1024")
    code, out, err = run_cli(
        f"--logs_file={path}", *planted.target(), "--action=triage", "--format=json"
    )
    assert code == 0, err
    report = json.loads(out)
    assert [h["pod"] for h in report["failing_hosts"]] == [planted.root_pod]
    lane = _lanes(report, "host")[planted.root_host]
    assert lane["failed"]
    (root,) = [e for e in lane["events"] if e["kind"] == "root_cause"]
    assert root["timestamp"] == planted.root_time
    assert all(
        e["kind"] != "root_cause" for e in _lanes(report, "events")["Kubernetes events"]["events"]
    )
