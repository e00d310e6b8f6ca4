"""A LeaderWorkerSet's events: the StatefulSets that make its pods are its own (a pod they
could not create is their event); a sibling LeaderWorkerSet's leader is not."""

from __future__ import annotations

import copy
import json
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
