"""How a JobSet attempt ends (the client exits, the JobSet tears it down) and restarts."""

from __future__ import annotations

from tests.corpus.beats.periodic import Step, Training, steady, train
from tests.corpus.beats.pods import container_died, jobset_ending, stop_pod
from tests.corpus.beats.startup import start_run
from tests.corpus.clock import MS, date_line, sec
from tests.corpus.incident import Incident
from tests.corpus.layouts import next_attempt
from tests.corpus.model import Boot, Run
from tests.corpus.wording import Line
from tests.logentry import Entry

RESTART = "RestartJobSetFailurePolicyAction"
XPK_END = Line("XPK End: {date}", form="plain", stream="stdout", planted=True)
EXIT_CODE = Line("EXIT_CODE={code}", form="plain", stream="stdout", planted=True)


def finish_exit(inc: Incident, run: Run, at: int, code: int = 1) -> None:
    """The client exits: xpk's wrapper prints its closing lines, the node sees the exit."""
    assert run.client is not None and run.user is not None
    if run.layout == "xpk":
        inc.log(run.client, run.user, at, XPK_END, date=date_line(at))
        inc.log(run.client, run.user, at + 2 * MS, EXIT_CODE, code=code)
    container_died(inc, run.client, run.user, at + inc.between(0.05, 0.3), code)


def stop_run(
    inc: Incident,
    run: Run,
    at: int,
    *,
    dead: tuple[str, ...] = (),
    reason: str = RESTART,
    first_failed: str | None = None,
) -> list[Entry]:
    """The JobSet ends an attempt: its event, then every pod stopped but the `dead` ones
    (`pod`, or `pod/container`). Returns the SIGTERM lines."""
    if run.kind == "jobset":
        jobset_ending(inc, run, at, reason, first_failed or f"{run.name}-pathways-head-0")
    lines = []
    at += inc.between(0.6, 2.0)
    for pod in run.pods():
        if pod.name in dead or pod.role == "client":  # a client Job outlives the JobSet's pods
            continue
        skip = tuple(d.split("/", 1)[1] for d in dead if d.startswith(pod.name + "/"))
        lines.extend(stop_pod(inc, pod, at + inc.between(0.0, 0.4), skip=skip))
    return lines


def end_attempt(
    inc: Incident, run: Run, at: int, *, dead: tuple[str, ...], first_failed: str | None = None
) -> int:
    """The client exits seconds after `at`, then the JobSet stops the attempt.

    Returns when it stopped."""
    finish_exit(inc, run, at + inc.between(2.0, 3.0))
    stop = at + inc.between(3.5, 4.5)
    stop_run(inc, run, stop, dead=dead, first_failed=first_failed)
    return stop


def resume(inc: Incident, run: Run, at: int, plan: Training) -> tuple[Boot, list[Step]]:
    """A new attempt starts, restores the checkpoint before `plan.step0` and trains until the
    window ends."""
    boot = start_run(inc, run, at, restore_step=(plan.step0 - 1) or None)
    steady(inc, run, boot)
    return boot, train(inc, run, boot.first_step, inc.t1 - sec(1), plan)


def restart_and_run(inc: Incident, run: Run, at: int, plan: Training) -> list[Step]:
    """A JobSet restart: the next attempt starts on warm nodes and trains to the end."""
    return resume(inc, next_attempt(inc, run), at, plan)[1]
