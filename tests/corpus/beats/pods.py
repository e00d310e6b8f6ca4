"""Pod life cycle: scheduling, image pulls, containers starting, stopping and dying.

What the scheduler, the kubelet, containerd and the job and JobSet controllers log about it.
"""

from __future__ import annotations

from tests.corpus.clock import NS, sec
from tests.corpus.incident import Incident
from tests.corpus.model import PATHWAYS_CONTAINERS, SIDECARS, Pod, Run
from tests.corpus.wording import (
    JOBSET_EVENT_GUESS,
    JOURNAL_GUESS,
    NODE_GUESS,
    SIGTERM_GUESS,
    ContainerdLine,
    Event,
    KubeletLine,
    Line,
)
from tests.logentry import OWNER_NAME, Entry

SANDBOX = "<sandbox>"
SCHEDULED = Event(
    "Scheduled", "Successfully assigned {namespace}/{pod} to {node}", component="default-scheduler"
)
ALREADY_PRESENT = Event("Pulled", 'Container image "{image}" already present on machine')
PULLING = Event("Pulling", 'Pulling image "{image}"')
PULLED = Event(
    "Pulled",
    'Successfully pulled image "{image}" in {took:.3f}s ({waited:.3f}s including waiting).'
    " Image size: {size} bytes.",
)
CREATED = Event("Created", "Created container: {container}", guess=JOURNAL_GUESS)
CREATED_BY_OLDER_KUBELET = Event("Created", "Created container {container}", guess=JOURNAL_GUESS)
STARTED = Event("Started", "Started container {container}")
KILLING = Event("Killing", "Stopping container {container}")
JOB_CREATED_POD = Event(
    "SuccessfulCreate", "Created pod: {pod}", component="job-controller", kind="Job"
)
STATEFULSET_CREATED_POD = Event(
    "SuccessfulCreate",
    "create Pod {pod} in StatefulSet {owner} successful",
    component="statefulset-controller",
    kind="StatefulSet",
)
BACKOFF_LIMIT = Event(
    "BackoffLimitExceeded",
    "Job has reached the specified backoff limit",
    type="Warning",
    component="job-controller",
    kind="Job",
    planted=True,
)
CRASH_BACKOFF = Event(
    "BackOff",
    "Back-off restarting failed container {container} in pod {pod}_{namespace}({uid})",
    type="Warning",
    planted=True,
)
FIRST_FAILED = " (first failed job: {job})"
# kubernetes-sigs/jobset pkg/constants: each ending's event reason and message (Warning for a
# failure, Normal when every Job succeeded).
JOBSET_ENDINGS = {
    reason: Event(
        reason,
        message,
        type=kind,
        component="jobset",
        kind="JobSet",
        events_api=True,
        planted=True,
        guess=JOBSET_EVENT_GUESS,
    )
    for reason, message, kind in (
        (
            "RestartJobSetFailurePolicyAction",
            "applying RestartJobSet failure policy action" + FIRST_FAILED,
            "Warning",
        ),
        ("FailedJobs", "jobset failed due to one or more job failures" + FIRST_FAILED, "Warning"),
        (
            "ReachedMaxRestarts",
            "jobset failed due to reaching max number of restarts" + FIRST_FAILED,
            "Warning",
        ),
        ("AllJobsCompleted", "jobset completed successfully", "Normal"),
        ("SuspendedJobs", "jobset is suspended", "Normal"),
    )
}

SYNC_ADD = KubeletLine(
    '"SyncLoop ADD" source="api" pods=["{namespace}/{pod}"]', ("kubelet.go", 2417)
)
SYNC_DELETE = KubeletLine(
    '"SyncLoop DELETE" source="api" pods=["{namespace}/{pod}"]', ("kubelet.go", 2433)
)
KILL_WITH_GRACE = KubeletLine(
    '"Killing container with a grace period" pod="{namespace}/{pod}" podUID="{uid}" '
    'containerName="{container}" containerID="containerd://{cid}" gracePeriod=30',
    ("kuberuntime_container.go", 808),
)
CONTAINER_DIED = KubeletLine(
    '"SyncLoop (PLEG): event for pod" pod="{namespace}/{pod}" '
    'event={{"ID":"{uid}","Type":"ContainerDied","Data":"{cid}"}}'
)
CONTAINER_FINISHED = KubeletLine(
    '"Generic (PLEG): container finished" podID="{uid}" containerID="{cid}" exitCode={code}',
    ("generic.go", 334),
    planted=True,
    guess='kubelet `"Generic (PLEG): container finished" ... exitCode=137` as the node-side '
    "exit-code evidence",
)
RUN_SANDBOX = ContainerdLine(
    "RunPodSandbox for &PodSandboxMetadata{{Name:{pod},Uid:{uid},Namespace:{namespace},"
    'Attempt:0,}} returns sandbox id \\"{sandbox}\\"',
    guess=NODE_GUESS,
)
CREATE_CONTAINER = ContainerdLine(
    'CreateContainer within sandbox \\"{sandbox}\\" for container '
    "&ContainerMetadata{{Name:{container},Attempt:{attempt},}}",
    guess=NODE_GUESS,
)
START_CONTAINER = ContainerdLine(
    'StartContainer for \\"{cid}\\" returns successfully', guess=NODE_GUESS
)
TASK_EXIT = ContainerdLine(
    'TaskExit event in podsandbox handler container_id:\\"{cid}\\" id:\\"{cid}\\" pid:{pid} '
    "exit_status:{code} exited_at:{{seconds:{seconds} nanos:{nanos}}}",
    guess=NODE_GUESS,
)
SIGTERM = Line(
    "*** SIGTERM received by PID {pid} (TID {pid}) on cpu {cpu} from PID 0; stack trace: ***",
    form="plain",
    planted=True,
    guess=SIGTERM_GUESS,
)
SIDECAR_SIGTERM = Line(
    "Received SIGTERM; shutting down the colocated Python server", form="plain", planted=True
)


def schedule(inc: Incident, pod: Pod, at: int) -> int:
    """The scheduler places the pod; the kubelet picks it up. Returns when it did."""
    inc.cluster.place(pod, at)
    names = {"namespace": pod.namespace, "pod": pod.name}
    inc.pod_event(pod, at, SCHEDULED, node=pod.node.name, **names)
    at += inc.between(0.05, 0.3)
    inc.kubelet(pod.node, at, SYNC_ADD, **names)
    return at


def start_pod(inc: Incident, pod: Pod, at: int) -> dict[str, int]:
    """Schedule the pod, make its sandbox and start every container in order.

    Returns each container's start time."""
    at = schedule(inc, pod, at)
    sandbox = inc.container_id(pod, SANDBOX, fresh=True)
    at += inc.between(0.4, 1.8)
    names = {"namespace": pod.namespace, "pod": pod.name, "uid": pod.uid}
    inc.containerd(pod.node, at, RUN_SANDBOX, sandbox=sandbox, **names)
    starts = {}
    for container in pod.all_containers():
        at = start_container(inc, pod, container, at + inc.between(0.05, 0.4))
        starts[container] = at
    return starts


def start_container(inc: Incident, pod: Pod, container: str, at: int, *, attempt: int = 0) -> int:
    """Pull the image (or find it on the node), create and start the container.

    Returns when it started."""
    at = pull(inc, pod, container, at)
    path = pod.field_path(container)
    cid = inc.container_id(pod, container, fresh=True)
    sandbox = inc.container_id(pod, SANDBOX)
    created = CREATED if inc.new_kubelet else CREATED_BY_OLDER_KUBELET
    inc.pod_event(pod, at, created, field_path=path, container=container)
    if container in PATHWAYS_CONTAINERS:
        inc.containerd(
            pod.node,
            at + inc.between(0.01, 0.08),
            CREATE_CONTAINER,
            sandbox=sandbox,
            container=container,
            attempt=attempt,
        )
    at += inc.between(0.1, 0.5)
    inc.pod_event(pod, at, STARTED, field_path=path, container=container)
    inc.containerd(pod.node, at, START_CONTAINER, cid=cid)
    return at


def pull(inc: Incident, pod: Pod, container: str, at: int) -> int:
    """The container's image: already on the node, or pulled now. Returns when it is there."""
    image, path = pod.images[container], pod.field_path(container)
    on_node = inc.cluster.images[pod.node.name]
    if image in on_node:
        inc.pod_event(pod, at, ALREADY_PRESENT, field_path=path, image=image)
        return at + inc.between(0.2, 0.9)
    inc.pod_event(pod, at, PULLING, field_path=path, image=image)
    took = inc.uniform(4.0, 28.0) if "pathways" in image else inc.uniform(9.0, 41.0)
    at += sec(took)
    size = inc.integer(900_000_000, 4_800_000_000)
    waited = took + inc.uniform(0.0, 1.5)
    inc.pod_event(
        pod, at, PULLED, field_path=path, image=image, took=took, waited=waited, size=size
    )
    on_node.append(image)
    return at


def stop_container(
    inc: Incident, pod: Pod, container: str, at: int, *, signal: bool = True, code: int = 143
) -> Entry | None:
    """The kubelet stops a container: Killing event, node lines, and its SIGTERM line.

    Returns the SIGTERM line (None when the container does not log one)."""
    cid = inc.container_id(pod, container)
    inc.pod_event(pod, at, KILLING, field_path=pod.field_path(container), container=container)
    names = {"namespace": pod.namespace, "pod": pod.name, "uid": pod.uid, "cid": cid}
    inc.kubelet(
        pod.node, at + inc.between(0.001, 0.02), KILL_WITH_GRACE, container=container, **names
    )
    line = sigterm_line(inc, pod, container, at + inc.between(0.004, 0.09)) if signal else None
    exited = at + inc.between(0.3, 2.8)
    inc.containerd(
        pod.node,
        exited,
        TASK_EXIT,
        planted=code == 137,
        cid=cid,
        pid=inc.pid(3000, 90000),
        code=code,
        seconds=exited // NS,
        nanos=exited % NS,
    )
    inc.kubelet(pod.node, exited + inc.between(0.05, 0.6), CONTAINER_DIED, **names)
    return line


def container_died(inc: Incident, pod: Pod, container: str, at: int, code: int) -> None:
    """A container exits on its own (crash or kill): what the node logs."""
    cid = inc.container_id(pod, container)
    inc.containerd(
        pod.node,
        at,
        TASK_EXIT,
        planted=True,
        cid=cid,
        pid=inc.pid(3000, 90000),
        code=code,
        seconds=at // NS,
        nanos=at % NS,
    )
    inc.kubelet(
        pod.node, at + inc.between(0.05, 0.5), CONTAINER_FINISHED, uid=pod.uid, cid=cid, code=code
    )
    names = {"namespace": pod.namespace, "pod": pod.name, "uid": pod.uid, "cid": cid}
    inc.kubelet(pod.node, at + inc.between(0.6, 1.0), CONTAINER_DIED, **names)


def sigterm_line(inc: Incident, pod: Pod, container: str, at: int) -> Entry:
    """What a container logs on SIGTERM: absl's failure-signal banner, or the sidecar's line."""
    if container in SIDECARS:
        return inc.log(pod, container, at, SIDECAR_SIGTERM)
    pid = 1 if container in PATHWAYS_CONTAINERS else 7
    return inc.log(pod, container, at, SIGTERM, pid=pid, cpu=inc.integer(0, 95))


def stop_pod(
    inc: Incident, pod: Pod, at: int, *, skip: tuple[str, ...] = (), signal: bool = True
) -> list[Entry]:
    """Stop every container but `skip`, then delete the pod. Returns the SIGTERM lines."""
    lines = []
    for container in pod.all_containers():
        if container not in skip:
            line = stop_container(inc, pod, container, at + inc.between(0.0, 0.05), signal=signal)
            lines += [line] if line is not None else []
    gone = at + inc.between(3.0, 8.0)
    inc.kubelet(pod.node, gone, SYNC_DELETE, namespace=pod.namespace, pod=pod.name)
    inc.cluster.unplace(pod, gone)
    return lines


def job_created_events(inc: Incident, run: Run, at: int) -> None:
    """The job controller creates the pods of a JobSet's Jobs."""
    if run.kind != "jobset":
        return
    for pod in run.pods():
        if pod.job and pod.role != "client":
            created = at - inc.between(0.5, 1.5)
            inc.cluster_event(
                created, pod.job, JOB_CREATED_POD, namespace=pod.namespace, pod=pod.name
            )


def statefulset_created(inc: Incident, run: Run, at: int) -> None:
    """The StatefulSet controller creates the pods of a LeaderWorkerSet group."""
    for pod in run.pods():
        owner = pod.event_labels[OWNER_NAME]
        inc.cluster_event(at, owner, STATEFULSET_CREATED_POD, pod=pod.name, owner=owner)


def jobset_ending(inc: Incident, run: Run, at: int, reason: str, first_failed: str) -> Entry:
    """The JobSet controller's event when an attempt ends (a restart, the JobSet failing, or
    every Job succeeding)."""
    row = JOBSET_ENDINGS[reason]
    uid, namespace = run.uid, run.head.namespace
    return inc.cluster_event(
        at,
        run.name,
        row,
        uid=uid,
        instance=inc.jobset_controller,
        namespace=namespace,
        job=first_failed,
    )


def backoff_limit(inc: Incident, job: str, at: int) -> Entry:
    """The job controller gives up on a Job."""
    return inc.cluster_event(at, job, BACKOFF_LIMIT)


def crash_backoff(inc: Incident, pod: Pod, container: str, at: int, key: str) -> Entry:
    """The kubelet's back-off before restarting a crashed container."""
    names = {"pod": pod.name, "namespace": pod.namespace, "uid": pod.uid}
    path = pod.field_path(container)
    return inc.pod_event(
        pod, at, CRASH_BACKOFF, field_path=path, key=key, container=container, **names
    )
