"""A co-tenant pod fills a TPU host's memory; the kernel's global OOM killer picks the worker."""

from __future__ import annotations

from tests.corpus import beats
from tests.corpus.clock import sec
from tests.corpus.expect import act, earliest, failing_from, finish, ref, unrelated_of
from tests.corpus.incident import Incident, Story
from tests.corpus.layouts import release

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


def build() -> Incident:
    inc = Incident(STORY)
    run = beats.standard(
        inc, "vit-train", release(image="vit-train:2026-11-26"), decoy_crash=1450.0
    )
    victim = run.workers[0][1]
    tenant = beats.cache_warmer(inc, victim.node)
    boot = beats.start_run(inc, run, run.launch)
    scheduled = inc.t0 + sec(1200) + inc.between(0, 30)
    started = beats.start_pod(inc, tenant, scheduled)[beats.WARMER]
    killed_at = inc.t0 + sec(1640) + inc.between(0, 20)
    shard = beats.load_shards(
        inc, tenant, started + inc.between(1.0, 3.0), killed_at - sec(2), 1, (6.0, 9.0)
    )
    kill = beats.oom_kill(inc, run, boot, victim, killed_at, OOM)
    dead = (f"{victim.name}/pathways-worker", f"{run.head.name}/jax-tpu")
    stop = beats.end_attempt(inc, run, killed_at, dead=dead, first_failed="vit-train-worker-0")
    beats.load_shards(
        inc, tenant, killed_at + inc.between(5, 8), inc.t1 - sec(5), shard, (20.0, 40.0)
    )
    plan = beats.Training(step0=beats.next_step(kill.steps), step_time=15.0)
    beats.restart_and_run(inc, run, stop + inc.between(20, 35), plan)
    beats.node_noise(inc)
    root = ref(inc, kill.root, "Out of memory: Killed process", scenario=2, source="serial-console")
    place = {"namespace": "team-data", "pod": tenant.name, "container": beats.WARMER}
    return finish(
        inc,
        run,
        unrelated=[*unrelated_of(inc, "vit-train-eval"), f"pod:{tenant.name}"],
        root=root,
        symptoms=[
            ref(inc, earliest(kill.peers), "UNAVAILABLE"),
            ref(inc, kill.rm, "disconnected"),
            ref(inc, kill.client, "JaxRuntimeError"),
        ],
        failing_hosts=failing_from(victim, kill.root, kill.hosts),
        method=[
            *beats.oom_methods(inc, kill, "Out of memory: Killed process", "SystemOOM"),
            act("neighbors", contains=["team-data", tenant.name]),
        ],
        extra={"co_tenant": {**place, "node": victim.node.name}},
    )
