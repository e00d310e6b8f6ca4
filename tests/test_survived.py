"""Warnings a run survived are not its root cause: a healthy run with a retried read, or a
Python deprecation notice on stderr (which GKE marks ERROR), stays healthy."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import audit_event, node_event, run_cli
from tests.logentry import nodepool_audit

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


def test_a_warning_no_error_followed_for_minutes_is_not_the_later_errors_cause(
    tmp_path: Path,
) -> None:
    """A retry warning eleven minutes before a crash, with nothing between: the run outlived
    it, and the crash is the cause (the warning is reported apart)."""
    warning = _line("workload-container", "WARNING", RETRY, "2026-11-26T10:20:00.000001Z")
    error = _line("pathways-worker", "ERROR", "DATA_LOSS: link went down", "2026-11-26T10:31:00Z")
    error["insertId"] = "added-error"
    report = _triage(tmp_path, warning, error)
    assert report["root_cause"]["message"] == "DATA_LOSS: link went down"
    assert [row["message"] for row in report["survived"]] == [RETRY]


HOST_OOM = HEALTHY.parent / "host-oom-worker.json"
KILL_AT = "2026-11-17T13:27:00.78"  # the worker's serial-console OOM lines in host-oom-worker


def _kernel_lines(entries: list[dict[str, Any]], at: str, process: str) -> list[dict[str, Any]]:
    """host-oom-worker's kernel OOM lines, moved to `at` (HH:MM:SS) and killing `process`."""
    moved = []
    for entry in entries:
        if entry["resource"]["type"] == "gce_instance" and entry["timestamp"].startswith(KILL_AT):
            line = copy.deepcopy(entry)
            line["timestamp"] = line["timestamp"].replace("13:27:00", at)
            line["textPayload"] = line["textPayload"].replace("pathways-worker", process)
            line["insertId"] += f"-{at}"
            moved.append(line)
    assert len(moved) == 3
    return moved


def _host_oom(tmp_path: Path, at: str, process: str) -> dict[str, Any]:
    entries = json.loads(HOST_OOM.read_text())
    path = tmp_path / "export.json"
    path.write_text(json.dumps([*entries, *_kernel_lines(entries, at, process)]))
    code, out, err = run_cli(
        "--action=triage", f"--logs_file={path}", "--jobset_name=gemma-train", "--format=json"
    )
    assert code == 0, err
    report: dict[str, Any] = json.loads(out)
    return report


@pytest.mark.parametrize(
    ("at", "process"),
    [
        ("13:10:00", "fluent-bit"),  # a logging agent's cgroup, mid-run: training went on
        ("13:01:00", "python3"),  # before the workers were scheduled on the node (13:03)
    ],
)
def test_an_oom_kill_the_workload_went_on_after_is_survived(
    tmp_path: Path, at: str, process: str
) -> None:
    """Another OOM kill on a worker's node, after which nothing of the workload's faltered
    for minutes: the worker's own kill at 13:27 stays the root cause."""
    report = _host_oom(tmp_path, at, process)
    root = report["root_cause"]
    assert root["timestamp"].startswith(KILL_AT) and "(pathways-worker)" in root["message"]
    assert report["lead_host"]["first_error_time"].startswith(KILL_AT)
    assert len(report["survived"]) == 2  # the kill and its `invoked oom-killer` line
    assert all(row["timestamp"].startswith(f"2026-11-17T{at}") for row in report["survived"])
    assert all(process in row["message"] for row in report["survived"])


def test_an_oom_kill_the_workload_faltered_after_is_the_cause(tmp_path: Path) -> None:
    """The same kill a minute before the workers' lost peers is where the failure began."""
    report = _host_oom(tmp_path, "13:26:00", "pathways-worker")
    assert report["root_cause"]["timestamp"].startswith("2026-11-17T13:26:00.78")
    assert report["survived"] == []


def test_a_kill_near_the_end_of_the_workloads_lines_stays_evidence(tmp_path: Path) -> None:
    """Whether the workload went on after a kill needs its lines past the five minutes."""
    entries = json.loads(HEALTHY.read_text())
    worker = next(
        e
        for e in entries
        if e["resource"]["labels"].get("container_name") == "pathways-worker"
        and e["labels"].get("compute.googleapis.com/resource_name")
    )
    node = worker["labels"]["compute.googleapis.com/resource_name"]
    kills = _kernel_lines(json.loads(HOST_OOM.read_text()), "13:27:00", "fluent-bit")
    for kill in kills:
        kill["timestamp"] = kill["timestamp"].replace("2026-11-17T13:27:00", "2026-11-26T10:20:00")
        kill["labels"]["compute.googleapis.com/resource_name"] = node
    early = _triage(tmp_path, *kills)
    assert early["root_cause"] is None and len(early["survived"]) == 2
    for kill in kills:
        kill["timestamp"] = kill["timestamp"].replace("10:20:00", "10:57:00")
    late = _triage(tmp_path, *kills)
    assert "(fluent-bit)" in late["root_cause"]["message"] and late["survived"] == []


def _job_event(job: str, at: str) -> dict[str, Any]:
    """A Job's BackoffLimitExceeded event in the healthy run's cluster, at `at`."""
    entries = json.loads((HEALTHY.parent / "lost-connection-to-peer.json").read_text())
    model = next(
        e
        for e in entries
        if e["logName"].endswith("/logs/events")
        and e["jsonPayload"]["involvedObject"]["kind"] == "Job"
    )
    event = copy.deepcopy(model)
    event.update(insertId=f"job-event-{job}", timestamp=at, severity="WARNING")
    event["jsonPayload"].update(
        involvedObject={
            "apiVersion": "batch/v1",
            "kind": "Job",
            "name": job,
            "namespace": "default",
        },
        reason="BackoffLimitExceeded",
        message="Job has reached the specified backoff limit",
        type="Warning",
    )
    return event


def test_a_sibling_jobsets_job_is_not_the_workloads(tmp_path: Path) -> None:
    """`qwen-pretrain-pathways-worker-1` is named like a Job of JobSet qwen-pretrain, but its
    pods run replicated job `worker`: it is JobSet qwen-pretrain-pathways's `worker` Job."""
    sibling = _job_event("qwen-pretrain-pathways-worker-1", "2026-11-26T10:47:35Z")
    report = _triage(tmp_path, sibling)
    assert report["root_cause"] is None and report["survived"] == []
    own = _job_event("qwen-pretrain-worker-1", "2026-11-26T10:47:35Z")
    root = _triage(tmp_path, own)["root_cause"]
    assert root is not None and "(Job/qwen-pretrain-worker-1)" in root["message"]


def _hang_interrupted(tmp_path: Path, method: str, at: str, *extra: str) -> dict[str, Any]:
    """Triage of silent-hang with `method` on the hung host's node at `at`."""
    name = "silent-hang"
    planted = json.loads((HEALTHY.parent / f"{name}.expected.json").read_text())["root_cause"]
    entries = json.loads((HEALTHY.parent / f"{name}.json").read_text())
    path = tmp_path / "export.json"
    path.write_text(json.dumps([*entries, audit_event(method, planted["node"], at)]))
    code, out, err = run_cli(
        "--action=triage", f"--logs_file={path}", "--jobset_name=dpo-train", "--format=json", *extra
    )
    assert code == 0, err
    report: dict[str, Any] = json.loads(out)
    assert report["lead_host"]["pod"] == planted["pod"]
    return report


@pytest.mark.parametrize(
    "method",
    [
        "compute.instances.preempted",
        "compute.instances.hostError",
        "compute.instances.terminateOnHostMaintenance",
    ],
)
def test_an_interruption_of_the_host_that_went_quiet_is_the_cause_of_the_hang(
    tmp_path: Path, method: str
) -> None:
    """The hung host's VM is interrupted a second after its last line and no container logs an
    error: its pods went quiet with the node, so the run did not go on after the event; the
    interruption, not an unexplained hang, is the root cause, on that host."""
    report = _hang_interrupted(tmp_path, method, "2026-11-25T14:23:12.5Z")
    assert report["root_cause"]["message"].startswith(method)
    assert report["root_cause"]["source"] == "audit"
    # With no SIGTERM line after it, the interruption is still the known failure that stops
    # containers (scenario 4), with its cause and fix, not an unknown line.
    assert report["root_cause"]["scenario_slug"] == "sigterm"
    assert "preemption" in report["root_cause"]["cause"] and report["root_cause"]["fix"]
    assert report["survived"] == []
    assert [failure["source"] for failure in report["failures"]] == ["audit"]


def test_a_node_interruption_event_that_is_the_cause_is_a_known_failure(tmp_path: Path) -> None:
    """GKE's preemption event of the hung host's node, with no SIGTERM line after it, is the
    interruption that stops containers (scenario 4), not an unknown line."""
    name = "silent-hang"
    node = json.loads((HEALTHY.parent / f"{name}.expected.json").read_text())["root_cause"]["node"]
    text = f"Node '{node}' in node pool 'tpu-np-1' was preempted."
    event = node_event("PreemptionEvent", text, node, "2026-11-25T14:23:12Z")
    path = tmp_path / "export.json"
    path.write_text(json.dumps([*json.loads((HEALTHY.parent / f"{name}.json").read_text()), event]))
    code, out, err = run_cli(
        "--action=triage", f"--logs_file={path}", "--jobset_name=dpo-train", "--format=json"
    )
    assert code == 0, err
    root = json.loads(out)["root_cause"]
    assert root["source"] == "node-event" and text in root["message"]
    assert root["scenario_slug"] == "sigterm"


def test_an_interruption_seconds_before_the_last_line_is_the_cause_at_the_issue_time(
    tmp_path: Path,
) -> None:
    """A VM logs on for a few seconds after its interruption begins: the hang that follows is
    the interruption's, and no later failure of its own for the issue time to pick."""
    method = "compute.instances.migrateOnHostMaintenance"
    issue = "--issue_time=2026-11-25T14:30:00Z"
    report = _hang_interrupted(tmp_path, method, "2026-11-25T14:23:10Z", issue)
    assert report["root_cause"]["message"].startswith(method)
    assert [failure["source"] for failure in report["failures"]] == ["audit"]


PREEMPTION = HEALTHY.parent / "preemption-sigterm.json"
PREEMPTED = "compute.instances.preempted"


def _nodepool_operation(tmp_path: Path, at: str, pool: str, keep: bool) -> dict[str, Any]:
    """Triage of preemption-sigterm with an upgrade of node pool `pool` at `at` (and without
    the preemption of slice 1 host 0's node, unless `keep`)."""
    entries = json.loads(PREEMPTION.read_text())
    if not keep:
        entries = [e for e in entries if e.get("protoPayload", {}).get("methodName") != PREEMPTED]
    upgrade = nodepool_audit(
        "google.container.v1.ClusterManager.UpdateNodePool",
        nodepool=pool,
        timestamp=at,
        insert_id="upgrade-1",
        operation_id="operation-1795040836934-5e2aac8c",
    )
    path = tmp_path / "export.json"
    path.write_text(json.dumps([*entries, upgrade]))
    code, out, err = run_cli(
        "--action=triage", f"--logs_file={path}", "--jobset_name=mistral-pretrain", "--format=json"
    )
    assert code == 0, err
    report: dict[str, Any] = json.loads(out)
    return report


def test_an_upgrade_of_a_workers_node_pool_the_workload_faltered_after_is_the_cause(
    tmp_path: Path,
) -> None:
    """An upgrade of node pool tpu-np-2 (the preempted worker's node's pool) drains it: the
    operation names no node, but it is about the workload's nodes, so it is the root cause
    (scenario 4), not the SIGTERM it sent."""
    report = _nodepool_operation(tmp_path, "2026-11-18T22:27:16.934617Z", "tpu-np-2", False)
    root = report["root_cause"]
    assert "UpdateNodePool" in root["message"] and root["source"] == "audit"
    assert root["scenario_slug"] == "sigterm" and report["survived"] == []
    # Its timeline lane is the pool's (no host ran on a node pool).
    lanes = {lane["name"]: lane for lane in report["timeline"]["lanes"]}
    pool = lanes["cluster/pw-cluster/nodepool/tpu-np-2"]
    assert [event["kind"] for event in pool["events"]] == ["root_cause"]


def test_an_operation_on_another_node_pool_is_no_evidence(tmp_path: Path) -> None:
    """Pool tpu-np is not tpu-np-2, though the names of tpu-np-2's nodes begin with it."""
    report = _nodepool_operation(tmp_path, "2026-11-18T22:27:16.934617Z", "tpu-np", False)
    assert "UpdateNodePool" not in json.dumps(report["failures"] + report["survived"])


def test_a_node_pool_operation_the_workload_went_on_after_is_survived(tmp_path: Path) -> None:
    """An update of the pool twenty minutes before the preemption, after which training went
    on: the run survived it, and the preemption stays the root cause."""
    report = _nodepool_operation(tmp_path, "2026-11-18T22:05:00Z", "tpu-np-2", True)
    assert report["root_cause"]["message"].startswith(PREEMPTED)
    assert ["UpdateNodePool" in row["message"] for row in report["survived"]] == [True]
