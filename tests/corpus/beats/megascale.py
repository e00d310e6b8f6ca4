"""Megascale's hang detector: the coordinator names a host, aborts, and everyone follows."""

from __future__ import annotations

from tests.corpus.beats.failures import TRAIN_FRAMES, client_traceback, traceback_line
from tests.corpus.beats.pods import container_died
from tests.corpus.incident import Incident
from tests.corpus.model import WORKER, Pod, Run
from tests.corpus.wording import Line
from tests.logentry import Entry

DIGEST = Line(
    "Megascale detects a hang that is likely caused by bad TPU chips on the "
    "following hosts. Please remove the hosts from the fleet and restart the workload. If problem "
    "persists please contact Megascale XLA team.\n"
    "  The host that have bad TPUs are: {node}\n"
    "Full error digest:\n"
    "  Potential cause: all-reduce on slice {slice} is waiting for host {host}; its TPU chips "
    "stopped making progress\n"
    "  Stuck program: jit_train_step (launch id 84211), 3 of 4 hosts finished, 1 host still "
    "running",
    ("megascale_hang_detector.cc", 288),
    letter="E",
    form="raw",
    planted=True,
    guess="the digest layout after its first line (raw multi-line glog on stderr, hence "
    "severity ERROR)",
)
ABORTING = Line(
    "Aborting the coordinator after collecting errors from all workers as "
    "megascale_error_reporter_abort_on_hang is set to true. All workers will also abort after "
    "they detect the coordinator is shutdown.",
    ("megascale_error_reporter.cc", 146),
    letter="F",
    planted=True,
    guess="the Aborting-the-coordinator line's file; workers' `Megascale coordinator ... is shut "
    "down; aborting`",
)
COORDINATOR_GONE = Line(
    "Megascale coordinator {node} is shut down; aborting",
    ("megascale_context.cc", 611),
    letter="E",
    planted=True,
    guess=ABORTING.guess,
)
CLIENT_ABORTED = traceback_line(
    TRAIN_FRAMES,
    "jax.errors.JaxRuntimeError: INTERNAL: Pathways program jit_train_step failed on slice 0: "
    "the Megascale coordinator aborted",
    guess="the client's INTERNAL error text",
)


def hang_detected(
    inc: Incident, run: Run, coordinator: Pod, hung: Pod, at: int
) -> tuple[Entry, Entry, Entry]:
    """The coordinator's worker logs the hang digest naming the hung host's node and aborts;
    the other workers and the client follow.

    Returns the digest, the abort line and the client's traceback."""
    place = {"node": hung.node.name, "slice": hung.slice, "host": hung.host}
    digest = inc.log(coordinator, WORKER, at, DIGEST, thread=412, **place)
    abort = inc.log(coordinator, WORKER, at + inc.between(0.2, 0.4), ABORTING)
    container_died(inc, coordinator, WORKER, at + inc.between(0.5, 0.8), 134)
    for pod in run.flat_workers():
        if pod not in (coordinator, hung):
            when = at + inc.between(0.9, 1.6)
            inc.log(pod, WORKER, when, COORDINATOR_GONE, node=coordinator.node.name)
    client = client_traceback(inc, run, at + inc.between(1.8, 2.5), CLIENT_ABORTED)
    return digest, abort, client[0]
