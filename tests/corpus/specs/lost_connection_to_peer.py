"""A TPU worker crashes; its peers report lost connection to peer."""

from __future__ import annotations

from tests.corpus import beats
from tests.corpus.clock import MS, sec
from tests.corpus.expect import (
    Host,
    act,
    by_first_error,
    errors_act,
    finish,
    host_ref,
    message_of,
    ref,
)
from tests.corpus.incident import Incident, Story
from tests.corpus.layouts import fresh_jobset, release
from tests.corpus.model import RM, WORKER, Run
from tests.corpus.wording import Line
from tests.logentry import Entry

STORY = Story(
    slug="lost-connection-to-peer",
    seed=808,
    start="2026-11-20T04:20:00Z",
    title="A TPU worker crashes; its peers report lost connection to peer",
    scenario=8,
    layout="xpk",
    summary=(
        "Worker slice 1 host 2 hits a fatal `Check failed` (halted TPU chip) first; 40 ms later "
        "slice 0 host 1 and then every other worker log DEADLINE_EXCEEDED lost connection to peer "
        "or DATA_LOSS Pipe from scheduler to aggregator, the client raises, and the JobSet "
        "restarts (attempt 1 then trains normally). The first failing host in time (1-2) is not "
        "the lowest-indexed failing host (0-1); the unrelated llama-train-eval JobSet crashed "
        "earlier."
    ),
)
CHIP_HALTED = Line(
    "Check failed: !chip_halted TPU chip 2 halted with an uncorrectable HBM ECC error",
    ("tpu_chip_monitor.cc", 188),
    letter="F",
    planted=True,
    guess="the worker crash line `Check failed: !chip_halted TPU chip 2 halted with an "
    "uncorrectable HBM ECC error` (tpu_chip_monitor.cc)",
)


def chip_halts(
    inc: Incident, run: Run, at: int
) -> tuple[Entry, list[Host], list[Entry], Entry, Entry]:
    """Worker 1-2's TPU chip halts; worker 0-1 loses it first, then every other worker; the
    RM and the client follow. Returns the crash, the failing hosts, the peers' lines, the
    RM's line and the client's traceback."""
    dead, first = run.workers[1][2], run.workers[0][1]
    crash = beats.check_failure(inc, dead, WORKER, at, CHIP_HALTED, trace_us=300)
    inc.log(dead, WORKER, at + 2 * MS, beats.SIGABRT, tid=211, cpu=41)
    beats.container_died(inc, dead, WORKER, at + inc.between(0.2, 0.5), 134)
    hosts, lines = beats.peers_one_by_one(inc, run, dead, first, at)
    place = {"node": dead.node.name, "slice": dead.slice, "host": dead.host}
    rm = inc.log(run.head, RM, at + inc.between(0.4, 0.8), beats.WORKER_DISCONNECTED, **place)
    client_at = at + inc.between(0.9, 1.4)
    peer = f"{dead.node.name}:8471"
    lost = beats.lost_peer(inc, dead.node, run.head.node, client_at)
    client = beats.client_traceback(inc, run, client_at, beats.CLIENT_PEER_LOST, peer=peer, **lost)[
        0
    ]
    beats.finish_exit(inc, run, client_at + inc.between(1.5, 3.0))
    return crash, [host_ref(dead, crash), *hosts], lines, rm, client


def build() -> Incident:
    inc = Incident(STORY)
    version = release(image="maxtext:2026-11-18")
    run = fresh_jobset(inc, "llama-train", slices=2, hosts=3, version=version, itype="tpuv6e:2x6")
    boot = beats.start_run(inc, run, inc.t0 + inc.between(140, 200))
    decoy_start = inc.t0 + inc.between(60, 120)
    beats.decoy_jobset(inc, "llama-train", version, decoy_start, inc.t0 + sec(1440))
    beats.bystander(inc)
    crash_at = inc.t0 + sec(1650) + inc.between(0, 25)
    steps = beats.train(inc, run, boot.first_step, crash_at, beats.Training(step_time=13.5))
    crash, hosts, lines, rm, client = chip_halts(inc, run, crash_at)
    beats.backoff_limit(inc, "llama-train-worker-1", crash_at + sec(2))
    stop = crash_at + inc.between(2.5, 3.5)
    beats.steady(inc, run, boot, default=crash_at)
    dead = (f"{run.workers[1][2].name}/{WORKER}", f"{run.head.name}/jax-tpu")
    sigterms = beats.stop_run(inc, run, stop, dead=dead, first_failed="llama-train-worker-1")
    plan = beats.Training(step0=beats.next_step(steps), step_time=13.5)
    beats.restart_and_run(inc, run, stop + inc.between(20, 35), plan)
    beats.node_noise(inc)
    root = ref(inc, crash, "Check failed: !chip_halted", scenario=None, source="container")
    pipe = next(line for line in lines if "DATA_LOSS" in message_of(line))
    lost = "DEADLINE_EXCEEDED: lost connection to peer"
    data_loss = "DATA_LOSS: Pipe from scheduler to aggregator"
    return finish(
        inc,
        run,
        root=root,
        symptoms=[
            ref(inc, lines[0], lost),
            ref(inc, pipe, data_loss),
            ref(inc, rm, "UNAVAILABLE: Socket closed"),
            ref(inc, client, "JaxRuntimeError: DEADLINE_EXCEEDED"),
            ref(inc, sigterms[0], "SIGTERM"),
        ],
        failing_hosts=by_first_error(hosts),
        method=[
            errors_act(first=root, contains=["lost connection to peer"]),
            act("workers", contains=["Check failed: !chip_halted", lost, data_loss]),
            act("pod-events", contains=["Killing", "Stopping container pathways-worker"]),
            act("summary", contains=[beats.RESTART, "BackoffLimitExceeded"]),
        ],
    )
