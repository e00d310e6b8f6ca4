"""A JobSet never starts: its name is too long for the names of its Jobs."""

from __future__ import annotations

from tests.corpus import beats
from tests.corpus.beats import controller
from tests.corpus.clock import sec
from tests.corpus.expect import NO_VERSIONS, act, finish, ref, unrelated_of
from tests.corpus.incident import Incident, Story
from tests.corpus.layouts import fresh_jobset, release

LONG_NAME = "llama3-70b-pretrain-v6e-2x4-bf16-fsdp-sweep-lr3e4-wu2k"
SIBLING = "llama3-70b-pretrain"
HEAD_JOB = f"{LONG_NAME}-pathways-head-0"
assert len(LONG_NAME) <= 63 < len(HEAD_JOB)
STORY = Story(
    slug="jobset-name-too-long",
    seed=1818,
    start="2026-11-26T16:00:00Z",
    title="JobSet stays suspended: its name is too long for the child Job names",
    scenario=None,
    layout="none (jobset-system controller + Kueue events)",
    summary=(
        f"JobSet {LONG_NAME} ({len(LONG_NAME)} characters) is created under Kueue; the JobSet "
        "controller cannot create its Jobs (`<name>-pathways-head-0` exceeds 63 characters) and "
        "retries with back-off, and the webhook rejects Kueue's unsuspend (JobSet name is too "
        "long ...), so no pod ever exists. The running sibling JobSet llama3-70b-pretrain (a "
        "prefix of the name) is healthy."
    ),
)
TOO_LONG = "must be no more than 63 characters"
INVALID_JOB = (  # the API server's answer, as the controller's JSON fields quote it
    f'Job.batch \\"{HEAD_JOB}\\" is invalid: [metadata.name: Invalid value: \\"{HEAD_JOB}\\": '
    f'{TOO_LONG}, spec.template.labels: Invalid value: \\"{HEAD_JOB}\\": {TOO_LONG}]'
)


def build() -> Incident:
    inc = Incident(STORY)
    version = release(image="maxtext:2026-11-25")
    sibling = fresh_jobset(
        inc, SIBLING, slices=2, hosts=3, version=version, itype="tpuv6e:2x6", workload=False
    )
    boot = beats.start_run(inc, sibling, inc.t0 + sec(45))
    beats.steady(inc, sibling, boot)
    beats.train(inc, sibling, boot.first_step, inc.t1 - sec(2), beats.Training(step_time=10.0))
    beats.bystander(inc)
    manager = controller.controller_pod(inc)
    controller.reconciling(inc, manager, SIBLING)
    created = inc.t0 + sec(1080) + inc.between(0, 30)
    workload, uid = f"jobset-{LONG_NAME[:40]}-{inc.hex(5)}", inc.uuid()
    controller.workload_created(inc, LONG_NAME, uid, workload, created + sec(1))
    retried = created + inc.between(0.01, 0.05)
    error, event = controller.jobs_not_created(inc, manager, LONG_NAME, uid, INVALID_JOB, retried)
    admitted = controller.kueue_admits(inc, workload, created)
    denial = controller.unsuspend_denied(inc, manager, LONG_NAME, admitted + inc.between(0.05, 0.2))
    beats.node_noise(inc)
    root = ref(inc, error, TOO_LONG, scenario=None, source="controller")
    return finish(
        inc,
        None,
        workload=[f"jobset:{LONG_NAME}"],
        unrelated=[f"jobset:{SIBLING}", *unrelated_of(inc)],
        root=root,
        failures=[root],
        symptoms=[
            ref(inc, event, "JobCreationFailed"),
            ref(inc, denial, "JobSet name is too long"),
        ],
        versions=NO_VERSIONS,
        method=[
            act("summary", contains=[TOO_LONG, "JobSet name is too long", "JobCreationFailed"]),
            act("pod-events", contains=["JobCreationFailed"]),
            act("errors", absent=[f"{SIBLING}-"]),
        ],
        pods=[],
        extra={
            "controller": {
                "namespace": "jobset-system",
                "pod": manager.name,
                "container": "manager",
            }
        },
    )
