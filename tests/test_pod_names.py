"""Workload labels from pod names, by the JobSet, Job and LeaderWorkerSet naming layouts."""

from __future__ import annotations

import pytest

from pathways_workload.pod_names import implied_labels
from pathways_workload.target import Workload

JOBSET = "k8s-pod/jobset_sigs_k8s_io/jobset-name"
RJOB = "k8s-pod/jobset_sigs_k8s_io/replicatedjob-name"
JOB_INDEX = "k8s-pod/jobset_sigs_k8s_io/job-index"
JOB = "k8s-pod/batch_kubernetes_io/job-name"
COMPLETION = "k8s-pod/batch_kubernetes_io/job-completion-index"
LWS = "k8s-pod/leaderworkerset_sigs_k8s_io/name"
GROUP = "k8s-pod/leaderworkerset_sigs_k8s_io/group-index"
WORKER = "k8s-pod/leaderworkerset_sigs_k8s_io/worker-index"
OWNER = ("logging.gke.io/top_level_controller_type", "logging.gke.io/top_level_controller_name")


def jobset_labels(jobset: str, rjob: str, job_index: str, pod_index: str) -> dict[str, str]:
    return {
        JOBSET: jobset,
        RJOB: rjob,
        JOB_INDEX: job_index,
        JOB: f"{jobset}-{rjob}-{job_index}",
        COMPLETION: pod_index,
        OWNER[0]: "JobSet",
        OWNER[1]: jobset,
    }


@pytest.mark.parametrize(
    ("pod", "workloads", "wanted"),
    [
        # <jobset>-<replicated job>-<job index>-<completion index>-<random suffix>
        (
            "llama-train-worker-1-2-75wk5",
            [Workload("jobset", "llama-train")],
            jobset_labels("llama-train", "worker", "1", "2"),
        ),
        (
            "llama-train-worker-1-2-75wk5",
            [],
            jobset_labels("llama-train", "worker", "1", "2"),
        ),
        # A replicated job of the user's own naming needs the flag.
        (
            "sft-trainer-3-0-ab12c",
            [Workload("jobset", "sft")],
            jobset_labels("sft", "trainer", "3", "0"),
        ),
        ("sft-trainer-3-0-ab12c", [], {}),
        # The flag settles a JobSet whose name ends like a replicated job.
        (
            "my-pathways-worker-0-0-x7k2p",
            [Workload("jobset", "my-pathways")],
            jobset_labels("my-pathways", "worker", "0", "0"),
        ),
        # Without it, the launchers' longest replicated job name wins.
        (
            "my-pathways-worker-0-0-x7k2p",
            [],
            jobset_labels("my", "pathways-worker", "0", "0"),
        ),
        # gemma-ft-eval's head is not gemma-ft's replicated job `eval-pathways-head`.
        (
            "gemma-ft-eval-pathways-head-0-0-q42xh",
            [Workload("jobset", "gemma-ft")],
            jobset_labels("gemma-ft-eval", "pathways-head", "0", "0"),
        ),
        (
            "gemma-ft-eval-pathways-head-0-0-q42xh",
            [Workload("jobset", "gemma-ft"), Workload("jobset", "gemma-ft-eval")],
            jobset_labels("gemma-ft-eval", "pathways-head", "0", "0"),
        ),
        # LeaderWorkerSet: leader <lws>-<group>, workers <lws>-<group>-<worker> from 1.
        (
            "jetstream-pw-2",
            [Workload("lws", "jetstream-pw")],
            {
                LWS: "jetstream-pw",
                GROUP: "2",
                WORKER: "0",
                OWNER[0]: "LeaderWorkerSet",
                OWNER[1]: "jetstream-pw",
            },
        ),
        (
            "jetstream-pw-2-3",
            [Workload("lws", "jetstream-pw")],
            {
                LWS: "jetstream-pw",
                GROUP: "2",
                WORKER: "3",
                OWNER[0]: "LeaderWorkerSet",
                OWNER[1]: "jetstream-pw",
            },
        ),
        ("jetstream-pw-2-3", [], {}),
        # Workers count from 1: `jetstream-pw-2-0` is LeaderWorkerSet jetstream-pw-2's leader.
        ("jetstream-pw-2-0", [Workload("lws", "jetstream-pw")], {}),
        (
            "jetstream-pw-2-0",
            [Workload("lws", "jetstream-pw"), Workload("lws", "jetstream-pw-2")],
            {
                LWS: "jetstream-pw-2",
                GROUP: "0",
                WORKER: "0",
                OWNER[0]: "LeaderWorkerSet",
                OWNER[1]: "jetstream-pw-2",
            },
        ),
        # Plain Job: <job>-<suffix>, or indexed <job>-<index>-<suffix>.
        (
            "rl-actor-x9k2p",
            [Workload("job", "rl-actor")],
            {JOB: "rl-actor", OWNER[0]: "Job", OWNER[1]: "rl-actor"},
        ),
        (
            "rl-actor-4-x9k2p",
            [Workload("job", "rl-actor")],
            {JOB: "rl-actor", COMPLETION: "4", OWNER[0]: "Job", OWNER[1]: "rl-actor"},
        ),
        # A Deployment's pod, and a name another workload merely starts like.
        ("tb-viewer-4dhjpb526t-8t6f6", [], {}),
        ("rl-actor-eval-x9k2p", [Workload("job", "rl-actor")], {}),
    ],
)
def test_labels_follow_the_naming_layouts(
    pod: str, workloads: list[Workload], wanted: dict[str, str]
) -> None:
    assert implied_labels(pod, workloads) == wanted
