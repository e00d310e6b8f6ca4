"""Failures and their fallout: fatal checks, tracebacks, peers losing a host, nodes going away."""

from __future__ import annotations

from collections.abc import Sequence

from tests.corpus.clock import MS, NS, US, fmt_ts
from tests.corpus.expect import host_ref
from tests.corpus.incident import Incident
from tests.corpus.model import RM, WORKER, Node, Pod, Run
from tests.corpus.wording import Event, KernelLine, Line
from tests.logentry import Entry

PEER_GUESS = "peer lines `UNAVAILABLE: Socket closed by peer ...:8471 during a collective`"
TRACEBACK_HEADER = "Traceback (most recent call last):"
TRAIN_FRAMES = (
    '  File "/deps/src/maxtext/trainers/pre_train/train.py", line 701, in <module>',
    "    app.run(main)",
    '  File "/deps/src/maxtext/trainers/pre_train/train.py", line 612, in train_loop',
    "    state, metrics = p_train_step(state, example_batch, nextrng)",
    '  File "/usr/local/lib/python3.12/site-packages/jax/_src/pjit.py", line 338, in cache_miss',
    "    outs, out_flat, out_tree, args_flat, jaxpr, attrs_tracked = _python_pjit_helper(",
)
SIGABRT = Line(
    "*** SIGABRT received by PID 1 (TID {tid}) on cpu {cpu} from PID 1; stack trace: ***",
    form="plain",
    planted=True,
)
CHECK_TRACE = Line("*** Check failure stack trace: ***", form="plain", planted=True)
DCN_GUESS = "peer lines: text after `DATA_LOSS: Pipe from scheduler to aggregator`"
LOST_GUESS = (
    "workers (not only the client) logging the lost-peer text, and the file and line they log "
    "it from"
)
# The lost-peer text of real Pathways runs: the peer and the reporter are GKE nodes in URLs.
LOST = (
    "DEADLINE_EXCEEDED: lost connection to peer at http://machine/{node}/events#srcs="
    "borg%2Bcoroner since {ago}s ago; this usually means that the peer has unexpectedly gone "
    "away (peer stopped sending messages since {since}; timeout is 10s and the current machine "
    "is http://machine/{me}/events#srcs=borg%2Bcoroner)"
)


def peer_line(text: str, guess: str = DCN_GUESS) -> Line:
    """A worker's error line about a peer host that is gone (DCN transport)."""
    return Line(text, ("dcn_transport.cc", 722), letter="E", planted=True, guess=guess)


PEER_CLOSED = peer_line(
    "UNAVAILABLE: Socket closed by peer {peer} during a collective (slice {slice} host {host})",
    PEER_GUESS,
)
PEER_LOST = peer_line(LOST, LOST_GUESS)
PIPE_CLOSED_RUNNING = peer_line(
    "DATA_LOSS: Pipe from scheduler to aggregator closed while a program was running on slice "
    "{slice}"
)
PIPE_CLOSED_GONE = peer_line(
    "DATA_LOSS: Pipe from scheduler to aggregator closed; peer {peer} is gone"
)
WORKER_DISCONNECTED = Line(
    "Worker {node}:29005 (slice {slice} host {host}) disconnected: UNAVAILABLE: Socket closed",
    ("resource_manager.cc", 877),
    letter="E",
    planted=True,
    guess="RM `Worker ... disconnected: UNAVAILABLE: Socket closed`",
)
NODE_NOT_READY = Event(
    "NodeNotReady",
    "Node {node} status is now: NodeNotReady",
    component="node-controller",
    kind="Node",
    planted=True,
)
POD_NODE_NOT_READY = Event(
    "NodeNotReady",
    "Node is not ready",
    type="Warning",
    component="node-controller",
    planted=True,
    guess="the node-controller `NodeNotReady` wording on the pod",
)
NODE_READY = Event("NodeReady", "Node {node} status is now: NodeReady", kind="Node", planted=True)
KERNEL_BOOTS = KernelLine(
    "Linux version 6.6.87+ (builder@localhost) #1 SMP PREEMPT_DYNAMIC Sat Oct 25 2026 x86_64"
)


def traceback_text(frames: Sequence[str], error: str) -> str:
    """A Python traceback: the header, the frames, the error (a template: it may have fields)."""
    return "\n".join([TRACEBACK_HEADER, *frames, error])


def traceback_line(frames: Sequence[str], error: str, *, guess: str | None = None) -> Line:
    """A Python traceback printed on stderr, as a planted row."""
    return Line(traceback_text(frames, error), form="plain", planted=True, guess=guess)


CLIENT_PEER_LOST = traceback_line(TRAIN_FRAMES[2:], "jax.errors.JaxRuntimeError: " + LOST)
CLIENT_LOST_PEER = traceback_line(
    TRAIN_FRAMES,
    "jax.errors.JaxRuntimeError: UNAVAILABLE: Socket closed by peer {node}:8471 "
    "(slice {slice} host {host})",
)


def lost_peer(inc: Incident, dead: Node, reporter: Node, at: int) -> dict[str, object]:
    """The fields of a lost-peer line that `reporter` logs at `at` about `dead`'s node."""
    ago = 10 + inc.between(0.5, 1.0) / NS
    return {
        "node": dead.name,
        "me": reporter.name,
        "ago": f"{ago:.8f}",
        "since": fmt_ts(at - int(ago * NS)),
    }


def check_failure(
    inc: Incident, pod: Pod, container: str, at: int, line: Line, *, trace_us: int, **fields: object
) -> Entry:
    """A fatal glog `Check failed` line, and the stack-trace banner `trace_us` later."""
    entry = inc.log(pod, container, at, line, **fields)
    inc.log(pod, container, at + trace_us * US, CHECK_TRACE)
    return entry


def client_traceback(
    inc: Incident, run: Run, at: int, line: Line, *, per_line: bool = False, **fields: object
) -> list[Entry]:
    """The client logs a traceback: one entry, or one entry per line."""
    assert run.client is not None and run.user is not None
    text = line.text.format(**fields)
    if not per_line:
        return [inc.log_text(run.client, run.user, at, line, text)]
    entries = []
    for part in text.split("\n"):
        entries.append(inc.log_text(run.client, run.user, at, line, part))
        at += inc.between(0.00002, 0.0002)
    return entries


def peer_cascade(
    inc: Incident,
    run: Run,
    dead: Pod,
    at: int,
    rows: tuple[Line, Line] = (PEER_CLOSED, PEER_CLOSED),
) -> tuple[list[dict[str, str]], list[Entry]]:
    """Every other worker, in random order, notices the dead host within milliseconds.

    `rows`: the line of a worker in the dead host's slice, and of one in another slice.
    Returns the failing hosts and the lines."""
    place = {"peer": f"{dead.node.name}:8471", "slice": dead.slice, "host": dead.host}
    hosts, entries = [], []
    at += 3 * MS
    pods = [pod for pod in run.flat_workers() if pod is not dead]
    inc.shuffle(pods)
    for pod in pods:
        row = rows[0] if pod.slice == dead.slice else rows[1]
        lost = lost_peer(inc, dead.node, pod.node, at) if row is PEER_LOST else {}
        entry = inc.log(pod, WORKER, at, row, **place, **lost)
        hosts.append(host_ref(pod, entry))
        entries.append(entry)
        at += inc.between(0.002, 0.02)
    return hosts, entries


def peers_one_by_one(
    inc: Incident, run: Run, dead: Pod, first: Pod, at: int
) -> tuple[list[dict[str, str]], list[Entry]]:
    """`first` loses its peer 40 ms after the dead host crashed at `at`, then every other
    worker, one after another in random order. Returns the failing hosts and their lines."""
    place = {"peer": f"{dead.node.name}:8471", "slice": dead.slice, "host": dead.host}
    at += 40 * MS + inc.between(0.0, 0.0009)
    lost = lost_peer(inc, dead.node, first.node, at)
    lines = [inc.log(first, WORKER, at, PEER_LOST, **place, **lost)]
    others = [pod for pod in run.flat_workers() if pod not in (dead, first)]
    inc.shuffle(others)
    for pod in others:
        at += inc.between(0.002, 0.012)
        row = PIPE_CLOSED_RUNNING if pod.slice == dead.slice else PEER_LOST
        lost = lost_peer(inc, dead.node, pod.node, at) if row is PEER_LOST else {}
        lines.append(inc.log(pod, WORKER, at, row, **place, **lost))
    pods = [first, *others]
    return [host_ref(pod, line) for pod, line in zip(pods, lines)], lines


def worker_loss(inc: Incident, run: Run, dead: Pod, at: int) -> tuple[Entry, Entry]:
    """The RM and the client after a worker is gone. Returns (RM line, client traceback)."""
    place = {"node": dead.node.name, "slice": dead.slice, "host": dead.host}
    rm = inc.log(run.head, RM, at + inc.between(0.4, 0.8), WORKER_DISCONNECTED, **place)
    client = client_traceback(inc, run, at + inc.between(0.9, 1.5), CLIENT_LOST_PEER, **place)
    return rm, client[0]


def peer_fallout(
    inc: Incident, run: Run, dead: Pod, at: int
) -> tuple[list[dict[str, str]], list[Entry], Entry, Entry]:
    """Peers, RM and client react to a worker gone at `at`.

    Returns (failing hosts, peer lines, RM line, client traceback)."""
    hosts, peers = peer_cascade(inc, run, dead, at + inc.between(0.002, 0.004))
    rm, client = worker_loss(inc, run, dead, at)
    return hosts, peers, rm, client


def node_not_ready(inc: Incident, pod: Pod, node_at: int, pod_at: int) -> None:
    """The node controller marks the pod's node NotReady, then the pod; the pod is gone."""
    inc.node_event(pod.node, node_at, NODE_NOT_READY, node=pod.node.name)
    inc.pod_event(pod, pod_at, POD_NODE_NOT_READY)
    inc.cluster.unplace(pod, pod_at)


def node_back(inc: Incident, node: Node, boot_at: int, ready_at: int) -> None:
    """A lost node boots again (its uptime restarts) and reports NodeReady."""
    node.reboots.append((boot_at, 0.0))
    inc.kernel(node, boot_at, KERNEL_BOOTS)
    inc.node_event(node, ready_at, NODE_READY, node=node.name)
