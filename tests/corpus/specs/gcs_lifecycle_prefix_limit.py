"""pathways-rm crash-loops in a LeaderWorkerSet: the scratch bucket has 50 lifecycle prefixes."""

from __future__ import annotations

from tests.corpus import beats
from tests.corpus.clock import US, sec
from tests.corpus.expect import act, at_of, errors_act, finish, ref, unrelated_of, versions
from tests.corpus.incident import Incident, Story
from tests.corpus.layouts import lws_group, new_node, release
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
CACHE_GUESS = (
    "`Initializing persistent cache storage at ...`, `Resource manager start-up did not "
    "complete; exiting`"
)
CACHE_INIT = Line(
    "Initializing persistent cache storage at {scratch}",
    ("persistent_cache.cc", 180),
    guess=CACHE_GUESS,
)
CACHE_FAILED = Line(
    f"INVALID_ARGUMENT : Permanent error, with a last message of {PREFIX_LIMIT}.; Error while "
    "initializing persistent cache storage gcs",
    ("persistent_cache.cc", 204),
    letter="E",
    planted=True,
)
RM_EXITS = Line(
    "Resource manager start-up did not complete; exiting",
    ("server_main.cc", 240),
    letter="F",
    planted=True,
    guess=CACHE_GUESS,
)
NO_PROXY = beats.traceback_line(
    (
        '  File "/usr/local/lib/python3.12/site-packages/jetstream/entrypoints/http/'
        'api_server.py", line 104, in main',
        "    devices = jax.devices()",
    ),
    "RuntimeError: Unable to initialize backend 'proxy': UNAVAILABLE: Unable to establish "
    "connection to ifrt_proxy server, please check provided address 'localhost:29000'; detailed "
    "error: failed to connect to all addresses",
)


def rm_fails(inc: Incident, run: Run, at: int) -> tuple[Entry, int]:
    """One start of pathways-rm: the persistent cache cannot be set up, it exits."""
    at = beats.rm_prelude(inc, run, at, 1) + inc.between(0.05, 0.2)
    inc.log(run.head, RM, at, CACHE_INIT, scratch=run.scratch)
    at += inc.between(0.3, 0.9)
    failure = inc.log(run.head, RM, at, CACHE_FAILED)
    inc.log(run.head, RM, at + 200 * US, RM_EXITS)
    return failure, at


def server_gives_up(inc: Incident, run: Run, at: int) -> Entry:
    """The JetStream server waits 5 minutes for the proxy, fails, is restarted and fails again.

    Returns its first traceback."""
    failures = []
    for attempt in (1, 2):
        inc.log(run.head, SERVER, at, beats.JETSTREAM_STARTING)
        at += sec(300) + inc.between(0.0, 0.5)
        failures.append(beats.client_traceback(inc, run, at, NO_PROXY)[0])
        beats.container_died(inc, run.head, SERVER, at + inc.between(0.3, 0.6), 1)
        at = beats.start_container(
            inc, run.head, SERVER, at + inc.between(10.0, 12.0), attempt=attempt
        )
        at += inc.between(0.5, 1.5)
    return failures[0]


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
    failure = beats.crash_loop_to_the_end(
        inc,
        run.head,
        RM,
        started[(head, RM)],
        lambda at: rm_fails(inc, run, at),
        code=1,
        key=f"{run.head.uid}/BackOff/rm",
    )
    return failure, server_gives_up(inc, run, started[(head, SERVER)] + inc.between(0.5, 1.5))


def build() -> Incident:
    inc = Incident(STORY)
    version = release(image="jetstream-pathways:2026-11-20")
    beats.decoy_jobset(inc, LWS, version, inc.t0 + inc.between(40, 90), inc.t0 + sec(760))
    beats.bystander(inc)
    groups = [
        lws_group(
            inc,
            LWS,
            index,
            leader=new_node(inc, "cpu-np"),
            workers=[new_node(inc, f"tpu-np-{index + 1}") for _ in range(2)],
            version=version,
            itype="tpuv6e:2x4",
        )
        for index in range(2)
    ]
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
        workload=[f"lws:{LWS}"],
        unrelated=unrelated_of(inc, f"{LWS}-eval"),
        root=failures[0],
        failures=failures,
        symptoms=[ref(inc, failed[0][1], unavailable)],
        versions=versions(groups[0], jax=None),
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
