"""The RM rejects every TPU slice: their topology does not match --instance_type."""

from __future__ import annotations

from tests.corpus import beats
from tests.corpus.clock import US, sec
from tests.corpus.expect import (
    act,
    at_of,
    errors_act,
    finish,
    host_ref,
    ref,
    unrelated_of,
    versions,
)
from tests.corpus.incident import Incident, Story
from tests.corpus.layouts import next_attempt, release
from tests.corpus.model import RM, WORKER, Boot, Pod, Run
from tests.corpus.wording import Line
from tests.logentry import Entry

STORY = Story(
    slug="topology-mismatch",
    seed=505,
    start="2026-11-19T10:00:00Z",
    title="RM rejects the TPU slices: topology does not match --instance_type",
    scenario=5,
    layout="xpk, colocated-python-sidecar",
    summary=(
        "pathways-rm runs with --instance_type=tpuv6e:4x4 (4 hosts per slice) but the JobSet's "
        "workers run on 2x4 node pools (2 hosts per slice); every registration is rejected with "
        "FAILED_PRECONDITION after the RM logs the expected and the newly added slice topology, "
        "workers retry with back-off, and after 15 minutes the client gives up waiting for "
        "devices; the JobSet restarts once, attempt 1 fails the same way and the JobSet ends "
        "with ReachedMaxRestarts."
    ),
)
MISMATCH = (
    "FAILED_PRECONDITION: The newly added instance does not match with the expected instances"
)
REJECTED_GUESS = (
    "suffix `(worker ..., slice N)` after the FAILED_PRECONDITION message; the worker's "
    "`Registration with resource manager failed` line"
)
TOPOLOGY = (
    "{label}\nslice_topology {{\n  chip_type: TPU_V6E\n"
    "  chips_per_host_bounds {{ x: 2 y: 2 z: 1 }}\n"
    "  host_bounds {{ x: {x} y: 2 z: 1 }}\n  num_hosts: {hosts}\n}}"
)
TOPOLOGY_GUESS = (
    "the text format of the `expected topology` / `Newly added slice topology` protos (raw "
    "multi-line glog)"
)
RM_LINES = (  # (line, microseconds after the registration, its fields)
    (
        Line(
            TOPOLOGY, ("resource_manager.cc", 655), form="raw", planted=True, guess=TOPOLOGY_GUESS
        ),
        0,
        {"label": "expected topology:", "x": 2, "hosts": 4},
    ),
    (
        Line(
            TOPOLOGY, ("resource_manager.cc", 656), form="raw", planted=True, guess=TOPOLOGY_GUESS
        ),
        150,
        {"label": "Newly added slice topology:", "x": 1, "hosts": 2},
    ),
)
RM_REJECTS = Line(
    MISMATCH + " (worker {node}:29005, slice {slice})",
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
NO_DEVICES = beats.traceback_line(
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


def attempt(
    inc: Incident, run: Run, launch: int, reason: str
) -> tuple[Entry, dict[str, Entry], Entry, int]:
    """Every registration is rejected until the client gives up. Returns the RM's first
    rejection, each worker's first failure, the client's traceback and when it stopped."""
    boot = beats.start_run(inc, run, launch, register=False, with_user=False)
    user_at, session = beats.client_connects(inc, run, boot)
    gives_up = session + sec(900) + inc.between(0.0, 0.05)
    beats.waiting_for_devices(inc, run, user_at)
    rejections, first_failures = [], {}
    for at, pod in registrations(inc, run, boot, gives_up):
        for line, micros, fields in RM_LINES:
            inc.log(run.head, RM, at + micros * US, line, **fields)
        rejections.append(
            inc.log(run.head, RM, at + 400 * US, RM_REJECTS, node=pod.node.name, slice=pod.slice)
        )
        failure = inc.log(pod, WORKER, at + inc.between(0.003, 0.008), WORKER_REJECTED)
        first_failures.setdefault(pod.name, failure)
    beats.steady(inc, run, boot, default=gives_up)
    client = beats.client_traceback(inc, run, gives_up, NO_DEVICES)[0]
    beats.finish_exit(inc, run, gives_up + inc.between(1.0, 2.0))
    stop = gives_up + inc.between(3.0, 4.0)
    beats.stop_run(inc, run, stop, dead=(f"{run.head.name}/jax-tpu",), reason=reason)
    return rejections[0], first_failures, client, stop


def build() -> Incident:
    inc = Incident(STORY)
    version = release(image="mixtral-train:2026-11-18")
    run = beats.standard(
        inc,
        "mixtral-train",
        version,
        sidecar=True,
        itype="tpuv6e:4x4",
        launch=220.0,
        decoy_crash=250.0,
    )
    rejected, first_failures, client, stop = attempt(inc, run, run.launch, beats.RESTART)
    attempt(inc, next_attempt(inc, run), stop + inc.between(15, 30), "ReachedMaxRestarts")
    beats.node_noise(inc)
    root = ref(inc, rejected, MISMATCH, scenario=5, source="container")
    failing = sorted(first_failures.values(), key=at_of)
    return finish(
        inc,
        workload=["jobset:mixtral-train"],
        unrelated=unrelated_of(inc, "mixtral-train-eval"),
        root=root,
        failures=[root],
        symptoms=[
            ref(
                inc,
                first_failures[run.workers[0][0].name],
                "Registration with resource manager failed",
            ),
            ref(inc, client, "Timed out after 900s"),
        ],
        failing_hosts=[host_ref(inc.pods[e["resource"]["labels"]["pod_name"]], e) for e in failing],
        versions=versions(run),
        method=[
            errors_act(first=root),
            act(
                "pathways-rm",
                contains=[
                    "expected topology:",
                    "Newly added slice topology:",
                    "does not match with the expected instances",
                ],
            ),
            act("workers", contains=["Registration with resource manager failed"]),
            act("summary", contains=[beats.RESTART, "ReachedMaxRestarts"]),
        ],
    )
