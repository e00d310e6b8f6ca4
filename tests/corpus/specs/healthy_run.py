"""A healthy Cluster Toolkit run: nothing to find."""

from __future__ import annotations

from tests.corpus import beats
from tests.corpus.clock import sec
from tests.corpus.expect import DECOY_CRASH, act, finish
from tests.corpus.incident import Incident, Story
from tests.corpus.layouts import release

STORY = Story(
    slug="healthy-run",
    seed=1717,
    start="2026-11-26T10:00:00Z",
    title="Healthy run (Cluster Toolkit layout): nothing to find",
    scenario=None,
    layout="Cluster Toolkit, JSON progress lines",
    summary=(
        "A Cluster Toolkit JobSet (workload-container with JSON progress lines, python-sidecar on "
        "the head pod) starts normally and trains to the end of the window; its only "
        "ERROR-severity lines are benign start-up stderr notices. The unrelated "
        "qwen-pretrain-eval JobSet crashes in the same namespace."
    ),
)


def build() -> Incident:
    inc = Incident(STORY)
    inc.new_kubelet = False
    version = release(jax="0.12.0.1", build="20261106_RC02", image="qwen-pretrain:2026-11-25")
    run = beats.standard(
        inc,
        "qwen-pretrain",
        version,
        layout="toolkit",
        sidecar=True,
        launch=120.0,
        decoy_crash=1100.0,
    )
    run.user_style = "json"
    boot = beats.start_run(inc, run, run.launch)
    beats.steady(inc, run, boot)
    steps = beats.train(inc, run, boot.first_step, inc.t1 - sec(2), beats.Training(step_time=8.8))
    beats.node_noise(inc)
    last_step = f"completed step: {steps[-1][1]},"
    return finish(
        inc,
        run,
        root=None,
        failures=[],
        method=[
            act("errors", absent=[*DECOY_CRASH, "SIGTERM"]),
            act("user-workload", args=["--min_severity=DEFAULT"], contains=[last_step]),
            act("pathways-rm", contains=["2/2 Pathways Slices Now Ready"]),
            act("pod-events", absent=["Killing", "BackOff", "Failed"]),
        ],
    )
