"""A client outside Google Cloud: every ALTS handshake fails at the IFRT proxy."""

from __future__ import annotations

from tests.corpus import beats
from tests.corpus.clock import sec
from tests.corpus.expect import (
    act,
    errors_act,
    finish,
    ref,
    release_versions,
)
from tests.corpus.incident import Incident, Story
from tests.corpus.layouts import fresh_jobset, release
from tests.corpus.model import PROXY
from tests.corpus.wording import Line

STORY = Story(
    slug="alts-handshake-failure",
    seed=909,
    start="2026-11-21T17:00:00Z",
    title="Client outside Google Cloud: ALTS handshake fails at the IFRT proxy",
    scenario=9,
    layout="headless xpk JobSet, external client",
    summary=(
        "A headless Pathways JobSet starts normally (2/2 slices ready); a JAX client outside "
        "Google Cloud connects through kubectl port-forward without "
        "IFRT_PROXY_USE_INSECURE_GRPC_CREDENTIALS, and every attempt fails in the proxy with "
        "Status 11 from handshaker service: Input frame length is out of range, which gRPC logs "
        "at INFO (bursts of retries); nothing else fails."
    ),
)
HANDSHAKE_STATUS = "Status 11 from handshaker service: Input frame length is out of range"
# gRPC logs the handshaker's status at INFO, at most once a second.
HANDSHAKE_FAILED = Line(
    HANDSHAKE_STATUS,
    ("alts_handshaker_client.cc", 423),
    planted=True,
    guess="the line number in alts_handshaker_client.cc",
)


def build() -> Incident:
    inc = Incident(STORY)
    version = release(jax="0.12.0.1", build="20261106_RC02")
    run = fresh_jobset(
        inc, "pw-headless", slices=2, hosts=4, version=version, headless=True, itype="tpuv6e:4x4"
    )
    beats.decoy_jobset(
        inc, "pw-headless", version, inc.t0 + inc.between(60, 100), inc.t0 + sec(900)
    )
    beats.bystander(inc)
    boot = beats.start_run(inc, run, inc.t0 + sec(420), with_user=False)
    beats.steady(inc, run, boot)
    at = inc.t0 + sec(1180) + inc.between(0, 30)
    failures = []
    while at < inc.t0 + sec(2700):  # bursts of 20 quick retries
        failures.append(inc.log(run.head, PROXY, at, HANDSHAKE_FAILED))
        at += inc.between(1.5, 3.0) if len(failures) % 20 else inc.between(50.0, 160.0)
    beats.node_noise(inc)
    root = ref(inc, failures[0], HANDSHAKE_STATUS, scenario=9, source="container")
    return finish(
        inc,
        run,
        root=root,
        versions=release_versions(run, jax=None),
        method=[
            act("proxy", contains=[HANDSHAKE_STATUS, "IFRT proxy server started with status OK"]),
            act("pathways-rm", contains=["2/2 Pathways Slices Now Ready"]),
            errors_act(),
        ],
    )
