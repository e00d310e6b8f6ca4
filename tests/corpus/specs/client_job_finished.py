"""A client in its own Job finishes; the headless Pathways JobSet it used stays up, idle."""

from __future__ import annotations

from tests.corpus import beats
from tests.corpus.clock import sec
from tests.corpus.expect import act, errors_act, finish, ref
from tests.corpus.incident import Incident, Story
from tests.corpus.layouts import client_job, fresh_jobset, new_node, release
from tests.corpus.wording import Event

STORY = Story(
    slug="client-job-finished",
    seed=2323,
    start="2026-11-29T09:00:00Z",
    title="Client Job finished: the headless JobSet stays up, idle",
    scenario=None,
    layout="headless JobSet + client in a plain Job (`main`)",
    summary=(
        "A JAX client in its own Job (eval-actor) runs its last step against a headless "
        "Pathways JobSet (eval-pathways), exits 0, and the Job controller records Completed. "
        "The JobSet's RM, proxy and workers stay up and keep logging to the end of the window. "
        "The client going quiet is the end of the run, not a hang."
    ),
)
CLIENT = "main"
# kubernetes/kubernetes pkg/controller/job/job_controller.go: a Job whose pods succeeded.
JOB_COMPLETED = Event("Completed", "Job completed", component="job-controller", kind="Job")


def build() -> Incident:
    inc = Incident(STORY)
    version = release(build="20261106_RC02", image="eval-actor:2026-11-28")
    run = fresh_jobset(
        inc, "eval-pathways", slices=2, hosts=2, version=version, headless=True, itype="tpuv6e:2x4"
    )
    client = client_job(inc, "eval-actor", new_node(inc, "cpu-np"), version.user_image)
    run.client, run.user, run.user_style, run.wrapper = client, CLIENT, "print", False
    beats.decoy_jobset(
        inc, "eval-pathways", version, inc.t0 + inc.between(40, 100), inc.t0 + sec(1300)
    )
    beats.bystander(inc)
    boot = beats.start_run(inc, run, inc.t0 + sec(210))
    ends_at = inc.t0 + sec(1520) + inc.between(0, 20)
    plan = beats.Training(step_time=6.5, save_every=10_000)
    steps = beats.train(inc, run, boot.first_step, ends_at, plan)
    beats.container_died(inc, client, CLIENT, steps[-1][0] + inc.between(0.5, 1.5), 0)
    done = inc.cluster_event(steps[-1][0] + inc.between(2.0, 3.0), client.job, JOB_COMPLETED)
    beats.steady(inc, run, boot)
    beats.node_noise(inc)
    inc.issue = steps[-1][0] + sec(600)
    last_step = f"completed step: {steps[-1][1]},"
    return finish(
        inc,
        run,
        workload=["jobset:eval-pathways", "job:eval-actor"],
        root=None,
        failures=[],
        method=[
            errors_act(),
            act("user-workload", args=["--order=desc"], contains=[last_step]),
            act("pod-events", contains=["Job completed"], absent=["Killing", "BackOff"]),
        ],
        extra={"completed": ref(inc, done, "Job completed")},
    )
