"""A TPU worker grows its host memory until the kernel's memory cgroup OOM killer kills it."""

from __future__ import annotations

from tests.corpus import beats
from tests.corpus.clock import sec
from tests.corpus.expect import act, earliest, failing_from, finish, ref
from tests.corpus.incident import Incident, Story
from tests.corpus.layouts import release
from tests.corpus.model import WORKER

STORY = Story(
    slug="host-oom-worker",
    seed=202,
    start="2026-11-17T13:00:00Z",
    title="Host OOM kills a TPU worker process",
    scenario=2,
    layout="xpk",
    summary=(
        "The pathways-worker of slice 1 host 1 grows its host memory until the kernel's memory "
        "cgroup OOM killer kills it (serial console, then an NPD OOMKilling event, exit code 137 "
        "on the node); the other workers lose their peer within milliseconds, the client fails "
        "and the JobSet restarts. The container logs never mention the OOM."
    ),
)
OOM = beats.OomPlan(
    resident=(92.0, 371.0),
    step_time=17.0,
    pids=(30000, 60000),
    cgroup=True,
    trigger="pathways-worker",
    adj=-997,
    rss_kb=401233716,
)
KILLED = "Memory cgroup out of memory: Killed process"


def build() -> Incident:
    inc = Incident(STORY)
    version = release(jax="0.12.0.1", build="20261106_RC02", image="gemma-train:2026-11-15")
    run = beats.standard(
        inc, "gemma-train", version, hosts=3, itype="tpuv6e:2x6", decoy_crash=1500.0
    )
    boot = beats.start_run(inc, run, run.launch)
    killed_at = inc.t0 + sec(1620) + inc.between(0, 30)
    victim = run.workers[1][1]
    kill = beats.oom_kill(inc, run, boot, victim, killed_at, OOM)
    # the kubelet restarts the worker in place (restartPolicy OnFailure) before the JobSet reacts
    again = beats.start_container(inc, victim, WORKER, killed_at + inc.between(1.0, 1.6), attempt=1)
    at = beats.worker_prelude(inc, run, victim, again + inc.between(0.2, 0.5))
    inc.log(victim, WORKER, at + inc.between(0.3, 0.6), beats.MEGASCALE_STARTING)
    stop = beats.end_attempt(inc, run, killed_at, dead=(f"{run.head.name}/jax-tpu",))
    plan = beats.Training(step0=beats.next_step(kill.steps), step_time=17.0)
    beats.restart_and_run(inc, run, stop + inc.between(20, 35), plan)
    beats.node_noise(inc)
    root = ref(inc, kill.root, KILLED, scenario=2, source="serial-console")
    return finish(
        inc,
        run,
        root=root,
        symptoms=[
            ref(inc, earliest(kill.peers), "UNAVAILABLE: Socket closed by peer"),
            ref(inc, kill.event, "OOMKilling"),
            ref(inc, kill.rm, "disconnected"),
            ref(inc, kill.client, "JaxRuntimeError: UNAVAILABLE"),
        ],
        failing_hosts=failing_from(victim, kill.root, kill.hosts),
        method=[
            *beats.oom_methods(inc, kill, KILLED),
            act("pod-events", contains=["Killing"]),
            act("workers", contains=["UNAVAILABLE: Socket closed by peer"]),
        ],
    )
