"""A run that finished: the client exits 0, the JobSet completes and stops the other pods."""

from __future__ import annotations

from tests.corpus import beats
from tests.corpus.beats.attempts import finish_exit, stop_run
from tests.corpus.clock import sec
from tests.corpus.expect import act, errors_act, finish, ref
from tests.corpus.incident import Incident, Story
from tests.corpus.layouts import release

COMPLETED = "AllJobsCompleted"
STORY = Story(
    slug="finished-run",
    seed=1919,
    start="2026-11-27T06:00:00Z",
    title="Finished run: the JobSet completed, and its teardown looks like a failure",
    scenario=None,
    layout="xpk, colocated-python-sidecar",
    summary=(
        "The client completes its last step and exits 0 (xpk prints EXIT_CODE=0); the JobSet "
        "controller records AllJobsCompleted and stops the RM, proxy and workers, which log "
        "SIGTERM beside the kubelet's Killing events. Nothing failed: the stops are the "
        "teardown of a finished run. The window runs on 20 minutes past the end."
    ),
)
LAST_LINES = ["--order=desc", "--min_severity=DEFAULT"]


def build() -> Incident:
    inc = Incident(STORY)
    version = release(jax="0.12.0.1", build="20261106_RC02", image="gemma-sft:2026-11-26")
    run = beats.standard(inc, "gemma-sft", version, sidecar=True, decoy_crash=900.0)
    boot = beats.start_run(inc, run, run.launch)
    end = inc.t0 + sec(2390) + inc.between(0, 20)
    beats.steady(inc, run, boot, default=end + sec(4))
    steps = beats.train(inc, run, boot.first_step, end, beats.Training(step_time=7.4))
    beats.node_noise(inc)
    exit_at = steps[-1][0] + inc.between(1.0, 2.0)
    finish_exit(inc, run, exit_at, code=0)
    done_at = exit_at + inc.between(1.5, 2.5)
    stop_run(inc, run, done_at, dead=(f"{run.head.name}/{run.user}",), reason=COMPLETED)
    done = next(e for _, e in inc.rows if e.get("jsonPayload", {}).get("reason") == COMPLETED)
    inc.issue = exit_at + sec(60)
    last_step = f"completed step: {steps[-1][1]},"
    return finish(
        inc,
        run,
        root=None,
        failures=[],
        method=[
            errors_act(),
            act("user-workload", args=LAST_LINES, contains=[last_step, "EXIT_CODE=0"]),
            act("pod-events", contains=["Killing"]),
        ],
        extra={"completed": ref(inc, done, "jobset completed successfully")},
    )
