"""Two failures in one window: a worker crash, then an HBM OOM after the restart."""

from __future__ import annotations

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
    unrelated_of,
    versions,
)
from tests.corpus.incident import Incident, Story
from tests.corpus.layouts import next_attempt, release
from tests.corpus.model import WORKER
from tests.corpus.wording import Line

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
PEER_GUESS = (
    "peer lines: text after `DEADLINE_EXCEEDED: lost connection to peer` and after `DATA_LOSS: "
    "Pipe from scheduler to aggregator`"
)
PEER_LOST = Line(
    "DEADLINE_EXCEEDED: lost connection to peer {peer} (slice {slice} host {host})",
    ("dcn_transport.cc", 722),
    letter="E",
    planted=True,
    guess=PEER_GUESS,
)
PIPE_CLOSED = Line(
    "DATA_LOSS: Pipe from scheduler to aggregator closed; peer {peer} is gone",
    ("dcn_transport.cc", 722),
    letter="E",
    planted=True,
    guess=PEER_GUESS,
)
EVALUATING = Line(
    "Running evaluation at step {step} with eval_per_device_batch_size=8",
    ("train.py", 655),
    guess=GUESS,
)
HBM_EXHAUSTED = beats.traceback_line(
    beats.TRAIN_FRAMES[2:4],
    "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting "
    "to allocate 6.00G. That was not possible. There are 3.12G free.; (0x0x0_HBM0)",
    guess="the HBM RESOURCE_EXHAUSTED message details",
)


def build() -> Incident:
    inc = Incident(STORY)
    run = beats.standard(
        inc, "olmo-train", release(image="olmo-train:2026-11-26"), launch=90.0, decoy_crash=1000.0
    )
    boot = beats.start_run(inc, run, run.launch)
    crash_at = inc.t0 + sec(860) + inc.between(0, 30)
    steps = beats.train(inc, run, boot.first_step, crash_at, beats.Training(step_time=7.9))
    crashed = run.workers[0][1]
    crash = beats.check_failure(inc, crashed, WORKER, crash_at, DMA_FAILED, trace_us=200)
    beats.container_died(inc, crashed, WORKER, crash_at + inc.between(0.2, 0.4), 134)
    rows = (PEER_LOST, PIPE_CLOSED)
    hosts, peers = beats.peer_cascade(inc, run, crashed, crash_at + inc.between(0.03, 0.05), rows)
    _, client = beats.worker_loss(inc, run, crashed, crash_at)
    beats.finish_exit(inc, run, crash_at + inc.between(2.0, 3.0))
    stop = crash_at + inc.between(3.0, 4.0)
    beats.steady(inc, run, boot, default=crash_at)
    dead = (f"{crashed.name}/{WORKER}", f"{run.head.name}/jax-tpu")
    beats.stop_run(inc, run, stop, dead=dead, first_failed="olmo-train-worker-0")
    second = next_attempt(inc, run)
    step0 = beats.next_step(steps)
    boot = beats.start_run(
        inc, second, stop + inc.between(20, 30), restore_step=(step0 - 1) or None
    )
    oom_at = inc.t0 + sec(1720) + inc.between(0, 20)
    steps = beats.train(
        inc, second, boot.first_step, oom_at, beats.Training(step0=step0, step_time=7.9)
    )
    inc.log(second.head, "jax-tpu", oom_at - inc.between(1.0, 2.0), EVALUATING, step=steps[-1][1])
    oom = beats.client_traceback(inc, second, oom_at, HBM_EXHAUSTED, per_line=True)[-1]
    beats.finish_exit(inc, second, oom_at + inc.between(0.8, 1.5))
    stop = oom_at + inc.between(2.0, 3.0)
    beats.steady(inc, second, boot, default=stop)
    beats.stop_run(
        inc, second, stop, dead=(f"{second.head.name}/jax-tpu",), reason="ReachedMaxRestarts"
    )
    beats.node_noise(inc)
    first = ref(
        inc,
        crash,
        "Check failed: dma_status.ok()",
        scenario=8,
        source="container",
        restart_attempt="0",
    )
    text = "RESOURCE_EXHAUSTED: Error allocating device buffer"
    root = ref(inc, oom, text, scenario=None, source="container", restart_attempt="1")
    first_peer = earliest(peers)
    lost = "lost connection to peer"
    peer_text = lost if lost in message_of(first_peer) else "Pipe from scheduler to aggregator"
    return finish(
        inc,
        workload=["jobset:olmo-train"],
        unrelated=unrelated_of(inc, "olmo-train-eval"),
        root=root,
        failures=[first, root],
        symptoms=[ref(inc, first_peer, peer_text), ref(inc, client, "JaxRuntimeError")],
        failing_hosts=failing_from(crashed, crash, hosts),
        versions=versions(run),
        method=[
            errors_act(first=first, contains=["RESOURCE_EXHAUSTED"]),
            act("user-workload", contains=[text]),
            act("summary", contains=[beats.RESTART, "ReachedMaxRestarts"]),
            act("pod-events", contains=["Killing"]),
        ],
    )
