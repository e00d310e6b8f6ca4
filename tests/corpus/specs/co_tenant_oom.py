"""A co-tenant pod fills a TPU host's memory; the kernel's global OOM killer picks the worker."""

from __future__ import annotations

from tests.corpus import beats
from tests.corpus.clock import sec
from tests.corpus.dice import K8S_CHARS
from tests.corpus.expect import act, earliest, failing_from, finish, ref, unrelated_of, versions
from tests.corpus.incident import Incident, Story
from tests.corpus.layouts import plain_pod, release
from tests.corpus.model import Pod
from tests.corpus.wording import Line

STORY = Story(
    slug="co-tenant-oom",
    seed=1919,
    start="2026-11-27T03:00:00Z",
    title="A co-tenant pod fills a TPU host's memory; the kernel kills pathways-worker",
    scenario=2,
    layout="xpk + Deployment pod of namespace team-data",
    summary=(
        "A cache-warmer pod of namespace team-data is scheduled onto the node of slice 0 host 1 "
        "and keeps loading shards into memory; the node runs out of memory and the global OOM "
        "killer picks the pathways-worker (serial console Out of memory: Killed process, NPD "
        "OOMKilling, kubelet SystemOOM), the peers and the client fail and the JobSet restarts, "
        "while the co-tenant keeps running."
    ),
)
OOM = beats.OomPlan(
    resident=(88.0, 91.0),
    step_time=15.0,
    pids=(20000, 40000),
    cgroup=False,
    trigger="python3",
    adj=986,
    rss_kb=95734412,
)
WARMER, WARMER_IMAGE = "warmer", "us-docker.pkg.dev/pw-demo/data/cache-warmer:1.3"
LOADED = Line(
    "loaded shard {shard}/96 into the in-memory cache (resident {resident:.1f} GiB)",
    form="plain",
    stream="stdout",
    guess="the co-tenant's `loaded shard ...` lines",
)


def load_shards(
    inc: Incident, tenant: Pod, at: int, until: int, shard: int, gap: tuple[float, float]
) -> int:
    """The co-tenant's cache-warming progress until `until`. Returns the next shard."""
    while at < until:
        inc.log(tenant, WARMER, at, LOADED, shard=shard, resident=shard * 11.2)
        shard += 1
        at += inc.between(*gap)
    return shard


def build() -> Incident:
    inc = Incident(STORY)
    run = beats.standard(
        inc, "vit-train", release(image="vit-train:2026-11-26"), decoy_crash=1450.0
    )
    victim = run.workers[0][1]
    replica_set = inc.token(10, K8S_CHARS)
    tenant = plain_pod(
        inc,
        f"cache-warmer-{replica_set}-{inc.suffix()}",
        victim.node,
        WARMER,
        WARMER_IMAGE,
        owner=("Deployment", "cache-warmer"),
        namespace="team-data",
        labels={"app": "cache-warmer", "pod-template-hash": replica_set},
    )
    boot = beats.start_run(inc, run, run.launch)
    started = beats.start_pod(inc, tenant, inc.t0 + sec(1200) + inc.between(0, 30))[WARMER]
    killed_at = inc.t0 + sec(1640) + inc.between(0, 20)
    shard = load_shards(
        inc, tenant, started + inc.between(1.0, 3.0), killed_at - sec(2), 1, (6.0, 9.0)
    )
    kill = beats.oom_kill(inc, run, boot, victim, killed_at, OOM)
    dead = (f"{victim.name}/pathways-worker", f"{run.head.name}/jax-tpu")
    stop = beats.end_attempt(inc, run, killed_at, dead=dead, first_failed="vit-train-worker-0")
    load_shards(inc, tenant, killed_at + inc.between(5, 8), inc.t1 - sec(5), shard, (20.0, 40.0))
    plan = beats.Training(step0=beats.next_step(kill.steps), step_time=15.0)
    beats.restart_and_run(inc, run, stop + inc.between(20, 35), plan)
    beats.node_noise(inc)
    root = ref(inc, kill.root, "Out of memory: Killed process", scenario=2, source="serial-console")
    place = {"namespace": "team-data", "pod": tenant.name, "container": WARMER}
    return finish(
        inc,
        workload=["jobset:vit-train"],
        unrelated=[*unrelated_of(inc, "vit-train-eval"), f"pod:{tenant.name}"],
        root=root,
        failures=[root],
        symptoms=[
            ref(inc, earliest(kill.peers), "UNAVAILABLE"),
            ref(inc, kill.rm, "disconnected"),
            ref(inc, kill.client, "JaxRuntimeError"),
        ],
        failing_hosts=failing_from(victim, kill.root, kill.hosts),
        versions=versions(run),
        method=[
            *beats.oom_methods(inc, kill, "Out of memory: Killed process", "SystemOOM"),
            act("neighbors", contains=["team-data", tenant.name]),
        ],
        extra={"co_tenant": {**place, "node": victim.node.name}},
    )
