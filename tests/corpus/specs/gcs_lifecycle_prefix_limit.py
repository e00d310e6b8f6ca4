"""pathways-rm crash-loops in a LeaderWorkerSet: the scratch bucket has 50 lifecycle prefixes."""

from __future__ import annotations

from tests.corpus import beats
from tests.corpus.beats import persistent_cache, serving
from tests.corpus.clock import sec
from tests.corpus.expect import (
    act,
    at_of,
    errors_act,
    finish,
    ref,
    release_versions,
)
from tests.corpus.incident import Incident, Story
from tests.corpus.layouts import lws_groups, release
from tests.corpus.model import PROXY, RM, WORKER, Run
from tests.corpus.wording import Line
from tests.logentry import Entry

STORY = Story(
    slug="gcs-lifecycle-prefix-limit",
    seed=1010,
    start="2026-11-22T07:00:00Z",
    title="GCS lifecycle prefix limit: pathways-rm crash-loops in a LeaderWorkerSet",
    scenario=10,
    layout="LeaderWorkerSet (2 groups)",
    summary=(
        "Both groups of the jetstream-pw LeaderWorkerSet start; on each leader pathways-rm fails "
        "to initialize the persistent cache because the --gcs_scratch_location bucket already has "
        "50 lifecycle prefixes, exits and crash-loops (BackOff); the proxy never serves, workers "
        "wait, and the JetStream server fails with Unable to initialize backend 'proxy': "
        "UNAVAILABLE (a symptom, not scenario 3)."
    ),
)
LWS, SERVER = "jetstream-pw", "jax-tpu"
PREFIX_LIMIT = "Lifecycle matches_prefix cannot specify more than 50 prefixes per config"
CACHE_FAILED = Line(
    f"INVALID_ARGUMENT : Permanent error, with a last message of {PREFIX_LIMIT}.; Error while "
    "initializing persistent cache storage gcs",
    ("persistent_cache.cc", 204),
    letter="E",
    planted=True,
)


def group_fails(inc: Incident, run: Run, at: int) -> tuple[Entry, Entry]:
    """A group starts: the RM crash-loops, the proxy and the workers wait, the server fails.

    Returns the RM's first failure and the server's first traceback."""
    beats.statefulset_created(inc, run, at - sec(1))
    started = {}
    for pod in run.pods():
        for container, when in beats.start_pod(inc, pod, at + inc.between(0.2, 2.0)).items():
            started[(pod.name, container)] = when
    head = run.head.name
    beats.proxy_start(inc, run, started[(head, PROXY)] + inc.between(0.2, 0.6), None)
    for pod in run.flat_workers():
        beats.waits_for_rm(inc, run, pod, started[(pod.name, WORKER)] + inc.between(0.2, 0.8))
    failure = persistent_cache.rm_crash_loop(inc, run, started[(head, RM)], CACHE_FAILED)
    at = started[(head, SERVER)] + inc.between(0.5, 1.5)
    return failure, serving.server_gives_up(inc, run, at)


def build() -> Incident:
    inc = Incident(STORY)
    version = release(image="jetstream-pathways:2026-11-20")
    beats.decoy_jobset(inc, LWS, version, inc.t0 + inc.between(40, 90), inc.t0 + sec(760))
    beats.bystander(inc)
    groups = lws_groups(inc, LWS, 2, 2, version, "tpuv6e:2x4")
    failed = [
        group_fails(inc, run, inc.t0 + sec(1150) + sec(index * 7) + inc.between(0, 3))
        for index, run in enumerate(groups)
    ]
    beats.node_noise(inc)
    failures = sorted(
        (ref(inc, failure, PREFIX_LIMIT, scenario=10, source="container") for failure, _ in failed),
        key=at_of,
    )
    unavailable = "Unable to initialize backend 'proxy': UNAVAILABLE"
    return finish(
        inc,
        groups[0],
        root=failures[0],
        failures=failures,
        symptoms=[ref(inc, failed[0][1], unavailable)],
        versions=release_versions(groups[0], jax=None),
        method=[
            errors_act(first=failures[0]),
            act(
                "pathways-rm",
                contains=[PREFIX_LIMIT, "Error while initializing persistent cache storage"],
            ),
            act("pod-events", contains=["Back-off restarting failed container pathways-rm"]),
            act("user-workload", contains=[unavailable]),
        ],
    )
