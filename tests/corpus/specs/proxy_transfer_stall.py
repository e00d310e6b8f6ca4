"""A checkpoint restore through the IFRT proxy stalls: semaphore waits, Recv errors, GOAWAY."""

from __future__ import annotations

from tests.corpus import beats
from tests.corpus.clock import sec
from tests.corpus.expect import (
    act,
    at_of,
    errors_act,
    finish,
    host_ref,
    last_line,
    ref,
    unrelated_of,
    versions,
)
from tests.corpus.incident import Incident, Story
from tests.corpus.layouts import release
from tests.corpus.model import PROXY, WORKER, Pod
from tests.corpus.wording import Line
from tests.logentry import Entry

STORY = Story(
    slug="proxy-transfer-stall",
    seed=1515,
    start="2026-11-25T06:00:00Z",
    title=(
        "Checkpoint restore through the proxy stalls: semaphore waits, Recv completion errors, "
        "GOAWAY"
    ),
    scenario=15,
    layout="xpk, colocated-python-sidecar",
    summary=(
        "After start-up the client restores checkpoint 3000 through the IFRT proxy; about 30 s "
        "later the proxy starts repeating Still waiting to acquire semaphore for destination ... "
        "to send Chunk, workers log Recv completion error, and 12 minutes later a transfer stream "
        "fails with GOAWAY ping_timeout; the client never logs another line and nothing restarts."
    ),
)
WAITING = "Still waiting to acquire semaphore for destination"
TRAILING_GUESS = f"everything after `{WAITING} ... to send Chunk` and after `Recv completion error`"
SEMAPHORE = Line(
    WAITING + " {node}:29005 to send Chunk {chunk} of 96 for array 4412 (waited {waited}s)",
    ("transfer_server.cc", 517),
    letter="W",
    planted=True,
    guess=TRAILING_GUESS,
)
RECV_ERROR = Line(
    "Recv completion error: DEADLINE_EXCEEDED: no data from the IFRT proxy for 60s on stream "
    "4412/17",
    ("transfer_client.cc", 233),
    letter="E",
    planted=True,
    guess=TRAILING_GUESS,
)
GOAWAY = Line(
    "Transfer stream to {node}:29005 failed: UNAVAILABLE: GOAWAY received; Error code: 2; Debug "
    "Text: ping_timeout",
    ("transfer_server.cc", 604),
    letter="E",
    planted=True,
    guess="the GOAWAY line wording (gRPC `GOAWAY received; Error code: 2; Debug Text: "
    "ping_timeout` inside a proxy message)",
)


def semaphore_waits(inc: Incident, head: Pod, destinations: list[Pod], at: int) -> Entry:
    """The proxy waits for a destination's semaphore every 30 s. Returns the first wait."""
    waits, waited, chunk = [], 30, 17
    while at < inc.t1 - sec(20):
        node = inc.pick(destinations).node.name
        waits.append(inc.log(head, PROXY, at, SEMAPHORE, node=node, chunk=chunk, waited=waited))
        waited += 30
        at += inc.between(29.5, 30.5)
        if waited % 120 == 0:
            chunk += 1
    return waits[0]


def recv_errors(inc: Incident, pod: Pod, at: int) -> Entry:
    """A worker's receive times out every minute. Returns its first error."""
    errors = []
    while at < inc.t1 - sec(20):
        errors.append(inc.log(pod, WORKER, at, RECV_ERROR))
        at += inc.between(58, 62)
    return errors[0]


def build() -> Incident:
    inc = Incident(STORY)
    version = release(build="20261106_RC03", image="gemma-restore:2026-11-24")
    run = beats.standard(
        inc,
        "gemma-restore",
        version,
        hosts=3,
        sidecar=True,
        itype="tpuv6e:2x6",
        launch=600.0,
        decoy_crash=800.0,
    )
    boot = beats.start_run(inc, run, run.launch, restore_step=3000)
    restoring = last_line(inc, run.head, "jax-tpu")
    stalled = at_of(restoring) + inc.between(25, 40)
    receivers = [run.workers[1][0], run.workers[0][1]]
    root = semaphore_waits(inc, run.head, [receivers[0], *receivers], stalled)
    first_errors = [
        recv_errors(inc, pod, stalled + sec(offset) + inc.between(0.0, 0.5))
        for pod, offset in zip(receivers, (4.0, 95.0))
    ]
    goaway_at = stalled + sec(730) + inc.between(0, 10)
    goaway = inc.log(run.head, PROXY, goaway_at, GOAWAY, node=receivers[0].node.name)
    beats.steady(inc, run, boot)
    beats.node_noise(inc)
    root_ref = ref(inc, root, WAITING, scenario=15, source="container")
    first_errors.sort(key=at_of)
    return finish(
        inc,
        workload=["jobset:gemma-restore"],
        unrelated=unrelated_of(inc, "gemma-restore-eval"),
        root=root_ref,
        failures=[root_ref],
        symptoms=[
            ref(inc, first_errors[0], "Recv completion error"),
            ref(inc, goaway, "ping_timeout"),
        ],
        failing_hosts=[
            host_ref(inc.pods[e["resource"]["labels"]["pod_name"]], e) for e in first_errors
        ],
        versions=versions(run),
        hang={
            "quiet_first": {
                "pod": run.head.name,
                "container": "jax-tpu",
                "last_line_time": restoring["timestamp"],
            }
        },
        method=[
            act("proxy", contains=[WAITING, "to send Chunk", "GOAWAY"]),
            act("workers", contains=["Recv completion error"]),
            act("user-workload", contains=["Restoring checkpoint from"]),
            errors_act(contains=["GOAWAY"]),
        ],
    )
