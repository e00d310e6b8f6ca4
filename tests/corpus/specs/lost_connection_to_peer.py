"""A TPU worker crashes; its peers report lost connection to peer."""

from __future__ import annotations

from tests.corpus import beats
from tests.corpus.clock import MS, sec
from tests.corpus.expect import (
    act,
    by_first_error,
    errors_act,
    finish,
    host_ref,
    message_of,
    ref,
    unrelated_of,
    versions,
)
from tests.corpus.incident import Incident, Story
from tests.corpus.layouts import fresh_jobset, release
from tests.corpus.model import RM, WORKER, Pod, Run
from tests.corpus.specs.two_failures import PEER_GUESS
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
LOST = "DEADLINE_EXCEEDED: lost connection to peer {peer} (slice {slice} host {host})"
LOST_WHILE_RECEIVING = Line(
    LOST + " while receiving collective chunk",
    ("dcn_transport.cc", 722),
    letter="E",
    planted=True,
    guess=PEER_GUESS,
)
LOST_PEER = Line(LOST, ("dcn_transport.cc", 722), letter="E", planted=True, guess=PEER_GUESS)
PIPE_CLOSED = Line(
    "DATA_LOSS: Pipe from scheduler to aggregator closed while a program was running on slice "
    "{slice}",
    ("dcn_transport.cc", 722),
    letter="E",
    planted=True,
    guess=PEER_GUESS,
)
CLIENT_LOST_PEER = beats.traceback_line(
    beats.TRAIN_FRAMES[2:], "jax.errors.JaxRuntimeError: " + LOST
)


def fallout(
    inc: Incident, run: Run, first: Pod, second: Pod, at: int
) -> tuple[list[dict[str, str]], list[Entry]]:
    """`second` loses its peer 40 ms after `first` crashed, then every other worker, in random
    order. Returns the failing hosts and the peers' first lines."""
    place = {"peer": f"{first.node.name}:8471", "slice": first.slice, "host": first.host}
    at += 40 * MS + inc.between(0.0, 0.0009)
    lines = [inc.log(second, WORKER, at, LOST_WHILE_RECEIVING, **place)]
    hosts = [host_ref(second, lines[0])]
    others = [pod for pod in run.flat_workers() if pod not in (first, second)]
    inc.shuffle(others)
    for pod in others:
        at += inc.between(0.002, 0.012)
        lines.append(
            inc.log(
                pod, WORKER, at, PIPE_CLOSED if pod.slice == first.slice else LOST_PEER, **place
            )
        )
        hosts.append(host_ref(pod, lines[-1]))
    return hosts, lines


def build() -> Incident:
    inc = Incident(STORY)
    version = release(image="maxtext:2026-11-18")
    run = fresh_jobset(inc, "llama-train", slices=2, hosts=3, version=version, itype="tpuv6e:2x6")
    boot = beats.start_run(inc, run, inc.t0 + inc.between(140, 200))
    beats.decoy_jobset(
        inc, "llama-train", version, inc.t0 + inc.between(60, 120), inc.t0 + sec(1440)
    )
    beats.bystander(inc)
    crash_at = inc.t0 + sec(1650) + inc.between(0, 25)
    steps = beats.train(inc, run, boot.first_step, crash_at, beats.Training(step_time=13.5))
    first, second = run.workers[1][2], run.workers[0][1]
    crash = beats.check_failure(inc, first, WORKER, crash_at, CHIP_HALTED, trace_us=300)
    inc.log(first, WORKER, crash_at + 2 * MS, beats.SIGABRT, tid=211, cpu=41)
    beats.container_died(inc, first, WORKER, crash_at + inc.between(0.2, 0.5), 134)
    hosts, lines = fallout(inc, run, first, second, crash_at)
    place = {"node": first.node.name, "slice": first.slice, "host": first.host}
    rm = inc.log(run.head, RM, crash_at + inc.between(0.4, 0.8), beats.WORKER_DISCONNECTED, **place)
    client_at = crash_at + inc.between(0.9, 1.4)
    client = beats.client_traceback(
        inc, run, client_at, CLIENT_LOST_PEER, peer=f"{first.node.name}:8471", **place
    )[0]
    beats.finish_exit(inc, run, client_at + inc.between(1.5, 3.0))
    beats.backoff_limit(inc, "llama-train-worker-1", crash_at + sec(2))
    stop = crash_at + inc.between(2.5, 3.5)
    beats.steady(inc, run, boot, default=crash_at)
    dead = (f"{first.name}/{WORKER}", f"{run.head.name}/jax-tpu")
    sigterms = beats.stop_run(inc, run, stop, dead=dead, first_failed="llama-train-worker-1")
    plan = beats.Training(step0=beats.next_step(steps), step_time=13.5)
    beats.restart_and_run(inc, run, stop + inc.between(20, 35), plan)
    beats.node_noise(inc)
    root = ref(inc, crash, "Check failed: !chip_halted", scenario=8, source="container")
    pipe = next(line for line in lines if "DATA_LOSS" in message_of(line))
    lost, data_loss = (
        "DEADLINE_EXCEEDED: lost connection to peer",
        "DATA_LOSS: Pipe from scheduler to aggregator",
    )
    return finish(
        inc,
        workload=["jobset:llama-train"],
        unrelated=unrelated_of(inc, "llama-train-eval"),
        root=root,
        failures=[root],
        symptoms=[
            ref(inc, lines[0], lost),
            ref(inc, pipe, data_loss),
            ref(inc, rm, "UNAVAILABLE: Socket closed"),
            ref(inc, client, "JaxRuntimeError: DEADLINE_EXCEEDED"),
            ref(inc, sigterms[0], "SIGTERM"),
        ],
        failing_hosts=by_first_error([host_ref(first, crash), *hosts]),
        versions=versions(run),
        method=[
            errors_act(first=root, contains=["lost connection to peer"]),
            act("workers", contains=["Check failed: !chip_halted", lost, data_loss]),
            act("pod-events", contains=["Killing", "Stopping container pathways-worker"]),
            act("summary", contains=[beats.RESTART, "BackoffLimitExceeded"]),
        ],
    )
