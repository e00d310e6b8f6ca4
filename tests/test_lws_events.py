"""A LeaderWorkerSet's events: the StatefulSets that make its pods are its own (a pod they
could not create is their event); a sibling LeaderWorkerSet's leader is not."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

from tests.helpers import run_cli
from tests.test_incidents import INCIDENTS

LWS = "jetstream-pw"
QUOTA = "create Pod jetstream-pw-1-2 in StatefulSet jetstream-pw-1 failed: exceeded quota"


def _entries() -> list[dict[str, Any]]:
    loaded: list[dict[str, Any]] = json.loads(
        (INCIDENTS / "gcs-lifecycle-prefix-limit.json").read_text()
    )
    return loaded


def _events(tmp_path: Path, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    path = tmp_path / "export.json"
    path.write_text(json.dumps(entries))
    code, out, err = run_cli(
        f"--logs_file={path}",
        f"--lws_name={LWS}",
        "--action=pod-events",
        "--limit=5000",
        "--format=json",
    )
    assert code == 0, err
    return [json.loads(line) for line in out.splitlines()]


def test_a_statefulset_that_could_not_create_a_pod_is_in_the_events(tmp_path: Path) -> None:
    entries = _entries()
    model = next(
        e
        for e in entries
        if (e.get("jsonPayload") or {}).get("involvedObject", {}).get("kind") == "StatefulSet"
    )
    failed = copy.deepcopy(model)
    failed["insertId"] = "failed-create"
    failed["severity"] = "WARNING"
    failed["jsonPayload"].update(reason="FailedCreate", type="Warning", message=QUOTA)
    failed["jsonPayload"]["involvedObject"]["name"] = f"{LWS}-1"
    found = _events(tmp_path, [*entries, failed])
    assert any(e["insertId"] == "failed-create" for e in found)


def test_a_sibling_lws_leader_is_not_one_of_ours(tmp_path: Path) -> None:
    entries = _entries()
    ours = [e for e in entries if e["resource"]["labels"].get("pod_name") == f"{LWS}-0"]
    assert ours, "the leader of group 0 has events"
    sibling = []
    for entry in ours:
        twin = json.loads(json.dumps(entry).replace(f'"{LWS}-0"', f'"{LWS}-2-0"'))
        twin["insertId"] = f"{entry['insertId']}-sibling"
        sibling.append(twin)
    found = _events(tmp_path, [*entries, *sibling])
    assert not any(e["insertId"].endswith("-sibling") for e in found)
    assert any(e["resource"]["labels"].get("pod_name") == f"{LWS}-0" for e in found)


SIBLING = f"{LWS}-2"


def _with_sibling() -> list[dict[str, Any]]:
    """The incident beside LeaderWorkerSet `jetstream-pw-2`, a copy of `jetstream-pw` on other
    nodes: its group 1 leader `jetstream-pw-2-1` and leader StatefulSet `jetstream-pw-2` are
    named like a group 2 of `jetstream-pw`, which has groups 0 and 1 only."""
    entries = _entries()
    sibling = []
    for entry in entries:
        text = json.dumps(entry)
        if not re.search(rf"{LWS}\b(?!-eval)", text):
            continue
        text = re.sub(rf"{LWS}(?!-eval)", SIBLING, text)
        twin = json.loads(re.sub(r"gke-pw-cluster-", "gke-other-", text))
        twin["insertId"] = f"{entry['insertId']}-sibling"
        sibling.append(twin)
    return [*entries, *sibling]


def _report(tmp_path: Path, entries: list[dict[str, Any]], action: str) -> dict[str, Any]:
    path = tmp_path / "export.json"
    path.write_text(json.dumps(entries))
    code, out, err = run_cli(
        f"--logs_file={path}", f"--lws_name={LWS}", f"--action={action}", "--format=json"
    )
    assert code == 0, err
    report: dict[str, Any] = json.loads(out)
    return report


def test_a_sibling_lws_with_colliding_names_adds_nothing_to_triage(tmp_path: Path) -> None:
    alone = _report(tmp_path, _entries(), "triage")
    beside = _report(tmp_path, _with_sibling(), "triage")
    assert beside["workload_nodes"] == alone["workload_nodes"]
    assert not any(n.startswith("gke-other-") for n in beside["workload_nodes"])
    for key in ("root_cause", "failures", "failing_hosts", "timeline"):
        assert beside[key] == alone[key], key


def test_a_sibling_lws_node_is_not_the_workloads(tmp_path: Path) -> None:
    neighbors = _report(tmp_path, _with_sibling(), "neighbors")
    assert neighbors["nodes"] and not any(n.startswith("gke-other-") for n in neighbors["nodes"])
    pods = _report(tmp_path, _with_sibling(), "pods")
    assert {row["pod"] for row in pods["pods"]} == {
        f"{LWS}-{group}{worker}" for group in (0, 1) for worker in ("", "-1", "-2")
    }


def test_pod_events_name_the_sibling_lws_they_may_be(tmp_path: Path) -> None:
    path = tmp_path / "export.json"
    path.write_text(json.dumps(_with_sibling()))
    code, _, err = run_cli(f"--logs_file={path}", f"--lws_name={LWS}", "--action=pod-events")
    assert code == 0, err
    assert (
        f"note: the events of Pod {SIBLING}-1, StatefulSet {SIBLING} are likely "
        f"LeaderWorkerSet {SIBLING}'s, whose names LeaderWorkerSet {LWS}'s group 2 would have "
        "(no pod of that group showed); entry actions list them, reports leave them out; to "
        f"read them, pass --lws_name={SIBLING}"
    ) in err.splitlines()
    path.write_text(json.dumps(_entries()))
    code, _, err = run_cli(f"--logs_file={path}", f"--lws_name={LWS}", "--action=pod-events")
    assert code == 0 and "LeaderWorkerSet" not in err, err


def test_summary_knows_the_groups_from_the_leader_statefulsets_events(tmp_path: Path) -> None:
    """Summary reads no pod's lines: `create Pod jetstream-pw-0 in StatefulSet jetstream-pw`
    says which groups the workload has."""
    path = tmp_path / "export.json"
    path.write_text(json.dumps(_with_sibling()))
    code, _, err = run_cli(f"--logs_file={path}", f"--lws_name={LWS}", "--action=summary")
    assert code == 0, err
    assert f"note: the events of StatefulSet {SIBLING} are likely LeaderWorkerSet" in err


def test_a_pod_named_by_its_prefix_keeps_its_events(tmp_path: Path) -> None:
    path = tmp_path / "export.json"
    path.write_text(json.dumps(_with_sibling()))
    code, out, err = run_cli(
        f"--logs_file={path}",
        f"--lws_name={LWS}",
        f"--workload=pod:{SIBLING}-1",
        "--action=triage",
        "--format=json",
    )
    assert code == 0, err
    assert f"(Pod/{SIBLING}-1)" in out  # its events are evidence
    assert f"note: the events of StatefulSet {SIBLING} are likely" in err
