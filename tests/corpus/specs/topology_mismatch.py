"""The RM rejects every TPU slice: their topology does not match --instance_type."""

from __future__ import annotations

from tests.corpus import beats
from tests.corpus.beats import registration
from tests.corpus.clock import sec
from tests.corpus.expect import act, at_of, errors_act, failing_host, finish, ref
from tests.corpus.incident import Incident, Story
from tests.corpus.layouts import next_attempt, release
from tests.corpus.model import Run
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
EXPECTED = (2, 4)  # tpuv6e:4x4: hosts along x, hosts per slice
REGISTRATION_FAILED = "Registration with resource manager failed"


def attempt(
    inc: Incident, run: Run, launch: int, reason: str
) -> tuple[Entry, dict[str, Entry], Entry, int]:
    """Every registration is rejected until the client gives up after 15 minutes.

    Returns the RM's first rejection, each worker's first failure, the client's traceback
    and when the JobSet stopped the attempt."""
    boot = beats.start_run(inc, run, launch, register=False, with_user=False)
    user_at, session = beats.client_connects(inc, run, boot)
    gives_up = session + sec(900) + inc.between(0.0, 0.05)
    beats.waiting_for_devices(inc, run, user_at)
    rejection, failures = registration.rejected(inc, run, boot, gives_up, EXPECTED)
    beats.steady(inc, run, boot, default=gives_up)
    client = beats.client_traceback(inc, run, gives_up, registration.NO_DEVICES)[0]
    beats.finish_exit(inc, run, gives_up + inc.between(1.0, 2.0))
    stop = gives_up + inc.between(3.0, 4.0)
    beats.stop_run(inc, run, stop, dead=(f"{run.head.name}/jax-tpu",), reason=reason)
    return rejection, failures, client, stop


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
    rejection, failures, client, stop = attempt(inc, run, run.launch, beats.RESTART)
    attempt(inc, next_attempt(inc, run), stop + inc.between(15, 30), "ReachedMaxRestarts")
    beats.node_noise(inc)
    root = ref(inc, rejection, registration.MISMATCH, scenario=5, source="container")
    first_worker = failures[run.workers[0][0].name]
    return finish(
        inc,
        run,
        root=root,
        symptoms=[
            ref(inc, first_worker, REGISTRATION_FAILED),
            ref(inc, client, "Timed out after 900s"),
        ],
        failing_hosts=[failing_host(inc, e) for e in sorted(failures.values(), key=at_of)],
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
            act("workers", contains=[REGISTRATION_FAILED]),
            act("summary", contains=[beats.RESTART, "ReachedMaxRestarts"]),
        ],
    )
