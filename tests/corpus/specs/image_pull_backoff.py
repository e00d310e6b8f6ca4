"""Pathways images with a tag that was never published: ErrImagePull, ImagePullBackOff."""

from __future__ import annotations

from tests.corpus import beats
from tests.corpus.clock import sec
from tests.corpus.expect import NO_VERSIONS, act, errors_act, finish, ref
from tests.corpus.incident import Incident, Story
from tests.corpus.layouts import fresh_jobset, release
from tests.corpus.model import USER_REGISTRY, Version

STORY = Story(
    slug="image-pull-backoff",
    seed=1212,
    start="2026-11-23T18:00:00Z",
    title="Pathways images with a tag that does not exist: ErrImagePull / ImagePullBackOff",
    scenario=12,
    layout="xpk",
    summary=(
        "The JobSet asks for server and proxy images tagged jax-0.12.1, which were never "
        "published; every pod is scheduled but its first container fails to pull (NotFound, "
        "manifest unknown), then ErrImagePull and ImagePullBackOff repeat with growing back-off. "
        "No workload container ever logs a line; the unrelated deepseek-ft-eval JobSet (good tag) "
        "runs and crashes."
    ),
)
UNPUBLISHED = Version("jax-0.12.1", "0.12.1", "", f"{USER_REGISTRY}/deepseek-ft:2026-11-22")


def build() -> Incident:
    inc = Incident(STORY)
    run = fresh_jobset(
        inc, "deepseek-ft", slices=2, hosts=3, version=UNPUBLISHED, itype="tpuv6e:2x6"
    )
    published = release(image="deepseek-ft:2026-11-22")
    beats.decoy_jobset(
        inc, "deepseek-ft", published, inc.t0 + inc.between(40, 100), inc.t0 + sec(1000)
    )
    beats.bystander(inc)
    created = inc.t0 + sec(1330)
    beats.job_created_events(inc, run, created)
    failures = []
    for pod in run.pods():
        lead = inc.between(0.2, 0.5) if pod is run.head else inc.between(3.5, 6.0)
        failures.append(beats.pull_fails(inc, pod, created + lead))
    beats.node_noise(inc)
    root = ref(inc, failures[0], "Failed to pull image", scenario=12, source="pod-event")
    pulls = ["Failed to pull image", "manifest unknown", "ErrImagePull", "ImagePullBackOff"]
    return finish(
        inc,
        run,
        root=root,
        versions={**NO_VERSIONS, "server": UNPUBLISHED.tag, "proxy": UNPUBLISHED.tag},
        method=[act("pod-events", contains=[*pulls, "server:jax-0.12.1"]), errors_act()],
    )
