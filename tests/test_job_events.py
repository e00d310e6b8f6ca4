"""A Job's pod events: a JobSet's Job (`--job_name=<jobset>-<rjob>-<index>`) owns pods whose
events carry only the JobSet as their owner, so they are found by the Job's pod names."""

from __future__ import annotations

import json
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
