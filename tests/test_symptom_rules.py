"""Symptom rules for real downstream lines, one test per rule, with crafted entries."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pathways_workload import examples, scenarios
from pathways_workload.examples import Example
from pathways_workload.triage import rules
from pathways_workload.triage.evidence import classify, symptom_of
from tests.example_entries import entry_of
from tests.helpers import audit_event, container_entry, run_cli

HEAD_POD = "llama-train-pathways-head-0-0-hhhhh"
WORKER_POD = "llama-train-worker-0-0-aaaaa"
HEAD_NODE = "gke-pw-cluster-cpu-np-5f3a9c1e-h7kq"
WORKER_NODE = "gke-pw-cluster-tpu-np-1-8a1b2c3d-aaaa"
HOST_LABELS = {
    "k8s-pod/jobset_sigs_k8s_io/job-index": "0",
    "k8s-pod/batch_kubernetes_io/job-completion-index": "0",
}
CLIENT_DIED = "Client 7f3a9c2e has died, and was configured to restart servers if it died."
QUICK_RESTART = "(Quick-restart requested but unsupported in Cloud/OSS.)"
DISCONNECTED = "IFRT proxy server disconnected: UNAVAILABLE: Socket closed"


def head(text: str, ts: str, container: str = "jax-tpu", severity: str = "ERROR") -> dict[str, Any]:
    return container_entry(
        text, pod=HEAD_POD, container=container, node=HEAD_NODE, severity=severity, timestamp=ts
    )


def worker(text: str, ts: str, severity: str = "ERROR") -> dict[str, Any]:
    entry = container_entry(text, pod=WORKER_POD, node=WORKER_NODE, severity=severity, timestamp=ts)
    entry["labels"].update(HOST_LABELS)
    return entry


def root(*entries: dict[str, Any]) -> dict[str, Any] | None:
    items = [item for item in map(classify, entries) if item is not None]
    found = rules.root_of(items)
    return found.entry if found else None


def triage(tmp_path: Path, *entries: dict[str, Any]) -> dict[str, Any]:
    """Triage's JSON report over an export of the entries."""
    path = tmp_path / "export.json"
    path.write_text(json.dumps(list(entries)))
    code, out, err = run_cli(
        "--action=triage",
        f"--logs_file={path}",
        "--jobset_name=llama-train",
        "--cluster_name=pw-cluster",
        "--start_time=2026-10-22T11:00:00Z",
        "--format=json",
    )
    assert code == 0, err
    report: dict[str, Any] = json.loads(out)
    return report


def started(ts: str = "2026-10-22T11:05:00Z") -> list[dict[str, Any]]:
    """Start-up lines: the RM and proxy on the head node, a worker on a TPU node."""
    return [
        head("Pathways Server serving on [::]:29001", ts, "pathways-rm", "INFO"),
        head("IFRT proxy server started with status OK", ts, "pathways-proxy", "INFO"),
        worker("Pathways Server serving on [::]:29005", ts, "INFO"),
    ]


def test_the_clients_error_wins_over_the_workers_client_has_died_lines(tmp_path: Path) -> None:
    """The workers log their FATAL before the client's traceback reaches its last line."""
    died = worker(CLIENT_DIED, "2026-10-22T11:30:00.000Z")
    fatal = worker(QUICK_RESTART, "2026-10-22T11:30:00.001Z", "CRITICAL")
    error = head("ModuleNotFoundError: No module named 'maxtext'", "2026-10-22T11:30:02Z")
    assert root(died, fatal, error) is error
    report = triage(tmp_path, *started(), died, fatal, error)
    cause = report["root_cause"]
    assert (cause["container"], cause["scenario_slug"]) == ("jax-tpu", "user-code-exception")
    assert cause["downstream_only"] is False
    assert {s["message"] for s in report["symptoms"]} >= {CLIENT_DIED, QUICK_RESTART}
    assert report["failing_hosts"] == []


def test_a_worker_fatal_after_a_client_timeout_error_is_its_consequence(tmp_path: Path) -> None:
    timeout = head(
        "TimeoutError: Timed out waiting for 2 slices. Only 1 active after 600.00 seconds. "
        "Next check would occur after the timeout of 600 seconds.",
        "2026-10-22T11:30:00Z",
    )
    fatal = worker(QUICK_RESTART, "2026-10-22T11:30:05Z", "CRITICAL")
    report = triage(
        tmp_path, *started(), timeout, worker(CLIENT_DIED, "2026-10-22T11:30:05Z"), fatal
    )
    cause = report["root_cause"]
    assert cause["message"].startswith("TimeoutError: Timed out waiting for 2 slices")
    assert cause["scenario"] == 1


def test_a_disconnect_only_run_names_the_earliest_downstream_line(tmp_path: Path) -> None:
    lines = [
        head(DISCONNECTED, "2026-10-22T11:30:00.000Z", severity="WARNING"),
        head(
            "Connection to IFRT proxy server was terminated: UNAVAILABLE: Socket closed",
            "2026-10-22T11:30:00.001Z",
        ),
        head(
            "FAILED_PRECONDITION: GrpcClientSession: writes no longer allowed.",
            "2026-10-22T11:30:00.004Z",
        ),
        *(
            head("Failed to destroy LoadedExecutable", f"2026-10-22T11:30:00.0{n}Z")
            for n in range(10, 40)
        ),
        head(
            "jax.errors.JaxRuntimeError: UNAVAILABLE: Connection to IFRT proxy server was "
            "terminated: UNAVAILABLE: Socket closed",
            "2026-10-22T11:30:00.200Z",
        ),
    ]
    report = triage(tmp_path, *started(), *lines)
    cause = report["root_cause"]
    assert (cause["message"], cause["downstream_only"]) == (DISCONNECTED, True)
    assert "IFRT proxy" in cause["reason_in"]
    assert "--action=proxy --min_severity=WARNING" in cause["read_next"]
    assert cause["scenario_slug"] == "proxy-connection-terminated"


def test_a_terminated_proxy_sends_the_reader_to_the_rm_and_the_workers_too(
    tmp_path: Path,
) -> None:
    """A proxy that went away is a downstream error: its reason is in the proxy's own log,
    or in the RM's and the workers' (the Pathways guide sends readers of `IFRT proxy server
    was terminated: UNAVAILABLE: Socket closed` to the RM and worker logs)."""
    line = head("IFRT proxy server was terminated: UNAVAILABLE: Socket closed", "2026-10-22T11:30Z")
    cause = triage(tmp_path, *started(), line)["root_cause"]
    assert cause["downstream_only"]
    assert "workers" in cause["reason_in"]
    assert cause["read_next"] == [
        "--action=proxy --min_severity=WARNING",
        "--action=pathways-rm --min_severity=WARNING",
        "--action=workers --min_severity=WARNING",
    ]


def test_the_text_report_says_where_the_reason_of_a_downstream_only_failure_is(
    tmp_path: Path,
) -> None:
    path = tmp_path / "export.json"
    path.write_text(json.dumps([head(DISCONNECTED, "2026-10-22T11:30:00Z", severity="WARNING")]))
    code, out, err = run_cli(
        "--action=triage",
        f"--logs_file={path}",
        "--jobset_name=llama-train",
        "--start_time=2026-10-22T11:00:00Z",
    )
    assert code == 0, err
    assert "Downstream only" in out
    assert "`--action=proxy --min_severity=WARNING`" in out


def test_a_compilation_service_crash_is_the_heads_service_not_a_tpu_host(tmp_path: Path) -> None:
    crash = head(
        "compile: ABORTED: Compilation service has crashed or shut down while compilation was "
        "pending for computation with key: 5c1f, computation name: jit_step, original error: "
        f"DEADLINE_EXCEEDED: lost connection to peer at http://machine/{HEAD_NODE}/events#srcs="
        "borg%2Bcoroner since 10.99987274s ago",
        "2026-10-22T11:30:00Z",
    )
    report = triage(tmp_path, *started(), crash)
    cause = report["root_cause"]
    assert (cause["scenario"], cause["scenario_slug"]) == (17, "compilation-service-crash")
    assert "--action=pathways-rm --min_severity=WARNING" in cause["read_next"]
    assert report["failing_hosts"] == []


@pytest.mark.parametrize(
    ("node", "slug"), [(HEAD_NODE, "compilation-service-crash"), (WORKER_NODE, "lost-peer")]
)
def test_a_lost_peer_on_the_head_node_is_the_heads_service(
    tmp_path: Path, node: str, slug: str
) -> None:
    lost = head(
        f"DEADLINE_EXCEEDED: lost connection to peer at http://machine/{node}/events#srcs="
        "borg%2Bcoroner since 10.99987274s ago; this usually means that the peer has "
        "unexpectedly gone away",
        "2026-10-22T11:30:00Z",
    )
    report = triage(tmp_path, *started(), lost)
    assert report["root_cause"]["scenario_slug"] == slug


def test_a_silent_lost_peer_is_named_with_the_node_its_peers_give(tmp_path: Path) -> None:
    """The lost peer logged nothing: its node, in the peers' message, is where to look (the
    Pathways guide: the instance in the error message leads to the instance's logs)."""
    other = "gke-pw-cluster-tpu-np-2-9149dc04-jg45"
    lost = worker(
        f"DEADLINE_EXCEEDED: lost connection to peer at http://machine/{other}/events#srcs="
        "borg%2Bcoroner since 10.99987274s ago; this usually means that the peer has "
        "unexpectedly gone away",
        "2026-10-22T11:30:00Z",
    )
    cause = triage(tmp_path, *started(), lost)["root_cause"]
    assert (cause["scenario_slug"], cause["downstream_only"]) == ("lost-peer", True)
    assert f"({other})" in cause["reason_in"]
    assert cause["read_next"] == [
        "--action=workers --min_severity=WARNING",
        f"--action=node-ooms --node_names={other}",
        f"--action=interruptions --node_names={other}",
    ]


@pytest.mark.parametrize(
    "prefix", ["", "[rank0]: ", "[1,0]<stderr>: ", "(train_lm_task pid=39298, ip=10.130.0.55) "]
)
def test_prefixed_and_unprefixed_tracebacks_behave_the_same(prefix: str) -> None:
    header = head(prefix + "Traceback (most recent call last):", "2026-10-22T11:30:00.000Z")
    frame = head(
        prefix + '  File "/app/train.py", line 12, in <module>', "2026-10-22T11:30:00.001Z"
    )
    error = head(
        prefix + "ImportError: cannot import name 'monitoring' from 'jax'",
        "2026-10-22T11:30:00.002Z",
    )
    header_item, error_item = classify(header), classify(error)
    assert header_item is not None and header_item.symptom
    assert error_item is not None and error_item.decisive
    assert scenarios.match(error) is scenarios.SCENARIOS[15]
    assert root(header, frame, error) is error


def _back_off(text: str) -> dict[str, Any]:
    """A kubelet BackOff event of a workload pod (a Normal event, as the kubelet sends it)."""
    return entry_of(Example(text, "kubelet", examples.POD_EVENT, "INFO", reason="BackOff"))


def test_image_pull_back_off_is_told_from_crash_loop_back_off_by_the_message() -> None:
    pull = classify(
        _back_off('Back-off pulling image "us-docker.pkg.dev/p/cloud-pathways/server:jax-9"')
    )
    loop = classify(
        _back_off("Back-off restarting failed container pathways-worker in pod x_default(1)")
    )
    assert pull is not None and pull.decisive and pull.scenario is scenarios.SCENARIOS[11]
    assert loop is not None and loop.symptom


BUCKET = (
    "Permanent error, with a last message of The specified bucket does not exist.; Error while "
    "initializing persistent cache storage gcs"
)


def test_a_missing_bucket_is_the_cause_only_when_nothing_else_is_found() -> None:
    bucket = head(BUCKET, "2026-10-22T11:29:00Z", "pathways-rm")
    crash = worker("Check failed: dma_status.ok()", "2026-10-22T11:30:00Z", "CRITICAL")
    disconnect = head(DISCONNECTED, "2026-10-22T11:30:01Z", severity="WARNING")
    assert root(bucket, crash) is crash
    assert root(bucket, disconnect) is disconnect
    assert root(bucket) is bucket


def test_a_logging_permission_error_in_a_later_attempt_belongs_to_the_failure_before() -> None:
    first = worker("Check failed: dma_status.ok()", "2026-10-22T11:20:00Z", "CRITICAL")
    first["labels"]["k8s-pod/jobset_sigs_k8s_io/restart-attempt"] = "0"
    denied = head(
        "details = \"Permission 'logging.logEntries.create' denied on resource (or it may not "
        'exist)."',
        "2026-10-22T11:40:00Z",
    )
    denied["labels"]["k8s-pod/jobset_sigs_k8s_io/restart-attempt"] = "1"
    failures = rules.split_failures([item for item in map(classify, (first, denied)) if item])
    assert [f.cause.entry for f in failures] == [first]


def test_the_alts_status_counts_although_grpc_logs_it_at_info() -> None:
    item = classify(
        head(
            "Status 11 from handshaker service: Input frame length is out of range",
            "2026-10-22T11:30:00Z",
            "pathways-proxy",
            "INFO",
        )
    )
    assert item is not None and item.scenario is scenarios.SCENARIOS[8]


@pytest.mark.parametrize(
    "text",
    [
        "INFO:jax._src.cache_key:get (_hash_accelerator_config): unable to hash accelerator "
        "config, falling back to hashing devices + platform: UNIMPLEMENTED: "
        "GetTopologyForDevices is not supported for the IFRT proxy client. (type <class "
        "'jaxlib.xla_extension.XlaRuntimeError'>)",
        "WARNING:absl:pathwaysutils: Detected Pathways-on-Cloud backend. Applying changes.",
        "IFRT proxy server started with status OK",
    ],
)
def test_routine_lines_on_stderr_are_no_evidence(text: str) -> None:
    """GKE marks whatever a container writes to stderr ERROR."""
    assert classify(head(text, "2026-10-22T11:30:00Z")) is None


def test_a_proxy_that_did_not_start_ok_is_evidence() -> None:
    item = classify(
        head(
            "IFRT proxy server started with status UNAVAILABLE: bind failed",
            "2026-10-22T11:30:00Z",
            "pathways-proxy",
        )
    )
    assert item is not None and item.decisive


def test_a_traceback_header_is_named_only_when_no_other_downstream_line_exists() -> None:
    header = head("Traceback (most recent call last):", "2026-10-22T11:30:00.000Z")
    lost = head(
        "jax.errors.JaxRuntimeError: DEADLINE_EXCEEDED: lost connection to peer at "
        f"http://machine/{WORKER_NODE}/events#srcs=borg%2Bcoroner since 10.5s ago",
        "2026-10-22T11:30:00.003Z",
    )
    assert root(header, lost) is lost
    assert root(header) is header


def test_the_clients_elastic_event_follows_a_host_error_its_clock_puts_after_it() -> None:
    """pathwaysutils logs `Elastic event detected` only for an error it reads as a slice going
    down: a downstream line, so a head node whose clock runs seconds behind does not make it
    beat the host error that took the slice down."""
    elastic = head(
        "Elastic event detected\nTraceback (most recent call last):\n"
        '  File "/app/train.py", line 612, in train_loop\n'
        "jax.errors.JaxRuntimeError: DATA_LOSS: slice 1 is gone",
        "2026-10-22T11:30:00.1Z",
    )
    host_error = audit_event("compute.instances.hostError", WORKER_NODE, "2026-10-22T11:30:02Z")
    assert root(elastic, host_error) is host_error
    assert root(elastic) is elastic


# kubernetes-sigs/jobset@08dfbdf pkg/constants/constants.go: every failure policy action's
# Warning event, and the Restarting condition's (reason DefaultFailurePolicy or
# FailurePolicy_<rule>, pkg/controllers/failure_policy.go), says the JobSet reacted to a job
# that failed: the reason is in that job's pods.
FAILURE_POLICY_EVENTS = (
    ("RestartJobSetFailurePolicyAction", "applying RestartJobSet failure policy action"),
    ("RestartJobFailurePolicyAction", "applying RestartJob failure policy action"),
    (
        "RestartJobSetAndIgnoreMaxRestartsFailurePolicyAction",
        "applying RestartJobSetAndIgnoreMaxRestarts failure policy action",
    ),
    (
        "RestartJobAndIgnoreMaxRestartsFailurePolicyAction",
        "applying RestartJobAndIgnoreMaxRestarts failure policy action",
    ),
    ("DefaultFailurePolicy", "applying RestartJobSet failure policy action"),
    ("FailurePolicy_restart-on-host-error", "applying RestartJob failure policy action"),
)


@pytest.mark.parametrize(("reason", "text"), FAILURE_POLICY_EVENTS, ids=lambda v: v[:40])
def test_every_jobset_failure_policy_event_is_a_symptom_pointing_at_the_failed_job(
    reason: str, text: str
) -> None:
    line = f"{text} (first failed job: llama-train-worker-1)"
    entry = entry_of(Example(line, "jobset", examples.JOBSET_EVENT, "WARNING", reason=reason))
    item = classify(entry)
    assert item is not None and item.symptom and not item.decisive
    rule = symptom_of(entry)
    assert rule is not None and "first failed job" in rule.look.logs


# kube-scheduler's preemption: a Normal `Preempted` event on the victim pod, "Preempted by pod
# %v on node %v" (kubernetes/kubernetes pkg/scheduler/framework/preemption/preemption.go).
def test_a_pod_the_scheduler_preempted_is_the_cause_of_its_sigterm() -> None:
    preempted = entry_of(
        Example(
            f"Preempted by pod 4f0e2a8c-1b7d-4c55-9d0e-3a6b2c1d9e87 on node {WORKER_NODE}",
            "kube-scheduler",
            examples.POD_EVENT,
            "INFO",
            reason="Preempted",
        )
    )
    sigterm = worker(
        "*** SIGTERM received by PID 1 (TID 1) on cpu 80 from PID 0; stack trace: ***",
        "2026-10-22T11:30:02Z",
    )
    item = classify(preempted)
    assert item is not None and item.decisive and item.scenario is scenarios.TEARDOWN
    assert root(preempted, sigterm) is preempted
