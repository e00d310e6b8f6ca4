"""Lines a healthy deployment repeats: components' periodic status and training progress."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tests.corpus.clock import sec
from tests.corpus.incident import Incident
from tests.corpus.model import PROXY, RM, SIDECARS, WORKER, Boot, Pod, Run
from tests.corpus.wording import MAXTEXT_GUESS, PERIODIC_GUESS, Line
from tests.logentry import Entry

SLICE_HEALTH = Line(
    "Slice health: {ready}/{slices} slices ready, {workers} workers connected, "
    "{sessions} client session(s)",
    ("resource_manager.cc", 1290),
    guess=PERIODIC_GUESS,
)
NO_SESSIONS = Line("No active IFRT proxy sessions", ("proxy_server.cc", 402), guess=PERIODIC_GUESS)
SESSION_SERVED = Line(
    "Session 1: {served} requests served, {arrays} arrays live",
    ("proxy_server.cc", 402),
    guess=PERIODIC_GUESS,
)
EXECUTED = Line(
    "Executed {programs} programs in the last 60s; host memory in use {memory:.1f} GiB",
    ("executor.cc", 530),
    guess=PERIODIC_GUESS,
)
SIDECAR_CALLS = Line(
    "Handled {calls} colocated Python calls in the last 300s",
    form="plain",
    stream="stdout",
    guess=PERIODIC_GUESS,
)
PERIODS = {RM: (150.0, 260.0), PROXY: (240.0, 420.0), WORKER: (150.0, 240.0)}
SIDECAR_PERIOD = (300.0, 480.0)

STEP = (
    "completed step: {step}, seconds: {took:.3f}, TFLOP/s/device: {tflops:.3f}, "
    "Tokens/s/device: {tokens:.3f}, total_weights: 65536, loss: {loss:.3f}"
)
STEP_LINES = {
    "maxtext": Line(STEP, ("metric_logger.py", 214)),
    "json": Line(
        STEP,
        form="json",
        logger="qwen.train.metrics",
        guess="the JSON logger name `qwen.train.metrics` and the JSON form of the progress lines",
    ),
    "print": Line(
        STEP,
        form="plain",
        stream="stdout",
        guess="the client program's frames and its plain `completed step:` lines",
    ),
}
SAVED = "saved a checkpoint at step {step}"
SAVED_BY_MAXTEXT = Line(SAVED, ("checkpointing.py", 388), guess=MAXTEXT_GUESS)
SAVED_PRINTED = Line(SAVED, form="plain", stream="stdout", guess=MAXTEXT_GUESS)
Step = tuple[int, int, Entry]  # when, step number, the progress line


@dataclass(frozen=True)
class Training:
    """How a client trains: from which step, how fast, how often it saves a checkpoint."""

    step0: int = 1
    step_time: float = 6.0
    save_every: int = 100
    loss0: float = 3.2
    last_step: int | None = None


def steady(
    inc: Incident,
    run: Run,
    boot: Boot,
    until: dict[str, int] | None = None,
    default: int | None = None,
    *,
    memory: dict[str, tuple[float, float]] | None = None,
    periods: dict[str, tuple[float, float]] | None = None,
) -> None:
    """Periodic lines of every Pathways container and sidecar, each until its stop time.

    `until` maps `pod` or `pod/container` to a stop time (else `default`, else the window's
    end); `memory` makes a worker's host memory grow from one figure to the other; `periods`
    overrides a container's seconds between lines (PERIODS)."""
    until, memory, periods = until or {}, memory or {}, {**PERIODS, **(periods or {})}
    end = inc.t1 - sec(2) if default is None else default
    for (pod_name, container), start in boot.steady_from.items():
        stop = until.get(f"{pod_name}/{container}", until.get(pod_name, end))
        pod = inc.pods[pod_name]
        if container in SIDECARS:
            _sidecar_ticks(inc, pod, container, start, stop)
        else:
            growth = memory.get(pod_name)
            period = periods[container]
            _ticks(inc, run, boot, pod, container, (start, stop), period, growth)


def _ticks(
    inc: Incident,
    run: Run,
    boot: Boot,
    pod: Pod,
    container: str,
    span: tuple[int, int],
    period: tuple[float, float],
    growth: tuple[float, float] | None,
) -> None:
    """A component's status lines over `span`, `period` seconds (at random between the two)
    apart."""
    at, index = span[0], 0
    while True:
        at += inc.between(*period)
        row, fields = _status(inc, run, boot, container, index)
        if at >= span[1]:
            return
        if growth is not None:
            progress = (at - span[0]) / max(1, span[1] - span[0])
            fields["memory"] = growth[0] + (growth[1] - growth[0]) * progress
        inc.log(pod, container, at, row, **fields)
        index += 1


def _status(
    inc: Incident, run: Run, boot: Boot, container: str, index: int
) -> tuple[Line, dict[str, object]]:
    """A component's periodic status line and its fields (drawn even when not logged)."""
    if container == RM:
        counts = {"ready": boot.slices_ready, "workers": boot.workers_connected}
        return SLICE_HEALTH, {**counts, "slices": len(run.workers), "sessions": boot.sessions}
    if container == PROXY:
        if not boot.sessions:
            return NO_SESSIONS, {}
        served = 9000 + index * inc.integer(2500, 4000)
        return SESSION_SERVED, {"served": served, "arrays": inc.integer(300, 900)}
    return EXECUTED, worker_status(inc)


def worker_status(inc: Incident) -> dict[str, object]:
    """A worker's periodic figures: programs run in the last minute, host memory in use."""
    return {"programs": inc.integer(180, 260), "memory": inc.uniform(78.0, 96.0)}


def _sidecar_ticks(inc: Incident, pod: Pod, container: str, start: int, stop: int) -> None:
    at = start
    while True:
        at += inc.between(*SIDECAR_PERIOD)
        if at >= stop:
            return
        inc.log(pod, container, at, SIDECAR_CALLS, calls=inc.integer(8, 40))


def train(
    inc: Incident,
    run: Run,
    start: int,
    stop: int,
    plan: Training = Training(),
    *,
    save: Callable[[int, int], None] | None = None,
) -> list[Step]:
    """The client's `completed step:` lines from `start` until `stop` (or the plan's last step).

    Every `save_every` steps it saves a checkpoint (`save(step, when)` instead, if given)."""
    pod, container = run.client, run.user
    assert pod is not None and container is not None
    steps: list[Step] = []
    at, step, loss = start, plan.step0, plan.loss0
    while plan.last_step is None or step <= plan.last_step:
        took = plan.step_time * inc.uniform(0.97, 1.05)
        at += sec(took)
        if at >= stop:
            break
        loss = max(1.2, loss - inc.uniform(-0.004, 0.009))
        tflops = 180.0 / plan.step_time * inc.uniform(0.96, 1.03)
        figures = {"step": step, "took": took, "tflops": tflops, "tokens": 16384 / took}
        row = STEP_LINES[run.user_style]
        entry = inc.log(pod, container, at, row, thread=run.client_thread, loss=loss, **figures)
        steps.append((at, step, entry))
        if step % plan.save_every == 0:
            if save is not None:
                save(step, at)
            else:
                at += inc.between(1.2, 3.5)
                saved = SAVED_BY_MAXTEXT if run.user_style == "maxtext" else SAVED_PRINTED
                inc.log(pod, container, at, saved, step=step)
        step += 1
    return steps


def next_step(steps: list[Step]) -> int:
    """The first step after the last checkpoint (taken every 100 steps)."""
    return steps[-1][1] // 100 * 100 + 1
