"""How launchers lay Pathways out on GKE: nodes, pods, their names and labels.

xpk and Cluster Toolkit JobSets (a `pathways-head` Job and one `worker` Job per slice, sized
slices x hosts), LeaderWorkerSet groups (leader `<lws>-<g>`, workers `<lws>-<g>-<w>`), plain
Job and Deployment pods. Labels are written as Kubernetes has them and turned into the
`k8s-pod/...` form entries carry by `tests.logentry.pod_labels`.
"""

from __future__ import annotations

from tests.corpus.dice import K8S_CHARS
from tests.corpus.incident import Incident
from tests.corpus.model import (
    NAMESPACE,
    PROXY,
    RM,
    USER_REGISTRY,
    WORKER,
    JobSetShape,
    Node,
    Pod,
    Run,
    Version,
)
from tests.logentry import DEMO, owner_labels, pod_labels

LWS_LABELS_GUESS = "LWS label set (pod-index, group-key, template-revision-hash values)"
PATHWAYS_TAGS = {
    "0.12.0": "20261108-jax_0.12.0",
    "0.12.0.1": "20261108-jax_0.12.0.1",
    "0.11.2": "20261015-jax_0.11.2",
}
JOBSET = "jobset.sigs.k8s.io"
SIDECAR = "colocated-python-sidecar"


def release(
    jax: str = "0.12.0", build: str = "20261106_RC01", image: str = "maxtext:2026-11-12"
) -> Version:
    """A published Pathways release for a JAX version, and the user's image."""
    return Version(PATHWAYS_TAGS[jax], jax, build, f"{USER_REGISTRY}/{image}")


def new_node(inc: Incident, pool: str) -> Node:
    """A node of the pool (`gke-<cluster>-<pool>-<hash>-<suffix>`), up for a while already."""
    state = inc.cluster
    if pool not in state.pool_hashes:
        state.pool_hashes[pool] = inc.hex(8)
    while True:
        name = f"gke-{DEMO.name}-{pool}-{state.pool_hashes[pool]}-{inc.token(4, K8S_CHARS)}"
        if name not in state.nodes:
            break
    node = Node(
        name=name,
        pool=pool,
        instance_id=str(inc.integer(10**18, 9 * 10**18)),
        boot_id=inc.hex(32),
        kubelet_pid=inc.pid(1500, 2900),
        containerd_pid=inc.pid(900, 1400),
        uptime0=inc.uniform(4000.0, 400000.0),
        ip=".".join(
            str(part) for part in (10, inc.integer(8, 60), inc.integer(0, 255), inc.integer(2, 250))
        ),
    )
    state.nodes[name] = node
    state.images[name] = []
    return node


def tpu_nodes(inc: Incident, slices: int, hosts: int, first_pool: int = 1) -> list[list[Node]]:
    """One TPU node pool per slice (`tpu-np-1`, `tpu-np-2`...), `hosts` nodes each."""
    return [
        [new_node(inc, f"tpu-np-{first_pool + s}") for _ in range(hosts)] for s in range(slices)
    ]


def register(inc: Incident, pod: Pod) -> Pod:
    inc.pods[pod.name] = pod
    return pod


# --------------------------------------------------------------------------- JobSets


def jobset_labels(
    name: str,
    uid: str,
    replicated_job: str,
    index: tuple[int, int],
    replicas: int,
    attempt: int,
    layout: str,
) -> dict[str, str]:
    """The labels of the pod `index` (job index, completion index) of a replicated job;
    workers carry the smaller set of the research note's example."""
    labels = {
        "batch.kubernetes.io/job-completion-index": str(index[1]),
        "batch.kubernetes.io/job-name": f"{name}-{replicated_job}-{index[0]}",
        f"{JOBSET}/job-index": str(index[0]),
        f"{JOBSET}/jobset-name": name,
        f"{JOBSET}/replicatedjob-name": replicated_job,
        f"{JOBSET}/replicatedjob-replicas": str(replicas),
        f"{JOBSET}/restart-attempt": str(attempt),
    }
    if replicated_job != "worker":
        labels[f"{JOBSET}/coordinator"] = f"{name}-pathways-head-0-0.{name}"
        labels[f"{JOBSET}/jobset-uid"] = uid
    elif layout == "xpk":
        labels["xpk.google.com/workload"] = name
    if layout == "toolkit":
        labels["gcluster.google.com/workload"] = name
    return {**pod_labels(labels), **owner_labels("JobSet", name)}


def jobset(inc: Incident, name: str, shape: JobSetShape, *, attempt: int = 0, uid: str = "") -> Run:
    """A Pathways JobSet attempt in the xpk or Cluster Toolkit layout."""
    uid = uid or inc.uuid()
    events = {f"{JOBSET}/jobset-uid": uid, f"{JOBSET}/restart-attempt": str(attempt)}
    events.update(owner_labels("JobSet", name))
    head = _head_pod(inc, name, shape, uid, attempt, events)
    workers = [
        _slice_pods(inc, name, shape, uid, attempt, events, index) for index in range(shape.slices)
    ]
    user = head.containers[0] if not shape.headless else None
    sidecar = None
    if shape.sidecar:
        sidecar = "python-sidecar" if "python-sidecar" in head.containers else SIDECAR
    return Run(
        kind="jobset",
        name=name,
        attempt=attempt,
        head=head,
        workers=workers,
        version=shape.version,
        instance_type=shape.instance_type,
        head_addr=f"{name}-pathways-head-0-0.{name}",
        scratch=f"gs://{DEMO.project}-scratch/pathways/{name}",
        user=user,
        client=None if shape.headless else head,
        sidecar=sidecar,
        user_style="print" if shape.layout == "toolkit" else "maxtext",
        elastic=shape.elastic,
        uid=uid,
        layout=shape.layout,
        shape=shape,
    )


def _head_pod(
    inc: Incident, name: str, shape: JobSetShape, uid: str, attempt: int, events: dict[str, str]
) -> Pod:
    """`<name>-pathways-head-0-0-<suffix>`: proxy and RM (init sidecars unless headless), the
    user container (`jax-tpu`, or `workload-container` with Cluster Toolkit)."""
    job = f"{name}-pathways-head-0"
    labels = jobset_labels(name, uid, "pathways-head", (0, 0), 1, attempt, shape.layout)
    inc.uuid()  # the Job's uid, which no entry shows
    user = "workload-container" if shape.layout == "toolkit" else "jax-tpu"
    init, main = ([], [PROXY, RM]) if shape.headless else ([PROXY, RM], [user])
    if shape.layout == "toolkit" and shape.sidecar:
        main.append("python-sidecar")
    version = shape.version
    images = {
        PROXY: version.proxy_image,
        RM: version.server_image,
        user: version.user_image,
        "python-sidecar": version.sidecar_image,
    }
    pod = Pod(
        name=f"{job}-0-{inc.suffix()}",
        namespace=shape.namespace,
        node=shape.head_node,
        uid=inc.uuid(),
        labels=labels,
        event_labels=events,
        containers=main,
        init=init,
        images=images,
        role="head",
        job=job,
        workload=shape.workload,
    )
    return register(inc, pod)


def _slice_pods(
    inc: Incident,
    name: str,
    shape: JobSetShape,
    uid: str,
    attempt: int,
    events: dict[str, str],
    index: int,
) -> list[Pod]:
    """The worker Job of one slice: `<name>-worker-<slice>-<host>-<suffix>`."""
    job = f"{name}-worker-{index}"
    inc.uuid()  # the Job's uid, which no entry shows
    init = [SIDECAR] if shape.sidecar and shape.layout == "xpk" else []
    images = {WORKER: shape.version.server_image, SIDECAR: shape.version.sidecar_image}
    pods = []
    for host in range(shape.hosts):
        pod = Pod(
            name=f"{job}-{host}-{inc.suffix()}",
            namespace=shape.namespace,
            node=shape.worker_nodes[index][host],
            uid=inc.uuid(),
            labels=jobset_labels(
                name, uid, "worker", (index, host), shape.slices, attempt, shape.layout
            ),
            event_labels=events,
            containers=[WORKER],
            init=init,
            images=images,
            role="worker",
            slice=index,
            host=host,
            job=job,
            workload=shape.workload,
        )
        pods.append(register(inc, pod))
    return pods


def next_attempt(inc: Incident, run: Run) -> Run:
    """The pods a JobSet restart creates: same names up to the suffix, restart-attempt + 1."""
    assert run.shape is not None
    new = jobset(inc, run.name, run.shape, attempt=run.attempt + 1, uid=run.uid)
    new.user_style, new.client_jax = run.user_style, run.client_jax
    return new


def fresh_jobset(
    inc: Incident,
    name: str,
    *,
    slices: int,
    hosts: int,
    version: Version,
    itype: str,
    layout: str = "xpk",
    headless: bool = False,
    sidecar: bool = False,
    elastic: int = 0,
    workload: bool = True,
) -> Run:
    """A JobSet on a new CPU head node and `slices` new TPU node pools of `hosts` nodes each."""
    shape = JobSetShape(
        slices=slices,
        hosts=hosts,
        head_node=new_node(inc, "cpu-np"),
        worker_nodes=tpu_nodes(inc, slices, hosts),
        version=version,
        layout=layout,
        headless=headless,
        sidecar=sidecar,
        instance_type=itype,
        elastic=elastic,
        workload=workload,
    )
    return jobset(inc, name, shape)


# --------------------------------------------------------------------------- other owners


def lws_groups(
    inc: Incident, name: str, groups: int, hosts: int, version: Version, itype: str
) -> list[Run]:
    """A LeaderWorkerSet: per group a leader `<lws>-<g>` (RM, proxy, server) on a CPU node and
    `hosts` workers `<lws>-<g>-<w>` on TPU node pool `tpu-np-<g+1>`.

    Pods belong to StatefulSets: the leaders' is `<lws>`, a group's workers' `<lws>-<g>`."""
    inc.note(LWS_LABELS_GUESS)
    runs = []
    for group in range(groups):
        leader = new_node(inc, "cpu-np")
        nodes = [leader, *(new_node(inc, f"tpu-np-{group + 1}") for _ in range(hosts))]
        keys = {"group-key": inc.hex(40), "template-revision-hash": inc.token(10, K8S_CHARS)}
        pods = [
            _lws_pod(inc, name, group, index, node, version, keys)
            for index, node in enumerate(nodes)
        ]
        runs.append(
            Run(
                kind="lws",
                name=name,
                attempt=0,
                head=pods[0],
                workers=[pods[1:]],
                version=version,
                instance_type=itype,
                head_addr=f"{name}-{group}.{name}.{NAMESPACE}",
                scratch=f"gs://{DEMO.project}-jetstream-cache/pathways",
                user="jax-tpu",
                client=pods[0],
                sidecar=None,
                user_style="serve",
                layout="lws",
            )
        )
    return runs


def _lws_pod(
    inc: Incident,
    name: str,
    group: int,
    index: int,
    node: Node,
    version: Version,
    keys: dict[str, str],
) -> Pod:
    """Pod `index` of a group: 0 is the leader, the others are workers."""
    pod_name = f"{name}-{group}" + (f"-{index}" if index else "")
    owner = owner_labels("StatefulSet", f"{name}-{group}" if index else name)
    lws = {"group-index": str(group), "name": name, "worker-index": str(index), **keys}
    labels = {f"leaderworkerset.sigs.k8s.io/{key}": value for key, value in lws.items()}
    labels["apps.kubernetes.io/pod-index"] = str(index or group)
    labels["statefulset.kubernetes.io/pod-name"] = pod_name
    containers = [RM, PROXY, "jax-tpu"] if index == 0 else [WORKER]
    images = {RM: version.server_image, PROXY: version.proxy_image, WORKER: version.server_image}
    pod = Pod(
        name=pod_name,
        namespace=NAMESPACE,
        node=node,
        uid=inc.uuid(),
        labels={**pod_labels(labels), **owner},
        event_labels=owner,
        containers=containers,
        init=[],
        images={c: images.get(c, version.user_image) for c in containers},
        role="worker" if index else "head",
        slice=group if index else None,
        host=index or None,
        job=f"{name}-{group}" if index else name,
        workload=True,
    )
    return register(inc, pod)


def plain_pod(
    inc: Incident,
    name: str,
    node: Node,
    container: str,
    image: str,
    *,
    owner: tuple[str, str],
    namespace: str = NAMESPACE,
    labels: dict[str, str] | None = None,
    workload: bool = False,
) -> Pod:
    """A pod of a Deployment, DaemonSet or plain Job (owner labels only, no JobSet labels)."""
    owner_set = owner_labels(*owner)
    pod = Pod(
        name=name,
        namespace=namespace,
        node=node,
        uid=inc.uuid(),
        labels={**pod_labels(labels or {}), **owner_set},
        event_labels=owner_set,
        containers=[container],
        init=[],
        images={container: image},
        role="other",
        workload=workload,
    )
    return register(inc, pod)


def client_job(inc: Incident, name: str, node: Node, image: str) -> Pod:
    """The JAX client in its own plain Job (container `main`) next to a headless JobSet."""
    job_uid = inc.uuid()
    labels = {
        "batch.kubernetes.io/controller-uid": job_uid,
        "batch.kubernetes.io/job-name": name,
        "controller-uid": job_uid,
        "job-name": name,
    }
    pod_name = f"{name}-{inc.suffix()}"
    pod = plain_pod(inc, pod_name, node, "main", image, owner=("Job", name), labels=labels)
    pod.role, pod.job, pod.workload = "client", name, True
    return pod
