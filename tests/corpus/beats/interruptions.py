"""Infrastructure taking a node away: preemption with graceful shutdown, an unschedulable
replacement, the VM coming back."""

from __future__ import annotations

from tests.corpus.beats.failures import node_back
from tests.corpus.beats.pods import container_died, sigterm_line
from tests.corpus.incident import Incident
from tests.corpus.model import WORKER, Node, Pod
from tests.corpus.wording import Event, KubeletLine, SystemEvent
from tests.logentry import Entry

SHUTDOWN_GUESS = "kubelet graceful-shutdown lines"
PREEMPTED = SystemEvent("compute.instances.preempted", "Instance was preempted.", planted=True)
SHUTDOWN_DETECTED = KubeletLine(
    '"Shutdown manager detected new shutdown event, isNodeShuttingDownNow" event=true',
    ("nodeshutdown_manager_linux.go", 316),
    planted=True,
    guess=SHUTDOWN_GUESS,
)
SHUTDOWN_KILLING = KubeletLine(
    '"Shutdown manager killing pod with gracePeriod" pod="{namespace}/{pod}" gracePeriod=15',
    ("nodeshutdown_manager_linux.go", 375),
    planted=True,
    guess=SHUTDOWN_GUESS,
)
UNSCHEDULABLE = Event(
    "FailedScheduling",
    "0/11 nodes are available: 1 node(s) had untolerated taint "
    "{{node.kubernetes.io/unreachable: }}, 2 Insufficient google.com/tpu, 8 node(s) didn't match "
    "Pod's node affinity/selector. preemption: 0/11 nodes are available: 11 Preemption is not "
    "helpful for scheduling.",
    type="Warning",
    component="default-scheduler",
    planted=True,
    guess="FailedScheduling message tail",
)


def preempted(inc: Incident, pod: Pod, at: int) -> tuple[Entry, Entry, int]:
    """Compute Engine preempts the node of a worker pod; the kubelet's graceful shutdown stops
    the worker. Returns the audit entry, the worker's SIGTERM line and when it exited."""
    node = pod.node
    audit = inc.audit(node, at, PREEMPTED)
    inc.kubelet(node, at + inc.between(0.3, 0.5), SHUTDOWN_DETECTED)
    killing = {"namespace": pod.namespace, "pod": pod.name}
    inc.kubelet(node, at + inc.between(0.5, 0.6), SHUTDOWN_KILLING, **killing)
    sigterm = sigterm_line(inc, pod, WORKER, at + inc.between(0.62, 0.7))
    exited = at + inc.between(0.9, 1.1)
    container_died(inc, pod, WORKER, exited, 143)
    return audit, sigterm, exited


def unschedulable(inc: Incident, pod: Pod, start: int, until: int) -> Entry:
    """The scheduler finds no node for the pod, about once a minute. Returns the first event."""
    events = []
    at = start
    while at < until:
        events.append(inc.pod_event(pod, at, UNSCHEDULABLE, key=f"{pod.uid}/FailedScheduling"))
        at += inc.between(55, 75)
    return events[0]


def node_recreated(inc: Incident, node: Node, boot_at: int, ready_at: int) -> None:
    """The preempted VM is created again: no images on it, a new boot, Ready again."""
    inc.cluster.images[node.name] = []
    node.boot_id = inc.hex(32)
    node_back(inc, node, boot_at, ready_at)
