"""A hostNetwork exporter holds port 8080 on a TPU node; that worker cannot bind its metrics."""

from __future__ import annotations

from tests.corpus import beats
from tests.corpus.clock import US
from tests.corpus.expect import act, errors_act, finish, host_ref, ref, unrelated_of
from tests.corpus.incident import Incident, Story
from tests.corpus.layouts import next_attempt, release
from tests.corpus.model import WORKER, Run
from tests.corpus.wording import Line
from tests.logentry import Entry

STORY = Story(
    slug="port-collision",
    seed=1313,
    start="2026-11-24T09:30:00Z",
    title="Port collision on a TPU node: a hostNetwork exporter holds port 8080",
    scenario=13,
    layout="xpk + hostNetwork DaemonSet pod of namespace monitoring",
    summary=(
        "A custom-metrics-exporter DaemonSet pod (namespace monitoring, hostNetwork) already "
        "listens on :8080 on the node of slice 0 host 1; that pathways-worker fails to bind its "
        "metrics server (Address already in use), crash-loops five times, the other workers "
        "register but slice 0 never becomes ready, and the worker Job hits its backoff limit; the "
        "JobSet restarts once onto the same nodes, fails the same way and ends with "
        "ReachedMaxRestarts."
    ),
)
BIND_FAILED = Line(
    "Failed to start the worker metrics server on [::]:8080: UNKNOWN: No address added out of "
    "total 1 resolved for '[::]:8080' {{children:[UNKNOWN:Unable to configure socket {{fd:17, "
    'children:[UNKNOWN:Address already in use {{syscall:"bind", os_error:"Address already in '
    'use"}}]}}]}}',
    ("metrics_server.cc", 88),
    letter="E",
    planted=True,
    guess="the worker's metrics-server bind failure wording around `Address already in use` "
    "(gRPC status tree)",
)
METRICS_CHECK = Line(
    "Check failed: metrics_status.ok() ", ("server_main.cc", 266), letter="F", planted=True
)


def attempt(inc: Incident, run: Run, launch: int, reason: str) -> tuple[Entry, int]:
    """Slice 0 host 1's worker crash-loops until its Job's backoff limit; the other workers
    register. Returns the first bind failure and when the JobSet stopped the attempt."""
    victim = run.workers[0][1]
    boot = beats.start_run(inc, run, launch, register=False, with_user=False, skip=(victim.name,))
    for pod in run.flat_workers():
        if pod is not victim:
            at = max(boot.steady_from[(pod.name, WORKER)], boot.rm_serving) + inc.between(0.05, 0.4)
            beats.register_worker(inc, run, pod, at, len(run.workers[0]))
    user_at, _ = beats.client_connects(inc, run, boot)
    boot.slices_ready, boot.workers_connected = 1, len(run.flat_workers()) - 1
    beats.waiting_for_devices(inc, run, user_at)

    def fail(at: int) -> tuple[Entry, int]:
        failed = beats.worker_start(inc, run, victim, at) + inc.between(0.01, 0.05)
        failure = inc.log(victim, WORKER, failed, BIND_FAILED)
        beats.check_failure(inc, victim, WORKER, failed + 300 * US, METRICS_CHECK, trace_us=300)
        return failure, failed

    started = boot.started[(victim.name, WORKER)]
    first, last = beats.crash_loop_to_the_limit(
        inc, victim, WORKER, started, fail, times=5, code=134
    )
    limit_at = last + inc.between(1.0, 2.0)
    beats.backoff_limit(inc, f"{run.name}-worker-0", limit_at)
    stop = limit_at + inc.between(0.5, 1.0)
    beats.steady(inc, run, boot, default=stop)
    dead = (f"{victim.name}/{WORKER}",)
    beats.stop_run(inc, run, stop, dead=dead, reason=reason, first_failed=f"{run.name}-worker-0")
    return first, stop


def build() -> Incident:
    inc = Incident(STORY)
    version = release(image="sdxl-train:2026-11-23")
    run = beats.standard(
        inc, "sdxl-train", version, hosts=3, itype="tpuv6e:2x6", launch=840.0, decoy_crash=800.0
    )
    victim = run.workers[0][1]
    exporter = beats.exporter_on(inc, victim.node)
    failures, launch = [], run.launch
    for reason in (beats.RESTART, "ReachedMaxRestarts"):
        failure, stop = attempt(inc, run, launch, reason)
        failures.append(failure)
        launch = stop + inc.between(15, 30)  # the next attempt starts on the same nodes
        if reason == beats.RESTART:
            run = next_attempt(inc, run)
    beats.node_noise(inc)
    root = ref(inc, failures[0], "Address already in use", scenario=13, source="container")
    place = {"namespace": "monitoring", "pod": exporter.name, "container": beats.EXPORTER}
    summary = ["BackoffLimitExceeded", beats.RESTART, "ReachedMaxRestarts"]
    return finish(
        inc,
        run,
        unrelated=[*unrelated_of(inc, "sdxl-train-eval"), f"pod:{exporter.name}"],
        root=root,
        failing_hosts=[host_ref(victim, failures[0])],
        method=[
            errors_act(first=root),
            act("workers", contains=["Address already in use"]),
            act("pod-events", contains=["Back-off restarting failed container pathways-worker"]),
            act("neighbors", contains=["monitoring", exporter.name]),
            act("summary", contains=summary),
        ],
        extra={"co_tenant": {**place, "node": victim.node.name}},
    )
