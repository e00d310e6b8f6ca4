"""The compilation service on the head node goes away while the client's first step compiles."""

from __future__ import annotations

from tests.corpus import beats
from tests.corpus.clock import sec
from tests.corpus.expect import act, errors_act, finish, ref
from tests.corpus.incident import Incident, Story
from tests.corpus.layouts import release
from tests.corpus.model import RM

STORY = Story(
    slug="compilation-service-crash",
    seed=2323,
    start="2026-11-30T13:00:00Z",
    title="The head node's compilation service goes away while the first step compiles",
    scenario=17,
    layout="xpk",
    summary=(
        "All slices are ready and the client starts compiling its first step; the pathways-rm "
        "container on the CPU head node (which runs the compilation service) exits without a "
        "line (exit code 139). The client's compile fails with compile: ABORTED: Compilation "
        "service has crashed or shut down ..., whose original error is a lost connection to the "
        "peer at the head node's own URL; the JobSet restarts. No TPU worker failed: the lost "
        "peer is the head's service, and the client's line is downstream of it."
    ),
)
COMPILE_GUESS = (
    "what wraps `compile: ABORTED: Compilation service has crashed ...` in the client's "
    "exception, the computation key and name, and the client's frames"
)
CRASHED = (
    "compile: ABORTED: Compilation service has crashed or shut down while compilation was "
    "pending for computation with key: {key}, computation name: jit_train_step, original "
    "error: DEADLINE_EXCEEDED: lost connection to peer at http://machine/{node}/events#srcs="
    "borg%2Bcoroner since {ago}s ago; this usually means that the peer has unexpectedly gone "
    "away (peer stopped sending messages since {since}; timeout is 10s and the current machine "
    "is http://machine/{me}/events#srcs=borg%2Bcoroner)"
)
COMPILE_FAILED = beats.traceback_line(
    beats.TRAIN_FRAMES,
    "jax.errors.JaxRuntimeError: INTERNAL: " + CRASHED,
    guess=COMPILE_GUESS,
)


def build() -> Incident:
    inc = Incident(STORY)
    version = release(image="maxtext:2026-11-29")
    run = beats.standard(inc, "mixtral-train", version, launch=240.0)
    boot = beats.start_run(inc, run, run.launch)
    assert run.client is not None
    gone = boot.first_step - sec(20) + inc.between(0, 5)
    beats.container_died(inc, run.head, RM, gone, 139)
    failed_at = gone + sec(11) + inc.between(0, 1)
    lost = beats.lost_peer(inc, run.head.node, run.client.node, failed_at)
    lines = beats.client_traceback(
        inc, run, failed_at, COMPILE_FAILED, key=inc.hex(16), per_line=True, **lost
    )
    beats.finish_exit(inc, run, failed_at + inc.between(1.0, 2.0))
    stop = failed_at + inc.between(3.0, 4.0)
    beats.steady(inc, run, boot, {f"{run.head.name}/{RM}": gone}, default=stop)
    dead = (f"{run.head.name}/{RM}", f"{run.head.name}/jax-tpu")
    beats.stop_run(inc, run, stop, dead=dead, first_failed=f"{run.name}-pathways-head-0")
    plan = beats.Training(step_time=9.5)
    beats.restart_and_run(inc, run, stop + inc.between(20, 30), plan)
    beats.node_noise(inc)
    text = "Compilation service has crashed or shut down"
    root = ref(inc, lines[-1], text, scenario=17, source="container", downstream_only=True)
    return finish(
        inc,
        run,
        root=root,
        method=[
            errors_act(contains=["lost connection to peer at http://machine/"]),
            act("user-workload", contains=[text]),
            act("workers", absent=["Check failed", "lost connection to peer"]),
            act("summary", contains=[beats.RESTART]),
        ],
    )
