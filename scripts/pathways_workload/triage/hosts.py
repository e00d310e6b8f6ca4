"""Which TPU hosts failed, when each failed first, the lead and the lowest-indexed one.

A host is a pod running `pathways-worker` (or a container of another name in a
JobSet replicated job other than the head's: a renamed worker), its slice the
JobSet `job-index` or LWS group, its host the `job-completion-index` (else the
index in the pod's name) or LWS worker index; the head pod is not a host.
Node-level evidence (a kernel OOM kill, an interruption) counts for the host pod
that ran on that node at the time (the first one seen there, when the evidence
came before any line read from the node's pods, unless its Scheduled event came
after the evidence). SIGTERM lines are the JobSet tearing
everything down, and pod events (kills, back-offs) its consequences: neither
makes a host a failing one; nor does a worker's line saying the JAX client died
(the host only followed the client)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Any

from pathways_workload import labels
from pathways_workload.describe import (
    container_of,
    entry_labels,
    event_reason,
    message,
    node_of,
    pod_of,
)
from pathways_workload.node_discovery import ASSIGNED_RE, NODE_NAME_RE
from pathways_workload.pod_names import implied_labels
from pathways_workload.sources.base import Entry, entry_time_ns
from pathways_workload.target import Workload
from pathways_workload.terms import (
    PROXY_CONTAINERS,
    RM_CONTAINERS,
    SIDECAR_CONTAINERS,
    USER_CONTAINERS,
)
from pathways_workload.triage.evidence import CLIENT_LOGS, Evidence, symptom_of
from pathways_workload.triage.fetches import PROGRESS_TERM

HOST_CONTAINERS = ("pathways-worker", "colocated-python-sidecar")
HEAD_CONTAINERS = RM_CONTAINERS + PROXY_CONTAINERS + USER_CONTAINERS
# The replicated jobs the launchers run the head pod (RM, proxy, client) as.
HEAD_REPLICATED_JOBS = ("pathways-head", "head", "rm", "proxy")
HOST_LABELS = (
    (labels.JOBSET_JOB_INDEX, labels.JOB_COMPLETION_INDEX),
    (labels.LWS_GROUP_INDEX, labels.LWS_WORKER_INDEX),
)
TEARDOWN = "SIGTERM"
NODE_SOURCES = ("serial-console", "audit", "node-event")


def pods_in(entries: Iterable[Entry]) -> set[str]:
    """The pods the entries come from."""
    return {pod for pod in map(pod_of, entries) if pod}


def own_crash_pods(entries: Iterable[Entry]) -> set[str]:
    """Pods with a crash line of their own: the SIGTERM of a teardown is the JobSet's doing,
    and a pod's own error may still follow it."""
    return {pod for entry in entries if (pod := pod_of(entry)) and TEARDOWN not in message(entry)}


@dataclasses.dataclass
class HostPod:
    """A TPU host pod as its lines show it: node, indices and when it logged."""

    pod: str
    node: str | None  # None when its lines lack the node label
    slice: str
    host: str
    first_ns: int
    last_ns: int
    scheduled_ns: int | None = None  # its Scheduled event, when read


def host_index(found: dict[str, Any]) -> tuple[str, str] | None:
    """(slice, host) from a pod's labels: JobSet job and completion index, or LWS indices."""
    for slice_key, host_key in HOST_LABELS:
        if isinstance(found.get(slice_key), str):
            return str(found[slice_key]), str(found.get(host_key, "?"))
    return None


def entry_host(entry: Entry) -> tuple[str, str] | None:
    """(slice, host) of the pod an entry comes from, by its labels; a JobSet pod's completion
    index from its name when the labels lack it (Kubernetes before 1.28 sets it as an
    annotation only, and the pod's labels are all Cloud Logging keeps)."""
    found = entry_labels(entry)
    jobset, pod = found.get(labels.JOBSET_NAME), pod_of(entry)
    if labels.JOB_COMPLETION_INDEX not in found and isinstance(jobset, str) and pod:
        found = {**implied_labels(pod, [Workload("jobset", jobset)]), **found}
    return host_index(found)


def runs_on_host(entry: Entry) -> bool:
    """A TPU host's line: of a worker (or sidecar) container, or of a container with another
    name in a JobSet pod of a replicated job other than the head's (a renamed worker)."""
    container = container_of(entry)
    if container in HOST_CONTAINERS:
        return True
    if container is None or container in HEAD_CONTAINERS:
        return False
    replicated = entry_labels(entry).get(labels.JOBSET_REPLICATED_JOB)
    return isinstance(replicated, str) and replicated not in HEAD_REPLICATED_JOBS


def event_host(entry: Entry) -> tuple[str, str] | None:
    """(slice, host) of the TPU host pod an event is about: from the pod's name and the
    JobSet that owns it (events carry owner labels only), in a replicated job other than
    the head's."""
    found, pod = entry_labels(entry), pod_of(entry)
    owner = found.get(labels.OWNER_NAME)
    if found.get(labels.OWNER_TYPE) != "JobSet" or not isinstance(owner, str) or not pod:
        return None
    implied = implied_labels(pod, [Workload("jobset", owner)])
    if implied.get(labels.JOBSET_REPLICATED_JOB) in (None, *HEAD_REPLICATED_JOBS):
        return None
    return host_index(implied)


def client_containers(entries: Iterable[Entry]) -> frozenset[str]:
    """The JAX client's containers: the known names, and a container of any other name that
    reports training progress and is no TPU host's, RM's, proxy's or sidecar's (a client
    the user named, e.g. `trainer`)."""
    known = USER_CONTAINERS + RM_CONTAINERS + PROXY_CONTAINERS + SIDECAR_CONTAINERS
    named = {
        container
        for entry in entries
        if (container := container_of(entry))
        and container not in known
        and not runs_on_host(entry)
        and PROGRESS_TERM in message(entry)
    }
    return frozenset(USER_CONTAINERS) | named


def host_pods(entries: Iterable[Entry], events: Iterable[Entry] = ()) -> dict[str, HostPod]:
    """The host pods among the workload's container lines, and among its pod events those of
    host pods that logged no line (an image that cannot be pulled, a pod never scheduled)."""
    pods: dict[str, HostPod] = {}
    for entry in entries:
        indices = entry_host(entry) if runs_on_host(entry) else None
        if indices is not None:
            _seen(pods, entry, indices)
    logged = set(pods)
    for entry in events:
        indices = None if pod_of(entry) in logged else event_host(entry)
        if indices is not None:
            _seen(pods, entry, indices)
        if pod_of(entry) in pods and event_reason(entry) == "Scheduled":
            _scheduled(pods[str(pod_of(entry))], entry)
    return pods


def _scheduled(pod: HostPod, event: Entry) -> None:
    """Note the pod's Scheduled event: when, and its node when no line read named it."""
    pod.scheduled_ns = entry_time_ns(event)
    assigned = ASSIGNED_RE.search(message(event))
    if pod.node is None and assigned and NODE_NAME_RE.fullmatch(assigned.group(1)):
        pod.node = assigned.group(1)


def _seen(pods: dict[str, HostPod], entry: Entry, indices: tuple[str, str]) -> None:
    """Count the entry for its host pod: when it was seen, and on which node."""
    pod, node, time = pod_of(entry), node_of(entry), entry_time_ns(entry)
    if not pod:
        return
    known = pods.setdefault(pod, HostPod(pod, node, *indices, time, time))
    known.first_ns, known.last_ns = min(known.first_ns, time), max(known.last_ns, time)
    known.node = known.node or node


def head_nodes(entries: Iterable[Entry]) -> frozenset[str]:
    """Nodes where the head pod's containers logged and no TPU host did: a peer lost there
    is the head's services (RM, compilation service), not a TPU worker."""
    heads: set[str] = set()
    hosts: set[str] = set()
    for entry in entries:
        node = node_of(entry)
        if node and runs_on_host(entry):
            hosts.add(node)
        elif node and container_of(entry) in HEAD_CONTAINERS:
            heads.add(node)
    return frozenset(heads - hosts)


def host_of(item: Evidence, pods: dict[str, HostPod]) -> HostPod | None:
    """The host pod an item of evidence is about, if any: for node evidence, the pod on the
    node at the time (see `pod_on_node`)."""
    if item.pod in pods:
        return pods[item.pod]
    if item.source not in NODE_SOURCES:
        return None
    return pod_on_node(pods.values(), item.node, item.time_ns)


def _arrived_ns(pod: HostPod) -> int:
    """When the pod reached its node: its Scheduled event, else its first line read."""
    return min(pod.first_ns, pod.scheduled_ns) if pod.scheduled_ns is not None else pod.first_ns


def pod_on_node(pods: Iterable[HostPod], node: str | None, time_ns: int) -> HostPod | None:
    """The host pod on the node at the time: the latest to reach it by then (a pod scheduled
    there replaces the one before it), else the first seen there unless it was scheduled
    later (its lines before the evidence were not read: SQL reads a container's first crash
    lines and its latest lines). None for no node (a node pool operation names none)."""
    if node is None:
        return None
    on_node = [p for p in pods if p.node == node]
    before = [p for p in on_node if _arrived_ns(p) <= time_ns]
    if before:
        return max(before, key=_arrived_ns)
    first = min(on_node, key=_arrived_ns, default=None)
    if first is None or first.scheduled_ns is not None:
        return None
    return first


def follows_the_client(item: Evidence) -> bool:
    """A worker's line saying the JAX client died: the host only followed the client."""
    rule = symptom_of(item.entry) if item.symptom else None
    return rule is not None and rule.look is CLIENT_LOGS


def failing_hosts(
    evidence: Sequence[Evidence],
    pods: dict[str, HostPod],
    quiet: Entry | None = None,
    cause: Evidence | None = None,
) -> list[dict[str, Any]]:
    """Per failing host, its first error of its own, else its first symptom (or, in a hang,
    when it went quiet); earliest first, at the same instant a host's own error first.

    `downstream` marks a host whose every line is a symptom (it only lost a peer, or the
    client): the failure began elsewhere. The failure's `cause` counts for its host whatever
    it says (a SIGTERM that nothing else explains); as an own error unless it is a symptom.
    """
    firsts: dict[str, tuple[int, Entry]] = {}
    own_firsts: dict[str, tuple[int, Entry]] = {}  # a host's first error of its own
    for item in sorted(evidence, key=lambda item: (item.time_ns, item.order())):
        host = host_of(item, pods)
        if (
            host
            and item.source != "pod-event"
            and TEARDOWN not in item.message
            and not follows_the_client(item)
        ):
            firsts.setdefault(host.pod, (item.time_ns, item.entry))
            if not item.symptom:
                own_firsts.setdefault(host.pod, (item.time_ns, item.entry))
    began: list[tuple[str, int, Entry, bool]] = []
    if cause is not None and (host := host_of(cause, pods)) is not None:
        began.append((host.pod, cause.time_ns, cause.entry, not cause.symptom))
    if quiet is not None and pod_of(quiet) in pods:
        began.append((str(pod_of(quiet)), entry_time_ns(quiet), quiet, True))
    for pod, time, entry, own in began:
        chosen = own_firsts if own else firsts
        if pod not in chosen or chosen[pod][0] > time:
            chosen[pod] = (time, entry)
    firsts.update(own_firsts)  # its own error, not a symptom before it (`invoked oom-killer`)
    own_error = set(own_firsts)
    rows = [row] if (row := _unseen_row(quiet)) else []
    for pod, (_, entry) in sorted(
        firsts.items(), key=lambda pair: (pair[1][0], pair[0] not in own_error)
    ):
        host = pods[pod]
        text = message(entry)
        rows.append(
            {
                "pod": pod,
                "node": host.node,
                "slice": host.slice,
                "host": host.host,
                "first_error_time": entry.get("timestamp"),
                "first_error": text.splitlines()[0] if text else "",
                "downstream": pod not in own_error,
            }
        )
    return rows


def _unseen_row(quiet: Entry | None) -> dict[str, Any] | None:
    """The row of a TPU host that logged nothing in the window when it is the one that went
    quiet first: it has no pod (and no node), only its slice and host index."""
    if quiet is None or pod_of(quiet) or not runs_on_host(quiet):
        return None
    index = entry_host(quiet)
    if index is None:
        return None
    text = message(quiet)
    return {
        "pod": None,
        "node": None,
        "slice": index[0],
        "host": index[1],
        "first_error_time": quiet.get("timestamp"),
        "first_error": text.splitlines()[0] if text else "",
        "downstream": False,
    }


def lead_host(hosts: Sequence[dict[str, Any]], cause_pod: str | None) -> dict[str, Any] | None:
    """Where the failure began: the root cause's host, else the first host with an error of
    its own, else the first to report (then its row says it is downstream)."""
    for row in hosts:
        if row["pod"] == cause_pod:
            return row
    return next((row for row in hosts if not row["downstream"]), hosts[0] if hosts else None)


def lowest_indexed(hosts: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The failing host with the lowest (slice, host) index."""

    def index(row: dict[str, Any]) -> tuple[int, int]:
        try:
            return int(row["slice"]), int(row["host"])
        except ValueError:
            return (1 << 30, 1 << 30)

    return min(hosts, key=index) if hosts else None
