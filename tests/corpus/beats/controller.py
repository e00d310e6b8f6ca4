"""The JobSet controller manager (namespace `jobset-system`) and Kueue, when a JobSet cannot
start: reconcile errors, webhook denials and the events they record."""

from __future__ import annotations

from collections.abc import Iterator

from tests.corpus.clock import sec, zap_stamp
from tests.corpus.incident import Incident
from tests.corpus.layouts import new_node, plain_pod
from tests.corpus.model import Pod
from tests.corpus.wording import Event, ZapLine
from tests.logentry import Entry, zap_console

MANAGER = "manager"
CONTROLLER_IMAGE = "registry.k8s.io/jobset/jobset:v0.10.1"
ZAP_GUESS = (
    "the controller-manager line layout (zap console encoder, fields JSON) and the webhook "
    "denial line"
)
KUEUE_GUESS = "Kueue event wording (CreatedWorkload, QuotaReserved, Admitted) and the Workload name"
JOBSET_REF = '"JobSet": {{"name":"{jobset}","namespace":"default"}}'
RECONCILING = ZapLine(
    "reconciling jobset",
    logger="jobset-controller",
    fields='{{"jobset": {{"name":"{jobset}","namespace":"default"}}}}',
    guess=ZAP_GUESS,
)
RECONCILER_ERROR = ZapLine(
    "Reconciler error",
    level="ERROR",
    logger="controller-runtime",
    fields='{{"controller": "jobset", "controllerGroup": "jobset.x-k8s.io", '
    '"controllerKind": "JobSet", '
    + JOBSET_REF
    + ', "namespace": "default", "name": "{jobset}", "reconcileID": "{reconcile}", '
    '"error": "{error}"}}',
    planted=True,
    guess=ZAP_GUESS,
)
VALIDATION_DENIED = ZapLine(
    "validation denied update",
    level="ERROR",
    logger="jobset-webhook",
    fields='{{"webhook": "/validate-jobset-x-k8s-io-v1alpha2-jobset", '
    + JOBSET_REF
    + ', "error": "JobSet name is too long, job names generated for this JobSet will exceed 63 '
    'characters"}}',
    planted=True,
    guess=ZAP_GUESS,
)
JOB_CREATION_FAILED = Event(
    "JobCreationFailed",
    "{error}",
    type="Warning",
    component="jobset",
    kind="JobSet",
    events_api=True,
    planted=True,
    guess="JobCreationFailed carrying the API server's `must be no more than 63 characters` "
    "message",
)
CREATED_WORKLOAD = Event(
    "CreatedWorkload",
    "Created Workload: default/{workload}",
    component="kueue-job-controller",
    kind="JobSet",
    guess=KUEUE_GUESS,
)
# kueue pkg/controller/jobframework/reconciler.go (stopJob) records the eviction message of
# pkg/scheduler/preemption/preemption.go (preemptionMessage) on the job it suspends.
KUEUE_STOPPED = Event(
    "Stopped",
    "Preempted to accommodate a workload (UID: {preemptor}, JobUID: {preemptor_job}) due to "
    "prioritization in the ClusterQueue; preemptor path: /tpu-cohort/cq-prod; preemptee path: "
    "/tpu-cohort/cq-research",
    component="kueue-jobset-controller",
    kind="JobSet",
    planted=True,
    guess=KUEUE_GUESS,
)
ADMISSION = tuple(
    Event(reason, message, component="kueue-admission", kind="Workload", guess=KUEUE_GUESS)
    for reason, message in (
        (
            "QuotaReserved",
            "Quota reserved in ClusterQueue cluster-queue, wait time since queued was 2s",
        ),
        ("Admitted", "Admitted by ClusterQueue cluster-queue, wait time since reservation was 0s"),
    )
)


def controller_pod(inc: Incident) -> Pod:
    """The JobSet controller manager, on a node of the default pool since before the window."""
    labels = {"control-plane": "controller-manager", "pod-template-hash": "6d9f8b7c5"}
    pod = plain_pod(
        inc,
        inc.jobset_controller,
        new_node(inc, "default-pool"),
        MANAGER,
        CONTROLLER_IMAGE,
        owner=("Deployment", "jobset-controller-manager"),
        namespace="jobset-system",
        labels=labels,
    )
    inc.cluster.place(pod, inc.t0)
    return pod


def controller_line(inc: Incident, pod: Pod, at: int, row: ZapLine, **fields: object) -> Entry:
    """A line of the manager (zap console encoder on stderr, which GKE marks ERROR)."""
    values = row.fields.format(**fields)
    text = zap_console(zap_stamp(at), row.level, row.logger, row.text, values)
    return inc.log_text(pod, MANAGER, at, row, text)


def reconciling(inc: Incident, pod: Pod, jobset: str) -> None:
    """The routine reconcile lines of a healthy JobSet, every few minutes."""
    at = inc.t0 + inc.between(5, 20)
    while at < inc.t1 - sec(5):
        controller_line(inc, pod, at, RECONCILING, jobset=jobset)
        at += inc.between(60, 240)


def backing_off(
    inc: Incident, start: int, first: float, cap: float, jitter: float
) -> Iterator[int]:
    """Retry times until the window ends: the gap doubles from `first` up to `cap` seconds."""
    at, gap = start, first
    while at < inc.t1 - sec(5):
        yield at
        at += sec(gap) + inc.between(0.0, jitter)
        gap = min(gap * 2, cap)


def jobs_not_created(
    inc: Incident, pod: Pod, jobset: str, uid: str, error: str, start: int
) -> tuple[Entry, Entry]:
    """The controller cannot create the JobSet's Jobs and retries with back-off.

    Returns the first Reconciler error line and the first JobCreationFailed event."""
    lines, events = [], []
    for at in backing_off(inc, start, 0.005, 1000.0, 0.002):
        fields = {"jobset": jobset, "reconcile": inc.uuid(), "error": error}
        lines.append(controller_line(inc, pod, at, RECONCILER_ERROR, **fields))
        event_at = at + inc.between(0.001, 0.004)
        message = error.replace('\\"', '"')
        events.append(
            inc.cluster_event(
                event_at, jobset, JOB_CREATION_FAILED, uid=uid, instance=pod.name, error=message
            )
        )
    return lines[0], events[0]


def kueue_preempts(inc: Incident, jobset: str, uid: str, at: int) -> Entry:
    """Kueue evicts the JobSet's Workload for a workload of higher priority and stops the
    JobSet (its `Stopped` event carries the eviction message)."""
    return inc.cluster_event(
        at, jobset, KUEUE_STOPPED, uid=uid, preemptor=inc.uuid(), preemptor_job=inc.uuid()
    )


def workload_created(inc: Incident, jobset: str, uid: str, workload: str, at: int) -> None:
    """Kueue makes a Workload for the new JobSet (created suspended)."""
    inc.cluster_event(at, jobset, CREATED_WORKLOAD, uid=uid, workload=workload)


def kueue_admits(inc: Incident, workload: str, created: int) -> int:
    """Kueue admits the JobSet's Workload. Returns when it did."""
    admitted = created + inc.between(2, 4)
    for row in ADMISSION:
        inc.cluster_event(admitted, workload, row)
    return admitted


def unsuspend_denied(inc: Incident, pod: Pod, jobset: str, start: int) -> Entry:
    """The webhook rejects every unsuspend of the JobSet. Returns the first denial."""
    denials = [
        controller_line(inc, pod, at, VALIDATION_DENIED, jobset=jobset)
        for at in backing_off(inc, start, 1.0, 600.0, 0.3)
    ]
    return denials[0]
