"""Kueue preempts a running JobSet for a workload of higher priority."""

from __future__ import annotations

from tests.corpus import beats
from tests.corpus.beats.attempts import stop_run
from tests.corpus.beats.controller import kueue_preempts
from tests.corpus.clock import sec
from tests.corpus.expect import act, errors_act, finish, ref
from tests.corpus.incident import Incident, Story
from tests.corpus.layouts import release

STORY = Story(
    slug="kueue-preemption",
    seed=2020,
    start="2026-11-28T09:00:00Z",
    title="Kueue preemption: a higher-priority workload takes the TPUs",
    scenario=26,
    layout="xpk, Kueue",
    summary=(
        "The run trains until Kueue evicts its Workload for a workload of higher priority: "
        "Kueue records a Stopped event on the JobSet with the preemption message, the JobSet "
        "records SuspendedJobs and stops every pod, client included, which log SIGTERM beside "
        "the kubelet's Killing events. No container logs why; the cause is Kueue's event."
    ),
)


def build() -> Incident:
    inc = Incident(STORY)
    version = release(jax="0.12.0.1", build="20261106_RC02", image="mixtral-pt:2026-11-27")
    run = beats.standard(inc, "mixtral-pt", version, decoy_crash=1500.0)
    boot = beats.start_run(inc, run, run.launch)
    at = inc.t0 + sec(1960) + inc.between(0, 20)
    beats.steady(inc, run, boot, default=at + sec(2))
    steps = beats.train(inc, run, boot.first_step, at, beats.Training(step_time=8.1))
    beats.node_noise(inc)
    stopped = kueue_preempts(inc, run.name, run.uid, at)
    sigterms = stop_run(inc, run, at + inc.between(0.4, 0.9), reason="SuspendedJobs")
    inc.issue = at + sec(120)
    root = ref(
        inc, stopped, "Preempted to accommodate a workload", scenario=26, source="cluster-event"
    )
    last_step = f"completed step: {steps[-1][1]},"
    return finish(
        inc,
        run,
        root=root,
        symptoms=[ref(inc, min(sigterms, key=lambda e: e["timestamp"]), "SIGTERM")],
        method=[
            errors_act(contains=["SIGTERM"]),
            act("pod-events", contains=["Preempted to accommodate a workload", "SuspendedJobs"]),
            act(
                "user-workload",
                args=["--order=desc", "--min_severity=DEFAULT"],
                contains=[last_step],
            ),
        ],
    )
