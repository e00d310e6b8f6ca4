"""Two failures in one window: a worker crash, then an HBM OOM after the restart."""

from __future__ import annotations

from dataclasses import dataclass

from tests.corpus import beats
from tests.corpus.clock import sec
from tests.corpus.expect import (
    act,
    earliest,
    errors_act,
    failing_from,
    finish,
    message_of,
    ref,
)
from tests.corpus.incident import Incident, Story
from tests.corpus.layouts import next_attempt, release
from tests.corpus.model import WORKER, Boot, Pod, Run
from tests.corpus.wording import Line
from tests.logentry import Entry

STORY = Story(
    slug="two-failures",
    seed=2020,
    start="2026-11-27T11:00:00Z",
    title="Two failures in one window: a worker crash, then an HBM OOM after the restart",
    scenario=None,
    layout="xpk, restart attempts 0 and 1",
    summary=(
        "Restart attempt 0 fails when worker slice 0 host 1 hits a fatal Check failed (peers lose "
        "their connection, JobSet restarts); restart attempt 1 resumes from the last checkpoint "
        "and fails about 14 minutes later with RESOURCE_EXHAUSTED (TPU HBM, not host memory) "
        "during evaluation, ending the JobSet with ReachedMaxRestarts. The second failure is the "
        "one at the issue time."
    ),
)
GUESS = (
    "worker crash `Check failed: dma_status.ok() DMA engine 3 ...`; `Running evaluation at step "
    "N ...`"
)
DMA_FAILED = Line(
    "Check failed: dma_status.ok() DMA engine 3 on TPU chip 1 reported a parity error",
    ("tpu_dma.cc", 402),
    letter="F",
    planted=True,
    guess=GUESS,
)
EVALUATING = Line(
    "Running evaluation at step {step} with eval_per_device_batch_size=8",
    ("train.py", 655),
    guess=GUESS,
)


@dataclass
class Crash:
    """What attempt 0's crash left: the pod, its line, the failing hosts, the first peer's
    and the client's lines, when the attempt stopped and the step to resume from."""

    pod: Pod
    line: Entry
    hosts: list[dict[str, str]]
    peer: Entry
    client: Entry
    stop: int
    next_step: int


HBM_EXHAUSTED = beats.traceback_line(
    beats.TRAIN_FRAMES[2:4],
    "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting "
    "to allocate 6.00G. That was not possible. There are 3.12G free.; (0x0x0_HBM0)",
)


def worker_crashes(inc: Incident, run: Run, boot: Boot, at: int) -> Crash:
    """Attempt 0: a worker's fatal check, its peers and the client fail, the JobSet restarts."""
    steps = beats.train(inc, run, boot.first_step, at, beats.Training(step_time=7.9))
    crashed = run.workers[0][1]
    crash = beats.check_failure(inc, crashed, WORKER, at, DMA_FAILED, trace_us=200)
    beats.container_died(inc, crashed, WORKER, at + inc.between(0.2, 0.4), 134)
    rows = (beats.PEER_LOST, beats.PIPE_CLOSED_GONE)
    hosts, peers = beats.peer_cascade(inc, run, crashed, at + inc.between(0.03, 0.05), rows)
    _, client = beats.worker_loss(inc, run, crashed, at)
    beats.finish_exit(inc, run, at + inc.between(2.0, 3.0))
    stop = at + inc.between(3.0, 4.0)
    beats.steady(inc, run, boot, default=at)
    dead = (f"{crashed.name}/{WORKER}", f"{run.head.name}/jax-tpu")
    beats.stop_run(inc, run, stop, dead=dead, first_failed=f"{run.name}-worker-0")
    return Crash(crashed, crash, hosts, earliest(peers), client, stop, beats.next_step(steps))


def runs_out_of_hbm(inc: Incident, run: Run, start: int, step0: int) -> Entry:
    """Attempt 1 resumes, then evaluation cannot allocate HBM; the JobSet gives up.

    Returns the traceback's last line."""
    boot = beats.start_run(inc, run, start, restore_step=(step0 - 1) or None)
    at = inc.t0 + sec(1720) + inc.between(0, 20)
    steps = beats.train(inc, run, boot.first_step, at, beats.Training(step0=step0, step_time=7.9))
    inc.log(run.head, "jax-tpu", at - inc.between(1.0, 2.0), EVALUATING, step=steps[-1][1])
    oom = beats.client_traceback(inc, run, at, HBM_EXHAUSTED, per_line=True)[-1]
    beats.finish_exit(inc, run, at + inc.between(0.8, 1.5))
    stop = at + inc.between(2.0, 3.0)
    beats.steady(inc, run, boot, default=stop)
    beats.stop_run(inc, run, stop, dead=(f"{run.head.name}/jax-tpu",), reason="ReachedMaxRestarts")
    return oom


def build() -> Incident:
    inc = Incident(STORY)
    version = release(image="olmo-train:2026-11-26")
    run = beats.standard(inc, "olmo-train", version, launch=90.0, decoy_crash=1000.0)
    boot = beats.start_run(inc, run, run.launch)
    first = worker_crashes(inc, run, boot, inc.t0 + sec(860) + inc.between(0, 30))
    second = next_attempt(inc, run)
    oom = runs_out_of_hbm(inc, second, first.stop + inc.between(20, 30), first.next_step)
    beats.node_noise(inc)
    check = "Check failed: dma_status.ok()"
    crash = ref(inc, first.line, check, scenario=None, source="container", restart_attempt="0")
    text = "RESOURCE_EXHAUSTED: Error allocating device buffer"
    root = ref(inc, oom, text, scenario=22, source="container", restart_attempt="1")
    lost = "lost connection to peer"
    peer = lost if lost in message_of(first.peer) else "Pipe from scheduler to aggregator"
    return finish(
        inc,
        run,
        root=root,
        failures=[crash, root],
        symptoms=[ref(inc, first.peer, peer), ref(inc, first.client, "JaxRuntimeError")],
        failing_hosts=failing_from(first.pod, first.line, first.hosts),
        method=[
            errors_act(first=crash, contains=["RESOURCE_EXHAUSTED"]),
            act("user-workload", contains=[text]),
            act("summary", contains=[beats.RESTART, "ReachedMaxRestarts"]),
            act("pod-events", contains=["Killing"]),
        ],
    )
