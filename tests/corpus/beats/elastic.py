"""Elastic training (pathwaysutils and MaxText) when a slice is lost and comes back."""

from __future__ import annotations

from dataclasses import dataclass

from tests.corpus.beats.failures import TRAIN_FRAMES, node_back, node_not_ready, traceback_text
from tests.corpus.beats.pods import JOB_CREATED_POD, start_pod
from tests.corpus.beats.startup import PLACED, SLICES_READY, register_worker, worker_start
from tests.corpus.clock import sec
from tests.corpus.incident import Incident
from tests.corpus.layouts import jobset
from tests.corpus.model import RM, WORKER, Pod, Run
from tests.corpus.wording import Line, SystemEvent
from tests.logentry import Entry

MANAGER = "pathwaysutils.elastic.manager"
JSON_GUESS = (
    "the DATA_LOSS text after `JaxRuntimeError: DATA_LOSS:` and the JSON shape of "
    "pathwaysutils lines (jsonPayload.message + logger)"
)
RM_GUESS = (
    "RM `Lost heartbeat from worker ...`, `Unassigning slice 1 from client session 1`, worker "
    "`Slice peer ... is unreachable`"
)
SNAPSHOT_GUESS = (
    "snapshot lines (`Attempting to restore from in-memory snapshot ...`, `In-memory snapshot "
    "recovery failed (...)`) come from a MaxText fork, not upstream"
)
SAVE_GUESS = (
    "`Started/Finished an asynchronous checkpoint save at step N`; the orbax FileNotFoundError "
    "wording"
)
HOST_ERROR = SystemEvent(
    "compute.instances.hostError", "Instance terminated by Compute Engine.", planted=True
)
ENABLED = Line("Elastic utils: Elastic training enabled.", ("elastic_utils.py", 48))
MONITOR = Line(
    "Elastic monitor thread started with interval 10.",
    form="json",
    logger=MANAGER,
    guess=JSON_GUESS,
)
SAVE_STARTED = Line(
    "Started an asynchronous checkpoint save at step {step}",
    ("checkpointing.py", 412),
    guess=SAVE_GUESS,
)
SAVE_FINISHED = Line(
    "Finished asynchronous checkpoint save at step {step}",
    ("checkpointing.py", 431),
    guess=SAVE_GUESS,
)
MANAGER_FRAMES = (
    '  File "/usr/local/lib/python3.12/site-packages/pathwaysutils/elastic/manager.py", '
    "line 301, in elastic_retry",
    "    return func(*args, **kwargs)",
)
EVENT_DETECTED = Line(
    "Elastic event detected\n"
    + traceback_text(
        (*MANAGER_FRAMES, *TRAIN_FRAMES[2:]),
        "jax.errors.JaxRuntimeError: DATA_LOSS: Slice {slice} lost during execution: worker "
        "{node}:29005 stopped responding",
    ),
    letter="E",
    form="json",
    logger=MANAGER,
    planted=True,
    guess=JSON_GUESS,
)
ATTEMPT = Line("Elastic attempt 1", form="json", logger=MANAGER, planted=True, guess=JSON_GUESS)
LOST_HEARTBEAT = Line(
    "Lost heartbeat from worker {node}:29005 (slice {slice} host {host}); marking slice {slice} "
    "unhealthy",
    ("resource_manager.cc", 903),
    letter="W",
    planted=True,
    guess=RM_GUESS,
)
UNPLACED = Line("Transition slice {slice} placed -> unplaced", ("placement.cc", 233), planted=True)
UNASSIGNING = Line(
    "Unassigning slice {slice} from client session 1",
    ("placement.cc", 260),
    planted=True,
    guess=RM_GUESS,
)
PEER_UNREACHABLE = Line(
    "Slice peer {node}:8471 is unreachable; waiting for slice {slice} to be re-formed",
    ("megascale_context.cc", 577),
    letter="W",
    planted=True,
    guess=RM_GUESS,
)
WAITING = Line(
    "1 slices active. Wanting at least 2. Active indices: [0]",
    form="json",
    logger=MANAGER,
    planted=True,
    guess=JSON_GUESS,
)
SUFFICIENT = Line(
    "Sufficient slices active: 2 >= 2. Active indices: [0, 1]",
    form="json",
    logger=MANAGER,
    planted=True,
    guess=JSON_GUESS,
)


def recovery(text: str, guess: str | None = None) -> Line:
    return Line(text, ("elastic_utils.py", 131), planted=True, guess=guess)


RECOVERY = (  # (line, seconds after the previous one)
    (recovery("Elastic utils: Checking for incomplete checkpoint after an elastic event..."), 0.2),
    (recovery("No commit_success file found. Deleting {checkpoints}/{uncommitted}/."), 1.4),
    (
        recovery("Attempting to restore from in-memory snapshot at step {step}...", SNAPSHOT_GUESS),
        0.6,
    ),
    (
        recovery(
            "In-memory snapshot recovery failed (DATA_LOSS: snapshot shards of slice {slice} were "
            "held by {node} and are gone). Falling back to persistent checkpoint.",
            SNAPSHOT_GUESS,
        ),
        3.1,
    ),
    (recovery("Restoring from persistent checkpoint...", SNAPSHOT_GUESS), 0.1),
    (recovery("Restoring checkpoint from {checkpoints}/{restored}."), 0.2),
)


@dataclass
class SliceLoss:
    """What losing a slice's host leaves: the audit entry, the client's and the RM's lines."""

    at: int
    audit: Entry
    detected: Entry
    heartbeat: Entry
    node_gone: int
    detected_at: int


@dataclass
class SliceBack:
    """What the lost slice's return leaves: the new worker pod, when it registered, the RM's
    ready line, and when the client sees enough slices again."""

    replacement: Pod
    registered: int
    ready: Entry
    resumes: int


def enabled(inc: Incident, run: Run, session: int) -> None:
    """The client's elastic set-up lines, after it opened its proxy session."""
    assert run.client is not None and run.user is not None
    inc.log(run.client, run.user, session + inc.between(0.1, 0.3), ENABLED)
    inc.log(run.client, run.user, session + inc.between(0.4, 0.6), MONITOR)


@dataclass
class AsyncSaves:
    """The client's asynchronous checkpoint saves (a `train` save callback); the save of step
    `uncommitted` never finishes."""

    inc: Incident
    run: Run
    uncommitted: int

    def __call__(self, step: int, at: int) -> None:
        pod, container = self.run.client, self.run.user
        assert pod is not None and container is not None
        self.inc.log(pod, container, at + self.inc.between(0.5, 1.5), SAVE_STARTED, step=step)
        if step != self.uncommitted:
            finished = at + self.inc.between(30, 50)
            self.inc.log(pod, container, finished, SAVE_FINISHED, step=step)


def host_lost(inc: Incident, run: Run, lost: Pod, at: int) -> SliceLoss:
    """A host error takes the node of `lost` away: the client catches the slice going down
    and starts elastic attempt 1, the RM unplaces the slice, its peer waits, the node goes
    NotReady."""
    assert run.client is not None and run.user is not None
    audit = inc.audit(lost.node, at, HOST_ERROR)
    node_gone = at + inc.between(0.05, 0.3)
    place = {"node": lost.node.name, "slice": lost.slice, "host": lost.host}
    detected_at = at + inc.between(1.0, 1.4)
    detected = inc.log(run.client, run.user, detected_at, EVENT_DETECTED, **place)
    inc.log(run.client, run.user, detected_at + inc.between(0.01, 0.05), ATTEMPT)
    heartbeat = inc.log(run.head, RM, at + inc.between(2.0, 3.0), LOST_HEARTBEAT, **place)
    inc.log(run.head, RM, at + inc.between(3.1, 3.3), UNPLACED, **place)
    inc.log(run.head, RM, at + inc.between(3.4, 3.6), UNASSIGNING, **place)
    peer = run.workers[lost.slice or 0][0]
    inc.log(peer, WORKER, at + inc.between(1.6, 2.2), PEER_UNREACHABLE, **place)
    node_not_ready(inc, lost, at + sec(42), at + sec(43))
    return SliceLoss(at, audit, detected, heartbeat, node_gone, detected_at)


def slice_back(inc: Incident, run: Run, lost: Pod, loss: SliceLoss) -> SliceBack:
    """The node is back about 2.5 minutes later, the worker Job recreates the pod, it
    registers, and the client (polling every 10 s) sees enough slices again."""
    back = loss.at + inc.between(140, 170)
    node_back(inc, lost.node, back - sec(70), back)
    polled = wait_for_slices(inc, run, loss.detected_at + sec(10), back + sec(20))
    replacement = replacement_pod(inc, run, lost)
    registered, ready_at, ready = rejoin(inc, run, replacement, back + sec(10))
    return SliceBack(replacement, registered, ready, max(polled, ready_at + inc.between(1, 3)))


def wait_for_slices(inc: Incident, run: Run, start: int, until: int) -> int:
    """The client polls every 10 s for enough slices. Returns its next poll time."""
    assert run.client is not None and run.user is not None
    at = start
    while at < until:
        inc.log(run.client, run.user, at, WAITING)
        at += inc.between(9.9, 10.2)
    return at


def replacement_pod(inc: Incident, run: Run, lost: Pod) -> Pod:
    """The pod the worker Job creates in place of a lost one: a new name suffix and uid, the
    lost pod's labels. Names are drawn as for a whole new set of the JobSet's pods; only this
    one is kept."""
    assert run.shape is not None and lost.slice is not None and lost.host is not None
    fresh = jobset(inc, run.name, run.shape, uid=run.uid)
    pod = fresh.workers[lost.slice][lost.host]
    pod.labels = dict(lost.labels)
    for other in fresh.pods():
        if other is not pod:
            del inc.pods[other.name]
    return pod


def rejoin(inc: Incident, run: Run, pod: Pod, created: int) -> tuple[int, int, Entry]:
    """The replacement worker starts, registers, and the RM has all slices again.

    Returns when it registered, when the RM was ready, and the RM's ready line."""
    job = f"{run.name}-worker-{pod.slice}"
    inc.cluster_event(created - sec(2), job, JOB_CREATED_POD, pod=pod.name)
    started = start_pod(inc, pod, created)[WORKER]
    serving = worker_start(inc, run, pod, started + inc.between(0.2, 0.8))
    hosts = len(run.workers[0])
    registered = register_worker(inc, run, pod, serving + inc.between(0.05, 0.3), hosts)
    inc.log(run.head, RM, registered + inc.between(0.1, 0.4), PLACED, planted=True, slice=pod.slice)
    slices = len(run.workers)
    ready_at = registered + inc.between(0.5, 0.8)
    ready = inc.log(run.head, RM, ready_at, SLICES_READY, planted=True, ready=slices, slices=slices)
    return registered, ready_at, ready


def recover(inc: Incident, run: Run, at: int, **fields: object) -> tuple[list[Entry], int]:
    """Enough slices again: the client looks for an incomplete checkpoint, tries the
    in-memory snapshot and falls back to the persistent checkpoint.

    Returns its lines and when it logged the last."""
    assert run.client is not None and run.user is not None
    inc.log(run.client, run.user, at, SUFFICIENT)
    lines = []
    for line, gap in RECOVERY:
        at += sec(gap) + inc.between(0.0, 0.3)
        lines.append(inc.log(run.client, run.user, at, line, **fields))
    return lines, at
