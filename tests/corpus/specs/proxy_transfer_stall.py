"""A checkpoint restore through the IFRT proxy stalls: semaphore waits, Recv errors, GOAWAY."""

from __future__ import annotations

from tests.corpus import beats
from tests.corpus.beats import transfers
from tests.corpus.clock import sec
from tests.corpus.expect import (
    act,
    at_of,
    errors_act,
    failing_host,
    finish,
    last_line,
    quiet_first,
    ref,
)
from tests.corpus.incident import Incident, Story
from tests.corpus.layouts import release
from tests.corpus.model import PROXY

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
    root = transfers.semaphore_waits(inc, run.head, [receivers[0], *receivers], stalled)
    first_errors = [
        transfers.recv_errors(inc, pod, stalled + sec(offset) + inc.between(0.0, 0.5))
        for pod, offset in zip(receivers, (4.0, 95.0))
    ]
    goaway_at = stalled + sec(730) + inc.between(0, 10)
    goaway = inc.log(run.head, PROXY, goaway_at, transfers.GOAWAY, node=receivers[0].node.name)
    beats.steady(inc, run, boot)
    beats.node_noise(inc)
    root_ref = ref(inc, root, transfers.WAITING, scenario=15, source="container")
    first_errors.sort(key=at_of)
    return finish(
        inc,
        run,
        root=root_ref,
        symptoms=[
            ref(inc, first_errors[0], "Recv completion error"),
            ref(inc, goaway, "ping_timeout"),
        ],
        failing_hosts=[failing_host(inc, error) for error in first_errors],
        hang=quiet_first(run.head, "jax-tpu", restoring),
        method=[
            act("proxy", contains=[transfers.WAITING, "to send Chunk", "GOAWAY"]),
            act("workers", contains=["Recv completion error"]),
            act("user-workload", contains=["Restoring checkpoint from"]),
            errors_act(contains=["GOAWAY"]),
        ],
    )
