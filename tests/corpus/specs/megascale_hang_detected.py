"""Megascale's hang detector names a host with bad TPU chips; the coordinator aborts."""

from __future__ import annotations

from tests.corpus import beats
from tests.corpus.clock import sec
from tests.corpus.expect import act, errors_act, finish, host_ref, quiet_first, ref
from tests.corpus.incident import Incident, Story
from tests.corpus.layouts import release
from tests.corpus.model import WORKER

STORY = Story(
    slug="megascale-hang-detected",
    seed=1414,
    start="2026-11-24T20:00:00Z",
    title="Megascale's hang detector names a host with bad TPU chips",
    scenario=14,
    layout="xpk",
    summary=(
        "Slice 1 host 1 stops making progress (its worker's lines stop, the client's steps stop); "
        "about 5.5 minutes later the Megascale coordinator on worker 0-0 logs its hang digest "
        "(Megascale detects a hang ...) naming that host's node, aborts (CRITICAL), the other "
        "workers and the client "
        "follow, and the JobSet restarts. The hung worker ignores SIGTERM and is killed after the "
        "grace period (exit code 137 without any OOM)."
    ),
)


def build() -> Incident:
    inc = Incident(STORY)
    run = beats.standard(
        inc, "llama-moe", release(image="llama-moe:2026-11-24"), decoy_crash=1300.0
    )
    boot = beats.start_run(inc, run, run.launch)
    hung, coordinator = run.workers[1][1], run.workers[0][0]
    hang_at = inc.t0 + sec(1340) + inc.between(0, 20)
    steps = beats.train(inc, run, boot.first_step, hang_at, beats.Training(step_time=11.0))
    quiet_at = steps[-1][0] - inc.between(1.0, 3.0)
    quiet = inc.log(hung, WORKER, quiet_at, beats.EXECUTED, **beats.worker_status(inc))
    detected_at = hang_at + sec(330) + inc.between(0, 5)
    digest, abort, client = beats.hang_detected(inc, run, coordinator, hung, detected_at)
    beats.finish_exit(inc, run, detected_at + inc.between(3.0, 4.0))
    stop = detected_at + inc.between(4.5, 6.0)
    beats.steady(inc, run, boot, {hung.name: quiet_at - sec(1)}, default=detected_at)
    dead = (f"{coordinator.name}/{WORKER}", f"{run.head.name}/jax-tpu", f"{hung.name}/{WORKER}")
    beats.stop_run(inc, run, stop, dead=dead, first_failed="llama-moe-worker-0")
    # the hung worker ignores SIGTERM and is killed after the grace period
    killed_at = stop + inc.between(0.7, 1.0)
    beats.stop_container(inc, hung, WORKER, killed_at, signal=False, code=137)
    plan = beats.Training(step0=beats.next_step(steps), step_time=11.0)
    beats.restart_and_run(inc, run, stop + inc.between(40, 60), plan)
    beats.node_noise(inc)
    root = ref(inc, digest, "Megascale detects a hang", scenario=14, source="container")
    named = f"The host that have bad TPUs are: {hung.node.name}"
    return finish(
        inc,
        run,
        root=root,
        symptoms=[
            ref(inc, abort, "Aborting the coordinator"),
            ref(inc, client, "the Megascale coordinator aborted"),
        ],
        failing_hosts=[host_ref(hung, quiet), host_ref(coordinator, digest)],
        hang=quiet_first(hung, WORKER, quiet),
        method=[
            act("workers", contains=["Megascale detects a hang", named]),
            errors_act(contains=["Aborting the coordinator"]),
            act("user-workload", contains=[f"completed step: {steps[-1][1]},"]),
        ],
    )
