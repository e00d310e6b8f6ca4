"""Workers whose registration the RM rejects (their slices' topology is not the one it expects),
and the client that gives up waiting for devices."""

from __future__ import annotations

from tests.corpus.beats.failures import traceback_line
from tests.corpus.clock import US, sec
from tests.corpus.incident import Incident
from tests.corpus.model import RM, WORKER, Boot, Pod, Run
from tests.corpus.wording import Line
from tests.logentry import Entry

MISMATCH = (
    "FAILED_PRECONDITION: The newly added instance does not match with the expected instances"
)
REJECTED_GUESS = (
    "the file and line of the RM's FAILED_PRECONDITION line; the worker's `Registration with "
    "resource manager failed` line"
)
TOPOLOGY_GUESS = (
    "the text format of the `expected topology` / `Newly added slice topology` protos (raw "
    "multi-line glog)"
)
TOPOLOGY = (
    "{label}\nslice_topology {{\n  chip_type: TPU_V6E\n"
    "  chips_per_host_bounds {{ x: 2 y: 2 z: 1 }}\n"
    "  host_bounds {{ x: {x} y: 2 z: 1 }}\n  num_hosts: {hosts}\n}}"
)
EXPECTED_TOPOLOGY = Line(
    TOPOLOGY, ("resource_manager.cc", 655), form="raw", planted=True, guess=TOPOLOGY_GUESS
)
ADDED_TOPOLOGY = Line(
    TOPOLOGY, ("resource_manager.cc", 656), form="raw", planted=True, guess=TOPOLOGY_GUESS
)
RM_REJECTS = Line(
    MISMATCH + "; this is currently not allowed. for job {job}",
    ("resource_manager.cc", 671),
    letter="E",
    planted=True,
    guess=REJECTED_GUESS,
)
WORKER_REJECTED = Line(
    f"Registration with resource manager failed: {MISMATCH}; retrying",
    ("resource_manager_client.cc", 118),
    letter="E",
    planted=True,
    guess=REJECTED_GUESS,
)
NO_DEVICES = traceback_line(
    (
        '  File "/deps/src/maxtext/trainers/pre_train/train.py", line 688, in main',
        "    devices = jax.devices()",
        '  File "/usr/local/lib/python3.12/site-packages/jax/_src/xla_bridge.py", line 1157, in '
        "devices",
        "    return get_backend(backend).devices()",
    ),
    "jax.errors.JaxRuntimeError: DEADLINE_EXCEEDED: Timed out after 900s waiting for the IFRT "
    "proxy to report devices: 0/2 slices placed",
    guess="the client's timeout traceback (DEADLINE_EXCEEDED waiting for devices)",
)


def registrations(inc: Incident, run: Run, boot: Boot, until: int) -> list[tuple[int, Pod]]:
    """Each worker tries to register, again and again with doubling back-off, in time order."""
    tries = []
    for pod in run.flat_workers():
        at = max(boot.steady_from[(pod.name, WORKER)], boot.rm_serving) + inc.between(0.05, 0.4)
        delay = 30.0
        while at < until - sec(5):
            tries.append((at, pod))
            at += sec(delay) + inc.between(0, 2)
            delay = min(delay * 2, 300.0)
    return sorted(tries, key=lambda attempt: attempt[0])


def rejected(
    inc: Incident, run: Run, boot: Boot, until: int, expected: tuple[int, int]
) -> tuple[Entry, dict[str, Entry]]:
    """The RM rejects every registration until `until`, logging the topology it expected
    (`expected`: hosts along x, hosts per slice) and the one that came.

    Returns its first rejection and each worker's first failure."""
    rejections, failures = [], {}
    for at, pod in registrations(inc, run, boot, until):
        wanted = {"label": "expected topology:", "x": expected[0], "hosts": expected[1]}
        inc.log(run.head, RM, at, EXPECTED_TOPOLOGY, **wanted)
        hosts = len(run.workers[0])
        added = {"label": "Newly added slice topology:", "x": hosts // 2, "hosts": hosts}
        inc.log(run.head, RM, at + 150 * US, ADDED_TOPOLOGY, **added)
        rejections.append(inc.log(run.head, RM, at + 400 * US, RM_REJECTS, job=1))
        failure = inc.log(pod, WORKER, at + inc.between(0.003, 0.008), WORKER_REJECTED)
        failures.setdefault(pod.name, failure)
    return rejections[0], failures
