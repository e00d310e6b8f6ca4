"""Smoke tests over the recorded incidents: the method's actions and triage find what was planted.

The expectations (`*.expected.json`) were written by the corpus generator from
what it planted, never from this tool's output.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pathways_workload.actions import tally
from pathways_workload.lql import compile_filter
from pathways_workload.registry import ACTIONS
from pathways_workload.reports import EntryReport
from pathways_workload.timestamps import format_timestamp_ns, parse_timestamp_ns
from tests.helpers import run_cli

INCIDENTS = Path(__file__).parent / "fixtures" / "incidents"
NAMES = sorted(p.name.removesuffix(".expected.json") for p in INCIDENTS.glob("*.expected.json"))


def expected(name: str) -> dict[str, Any]:
    return json.loads((INCIDENTS / f"{name}.expected.json").read_text())


def target_args(name: str, by_issue_time: bool = False) -> list[str]:
    """The incident's coordinates; the window by its bounds, or by the issue time."""
    target = expected(name)["target"]
    window = (
        [f"--issue_time={target['issue_time']}"]
        if by_issue_time
        else [f"--start_time={target['start_time']}", f"--end_time={target['end_time']}"]
    )
    args = [
        f"--logs_file={INCIDENTS / name}.json",
        f"--project={target['project']}",
        f"--cluster_name={target['cluster_name']}",
        f"--location={target['location']}",
        f"--namespace={target['namespace']}",
        *window,
    ]
    return args + [f"--workload={workload}" for workload in target["workload"]]


def triage_of(
    name: str, tmp_path: Path, entries: list[dict[str, Any]], by_issue_time: bool = False
) -> dict[str, Any]:
    """Triage's JSON report of `entries` read with a bundled incident's coordinates (its
    window by the issue time, else by its bounds)."""
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(entries))
    args = target_args(name, by_issue_time)[1:]
    code, out, err = run_cli(f"--logs_file={path}", *args, "--action=triage", "--format=json")
    assert code == 0, err
    report: dict[str, Any] = json.loads(out)
    return report


def steps() -> list[tuple[str, int]]:
    return [(name, index) for name in NAMES for index in range(len(expected(name)["method"]))]


@pytest.mark.parametrize(("name", "index"), steps())
def test_the_method_finds_what_was_planted(name: str, index: int) -> None:
    step = expected(name)["method"][index]
    # Every line an entry action found; a report action reads up to its own bound.
    lines = ["--limit=2000"] if ACTIONS[step["action"]].report is EntryReport else []
    code, out, err = run_cli(
        *target_args(name), f"--action={step['action']}", *lines, *step.get("args", [])
    )
    assert code == 0, err
    entries = [line for line in out.splitlines() if not line.startswith("==")]
    entries = "\n".join(entries).split("\n20")  # continuation lines stay with their entry
    if "first" in step:
        first = step["first"]
        assert entries[0], f"{step['action']} returned nothing"
        where = f"/{first['pod']}/{first['container']}:" if first.get("pod") else ""
        assert where in entries[0] and first["message_contains"] in entries[0], entries[0]
    for text in step.get("contains", []):
        assert text in out, f"{step['action']} misses {text!r}"
    for text in step.get("absent", []):
        assert text not in out, f"{step['action']} shows {text!r}"


def triage(name: str, by_issue_time: bool = False) -> dict[str, Any]:
    code, out, err = run_cli(*target_args(name, by_issue_time), "--action=triage", "--format=json")
    assert code == 0, err
    report: dict[str, Any] = json.loads(out)
    return report


def _same_failure(found: dict[str, Any], planted: dict[str, Any]) -> None:
    assert found["timestamp"] == planted["timestamp"]
    assert found["pod"] == planted["pod"]
    assert found["node"] == planted["node"]
    if planted.get("container"):
        assert found["container"] == planted["container"]
    assert planted["message_contains"] in found["message"]
    assert found["scenario"] == planted["scenario"]
    if "downstream_only" in planted:
        assert found["downstream_only"] == planted["downstream_only"]


@pytest.mark.parametrize("name", NAMES)
def test_triage_names_the_planted_root_cause(name: str) -> None:
    planted = expected(name)
    report = triage(name, by_issue_time=True)
    if planted["root_cause"] is None:
        assert report["root_cause"] is None
        assert report["last_lines"]
        return
    _same_failure(report["root_cause"], planted["root_cause"])


@pytest.mark.parametrize("name", NAMES)
def test_triage_says_when_the_workload_completed(name: str) -> None:
    """A finished run is no failure: its teardown (Killing, SIGTERM) is not a root cause, and
    the cluster a finished client Job leaves idle has not hung."""
    planted = expected(name).get("completed")
    report = triage(name)
    if planted is None:
        assert report["completed"] is None
        return
    assert report["completed"]["timestamp"] == planted["timestamp"]
    assert planted["message_contains"] in report["completed"]["message"]
    assert report["root_cause"] is None and report["failures"] == []
    assert report["failing_hosts"] == [] and report["next"] == []


@pytest.mark.parametrize("name", [n for n in NAMES if len(expected(n)["failures"]) > 1])
def test_triage_lists_every_failure(name: str) -> None:
    planted = expected(name)
    report = triage(name)
    assert len(report["failures"]) == len(planted["failures"])
    for found, wanted in zip(report["failures"], planted["failures"]):
        _same_failure(found, wanted)


@pytest.mark.parametrize("name", [n for n in NAMES if expected(n)["failing_hosts"]])
def test_triage_names_the_lead_and_the_lowest_failing_host(name: str) -> None:
    planted = expected(name)
    report = triage(name, by_issue_time=True)
    hosts = planted["failing_hosts"]
    assert report["lead_host"]["pod"] == hosts[0]["pod"]
    lowest = min(hosts, key=lambda h: (int(h["slice"]), int(h["host"])))
    assert report["lowest_indexed_host"]["pod"] == lowest["pod"]
    assert {h["pod"] for h in report["failing_hosts"]} == {h["pod"] for h in hosts}


@pytest.mark.parametrize("name", NAMES)
def test_the_timeline_marks_failed_exactly_the_failing_hosts(name: str) -> None:
    """The HTML page and the text picture draw the timeline's failed host lanes: they must be
    the report's failing hosts (a worker that only followed the client's death is neither)."""
    report = triage(name)
    lanes = report["timeline"]["lanes"]
    failed = {lane["name"] for lane in lanes if lane["lane"] == "host" and lane["failed"]}
    assert failed == {f"{row['slice']}/{row['host']}" for row in report["failing_hosts"]}


@pytest.mark.parametrize("name", NAMES)
def test_triage_reads_the_versions(name: str) -> None:
    planted = expected(name)["versions"]
    found = triage(name)["versions"]
    for key in ("server", "proxy", "sidecar", "jax"):
        assert found[key] == planted[key], key
    assert bool(found["mismatches"]) == planted["mismatch"]


# Incidents whose workload never logged a line (see their summaries): a JobSet that
# created no pod, and pods whose images could not be pulled.
NEVER_LOGGED = ("jobset-name-too-long", "image-pull-backoff")


@pytest.mark.parametrize("name", NAMES)
def test_preflight_passes_exactly_when_the_workload_logged(name: str) -> None:
    code, out, err = run_cli(*target_args(name), "--action=preflight", "--format=json")
    report = json.loads(out)
    if name in NEVER_LOGGED:
        assert (code, report["status"], report["workload_lines"]) == (1, "FAIL", 0)
        assert err.splitlines()[-1].startswith("error: preflight FAIL: the workload logged nothing")
    else:
        assert (code, report["status"]) == (0, "PASS")
        assert {row["container"] for row in report["containers"]} & {
            "pathways-rm",
            "pathways-worker",
            "pathways-proxy",
        }


def test_neighbors_marks_the_co_tenant_as_outside_the_workload() -> None:
    planted = expected("co-tenant-oom")["co_tenant"]
    code, out, err = run_cli(
        *target_args("co-tenant-oom"), "--action=neighbors", "--format=json", "--fetch_limit=5000"
    )
    assert code == 0, err
    rows = {row["container"]: row for row in json.loads(out)["containers"]}
    outsider = rows[f"{planted['namespace']}/{planted['pod']}/{planted['container']}"]
    assert (outsider["workload"], outsider["node"]) == ("NO", planted["node"])
    assert all(
        row["workload"] == "yes" for name, row in rows.items() if name.startswith("default/")
    )


def test_neighbors_marks_every_container_of_the_workload_whatever_container_names_says() -> None:
    """--container_names names the containers a per-container action reads; the workload's
    other containers on its nodes are still its own, not neighbors."""
    planted = expected("co-tenant-oom")["co_tenant"]
    code, out, err = run_cli(
        *target_args("co-tenant-oom"),
        "--action=neighbors",
        "--format=json",
        "--container_names=jax-tpu",
    )
    assert code == 0, err
    report = json.loads(out)
    outsiders = [row["container"] for row in report["containers"] if row["workload"] == "NO"]
    assert outsiders == [f"{planted['namespace']}/{planted['pod']}/{planted['container']}"]
    assert report["outsiders"] == 1


@pytest.mark.parametrize("name", ["two-failures", "proxy-connection-terminated"])
def test_pods_names_the_owner_of_every_pod(name: str) -> None:
    planted = expected(name)
    args = [a for a in target_args(name) if not a.startswith("--workload=")]
    code, out, err = run_cli(*args, "--action=pods", "--format=json", "--fetch_limit=5000")
    assert code == 0, err
    owners = {row["pod"]: row["owner"] for row in json.loads(out)["pods"]}
    assert set(planted["workload_pods"]) <= set(owners)
    kinds = {workload.split(":")[0] for workload in planted["target"]["workload"]}
    assert {owners[pod].split(":")[0] for pod in planted["workload_pods"]} <= kinds


def test_pods_lists_each_pods_containers_as_a_json_list() -> None:
    """A program reads `containers` as names, not a string to split: a pod whose images were
    never pulled logged from no container, so its list is empty (not `""`)."""
    code, out, err = run_cli(*target_args("image-pull-backoff"), "--action=pods", "--format=json")
    assert code == 0, err
    rows = json.loads(out)["pods"]
    assert rows and all(row["containers"] == [] for row in rows if row["lines"] == 0)
    code, out, err = run_cli(*target_args("host-oom-worker"), "--action=pods", "--format=json")
    head = next(row for row in json.loads(out)["pods"] if "pathways-head" in row["pod"])
    assert head["containers"] == ["jax-tpu", "pathways-proxy", "pathways-rm"]


def test_preflight_rows_cut_by_the_fetch_limit_are_lower_bounds() -> None:
    """Read earliest first and cut by --fetch_limit, a container's counts and last line are
    where the read stopped, not where the container did: they say so (`≥`)."""
    whole = run_cli(*target_args("host-oom-worker"), "--action=preflight", "--format=json")
    cut = run_cli(
        *target_args("host-oom-worker"), "--action=preflight", "--format=json", "--fetch_limit=50"
    )
    complete = {row["container"]: row for row in json.loads(whole[1])["containers"]}
    for row in json.loads(cut[1])["containers"]:
        assert str(row["lines"]).startswith("≥") and str(row["pods"]).startswith("≥")
        assert row["last"].startswith("≥")
        assert row["last"][1:] <= complete[row["container"]]["last"]
    assert all(isinstance(row["lines"], int) for row in complete.values())


def test_preflight_line_counts_are_numbers_unless_cut() -> None:
    """`cluster_lines` and `workload_lines` are JSON numbers, like each container's `lines`;
    only a read cut by --fetch_limit writes them as the lower bound `≥N`."""
    whole = json.loads(
        run_cli(*target_args("host-oom-worker"), "--action=preflight", "--format=json")[1]
    )
    assert isinstance(whole["cluster_lines"], int) and isinstance(whole["workload_lines"], int)
    assert whole["workload_lines"] == sum(row["lines"] for row in whole["containers"])
    cut = run_cli(
        *target_args("host-oom-worker"), "--action=preflight", "--format=json", "--fetch_limit=50"
    )
    assert json.loads(cut[1])["workload_lines"] == "≥50"


@pytest.mark.parametrize("name", ["host-oom-worker", "image-pull-backoff"])
def test_pods_with_a_workload_flag_lists_the_workloads_pods_only(name: str) -> None:
    """Its lines and its events alike (the namespace's other pods showed as pods with no
    line); first and last are a pod's lines, its events only when it logged none."""
    code, out, err = run_cli(*target_args(name), "--action=pods", "--format=json")
    assert code == 0, err
    report = json.loads(out)
    assert {row["pod"] for row in report["pods"]} == set(expected(name)["workload_pods"])
    entries = json.loads((INCIDENTS / f"{name}.json").read_text())
    for row in report["pods"]:
        lines = [
            e["timestamp"]
            for e in entries
            if e["resource"]["type"] == "k8s_container"
            and e["resource"]["labels"].get("pod_name") == row["pod"]
        ]
        if lines:
            assert (row["first"], row["last"]) == (min(lines), max(lines)), row["pod"]


def test_a_pod_that_never_logged_is_placed_on_its_node_by_its_events() -> None:
    """A pod whose image could not be pulled ran no container, so no line names its node; the
    kubelet's events do (an Event's source.host is the node it ran on)."""
    entries = json.loads((INCIDENTS / "image-pull-backoff.json").read_text())
    hosts = {
        e["resource"]["labels"]["pod_name"]: e["jsonPayload"]["source"]["host"]
        for e in entries
        if e["resource"]["type"] == "k8s_pod"
        and e.get("jsonPayload", {}).get("source", {}).get("host")
    }
    code, out, err = run_cli(*target_args("image-pull-backoff"), "--action=pods", "--format=json")
    assert code == 0, err
    rows = {row["pod"]: row for row in json.loads(out)["pods"]}
    silent = [pod for pod, row in rows.items() if row["lines"] == 0]
    assert silent
    assert {pod: rows[pod]["node"] for pod in silent} == {pod: hosts[pod] for pod in silent}


def test_pods_is_incomplete_when_its_events_read_was_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pods that never logged are known by their events alone: a cut events read is a cut
    report (its 94 lines all read, its 454 pod events not)."""
    monkeypatch.setattr(tally, "REPORT_PAGES", 0)  # read only --fetch_limit entries
    args = (*target_args("image-pull-backoff"), "--action=pods", "--fetch_limit=100")
    code, out, err = run_cli(*args, "--format=json")
    assert code == 0, err
    assert json.loads(out)["complete"] is False
    code, out, err = run_cli(*args)
    assert "(incomplete:" in out.splitlines()[0]


def test_abseils_start_up_notice_is_no_error_of_a_container_action() -> None:
    """Every worker writes it to stderr (ERROR in Cloud Logging) as it starts: selected by the
    severity floor, it led every pod's group, ahead of the crash."""
    notice = "All log messages before absl::InitializeLog() is called"
    entries = json.loads((INCIDENTS / "lost-connection-to-peer.json").read_text())
    assert any(notice in e.get("textPayload", "") and e["severity"] == "ERROR" for e in entries)
    args = (*target_args("lost-connection-to-peer"), "--action=workers", "--format=json")
    code, out, err = run_cli(*args)
    assert code == 0, err
    assert out and notice not in out
    code, out, err = run_cli(*args, "--min_severity=DEFAULT", "--limit=5000")
    assert code == 0, err
    assert notice in out


@pytest.mark.parametrize("name", ["host-oom-worker", "co-tenant-oom"])
def test_a_hosts_first_error_is_its_own_not_the_symptom_before_it(name: str) -> None:
    """The kernel's `invoked oom-killer` line comes 3 ms before the `Killed process` line it
    announces: the host's first error is the kill (the evidence), as planted."""
    code, out, err = run_cli(
        *target_args(name, by_issue_time=True), "--action=triage", "--format=json"
    )
    assert code == 0, err
    got = {row["pod"]: row["first_error_time"] for row in json.loads(out)["failing_hosts"]}
    planted = {row["pod"]: row["first_error_time"] for row in expected(name)["failing_hosts"]}
    assert got == planted


def test_a_failed_preflight_is_written_to_its_output_file(tmp_path: Path) -> None:
    """A FAIL is a whole report: with --output it was thrown away like a run that broke."""
    args = (*target_args("image-pull-backoff"), "--action=preflight", "--format=json")
    code, out, err = run_cli(*args)
    assert code == 1
    path = tmp_path / "preflight.json"
    code, written, err = run_cli(*args, f"--output={path}")
    assert (code, written) == (1, "")
    assert path.read_text() == out
    assert json.loads(out)["status"] == "FAIL"
    assert err.splitlines()[-1].startswith("error: preflight FAIL")


def test_preflight_coverage_counts_each_line_once() -> None:
    """The head's probe and the workload's read hold the same lines: coverage counted them
    twice (44 client lines where the containers table and triage said 22)."""
    args = (*target_args("user-code-import-error"), "--format=json")
    code, out, err = run_cli(*args, "--action=preflight")
    assert code == 0, err
    preflight = json.loads(out)["coverage"]["components"]
    code, out, err = run_cli(*args, "--action=triage")
    assert code == 0, err
    triage = json.loads(out)["coverage"]["components"]
    assert [row["lines_read"] for row in preflight] == [row["lines_read"] for row in triage]


@pytest.mark.parametrize("action", ["preflight", "pods", "neighbors", "versions", "triage"])
def test_every_report_gives_its_window(action: str) -> None:
    """The README says every report action's JSON has its `window`: pods, neighbors and
    versions had none."""
    code, out, err = run_cli(*target_args("host-oom-worker"), f"--action={action}", "--format=json")
    assert code == 0, err
    target = expected("host-oom-worker")["target"]
    window = json.loads(out)["window"]
    assert (window["start"], window["end"]) == (target["start_time"], target["end_time"])


def test_a_pod_prefix_that_takes_another_workloads_pods_says_so() -> None:
    """`llama-train` is a prefix of the unrelated JobSet `llama-train-eval`, which crashed
    first: a triage by the prefix reads both as one workload, and a note names the two."""
    args = [a for a in target_args("lost-connection-to-peer") if not a.startswith("--workload")]
    code, _out, err = run_cli(*args, "--pod_prefix=llama-train", "--action=triage")
    assert code == 0, err
    assert (
        'note: the pod-name prefix "llama-train" matched the pods of 2 workloads '
        "(jobset:llama-train, jobset:llama-train-eval), read here as one; to look at one "
        "alone, name it with --jobset_name, --lws_name or --job_name (--action=pods lists "
        "each pod's owner)"
    ) in err.splitlines()
    code, _out, err = run_cli(*args, "--pod_prefix=llama-train-worker-", "--action=errors")
    assert code == 0, err
    assert "note: the pod-name prefix" not in err


def test_no_verdict_points_at_the_namespace(tmp_path: Path) -> None:
    """A workload run outside `default`, triaged without --namespace, logged nothing there:
    the answer names the namespace flag among what to check."""
    text = (INCIDENTS / "host-oom-worker.json").read_text()
    moved = tmp_path / "ml-prod.json"
    for key in ("namespace_name", "namespace"):
        text = text.replace(f'"{key}": "default"', f'"{key}": "ml-prod"')
    moved.write_text(text)
    code, out, err = run_cli(f"--logs_file={moved}", "--jobset_name=gemma-train", "--action=triage")
    assert code == 0, err
    assert "Check the window, the namespace (--namespace, `default` unless given)" in out


def test_a_same_named_jobset_in_another_namespace_is_not_the_root_cause(tmp_path: Path) -> None:
    """The JobSet controller logs for every namespace: its errors about a JobSet of the same
    name in namespace staging, earlier, are not about the workload in default."""
    entries = json.loads((INCIDENTS / "jobset-name-too-long.json").read_text())
    elsewhere = []
    for entry in entries:
        text = entry.get("textPayload", "")
        if (
            entry["resource"]["labels"].get("namespace_name") == "jobset-system"
            and "\tERROR\t" in text
        ):
            moved = {**entry, "insertId": entry["insertId"] + "-staging"}
            moved["textPayload"] = text.replace('"namespace":"default"', '"namespace":"staging"')
            moved["textPayload"] = moved["textPayload"].replace(
                '"namespace": "default"', '"namespace": "staging"'
            )
            moved["timestamp"] = "2026-11-26T16:05:00.000000001Z"
            elsewhere.append(moved)
    assert elsewhere
    export = tmp_path / "two-namespaces.json"
    export.write_text(json.dumps(entries + elsewhere))
    args = [
        f"--logs_file={export}" if a.startswith("--logs_file") else a
        for a in target_args("jobset-name-too-long", True)
    ]
    code, out, err = run_cli(*args, "--action=triage", "--format=json")
    assert code == 0, err
    _same_failure(json.loads(out)["root_cause"], expected("jobset-name-too-long")["root_cause"])


def test_teardown_in_the_completions_second_is_no_failure(tmp_path: Path) -> None:
    """A Killing event's time is cut to its second: one in the second the JobSet completed
    in, though its time reads before the completion's, is the teardown."""
    entries = json.loads((INCIDENTS / "finished-run.json").read_text())
    done = expected("finished-run")["completed"]["timestamp"]
    kills = [
        e["timestamp"]
        for e in entries
        if e.get("jsonPayload", {}).get("reason") == "Killing" and e["timestamp"] > done
    ]
    first_kill = min(kills)
    for entry in entries:
        if entry.get("jsonPayload", {}).get("reason") == "AllJobsCompleted":
            entry["timestamp"] = first_kill.removesuffix("Z") + ".9Z"
    export = tmp_path / "finished.json"
    export.write_text(json.dumps(entries))
    args = [a for a in target_args("finished-run") if not a.startswith("--logs_file")]
    code, out, err = run_cli(f"--logs_file={export}", *args, "--action=triage", "--format=json")
    assert code == 0, err
    report = json.loads(out)
    assert report["completed"]["timestamp"].endswith(".9Z")
    assert report["root_cause"] is None and report["failures"] == []


# The kubelet's eviction message (pkg/kubelet/eviction/helpers.go: nodeLowMessageFmt,
# thresholdMetMessageFmt, containerMessageFmt), for a TPU host's memory running low.
NODE_LOW = (
    "The node was low on resource: memory. Threshold quantity: 100Mi, available: 51280Ki. "
    "Container pathways-worker was using 402653184Ki, request is 0, has larger consumption "
    "of memory. "
)

EVICTED_NODE = "gke-pw-cluster-tpu-np-2-a9155027-kgpx"  # worker 1/0's node in healthy-run


def _evicted_run(
    tmp_path: Path, *added: dict[str, Any], message: str = NODE_LOW
) -> tuple[dict[str, Any], str]:
    """Triage of the healthy run with worker 1/0 evicted by its kubelet (`message`), plus
    `added` entries; and that worker's pod."""
    entries = json.loads((INCIDENTS / "healthy-run.json").read_text())
    started = next(
        e
        for e in entries
        if e.get("jsonPayload", {}).get("reason") == "Started"
        and e["resource"]["labels"].get("pod_name", "").startswith("qwen-pretrain-worker-1-0-")
    )
    evicted = json.loads(json.dumps(started))
    evicted["jsonPayload"].update(reason="Evicted", type="Warning", message=message)
    evicted["jsonPayload"]["involvedObject"].pop("fieldPath", None)
    evicted.update(insertId="added-evicted", severity="WARNING", timestamp="2026-11-26T10:59:50Z")
    export = tmp_path / "evicted.json"
    export.write_text(json.dumps([*entries, evicted, *added]))
    code, out, err = run_cli(
        f"--logs_file={export}", "--jobset_name=qwen-pretrain", "--action=triage", "--format=json"
    )
    assert code == 0, err
    report: dict[str, Any] = json.loads(out)
    return report, started["resource"]["labels"]["pod_name"]


def test_a_pod_the_kubelet_evicted_under_node_pressure_is_the_known_failure(
    tmp_path: Path,
) -> None:
    """The kubelet evicted worker 1/0 because its node ran low on memory: triage names the
    node-pressure eviction scenario and that worker as the lead host."""
    report, pod = _evicted_run(tmp_path)
    assert report["root_cause"]["scenario_slug"] == "node-pressure-eviction"
    assert NODE_LOW.strip() in report["root_cause"]["message"]
    lead = report["lead_host"]
    assert (lead["slice"], lead["host"], lead["pod"]) == ("1", "0", pod)


def test_the_kubelets_eviction_threshold_event_before_the_eviction_is_read(
    tmp_path: Path,
) -> None:
    """The kubelet's node event `EvictionThresholdMet` came seconds before it evicted worker
    1/0: triage reads it, on that worker's node, as the start of the same known failure."""
    threshold = {
        "insertId": "added-threshold",
        "jsonPayload": {
            "apiVersion": "v1",
            "kind": "Event",
            "involvedObject": {"kind": "Node", "name": EVICTED_NODE, "uid": EVICTED_NODE},
            "reason": "EvictionThresholdMet",
            "message": "Attempting to reclaim memory",
            "source": {"component": "kubelet", "host": EVICTED_NODE},
            "type": "Warning",
            "lastTimestamp": "2026-11-26T10:59:45Z",
        },
        "logName": "projects/pw-demo/logs/events",
        "resource": {
            "type": "k8s_node",
            "labels": {
                "project_id": "pw-demo",
                "location": "us-east5",
                "cluster_name": "pw-cluster",
                "node_name": EVICTED_NODE,
            },
        },
        "severity": "WARNING",
        "timestamp": "2026-11-26T10:59:45Z",
    }
    report, pod = _evicted_run(tmp_path, threshold)
    root = report["root_cause"]
    assert root["scenario_slug"] == "node-pressure-eviction"
    assert "Attempting to reclaim memory" in root["message"] and root["node"] == EVICTED_NODE
    lead = report["lead_host"]
    assert (lead["slice"], lead["host"], lead["pod"]) == ("1", "0", pod)


@pytest.mark.parametrize("name", ["finished-run", "client-job-finished", "kueue-preemption"])
@pytest.mark.parametrize("fmt", ["text", "html"])
def test_a_finished_run_is_headed_as_its_outcome_not_a_root_cause(name: str, fmt: str) -> None:
    """A run that completed with nothing failing before has no root cause: the text and the
    page head its completion `Outcome`; a failure keeps the `Root cause` heading."""
    args = target_args(name, by_issue_time=True)
    code, out, err = run_cli(*args, "--action=triage", f"--format={fmt}")
    assert code == 0, err
    headings = ["Outcome", "Root cause"]
    if not expected(name).get("completed"):
        headings.reverse()
    shown, hidden = (f"## {h}\n" if fmt == "text" else f"<h2>{h}</h2>" for h in headings)
    assert shown in out and hidden not in out


@pytest.mark.parametrize("name", [n for n in NAMES if expected(n).get("completed")])
def test_a_component_that_stopped_when_the_run_completed_did_not_go_quiet(name: str) -> None:
    """A client whose Job completed stopped logging because it finished: its timeline lane is
    no `quiet` lane (a hang's mark), while the headless JobSet beside it logs on."""
    report = triage(name, by_issue_time=True)
    lanes = report["timeline"]["lanes"]
    assert lanes and not [lane["name"] for lane in lanes if lane["quiet"]]
    kinds = {event["kind"] for lane in lanes for event in lane["events"]}
    assert not kinds & {"quiet", "hang"}


def _last_worker_crashes(
    entries: list[dict[str, Any]], insert_id: str, timestamp: str
) -> dict[str, Any]:
    """A fatal `Check failed` line at `timestamp` (whole seconds, UTC) of the worker that
    logged last among `entries`."""
    worker = max(
        (e for e in entries if e["resource"]["labels"].get("container_name") == "pathways-worker"),
        key=lambda e: e["timestamp"],
    )
    crash = {**worker, "insertId": insert_id, "severity": "ERROR"}
    crash.pop("jsonPayload", None)
    crash["timestamp"] = crash["receiveTimestamp"] = timestamp
    glog_day, clock = timestamp[5:7] + timestamp[8:10], timestamp[11:19]
    crash["textPayload"] = f"F{glog_day} {clock}.000000 1 server.cc:88] Check failed: ok DMA halted"
    return crash


def test_a_crash_of_the_jobset_after_its_client_job_completed_is_a_failure(
    tmp_path: Path,
) -> None:
    """The client Job's completion ends the client, not the headless JobSet beside it: a worker
    that crashes after it is the root cause, not the teardown of a finished run."""
    entries = json.loads((INCIDENTS / "client-job-finished.json").read_text())
    crash = _last_worker_crashes(entries, "crash-after-the-client", "2026-11-29T09:50:00Z")
    export = tmp_path / "crash.json"
    export.write_text(json.dumps([*entries, crash]))
    args = [a for a in target_args("client-job-finished") if not a.startswith("--logs_file")]
    code, out, err = run_cli(f"--logs_file={export}", *args, "--action=triage", "--format=json")
    assert code == 0, err
    report = json.loads(out)
    assert report["completed"] is not None
    assert report["root_cause"]["timestamp"] == "2026-11-29T09:50:00Z"
    assert report["root_cause"]["pod"] == crash["resource"]["labels"]["pod_name"]
    code, text, err = run_cli(f"--logs_file={export}", *args, "--action=triage")
    said = next(line for line in text.splitlines() if line.startswith("- Completed"))
    assert "(Completed: Job completed (Job/eval-actor)): it finished" in said


# The kubelet's messages when a pod outgrows its own local storage limits
# (kubernetes/kubernetes@de663b9 pkg/kubelet/eviction/helpers.go:
# containerEphemeralStorageMessageFmt, podEphemeralStorageMessageFmt, emptyDirMessageFmt).
STORAGE_LIMIT_EVICTIONS = (
    'Container pathways-worker exceeded its local ephemeral storage limit "10Gi". ',
    "Pod ephemeral local storage usage exceeds the total limit of containers 20Gi. ",
    'Usage of EmptyDir volume "compilation-cache" exceeds the limit "50Gi". ',
)


@pytest.mark.parametrize("message", STORAGE_LIMIT_EVICTIONS)
def test_a_pod_evicted_for_its_own_storage_limit_is_the_known_failure(
    tmp_path: Path, message: str
) -> None:
    """The kubelet evicted worker 1/0 because it wrote more local disk than its limit: triage
    names the storage-limit eviction (not node pressure) and that worker as the lead host."""
    report, _ = _evicted_run(tmp_path, message=message)
    assert report["root_cause"]["scenario_slug"] == "storage-limit-eviction"
    assert message.strip() in report["root_cause"]["message"]
    lead = report["lead_host"]
    assert (lead["slice"], lead["host"]) == ("1", "0")


# The scheduler's reasons (kubernetes pkg/scheduler/framework/plugins/noderesources/fit.go
# 'Insufficient %v'; nodeaffinity/node_affinity.go ErrReasonPod) when no TPU host has room.
UNSCHEDULABLE = (
    "0/6 nodes are available: 2 Insufficient google.com/tpu, 4 node(s) didn't match Pod's node "
    "affinity/selector. preemption: 0/6 nodes are available: 2 No preemption victims found for "
    "incoming pod, 4 Preemption is not helpful for scheduling."
)


def test_tpu_pods_the_scheduler_cannot_place_are_the_known_failure(tmp_path: Path) -> None:
    """Slice 1's workers never ran: their pods are Pending with the scheduler's FailedScheduling
    event. Triage names the unschedulable TPU pods, a slice 1 host as the lead."""
    entries = json.loads((INCIDENTS / "healthy-run.json").read_text())

    def pod(entry: dict[str, Any]) -> str:
        return str(entry["resource"]["labels"].get("pod_name", ""))

    slice_1 = [e for e in entries if pod(e).startswith("qwen-pretrain-worker-1-")]
    pending = []
    for number, name in enumerate(sorted({pod(e) for e in slice_1})):
        event = json.loads(
            json.dumps(
                next(
                    e
                    for e in slice_1
                    if pod(e) == name
                    and "jsonPayload" in e
                    and "involvedObject" in e["jsonPayload"]
                )
            )
        )
        event["jsonPayload"].update(
            reason="FailedScheduling", type="Warning", message=UNSCHEDULABLE
        )
        event.update(
            insertId=f"pending-{number}", severity="WARNING", timestamp="2026-11-26T10:02:20Z"
        )
        pending.append(event)
    export = tmp_path / "pending.json"
    export.write_text(json.dumps([e for e in entries if e not in slice_1] + pending))
    code, out, err = run_cli(
        f"--logs_file={export}", "--jobset_name=qwen-pretrain", "--action=triage", "--format=json"
    )
    assert code == 0, err
    report = json.loads(out)
    assert report["root_cause"]["scenario_slug"] == "tpu-unschedulable"
    assert report["root_cause"]["message"].startswith("FailedScheduling: " + UNSCHEDULABLE[:40])
    assert report["lead_host"]["slice"] == "1"


def test_a_hang_of_the_jobset_after_its_client_job_completed_is_a_failure(
    tmp_path: Path,
) -> None:
    """A worker of the headless JobSet that goes quiet after its client Job completed, while
    the rest of the JobSet logs on, is a hang: only the client's own pods finished."""
    entries = json.loads((INCIDENTS / "client-job-finished.json").read_text())
    pod = "eval-pathways-worker-1-0-fh7kg"

    def silenced(entry: dict[str, Any]) -> bool:
        labels = entry["resource"]["labels"]
        late = entry["timestamp"] > "2026-11-29T09:40:00Z"
        return late and labels.get("pod_name") == pod and labels.get("container_name") is not None

    export = tmp_path / "hang.json"
    export.write_text(json.dumps([e for e in entries if not silenced(e)]))
    args = [a for a in target_args("client-job-finished") if not a.startswith("--logs_file")]
    code, out, err = run_cli(f"--logs_file={export}", *args, "--action=triage", "--format=json")
    assert code == 0, err
    report = json.loads(out)
    assert report["completed"] is not None
    root = report["root_cause"]
    assert (root["source"], root["pod"]) == ("hang", pod)
    assert root["timestamp"] == "2026-11-29T09:39:26.816293Z"


@pytest.mark.parametrize("name", ["finished-run", "preemption-sigterm"])
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_the_crash_sweep_says_when_the_run_completed_before_its_sigterm_lines(
    name: str, fmt: str
) -> None:
    """`--action=errors` alone on a finished run still lists the teardown's SIGTERM lines, and
    a note on stderr names the completion event and its time; a run stopped by anything else
    gets no such note. Standard output holds the sweep's lines only."""
    code, out, err = run_cli(*target_args(name), "--action=errors", f"--format={fmt}")
    assert code == 0, err
    assert "SIGTERM" in out
    notes = [line for line in err.splitlines() if line.startswith("note: completed at ")]
    done = expected(name).get("completed")
    if done is None:
        assert not notes
        return
    (note,) = notes
    assert done["timestamp"] in note and done["message_contains"] in note
    assert "teardown" in note
    if fmt == "json":
        entries = [json.loads(line) for line in out.splitlines()]
        assert all(entry["resource"]["type"] == "k8s_container" for entry in entries)


@pytest.mark.parametrize("action", ["workers", "pathways-rm", "proxy"])
def test_a_component_action_says_when_the_run_completed_before_its_sigterm_lines(
    action: str,
) -> None:
    """A per-container action on a finished run shows its container's teardown SIGTERM; the
    same note as the crash sweep's names the completion."""
    code, out, err = run_cli(*target_args("finished-run"), f"--action={action}")
    assert code == 0, err
    assert "SIGTERM" in out
    (note,) = [line for line in err.splitlines() if line.startswith("note: completed at ")]
    assert expected("finished-run")["completed"]["timestamp"] in note


def _rerun(entries: list[dict[str, Any]], pods: set[str], before: str) -> list[dict[str, Any]]:
    """The lines and events of `pods` before `before`, again 45 minutes later in pods of new
    names (the JobSet made again under its name): each pod's random suffix `rerun`."""
    again = []
    for entry in entries:
        text = json.dumps(entry)
        if entry["timestamp"] >= before or not any(pod in text for pod in pods):
            continue
        for pod in pods:
            text = text.replace(pod, f"{pod[:-5]}rerun")
        copy = json.loads(text)
        for key in ("timestamp", "receiveTimestamp"):
            if key in copy:
                copy[key] = format_timestamp_ns(parse_timestamp_ns(copy[key]) + 45 * 60 * 10**9)
        again.append({**copy, "insertId": f"{copy.get('insertId')}-rerun"})
    return again


def test_a_crash_of_a_run_made_again_after_the_workload_completed_is_a_failure(
    tmp_path: Path,
) -> None:
    """A JobSet made again under its name after it completed starts new pods (scheduled, and
    logging their start-up lines, after the completion): their crash is a failure, not the
    teardown of the finished run."""
    entries = json.loads((INCIDENTS / "finished-run.json").read_text())
    pods = {pod for pod in expected("finished-run")["workload_pods"] if pod.startswith("gemma-sft")}
    again = _rerun(entries, pods, "2026-11-27T06:25:00Z")
    crash = _last_worker_crashes(again, "crash-of-the-rerun", "2026-11-27T07:08:00Z")
    export = tmp_path / "rerun.json"
    export.write_text(json.dumps([*entries, *again, crash]))
    args = [a for a in target_args("finished-run") if not a.startswith(("--logs_file", "--end"))]
    window = "--end_time=2026-11-27T07:15:00Z"
    code, out, err = run_cli(
        f"--logs_file={export}", *args, window, "--action=triage", "--format=json"
    )
    assert code == 0, err
    report = json.loads(out)
    assert report["completed"]["timestamp"] == expected("finished-run")["completed"]["timestamp"]
    assert report["root_cause"]["timestamp"] == "2026-11-27T07:08:00Z"
    assert report["root_cause"]["pod"] == crash["resource"]["labels"]["pod_name"]


def test_a_finished_run_whose_events_outnumber_the_fetch_limit_still_completed() -> None:
    """The events read stopped at --fetch_limit before the JobSet's AllJobsCompleted, and its
    read-on left that reason out with the routine ones: the run was called a failure."""
    args = target_args("finished-run")
    code, out, err = run_cli(*args, "--action=triage", "--format=json", "--fetch_limit=50")
    assert code == 0, err
    report = json.loads(out)
    assert report["completed"]["timestamp"] == expected("finished-run")["completed"]["timestamp"]
    assert report["root_cause"] is None


def test_print_mode_shows_how_the_crash_sweep_reads_whether_the_run_completed() -> None:
    """Print mode cannot know whether the sweep will show SIGTERM lines: it prints the query of
    the workload's completion event commented out (for a JobSet, and for pods named by a
    prefix, that query finds that event and nothing else), or, for a LeaderWorkerSet, which
    never completes, what to name instead."""
    target = expected("finished-run")["target"]
    where = [f"--{flag}={target[flag]}" for flag in ("project", "cluster_name", "location")]
    window = [f"--start_time={target['start_time']}", f"--end_time={target['end_time']}"]
    entries = json.loads((INCIDENTS / "finished-run.json").read_text())
    for workload in ("--jobset_name=gemma-sft", "--pod_prefix=gemma-sft-worker"):
        code, out, err = run_cli(*where, *window, workload, "--action=errors")
        assert code == 0, err
        note = out[out.index("# then, if the sweep above prints SIGTERM lines") :]
        command = "\n".join(line.removeprefix("# ") for line in note.splitlines()[2:])
        text = command[command.index("read '") + len("read '") : command.index("' --project")]
        found = [e["timestamp"] for e in entries if compile_filter(text).matches(e)]
        assert found == [expected("finished-run")["completed"]["timestamp"]]
    code, out, err = run_cli(*where, *window, "--lws_name=jetstream-pw", "--action=errors")
    assert code == 0, err
    assert "a LeaderWorkerSet never completes" in out


def test_a_hang_after_a_client_job_completed_is_found_in_any_group_of_a_leaderworkerset(
    tmp_path: Path,
) -> None:
    """A client Job beside a LeaderWorkerSet completes; later a worker of group 1 goes quiet
    while group 0 logs on: it is a hang, though group 0 logged the newest line."""
    entries = json.loads((INCIDENTS / "gcs-lifecycle-prefix-limit.json").read_text())
    done = {
        "insertId": "client-completed",
        "jsonPayload": {
            "kind": "Event",
            "involvedObject": {"kind": "Job", "name": "lws-client", "namespace": "default"},
            "reason": "Completed",
            "message": "Job completed",
            "type": "Normal",
        },
        "logName": "projects/pw-demo/logs/events",
        "resource": {
            "type": "k8s_cluster",
            "labels": {
                "project_id": "pw-demo",
                "location": "us-east5",
                "cluster_name": "pw-cluster",
            },
        },
        "severity": "INFO",
        "timestamp": "2026-11-22T07:32:00Z",
    }

    def silenced(entry: dict[str, Any]) -> bool:
        labels = entry["resource"]["labels"]
        late = entry["timestamp"] > "2026-11-22T07:45:00Z"
        quiet = labels.get("pod_name") == "jetstream-pw-1-1"
        return late and quiet and labels.get("container_name") is not None

    export = tmp_path / "lws.json"
    export.write_text(json.dumps([*[e for e in entries if not silenced(e)], done]))
    args = [a for a in target_args("gcs-lifecycle-prefix-limit") if not a.startswith("--logs")]
    more = ("--workload=job:lws-client", "--action=triage", "--format=json")
    code, out, err = run_cli(f"--logs_file={export}", *args, *more)
    assert code == 0, err
    report = json.loads(out)
    assert report["completed"]["timestamp"] == "2026-11-22T07:32:00Z"
    hangs = [f["pod"] for f in report["failures"] if f["source"] == "hang"]
    assert hangs == ["jetstream-pw-1-1"]


@pytest.mark.parametrize("prefix", ["gemma-sft-worker", "gemma-sft-"])
def test_pods_named_by_a_prefix_know_their_jobset_completed(prefix: str) -> None:
    """Pods named by a prefix carry their JobSet's name in their labels: its completion event
    makes their SIGTERM lines and Killing events its teardown, not a root cause (the crash of
    another JobSet the prefix matches, before it, still is one)."""
    args = [a for a in target_args("finished-run") if not a.startswith("--workload")]
    code, out, err = run_cli(*args, f"--pod_prefix={prefix}", "--action=triage", "--format=json")
    assert code == 0, err
    report = json.loads(out)
    done = expected("finished-run")["completed"]
    assert report["completed"]["timestamp"] == done["timestamp"]
    causes = [f["timestamp"] for f in report["failures"]]
    assert all(cause < done["timestamp"] for cause in causes)
    assert bool(causes) == (prefix == "gemma-sft-")


def test_the_longest_pod_prefix_still_fits_the_filter_of_its_owners_completions() -> None:
    """A JobSet's or Job's name is at most 63 characters (a label value): the names a long
    prefix could start with are that many at most, so the events filter stays in the limit."""
    target = expected("finished-run")["target"]
    where = [f"--{flag}={target[flag]}" for flag in ("project", "cluster_name", "location")]
    code, out, err = run_cli(*where, f"--pod_prefix={'a' * 253}", "--action=triage")
    assert code == 0, err
    assert '"' + "a" * 63 + '"' in out and '"' + "a" * 64 + '"' not in out


def test_the_crash_sweep_of_pods_named_by_a_prefix_says_their_jobset_completed() -> None:
    """Pods named by a prefix carry their JobSet's name in their labels: the sweep's note names
    that JobSet's completion."""
    args = [a for a in target_args("finished-run") if not a.startswith("--workload")]
    code, out, err = run_cli(*args, "--pod_prefix=gemma-sft-worker", "--action=errors")
    assert code == 0, err
    assert "SIGTERM" in out
    (note,) = [line for line in err.splitlines() if line.startswith("note: completed at ")]
    assert expected("finished-run")["completed"]["timestamp"] in note
    assert "(JobSet/gemma-sft)" in note


def _worker_lines(
    entries: list[dict[str, Any]], lines: dict[str, str], timestamp: str
) -> list[dict[str, Any]]:
    """Each of `lines` (by the worker pod prefix that logs it) as an ERROR line of that pod's
    pathways-worker container at `timestamp`."""
    added = []
    for number, (prefix, text) in enumerate(lines.items()):
        logged = next(
            e
            for e in entries
            if e["resource"]["labels"].get("container_name") == "pathways-worker"
            and e["resource"]["labels"].get("pod_name", "").startswith(prefix)
        )
        line = {**logged, "insertId": f"added-{number}", "severity": "ERROR"}
        line.pop("jsonPayload", None)
        line.update(timestamp=timestamp, receiveTimestamp=timestamp, textPayload=text)
        added.append(line)
    return added


# The coordination service's words for a JAX process gone silent (openxla/xla
# xla/tsl/distributed_runtime/coordination/coordination_service.cc; jax-ml/jax issue #23599).
HEARTBEAT_TIMEOUT = (
    "/job:jax_worker/replica:0/task:0 has been set to ERROR in coordination service: "
    "UNAVAILABLE: Task /job:jax_worker/replica:0/task:3 heartbeat timeout. This indicates that "
    "the remote task has failed, got preempted, or crashed unexpectedly. Check the task logs for "
    "an earlier error to debug further."
)


def test_a_coordination_service_timeout_is_the_known_failure_known_only_downstream(
    tmp_path: Path,
) -> None:
    """Worker 0/0 reports that task 3 stopped sending heartbeats, and nothing says why: triage
    names the coordination-service failure and points at the task's own logs, not at the line
    as the cause."""
    entries = json.loads((INCIDENTS / "healthy-run.json").read_text())
    added = _worker_lines(
        entries, {"qwen-pretrain-worker-0-0-": HEARTBEAT_TIMEOUT}, "2026-11-26T10:59:58Z"
    )
    cause = triage_of("healthy-run", tmp_path, [*entries, *added])["root_cause"]
    assert cause["scenario_slug"] == "jax-coordination"
    assert cause["downstream_only"] is True
    assert "task N is process N" in cause["reason_in"]


def test_the_task_that_failed_outranks_the_coordination_service_timeout(tmp_path: Path) -> None:
    """Worker 1/0 fails first; worker 0/0's heartbeat timeout for it is only the report."""
    entries = json.loads((INCIDENTS / "healthy-run.json").read_text())
    failed = _worker_lines(
        entries,
        {"qwen-pretrain-worker-1-0-": "Check failed: ok DMA halted"},
        "2026-11-26T10:59:50Z",
    )
    reported = _worker_lines(
        entries, {"qwen-pretrain-worker-0-0-": HEARTBEAT_TIMEOUT}, "2026-11-26T10:59:58Z"
    )
    reported[0]["insertId"] = "added-report"
    cause = triage_of("healthy-run", tmp_path, [*entries, *failed, *reported])["root_cause"]
    assert cause["message"].endswith("Check failed: ok DMA halted")
    assert cause["scenario_slug"] != "jax-coordination"


# libtpu refuses a second process the chips another one holds (openxla/xla
# xla/stream_executor/tpu/tpu_initializer_helper.cc TryAcquireTpuLock; jax-ml/jax issues #13260
# and #10192, older releases logging it at INFO; marin-community/marin issue #2618 for vfio).
TPU_IN_USE = (
    (
        "jaxlib.xla_extension.XlaRuntimeError: ABORTED: The TPU is already in use by process "
        "with pid 2239507. Not attempting to load libtpu.so in this process.",
        "ERROR",
    ),
    (
        "I0000 00:00:1649423660.053391 1924758 f236.cc:165] libtpu.so already in use by another "
        'process probably owned by another user. Run "$ sudo lsof -w /dev/accel0" to figure out '
        "which process is using the TPU. Not attempting to load libtpu.so in this process.",
        "INFO",
    ),
    (
        "Failed to initialize TPU system with error: FAILED_PRECONDITION: open(/dev/vfio/0): "
        "Device or resource busy: Device or resource busy; Couldn't open iommu group /dev/vfio/0",
        "ERROR",
    ),
)


@pytest.mark.parametrize(("line", "level"), TPU_IN_USE, ids=["aborted", "info", "vfio"])
def test_a_tpu_another_process_holds_is_the_known_failure(
    tmp_path: Path, line: str, level: str
) -> None:
    """Worker 1/0 could not open its TPU chips because another process held them: triage
    names that, on that worker, as the cause."""
    entries = json.loads((INCIDENTS / "healthy-run.json").read_text())
    added = _worker_lines(entries, {"qwen-pretrain-worker-1-0-": line}, "2026-11-26T10:59:58Z")
    added[0]["severity"] = level
    cause = triage_of("healthy-run", tmp_path, [*entries, *added])["root_cause"]
    assert cause["scenario_slug"] == "tpu-in-use"
    assert cause["pod"].startswith("qwen-pretrain-worker-1-0-")
    assert cause["downstream_only"] is False


# The kubelet's events for a container whose Secret or ConfigMap is missing (kubernetes
# pkg/kubelet/kuberuntime/kuberuntime_container.go 'Error: %v'; public captures in
# carlosedp/cluster-monitoring #21, rustyrazorblade/easy-db-lab #733, shieldworks/aegis #293,
# cloudfoundry/eirini-release #111).
MISSING_CONFIG = (
    ("Failed", 'Error: secret "hf-token" not found'),
    ("Failed", 'Error: configmap "pathways-config" not found'),
    ("Failed", "Error: couldn't find key token in Secret default/hf-token"),
    ("FailedMount", 'MountVolume.SetUp failed for volume "gcs-key" : secret "gcs-key" not found'),
)


def _slice_1_never_started(tmp_path: Path, reason: str, message: str) -> dict[str, Any]:
    """The root cause triage names in healthy-run when slice 1's worker pods, once
    scheduled, got a kubelet Warning event (`reason`, `message`) and never logged."""
    entries = json.loads((INCIDENTS / "healthy-run.json").read_text())
    slice_1 = [
        e
        for e in entries
        if str(e["resource"]["labels"].get("pod_name", "")).startswith("qwen-pretrain-worker-1-")
    ]
    scheduled = [e for e in slice_1 if e.get("jsonPayload", {}).get("reason") == "Scheduled"]
    failed = []
    for number, event in enumerate(json.loads(json.dumps(scheduled))):
        event["jsonPayload"].update(reason=reason, type="Warning", message=message)
        event.update(insertId=f"never-{number}", severity="WARNING")
        event["timestamp"] = "2026-11-26T10:02:20Z"
        failed.append(event)
    kept = [e for e in entries if e not in slice_1]
    cause: dict[str, Any] = triage_of("healthy-run", tmp_path, [*kept, *scheduled, *failed])[
        "root_cause"
    ]
    return cause


@pytest.mark.parametrize(("reason", "message"), MISSING_CONFIG)
def test_a_missing_secret_or_configmap_is_the_known_failure(
    tmp_path: Path, reason: str, message: str
) -> None:
    """Slice 1's worker containers were never created: the kubelet could not find the Secret
    or ConfigMap they use. Triage names the missing configuration on a slice 1 pod."""
    cause = _slice_1_never_started(tmp_path, reason, message)
    assert cause["scenario_slug"] == "missing-config"
    assert message in cause["message"]
    assert cause["pod"].startswith("qwen-pretrain-worker-1-")


# containerd's refusals to start a container, in the kubelet's Failed event (containerd/
# containerd pull request #11557 and issue #7388; opencontainers/runc issue #4713).
RUNTIME_START_FAILURES = (
    "Error: failed to create containerd task: failed to create shim task: OCI runtime create "
    'failed: runc create failed: unable to start container process: exec: "pythn": executable '
    "file not found in $PATH: unknown",
    "Error: failed to create containerd task: failed to create shim task: OCI runtime create "
    "failed: runc create failed: unable to create new parent process",
)


@pytest.mark.parametrize("message", RUNTIME_START_FAILURES, ids=["command", "runtime"])
def test_a_container_the_runtime_could_not_start_is_the_known_failure(
    tmp_path: Path, message: str
) -> None:
    """Slice 1's worker containers never ran: containerd could not start their process."""
    cause = _slice_1_never_started(tmp_path, "Failed", message)
    assert cause["scenario_slug"] == "container-start-failed"
    assert message in cause["message"]


# The coordination service's words for a JAX process that came back restarted (openxla/xla
# xla/tsl/distributed_runtime/coordination/coordination_service.cc: RegisterTask and the
# heartbeat's incarnation check).
RESTARTED_TASK = (
    "ABORTED: /job:jax_worker/replica:0/task:3 unexpectedly tried to connect with a different "
    "incarnation. It has likely restarted.",
    "ABORTED: /job:jax_worker/replica:0/task:3 Heartbeat: Incarnation ID mismatch: expecting 1 "
    "but got 2. The task has restarted and likely crashed earlier - check for any earlier errors "
    "or any scheduler events (e.g. preemption, eviction) to debug further.",
)


@pytest.mark.parametrize("line", RESTARTED_TASK, ids=["register", "heartbeat"])
def test_a_restarted_jax_process_is_reported_downstream(tmp_path: Path, line: str) -> None:
    """Worker 0/0 reports that task 3 came back with a new incarnation: its earlier crash is
    the reason, so triage names the coordination-service failure as known only downstream."""
    entries = json.loads((INCIDENTS / "healthy-run.json").read_text())
    added = _worker_lines(entries, {"qwen-pretrain-worker-0-0-": line}, "2026-11-26T10:59:58Z")
    cause = triage_of("healthy-run", tmp_path, [*entries, *added])["root_cause"]
    assert cause["scenario_slug"] == "jax-coordination"
    assert cause["downstream_only"] is True


def test_a_core_halt_split_over_two_lines_is_named_by_its_launch_group_line(
    tmp_path: Path,
) -> None:
    """XLA's 03xx message arrives as two lines of one instant: 'Core halted unexpectedly ...
    scheckne:' (alone, a chip fault) and 'An unexpected peer shows up in the launch group
    ...'. Triage names the launch group mismatch, not a hardware fault."""
    entries = json.loads((INCIDENTS / "healthy-run.json").read_text())
    worker = "qwen-pretrain-worker-0-0-"
    halted = _worker_lines(entries, {worker: LAUNCH_GROUP_HALT}, "2026-11-26T10:59:58.100000Z")
    peer = _worker_lines(entries, {worker: LAUNCH_GROUP_PEER}, "2026-11-26T10:59:58.100050Z")
    peer[0]["insertId"] = "added-peer"
    cause = triage_of("healthy-run", tmp_path, [*entries, *halted, *peer])["root_cause"]
    assert cause["message"] == LAUNCH_GROUP_HALT
    assert cause["scenario_slug"] == "launch-group-mismatch"


# openxla/xla docs/errors/error_03xx.md: one message, two lines.
LAUNCH_GROUP_HALT = (
    "XlaRuntimeError: INTERNAL: Core halted unexpectedly: INTERNAL: Accelerator device halted "
    "prematurely, perhaps due to an on-device check-failure. Node 0 halted unexpectedly at "
    "tag:pc TensorCoreSequencer:1:0x175 (from TensorCoreSequencer:1:0x21f): scheckne:"
)
LAUNCH_GROUP_PEER = (
    "An unexpected peer shows up in the launch group with a different launch id than the current "
    "group leader. If using single controller backends, this signals a bug in the runtime "
    "scheduling system or above. If using multi-controller backends"
)
