"""A worker goes quiet and the client's steps stop, with no error anywhere."""

from __future__ import annotations

from tests.corpus import beats
from tests.corpus.clock import sec
from tests.corpus.expect import act, errors_act, finish, quiet_first, ref
from tests.corpus.incident import Incident, Story
from tests.corpus.layouts import release
from tests.corpus.model import WORKER

STORY = Story(
    slug="silent-hang",
    seed=1616,
    start="2026-11-25T14:00:00Z",
    title="Silent hang: one worker goes quiet, then the client's steps stop",
    scenario=14,
    layout="xpk, colocated-python-sidecar",
    summary=(
        "Nothing logs an error: the pathways-worker of slice 0 host 2 logs its last line, the "
        "client completes one more step a few seconds later and then stops, while the RM, proxy "
        "and the other workers keep logging their periodic lines to the end of the window. The "
        "lead is the worker that went quiet first."
    ),
)
LAST_LINES = ["--order=desc", "--first_per_pod=1", "--min_severity=DEFAULT"]


def build() -> Incident:
    inc = Incident(STORY)
    version = release(jax="0.11.2", build="20261013_RC00", image="dpo-train:2026-11-24")
    run = beats.standard(
        inc, "dpo-train", version, hosts=3, sidecar=True, itype="tpuv6e:2x6", decoy_crash=1250.0
    )
    boot = beats.start_run(inc, run, run.launch)
    quiet_pod = run.workers[0][2]
    quiet_at = inc.t0 + sec(1390) + inc.between(0, 20)
    beats.steady(inc, run, boot, {quiet_pod.name: quiet_at - sec(1)})
    quiet = inc.log(quiet_pod, WORKER, quiet_at, beats.EXECUTED, **beats.worker_status(inc))
    stop = quiet_at + inc.between(5.0, 8.0)
    steps = beats.train(inc, run, boot.first_step, stop, beats.Training(step_time=6.9))
    beats.node_noise(inc)
    root = ref(inc, quiet, "Executed", scenario=14, source="container")
    last_step = f"completed step: {steps[-1][1]},"
    return finish(
        inc,
        run,
        root=root,
        symptoms=[ref(inc, steps[-1][2], last_step)],
        hang=quiet_first(quiet_pod, WORKER, quiet),
        method=[
            errors_act(),
            act("user-workload", args=LAST_LINES, contains=[last_step]),
            act("workers", args=LAST_LINES, contains=[quiet["textPayload"]]),
            act("pod-events", absent=["Killing", "BackOff"]),
        ],
    )
