"""Transfers through the IFRT proxy that stall: semaphore waits, receive timeouts, GOAWAY."""

from __future__ import annotations

from tests.corpus.clock import sec
from tests.corpus.incident import Incident
from tests.corpus.model import PROXY, WORKER, Pod
from tests.corpus.wording import Line
from tests.logentry import Entry

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
