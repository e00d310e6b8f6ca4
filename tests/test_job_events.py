"""A Job's pod events: a JobSet's Job (`--job_name=<jobset>-<rjob>-<index>`) owns pods whose
events carry only the JobSet as their owner, so they are found by the Job's pod names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.helpers import run_cli
from tests.test_incidents import INCIDENTS

JOB = "gemma-train-worker-1"


def _pod_events(*flags: str) -> list[dict[str, Any]]:
    code, out, err = run_cli(
        f"--logs_file={INCIDENTS / 'host-oom-worker.json'}",
        *flags,
        "--action=pod-events",
        "--limit=5000",
        "--format=json",
    )
    assert code == 0, err
    return [
        entry
        for entry in map(json.loads, out.splitlines())
        if entry["resource"]["type"] == "k8s_pod"
    ]


def test_the_pods_of_a_jobsets_job_have_their_events() -> None:
    pods = {e["resource"]["labels"]["pod_name"] for e in _pod_events(f"--job_name={JOB}")}
    wanted = {e["resource"]["labels"]["pod_name"] for e in _pod_events("--jobset_name=gemma-train")}
    assert pods == {pod for pod in wanted if pod.startswith(f"{JOB}-")}
    assert len(pods) == 6  # 3 hosts, each before and after the restart


def test_a_sibling_jobs_pods_are_not_the_jobs() -> None:
    pods = {
        e["resource"]["labels"]["pod_name"] for e in _pod_events("--job_name=gemma-train-worker")
    }
    assert pods == set()


def test_a_sibling_jobsets_job_events_are_named_on_stderr(tmp_path: Path) -> None:
    """JobSet `gemma-train-pathways`'s replicated job `worker` makes Jobs named like a
    replicated job `pathways-worker` of `gemma-train`, whose pods run `worker`."""
    entries = json.loads((INCIDENTS / "host-oom-worker.json").read_text())
    sibling = []
    for entry in entries:
        about = (entry.get("jsonPayload") or {}).get("involvedObject", {})
        if about.get("kind") == "Job" and about["name"].startswith("gemma-train-worker-"):
            text = json.dumps(entry).replace("gemma-train-worker-", "gemma-train-pathways-worker-")
            sibling.append({**json.loads(text), "insertId": f"{entry['insertId']}-sibling"})
    path = tmp_path / "export.json"
    for export, noted in ((entries, False), ([*entries, *sibling], True)):
        path.write_text(json.dumps(export))
        code, _, err = run_cli(
            f"--logs_file={path}", "--jobset_name=gemma-train", "--action=pod-events"
        )
        assert code == 0, err
        note = (
            "note: the events of Job gemma-train-pathways-worker-0, "
            "gemma-train-pathways-worker-1 are likely another JobSet's (named gemma-train-...): "
            "gemma-train's pods run replicated jobs pathways-head, worker; entry actions list "
            "them, triage leaves them out"
        )
        assert (note in err.splitlines()) == noted, err
