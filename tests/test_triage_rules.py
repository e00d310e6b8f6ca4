"""The root-cause rules of references/root-cause-rules.md, one test per rule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pathways_workload import scenarios
from pathways_workload.describe import container_of, message
from pathways_workload.sources.base import entry_time_ns
from pathways_workload.tracebacks import HEADER
from pathways_workload.triage import hosts, rules
from pathways_workload.triage.evidence import classify
from tests.helpers import (
    audit_event,
    container_entry,
    node_event,
    run_cli,
    scheduled_event,
    serial_line,
)
from tests.test_incidents import INCIDENTS, expected, target_args, triage_of

NODE_A = "gke-pw-cluster-tpu-np-1-8a1b2c3d-aaaa"
NODE_B = "gke-pw-cluster-tpu-np-1-8a1b2c3d-bbbb"
OTHER_NODE = "gke-pw-cluster-tpu-np-2-9f9f9f9f-zzzz"


def worker(
    text: str, ts: str, pod: str = "llama-train-worker-0-0-aaaaa", node: str = NODE_A, **labels: str
) -> dict[str, Any]:
    entry = container_entry(text, pod=pod, node=node, timestamp=ts)
    entry["labels"].update(labels)
    return entry


def root(*entries: dict[str, Any]) -> dict[str, Any] | None:
    items = [e for e in (classify(entry) for entry in entries) if e is not None]
    found = rules.root_of(items)
    return found.entry if found else None


def test_the_earliest_real_error_wins_across_containers() -> None:
    first = worker("Check failed: hbm ok", "2026-10-22T11:30:00.000000100Z")
    later = worker(
        "RESOURCE_EXHAUSTED: out of HBM",
        "2026-10-22T11:30:00.000000200Z",
        pod="llama-train-worker-1-0-bbbbb",
    )
    assert root(later, first) is first


def test_a_symptom_never_beats_an_earlier_cause() -> None:
    cause = worker("Check failed: x", "2026-10-22T11:30:00.5Z")
    peer = worker(
        "DEADLINE_EXCEEDED: lost connection to peer",
        "2026-10-22T11:30:00.1Z",
        pod="llama-train-worker-1-0-bbbbb",
    )
    assert root(peer, cause) is cause


def test_the_earliest_symptom_stands_in_when_nothing_else_was_logged() -> None:
    early = worker("DEADLINE_EXCEEDED: lost connection to peer", "2026-10-22T11:30:00.1Z")
    late = worker(
        "DEADLINE_EXCEEDED: lost connection to peer",
        "2026-10-22T11:30:00.2Z",
        pod="llama-train-worker-1-0-bbbbb",
    )
    assert root(late, early) is early


def test_a_node_event_beats_container_errors_within_the_tolerance() -> None:
    """The OOMKilling event is stamped after the kill, to the second."""
    oom = node_event(
        "OOMKilling",
        "Memory cgroup out of memory: Killed process 7 (python3)",
        NODE_A,
        "2026-10-22T11:30:05Z",
    )
    crash = worker("Check failed: connection", "2026-10-22T11:29:58.123456789Z")
    assert root(crash, oom) is oom


def test_a_container_error_well_before_the_node_event_still_wins() -> None:
    oom = node_event(
        "OOMKilling",
        "Memory cgroup out of memory: Killed process 7 (python3)",
        NODE_A,
        "2026-10-22T11:30:05Z",
    )
    crash = worker("Check failed: earlier", "2026-10-22T11:29:54.999999999Z")
    assert root(crash, oom) is crash


def test_the_precise_serial_line_is_preferred_as_evidence() -> None:
    event = node_event(
        "OOMKilling",
        "Memory cgroup out of memory: Killed process 7 (python3)",
        NODE_A,
        "2026-10-22T11:30:05Z",
    )
    kernel = serial_line(
        "[ 99.1] Memory cgroup out of memory: Killed process 7 (python3)",
        NODE_A,
        "2026-10-22T11:30:01.250000001Z",
    )
    crash = worker("Check failed: connection", "2026-10-22T11:30:00.5Z")
    assert root(event, crash, kernel) is kernel


def test_an_interruption_beats_the_sigterms_it_caused() -> None:
    preempted = audit_event("compute.instances.preempted", NODE_A, "2026-10-22T11:30:00.2Z")
    sigterm = worker("*** SIGTERM received by PID 1 ***", "2026-10-22T11:30:01Z")
    assert root(sigterm, preempted) is preempted


def test_restart_attempts_are_separate_failures_and_the_issue_time_picks_one() -> None:
    first = worker(
        "Check failed: a",
        "2026-10-22T11:20:00Z",
        **{"k8s-pod/jobset_sigs_k8s_io/restart-attempt": "0"},
    )
    second = worker(
        "Address already in use",
        "2026-10-22T11:40:00Z",
        **{"k8s-pod/jobset_sigs_k8s_io/restart-attempt": "1"},
    )
    items = [classify(first), classify(second)]
    failures = rules.split_failures([i for i in items if i])
    assert [f.cause.entry for f in failures] == [first, second]
    late_issue = 1792669500 * 10**9  # 11:45
    assert rules.pick(failures, late_issue).cause.entry is second  # type: ignore[union-attr]
    assert rules.pick(failures, None).cause.entry is first  # type: ignore[union-attr]


def _steps(minutes: range) -> list[dict[str, Any]]:
    return [
        container_entry(
            f"completed step: {m}",
            container="jax-tpu",
            severity="INFO",
            pod="llama-train-pathways-head-0-0-hhhhh",
            timestamp=f"2026-10-22T11:{m:02d}:00Z",
        )
        for m in minutes
    ]


def _heartbeats(pod: str, minutes: range) -> list[dict[str, Any]]:
    return [worker("heartbeat", f"2026-10-22T11:{m:02d}:30Z", pod=pod) for m in minutes]


def test_the_component_that_went_quiet_first_leads_a_hang() -> None:
    """The sidecar logs every five minutes; the worker that stopped every minute is the lead."""
    steps = _steps(range(10, 20))
    quiet = _heartbeats("llama-train-worker-1-0-bbbbb", range(10, 19))
    busy = _heartbeats("llama-train-worker-0-0-aaaaa", range(10, 59))
    sidecar = [
        container_entry(
            "handled calls",
            container="colocated-python-sidecar",
            pod="llama-train-worker-1-0-bbbbb",
            severity="INFO",
            timestamp=f"2026-10-22T11:{m:02d}:00Z",
        )
        for m in (5, 10, 15)
    ]
    proxy = container_entry(
        "IFRT proxy server started with status OK",
        container="pathways-proxy",
        severity="INFO",
        timestamp="2026-10-22T11:05:00Z",
    )
    entries = [*steps, *quiet, *busy, *sidecar, proxy]
    found = rules.quiet_first(entries, entry_time_ns(steps[-1]))
    assert found is quiet[-1]


def test_progress_to_the_end_is_no_hang() -> None:
    steps = _steps(range(10, 59))
    proxy = container_entry(
        "IFRT proxy server started", container="pathways-proxy", timestamp="2026-10-22T11:05:00Z"
    )
    assert rules.quiet_first([*steps, proxy], entry_time_ns(steps[-1])) is None


def test_lead_host_is_first_in_time_and_lowest_index_is_named_too() -> None:
    late_low = worker(
        "lost connection to peer",
        "2026-10-22T11:30:00.040Z",
        pod="llama-train-worker-0-1-aaaaa",
        **{
            "k8s-pod/jobset_sigs_k8s_io/job-index": "0",
            "k8s-pod/batch_kubernetes_io/job-completion-index": "1",
        },
    )
    first_high = worker(
        "Check failed: chip",
        "2026-10-22T11:30:00Z",
        pod="llama-train-worker-1-2-bbbbb",
        node=NODE_B,
        **{
            "k8s-pod/jobset_sigs_k8s_io/job-index": "1",
            "k8s-pod/batch_kubernetes_io/job-completion-index": "2",
        },
    )
    items = [i for i in (classify(late_low), classify(first_high)) if i]
    (failure,) = rules.split_failures(items)
    rows = hosts.failing_hosts(failure.evidence, hosts.host_pods([late_low, first_high]))
    assert [h["pod"] for h in rows] == [
        "llama-train-worker-1-2-bbbbb",
        "llama-train-worker-0-1-aaaaa",
    ]
    assert hosts.lowest_indexed(rows)["pod"] == "llama-train-worker-0-1-aaaaa"  # type: ignore[index]


def test_a_kernel_oom_counts_for_the_host_pod_on_that_node() -> None:
    pod = worker(
        "started",
        "2026-10-22T11:00:00Z",
        pod="llama-train-worker-0-0-aaaaa",
        **{
            "k8s-pod/jobset_sigs_k8s_io/job-index": "0",
            "k8s-pod/batch_kubernetes_io/job-completion-index": "0",
        },
    )
    kernel = serial_line(
        "Memory cgroup out of memory: Killed process 7 (pathways-worker)",
        NODE_A,
        "2026-10-22T11:30:00.5Z",
    )
    rows = hosts.failing_hosts([classify(kernel)], hosts.host_pods([pod]))  # type: ignore[list-item]
    assert [(h["pod"], h["first_error_time"]) for h in rows] == [
        ("llama-train-worker-0-0-aaaaa", "2026-10-22T11:30:00.5Z")
    ]


def test_a_crash_loop_is_reported_at_its_first_occurrence() -> None:
    attempts = [
        worker(
            "Address already in use",
            f"2026-10-22T11:{10 + 5 * i}:00Z",
            **{"k8s-pod/jobset_sigs_k8s_io/restart-attempt": str(i)},
        )
        for i in range(3)
    ]
    failures = rules.split_failures([i for i in map(classify, attempts) if i])
    assert len(failures) == 3
    assert rules.pick(failures, 1792669500 * 10**9).cause.entry is attempts[0]  # type: ignore[union-attr]


def _info_client(entries: list[dict[str, Any]], one_entry: bool) -> list[dict[str, Any]]:
    """The client's lines marked INFO; with `one_entry`, each of its tracebacks as one entry
    (as a logger that writes a whole record per line does), its other lines dropped."""
    for entry in entries:
        if container_of(entry) == "workload-container":
            entry["severity"] = "INFO"
    if not one_entry:
        return entries
    client = [entry for entry in entries if container_of(entry) == "workload-container"]
    whole = [
        dict(end, textPayload="\n".join([HEADER, '  File "main.py", line 3', message(end)]))
        for end in client
        if "Unable to initialize backend" in message(end)
    ]
    return [entry for entry in entries if entry not in client] + whole


@pytest.mark.parametrize("one_entry", [False, True], ids=["a-line-per-entry", "one-entry"])
def test_a_client_whose_every_line_is_info_is_read_for_its_errors(
    tmp_path: Path, one_entry: bool
) -> None:
    """A launcher that sends the client's stderr to stdout (`2>&1 | tee`) has Cloud Logging
    mark every line of it INFO: its traceback is still the root cause, not a downstream event
    (a traceback in one entry was read as a routine line)."""
    name = "missing-proxy-backend"
    entries = _info_client(json.loads((INCIDENTS / f"{name}.json").read_text()), one_entry)
    export = tmp_path / f"{name}.json"
    export.write_text(json.dumps(entries))
    args = [arg for arg in target_args(name) if not arg.startswith("--logs_file=")]
    code, out, err = run_cli(*args, f"--logs_file={export}", "--action=triage", "--format=json")
    assert code == 0, err
    found, planted = json.loads(out)["root_cause"], expected(name)["root_cause"]
    assert found is not None
    assert (found["pod"], found["container"], found["scenario"]) == (
        planted["pod"],
        planted["container"],
        planted["scenario"],
    )
    assert planted["message_contains"] in found["message"]


def test_every_scenario_is_matched_by_its_own_signature() -> None:
    for scenario in scenarios.SCENARIOS:
        for signature in scenario.substrings:
            entry = container_entry(f"prefix {signature} suffix")
            found = scenarios.match(entry)
            assert found is not None
            assert found.number <= scenario.number, signature


def test_only_the_workloads_nodes_hold_its_root_cause(tmp_path: Path) -> None:
    """A co-tenant's OOM on another node, earlier than everything, is not the cause."""
    pod = "llama-train-worker-0-0-aaaaa"
    entries = [
        scheduled_event(pod, NODE_A),
        node_event(
            "OOMKilling",
            "Memory cgroup out of memory: Killed process 9 (java)",
            OTHER_NODE,
            "2026-10-22T11:20:00Z",
        ),
        worker("Check failed: boom", "2026-10-22T11:30:00.000001Z", pod=pod),
    ]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(entries))
    code, out, err = run_cli(
        "--action=triage",
        f"--logs_file={path}",
        "--jobset_name=llama-train",
        "--cluster_name=pw-cluster",
        "--start_time=2026-10-22T11:00:00Z",
        "--format=json",
    )
    assert code == 0, err
    report = json.loads(out)
    assert report["root_cause"]["message"] == "Check failed: boom"
    assert report["workload_nodes"] == [NODE_A]


def test_a_quiet_container_is_due_after_its_recent_interval_not_its_start_up_burst() -> None:
    """Start-up logs a burst within a second; the steady interval afterwards is a minute."""
    burst = [f"2026-10-22T11:00:00.{n}00Z" for n in range(8)]
    steady = [f"2026-10-22T11:{minute:02d}:00Z" for minute in range(1, 7)]
    lines = [container_entry("Executed programs", timestamp=t) for t in burst + steady]
    due = rules.next_line_due(lines, lines[-1])
    assert due - entry_time_ns(lines[-1]) == 60 * 10**9


@pytest.mark.parametrize("prefix", ["[default0]:", "[worker-0] ", "2026-11-30 18:05:31,478 "])
def test_a_traceback_under_an_unknown_line_prefix_is_still_read_as_one(
    tmp_path: Path, prefix: str
) -> None:
    """Launchers and loggers put their own marks before each line: the header stays a
    symptom, and the exception line the root cause."""
    name = "user-code-import-error"
    entries = json.loads((INCIDENTS / f"{name}.json").read_text())
    for entry in entries:
        labels = entry.get("resource", {}).get("labels", {})
        if "textPayload" in entry and labels.get("container_name") == "jax-tpu":
            entry["textPayload"] = prefix + entry["textPayload"]
    root = triage_of(name, tmp_path, entries)["root_cause"]
    assert expected(name)["root_cause"]["message_contains"] in root["message"]
    assert root["timestamp"] == expected(name)["root_cause"]["timestamp"]


def test_a_hang_lead_hosts_first_error_is_the_line_it_went_quiet_on() -> None:
    """The hung worker's colocated sidecar logs every five minutes, so its last line is
    older than the worker's: the host's row still shows the worker's last line, where the
    hang began, not the sidecar's routine line (which went quiet later)."""
    code, out, err = run_cli(*target_args("silent-hang"), "--action=triage", "--format=json")
    assert code == 0, err
    report = json.loads(out)
    lead, root = report["lead_host"], report["root_cause"]
    assert lead["pod"] == root["pod"]
    assert (lead["first_error_time"], lead["first_error"]) == (root["timestamp"], root["message"])


@pytest.mark.parametrize(("end", "soon"), [("14:26:00", True), ("15:00:00", False)])
def test_steps_stopped_too_recently_for_a_hang_say_so(end: str, soon: bool) -> None:
    """A window that ends less than five minutes after the client's steps stopped (overdue
    by minutes) finds no hang yet: the report says progress may have stopped, not just
    that nothing was found; with the whole silence read, the hang is found instead."""
    args = [arg for arg in target_args("silent-hang") if not arg.startswith("--end_time")]
    code, out, err = run_cli(
        *args, f"--end_time=2026-11-25T{end}Z", "--action=triage", "--format=json"
    )
    assert code == 0, err
    report = json.loads(out)
    gaps = [gap for gap in report["coverage"]["gaps"] if "too recently to tell a hang" in gap]
    assert (report["root_cause"] is None, len(gaps)) == (soon, int(soon))
    if soon:
        assert "2026-11-25T14:23:15.516365Z" in gaps[0]
        code, out, err = run_cli(*args, f"--end_time=2026-11-25T{end}Z", "--action=triage")
        assert f"- GAP: {gaps[0]}" in out


def test_a_component_with_one_line_in_the_window_can_lead_a_hang() -> None:
    """A window that starts a minute before the hang holds one line of the hung worker (its
    last): it went quiet all the same, and leads the hang, not the client."""
    args = [arg for arg in target_args("silent-hang") if not arg.startswith("--start_time")]
    code, out, err = run_cli(
        *args, "--start_time=2026-11-25T14:22:00Z", "--action=triage", "--format=json"
    )
    assert code == 0, err
    root = json.loads(out)["root_cause"]
    planted = expected("silent-hang")["root_cause"]
    assert (root["source"], root["pod"], root["container"], root["timestamp"]) == (
        "hang",
        planted["pod"],
        planted["container"],
        planted["timestamp"],
    )


@pytest.mark.parametrize("issue_time", ["2026-11-25T14:54:00Z", "2026-11-25T15:20:00Z"])
def test_a_hang_that_began_before_the_window_is_still_found(issue_time: str) -> None:
    """No step at all in the window, and a host that logged nothing in it while the others
    logged: progress had stopped by the window's start, and that host is the lead."""
    args = [arg for arg in target_args("silent-hang") if not arg.startswith("--start_time")]
    args = [arg for arg in args if not arg.startswith("--end_time")]
    code, out, err = run_cli(
        *args, f"--issue_time={issue_time}", "--action=triage", "--format=json"
    )
    assert code == 0, err
    root = json.loads(out)["root_cause"]
    assert (root["source"], root["pod"], root["host"]) == ("hang", None, "0/2")


@pytest.mark.parametrize("name", ["elastic-restore-failure", "host-oom-worker", "two-failures"])
def test_lowercase_severities_change_no_root_cause(tmp_path: Path, name: str) -> None:
    """The query language reads severities in any case; so does triage (an `info` line is
    as routine as an `INFO` one)."""
    entries = json.loads((INCIDENTS / f"{name}.json").read_text())
    for entry in entries:
        if isinstance(entry.get("severity"), str):
            entry["severity"] = entry["severity"].lower()
    path = tmp_path / "export.json"
    path.write_text(json.dumps(entries))
    args = [arg for arg in target_args(name, True) if not arg.startswith("--logs_file")]
    code, out, err = run_cli(*args, f"--logs_file={path}", "--action=triage", "--format=json")
    assert code == 0, err
    root = json.loads(out)["root_cause"]
    assert root["timestamp"] == expected(name)["root_cause"]["timestamp"]


def test_a_wait_for_more_slices_than_the_jobset_runs_is_not_called_a_lost_slice() -> None:
    """The client waits for 3 slices while the JobSet runs 2 and none was lost: the cause
    and fix of failure 1 spoke only of a lost slice, sending the reader after a slice that
    never went; they name the slice count the program waits for too."""
    code, out, err = run_cli(
        *target_args("client-timeout-workers-follow"), "--action=triage", "--format=json"
    )
    assert code == 0, err
    root = json.loads(out)["root_cause"]
    assert root["scenario"] == expected("client-timeout-workers-follow")["root_cause"]["scenario"]
    assert "more slices than the workload runs" in root["cause"]
    assert "Timed out waiting for N slices" in root["fix"]


def test_an_error_at_the_instant_its_component_went_quiet_is_no_hang(tmp_path: Path) -> None:
    """The hung host's sidecar ends with a traceback, every line at one instant, and the run
    stalls after it: whichever of those lines sorts first, the exception is the cause, not
    a hang whose last line is one of the traceback's."""
    name = "silent-hang"
    hung = expected(name)["root_cause"]
    entries = json.loads((INCIDENTS / f"{name}.json").read_text())
    model = next(e for e in entries if e["resource"]["labels"].get("pod_name") == hung["pod"])
    texts = [HEADER, '  File "/app/sidecar.py", line 7, in call', "    return fn(*args)"]
    burst = []
    for insert_id, text in zip(["zz", "aa", "mm", "bb"], [*texts, "MemoryError"]):
        line = json.loads(json.dumps(model))
        line["resource"]["labels"]["container_name"] = "colocated-python-sidecar"
        line.update(insertId=insert_id, textPayload=text, severity="ERROR")
        line.update(timestamp="2026-11-25T14:23:05.5Z", receiveTimestamp="2026-11-25T14:23:06Z")
        line.pop("jsonPayload", None)
        line.pop("sourceLocation", None)
        burst.append(line)
    path = tmp_path / "export.json"
    path.write_text(json.dumps(entries + burst))
    args = [f"--logs_file={path}", *target_args(name)[1:]]
    code, out, err = run_cli(*args, "--action=triage", "--format=json")
    assert code == 0, err
    report = json.loads(out)
    assert report["root_cause"]["message"] == "MemoryError"
    assert report["root_cause"]["source"] == "container"
    assert report["lead_host"]["pod"] == hung["pod"]


def test_an_interruption_found_gets_its_own_fix_not_find_what_sent_it() -> None:
    """When the root cause is the record of the interruption itself (a Spot preemption),
    failure 4's fix told the reader to go and find what sent the SIGTERM, which the report
    had just found; it names what to do about an interruption instead."""
    code, out, err = run_cli(*target_args("preemption-sigterm"), "--action=triage", "--format=json")
    assert code == 0, err
    root = json.loads(out)["root_cause"]
    assert root["scenario"] == expected("preemption-sigterm")["root_cause"]["scenario"]
    assert "find what sent it" not in root["fix"]
    assert "Spot" in root["fix"] and "checkpoint" in root["fix"]


def test_a_sigterm_line_as_root_cause_still_says_find_what_sent_it(tmp_path: Path) -> None:
    sigterm = worker("*** SIGTERM received by PID 1 (TID 1) on cpu 3 ***", "2026-10-22T11:30:01Z")
    path = tmp_path / "export.json"
    path.write_text(json.dumps([sigterm]))
    code, out, err = run_cli(
        f"--logs_file={path}", "--jobset_name=llama-train", "--action=triage", "--format=json"
    )
    assert code == 0, err
    root = json.loads(out)["root_cause"]
    assert root["scenario"] == 4 and "find what sent it" in root["fix"]


def test_a_megascale_hang_digest_gets_a_fix_that_acts_on_what_it_names() -> None:
    """The root cause is the coordinator's hang digest naming a host with bad TPU chips;
    failure 14's fix only said to check the hang detectors, the very line the report
    quotes. It says what to do with the hosts the digest names."""
    code, out, err = run_cli(
        *target_args("megascale-hang-detected"), "--action=triage", "--format=json"
    )
    assert code == 0, err
    root = json.loads(out)["root_cause"]
    assert root["scenario"] == 14
    assert "remove" in root["fix"] and "restart" in root["fix"]
