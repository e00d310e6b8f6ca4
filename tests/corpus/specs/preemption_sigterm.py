"""Spot preemption of a TPU node: SIGTERM, then a JobSet restart that waits for the node."""

from __future__ import annotations

from tests.corpus import beats
from tests.corpus.clock import sec
from tests.corpus.expect import (
    act,
    earliest,
    errors_act,
    failing_from,
    finish,
    ref,
)
from tests.corpus.incident import Incident, Story
from tests.corpus.layouts import next_attempt, release

STORY = Story(
    slug="preemption-sigterm",
    seed=404,
    start="2026-11-18T22:00:00Z",
    title="Spot preemption of a TPU node: SIGTERM, then a JobSet restart",
    scenario=4,
    layout="xpk",
    summary=(
        "GCE preempts the spot VM of slice 1 host 0 (system_event compute.instances.preempted); "
        "the kubelet's graceful shutdown sends SIGTERM to that pathways-worker, the peers and the "
        "client fail, and the JobSet restarts; the new slice-1 pod stays unschedulable until the "
        "node is recreated about six minutes later."
    ),
)


def build() -> Incident:
    inc = Incident(STORY)
    run = beats.standard(
        inc, "mistral-pretrain", release(image="mistral-pretrain:2026-11-18"), decoy_crash=1550.0
    )
    boot = beats.start_run(inc, run, run.launch)
    preempted_at = inc.t0 + sec(1610) + inc.between(0, 30)
    victim = run.workers[1][0]
    node = victim.node
    beats.steady(inc, run, boot, {victim.name: preempted_at}, default=preempted_at)
    plan = beats.Training(step_time=11.0)
    steps = beats.train(inc, run, boot.first_step, preempted_at + inc.between(0.2, 0.5), plan)
    audit, sigterm, exited = beats.preempted(inc, victim, preempted_at)
    hosts, peers, _, client = beats.peer_fallout(inc, run, victim, exited)
    beats.node_not_ready(inc, victim, preempted_at + sec(41), preempted_at + sec(42))
    dead = (victim.name, f"{run.head.name}/jax-tpu")
    stop = beats.end_attempt(inc, run, exited, dead=dead, first_failed="mistral-pretrain-worker-1")
    restarted = next_attempt(inc, run)
    retry_at = stop + inc.between(20, 30)
    back = preempted_at + inc.between(330, 420)
    unschedulable = beats.unschedulable(inc, restarted.workers[1][0], retry_at, back)
    beats.node_recreated(inc, node, back - sec(80), back - sec(5))
    beats.resume(inc, restarted, back, beats.Training(step0=beats.next_step(steps), step_time=11.0))
    beats.node_noise(inc)
    root = ref(inc, audit, "compute.instances.preempted", scenario=4, source="audit")
    return finish(
        inc,
        run,
        root=root,
        symptoms=[
            ref(inc, sigterm, "SIGTERM"),
            ref(inc, earliest(peers), "UNAVAILABLE"),
            ref(inc, client, "JaxRuntimeError"),
            ref(inc, unschedulable, "FailedScheduling"),
        ],
        failing_hosts=failing_from(victim, sigterm, hosts),
        method=[
            errors_act(first=ref(inc, sigterm, "SIGTERM")),
            act("interruptions", contains=["compute.instances.preempted", node.name]),
            act("pod-events", contains=["NodeNotReady", "FailedScheduling", "Killing"]),
            act("summary", contains=[beats.RESTART]),
        ],
    )
