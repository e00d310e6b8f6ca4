"""The client's wait for slices times out; the workers then log FATAL lines about the client."""

from __future__ import annotations

from tests.corpus import beats
from tests.corpus.beats.elastic import JSON_GUESS, MANAGER
from tests.corpus.clock import MS, sec
from tests.corpus.expect import act, errors_act, finish, ref
from tests.corpus.incident import Incident, Story
from tests.corpus.layouts import release
from tests.corpus.model import WORKER, Run
from tests.corpus.wording import Line
from tests.logentry import Entry

STORY = Story(
    slug="client-timeout-workers-follow",
    seed=2222,
    start="2026-11-29T06:00:00Z",
    title="The client's wait for slices times out; the workers' FATAL lines follow",
    scenario=1,
    layout="xpk",
    summary=(
        "The training script waits for 3 slices (its config says so) but the JobSet runs 2: "
        "pathwaysutils polls every 10 s (2 slices active, wanting at least 3) and after 600 s "
        "raises TimeoutError: Timed out waiting for 3 slices (traceback one line per entry). The "
        "client exits; every worker then logs Client ... has died, and was configured to restart "
        "servers if it died (E) and a FATAL quick-restart line, and exits; the JobSet fails. The "
        "workers' FATAL lines are the consequence, the client's TimeoutError the cause."
    ),
)
FOLLOW_GUESS = (
    "the start of the workers' FATAL quick-restart line, and the client id's format; the "
    "client's frames around wait_for_slices"
)
WAITING_FOR = Line(
    "Waiting for 3 slices. Poll interval: 10, Timeout: 600",
    form="json",
    logger=MANAGER,
    planted=True,
    guess=JSON_GUESS,
)
TOO_FEW = Line(
    "2 slices active. Wanting at least 3. Active indices: [0, 1]",
    form="json",
    logger=MANAGER,
    planted=True,
    guess=JSON_GUESS,
)
TIMEOUT = (
    "TimeoutError: Timed out waiting for 3 slices. Only 2 active after 600.01 seconds. Next "
    "check would occur after the timeout of 600 seconds."
)
TIMED_OUT = beats.traceback_line(
    (
        '  File "/app/train.py", line 88, in <module>',
        "    pathwaysutils.elastic.wait_for_slices(slice_count=3, timeout=600)",
        '  File "/usr/local/lib/python3.12/site-packages/pathwaysutils/elastic/elastic.py", line '
        "238, in wait_for_slices",
        "    raise TimeoutError(",
    ),
    TIMEOUT,
    guess=FOLLOW_GUESS,
)
CLIENT_DIED = Line(
    "Client {client} has died, and was configured to restart servers if it died.",
    ("quick_restart.cc", 19),
    letter="E",
    planted=True,
)
QUICK_RESTART = Line(
    "Restarting servers after client {client} died (Quick-restart requested but unsupported in "
    "Cloud/OSS.)",
    ("quick_restart.cc", 40),
    letter="F",
    planted=True,
    guess=FOLLOW_GUESS,
)


def workers_follow(inc: Incident, run: Run, at: int) -> list[Entry]:
    """Every worker sees the client gone: the error, then the FATAL line; it exits."""
    client = inc.hex(8)
    fatal = []
    for pod in run.flat_workers():
        when = at + inc.between(0.2, 0.9)
        inc.log(pod, WORKER, when, CLIENT_DIED, client=client)
        fatal.append(inc.log(pod, WORKER, when + 2 * MS, QUICK_RESTART, client=client))
        beats.container_died(inc, pod, WORKER, when + inc.between(0.1, 0.3), 134)
    return fatal


def build() -> Incident:
    inc = Incident(STORY)
    version = release(image="ft-train:2026-11-28")
    run = beats.standard(inc, "ft-train", version, launch=300.0)
    boot = beats.start_run(inc, run, run.launch)
    assert run.client is not None and run.user is not None
    waits = boot.first_step - sec(30)
    inc.log(run.client, run.user, waits, WAITING_FOR)
    at = waits + inc.between(0.05, 0.2)
    while at < waits + sec(600):
        inc.log(run.client, run.user, at, TOO_FEW)
        at += inc.between(9.9, 10.2)
    lines = beats.client_traceback(inc, run, waits + sec(600.01), TIMED_OUT, per_line=True)
    beats.finish_exit(inc, run, waits + sec(601))
    fatal = workers_follow(inc, run, waits + sec(601.5))
    stop = waits + sec(604)
    beats.steady(inc, run, boot, default=waits + sec(601.5))
    dead = tuple(f"{pod.name}/{WORKER}" for pod in run.flat_workers())
    beats.stop_run(inc, run, stop, dead=(*dead, f"{run.head.name}/{run.user}"), reason="FailedJobs")
    beats.node_noise(inc)
    root = ref(
        inc,
        lines[-1],
        "TimeoutError: Timed out waiting for 3 slices",
        scenario=1,
        source="container",
        downstream_only=False,
    )
    return finish(
        inc,
        run,
        root=root,
        symptoms=[ref(inc, min(fatal, key=lambda e: e["timestamp"]), "Quick-restart requested")],
        method=[
            errors_act(contains=["Timed out waiting for 3 slices", "has died"]),
            act("user-workload", contains=[TIMEOUT]),
            act("workers", contains=["Quick-restart requested but unsupported"]),
            act("summary", contains=["FailedJobs"]),
        ],
    )
