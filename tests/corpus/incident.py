"""One incident being written: its window, its cluster state and the entries it records.

The entry methods take a wording row and its fields, draw what Cloud Logging would add (ids,
receive timestamps, event names and resource versions) from the incident's dice, and build
the entry with `tests.logentry`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests import logentry
from tests.corpus.clock import MS, NS, US, fmt_ts, glog_header, parse_ts, whole
from tests.corpus.cluster import ClusterState
from tests.corpus.dice import K8S_CHARS, Dice
from tests.corpus.model import NAMESPACE, Node, Pod
from tests.corpus.wording import (
    JOBSET_EVENT_GUESS,
    JOURNAL_GUESS,
    ContainerdLine,
    Event,
    KernelLine,
    KubeletLine,
    Line,
    SystemEvent,
    Wording,
)
from tests.logentry import DEMO, Entry

GLOG_SEVERITY = {"I": "INFO", "W": "WARNING", "E": "ERROR", "F": "CRITICAL"}
KUBELET_PRIORITY = {"I": 6, "W": 4, "E": 3}
API_VERSIONS = {
    "JobSet": "jobset.x-k8s.io/v1alpha2",
    "Job": "batch/v1",
    "StatefulSet": "apps/v1",
    "Workload": "kueue.x-k8s.io/v1beta1",
}
HOUR = 3600 * NS


@dataclass(frozen=True)
class Story:
    """What an incident is, for its expected file and the corpus README."""

    slug: str
    seed: int
    start: str
    title: str
    scenario: int | None
    layout: str
    summary: str


@dataclass
class EventName:
    """The identity an event keeps while it repeats (name, uid, first time)."""

    name: str
    uid: str
    first: int


class Incident(Dice):
    """Collects the entries of one incident, what was planted and which wordings were guessed."""

    def __init__(self, story: Story) -> None:
        super().__init__(story.seed)
        self.story = story
        self.t0 = parse_ts(story.start)
        self.t1 = self.t0 + HOUR
        self.issue = self.t0 + HOUR // 2
        self.rows: list[tuple[int, Entry]] = []
        self.ids: set[str] = set()
        self.planted: set[str] = set()
        self.guesses: dict[str, None] = {}
        self.wordings: dict[Wording, None] = {}
        self.serial_no = self.integer(2000, 9000)
        self.resource_version = self.integer(40_000_000, 90_000_000)
        self.cluster = ClusterState()
        self.event_names: dict[str, EventName] = {}
        self.new_kubelet = True
        self.jobset_controller = f"jobset-controller-manager-6d9f8b7c5-{self.token(5, K8S_CHARS)}"
        self.expected: dict[str, Any] = {}

    # ---- cluster state
    @property
    def pods(self) -> dict[str, Pod]:
        return self.cluster.pods

    @property
    def nodes(self) -> dict[str, Node]:
        return self.cluster.nodes

    def container_id(self, pod: Pod, container: str, fresh: bool = False) -> str:
        key = (pod.name, container)
        if fresh or key not in self.cluster.container_ids:
            self.cluster.container_ids[key] = self.hex(64)
        return self.cluster.container_ids[key]

    def note(self, guess: str | None) -> None:
        """Remember a guessed wording that this incident's export contains."""
        if guess:
            self.guesses.setdefault(guess, None)

    # ---- ids
    def next_resource_version(self) -> str:
        self.resource_version += self.integer(3, 400)
        return str(self.resource_version)

    def insert_id(self, length: int = 16) -> str:
        while True:
            value = self.token(length)
            if value not in self.ids:
                self.ids.add(value)
                return value

    def _stamps(self, at: int, insert_id: str | None = None) -> dict[str, str]:
        """The insert id and receive timestamp Cloud Logging gives an entry written at `at`."""
        insert_id = insert_id or self.insert_id()
        received = fmt_ts(at + self.integer(350 * MS, 3900 * MS))
        return {"insert_id": insert_id, "timestamp": fmt_ts(at), "receive_timestamp": received}

    def _keep(self, at: int, entry: Entry, row: Wording, planted: bool | None = None) -> Entry:
        self.wordings.setdefault(row, None)
        self.note(row.guess)
        if row.planted if planted is None else planted:
            self.planted.add(entry["insertId"])
        self.rows.append((at, entry))
        return entry

    # ---- container lines
    def log(
        self,
        pod: Pod,
        container: str,
        at: int,
        line: Line,
        /,
        *,
        thread: int = 1,
        planted: bool | None = None,
        **fields: object,
    ) -> Entry:
        """A container line from a row and its fields."""
        text = line.text.format(**fields)
        return self.log_text(pod, container, at, line, text, thread=thread, planted=planted)

    def log_text(
        self,
        pod: Pod,
        container: str,
        at: int,
        line: Line,
        text: str,
        *,
        thread: int = 1,
        planted: bool | None = None,
    ) -> Entry:
        """A container line with the row's form and an already rendered text."""
        at, shape = self._as_logged(line, text, at, thread)
        entry = logentry.container_line(
            shape.pop("payload"),
            pod=pod.name,
            container=container,
            node=pod.node.name,
            labels=pod.labels,
            namespace=pod.namespace,
            **shape,
            **self._stamps(at),
        )
        return self._keep(at, entry, line, planted)

    def _as_logged(self, line: Line, text: str, at: int, thread: int) -> tuple[int, dict[str, Any]]:
        """When and how the logging agent records a line of the row's form."""
        if line.form == "glog":  # header parsed: severity and source location, text only
            severity = GLOG_SEVERITY[line.letter]
            shape = {"payload": text, "severity": severity, "source_location": line.source}
            return at - at % US, shape
        if line.form == "raw":  # header not parsed: the stream decides the severity
            at -= at % US
            header = glog_header(line.letter, at, thread, line.source)
            return at + self.integer(4_000, 95_000), {
                "payload": header + text,
                "stream": line.stream,
            }
        if at % US == 0:
            at += self.integer(1, 999)
        if line.form == "json":  # a JSON object: jsonPayload, severity from its level
            payload = {"message": text, "logger": line.logger}
            return at, {
                "payload": payload,
                "stream": "stdout",
                "severity": GLOG_SEVERITY[line.letter],
            }
        return at, {"payload": text, "stream": line.stream}

    # ---- events
    def pod_event(
        self,
        pod: Pod,
        at: int,
        row: Event,
        /,
        *,
        field_path: str | None = None,
        key: str | None = None,
        **fields: object,
    ) -> Entry:
        """An event about a pod (kubelet events name the node as their host)."""
        at = whole(at)
        message = row.message.format(**fields)
        involved = logentry.involved_object(
            "Pod",
            pod.name,
            api_version="v1",
            namespace=pod.namespace,
            uid=pod.uid,
            resource_version=self.next_resource_version(),
            field_path=field_path,
        )
        if row.component == "kubelet":
            source = {"component": "kubelet", "host": pod.node.name}
            reporting = ("kubelet", pod.node.name)
        else:
            source, reporting = {"component": row.component}, (row.component, "")
        key = key or f"{pod.uid}/{row.reason}/{field_path}/{message}"
        event = self._core_event(key, at, involved, row, message, source, reporting, pod.namespace)
        resource = logentry.pod_resource(DEMO, pod.namespace, pod.name)
        return self._event(at, resource, event, row, labels=pod.event_labels)

    def node_event(self, node: Node, at: int, row: Event, /, **fields: object) -> Entry:
        """An event about a node (node-problem-detector, kubelet, node controller)."""
        at = whole(at)
        message = row.message.format(**fields)
        involved = logentry.involved_object("Node", node.name, uid=node.name)
        source = {"component": row.component, "host": node.name}
        key = f"{node.name}/{row.reason}/{message}"
        event = self._core_event(key, at, involved, row, message, source, ("", ""), NAMESPACE)
        return self._event(at, logentry.node_resource(DEMO, node.name), event, row)

    def cluster_event(
        self,
        at: int,
        name: str,
        row: Event,
        /,
        *,
        uid: str | None = None,
        instance: str = "",
        namespace: str = NAMESPACE,
        **fields: object,
    ) -> Entry:
        """An event about a JobSet, Job, StatefulSet or Workload (recorded on the cluster)."""
        message = row.message.format(**fields)
        involved = logentry.involved_object(
            row.kind,
            name,
            api_version=API_VERSIONS[row.kind],
            namespace=namespace,
            uid=uid or self.uuid(),
            resource_version=self.next_resource_version(),
        )
        key = f"{row.kind}/{name}/{row.reason}/{message}"
        reporting = (row.component, instance)
        if not row.events_api:
            at = whole(at)
            source = {"component": row.component}
            event = self._core_event(key, at, involved, row, message, source, reporting, namespace)
            return self._event(at, logentry.cluster_resource(DEMO), event, row)
        self.note(JOBSET_EVENT_GUESS)  # how GKE renders an events.k8s.io event
        stamp = at - at % US + self.between(0.15, 0.9)
        stamp -= stamp % US
        event = logentry.events_api_event(
            row.reason,
            message,
            involved=involved,
            type=row.type,
            reporting=reporting,
            metadata=self._event_metadata(key, at, involved["name"], namespace),
            event_time=fmt_ts(at - at % US),
            action="Reconciling",
        )
        return self._event(stamp, logentry.cluster_resource(DEMO), event, row)

    def _core_event(
        self,
        key: str,
        at: int,
        involved: Entry,
        row: Event,
        message: str,
        source: dict[str, str],
        reporting: tuple[str, str],
        namespace: str,
    ) -> Entry:
        return logentry.core_event(
            row.reason,
            message,
            involved=involved,
            source=source,
            type=row.type,
            reporting=reporting,
            metadata=self._event_metadata(key, at, involved["name"], namespace),
            last_timestamp=fmt_ts(whole(at)),
        )

    def _event_metadata(self, key: str, at: int, name: str, namespace: str) -> dict[str, str]:
        """An event's metadata; a repeated event keeps its name and uid."""
        known = self.event_names.get(key)
        if known is None:
            stamp = at + self.integer(0, NS - 1) if at % NS == 0 else at
            known = EventName(f"{name}.{stamp:x}"[:253], self.uuid(), at)
            self.event_names[key] = known
        return {
            "name": known.name,
            "namespace": namespace,
            "uid": known.uid,
            "resourceVersion": self.next_resource_version(),
            "creationTimestamp": fmt_ts(whole(known.first)),
        }

    def _event(
        self, at: int, resource: Entry, event: Entry, row: Event, *, labels: Any = None
    ) -> Entry:
        entry = logentry.event_entry(
            event, resource=resource, labels=labels or None, **self._stamps(at)
        )
        return self._keep(at, entry, row)

    # ---- nodes and VMs
    def kubelet(
        self,
        node: Node,
        at: int,
        row: KubeletLine,
        /,
        *,
        planted: bool | None = None,
        **fields: Any,
    ) -> Entry:
        """A kubelet journald line (klog header with the kubelet's pid)."""
        at -= at % US
        text = glog_header(row.letter, at, node.kubelet_pid, row.source)
        text += row.text.format(**fields)
        priority = KUBELET_PRIORITY[row.letter]
        return self._journal(node, at, "kubelet", text, priority, row, planted)

    def containerd(
        self,
        node: Node,
        at: int,
        row: ContainerdLine,
        /,
        *,
        planted: bool | None = None,
        **fields: Any,
    ) -> Entry:
        """A containerd journald line (logrus `time=... level=... msg=...`)."""
        at -= at % US
        stamp = fmt_ts(at + self.integer(1, 999))
        text = f'time="{stamp}" level={row.level} msg="{row.text.format(**fields)}"'
        priority = 3 if row.level == "error" else 6
        return self._journal(node, at, "containerd", text, priority, row, planted)

    def _journal(
        self,
        node: Node,
        at: int,
        unit: str,
        text: str,
        priority: int,
        row: Wording,
        planted: bool | None,
    ) -> Entry:
        self.note(JOURNAL_GUESS)  # the severity the journald entries get
        pid = node.kubelet_pid if unit == "kubelet" else node.containerd_pid
        entry = logentry.journal_line(
            text,
            unit=unit,
            node=node.name,
            boot_id=node.boot_id,
            pid=pid,
            priority=priority,
            **self._stamps(at),
        )
        return self._keep(at, entry, row, planted)

    def kernel(self, node: Node, at: int, row: KernelLine, /, **fields: Any) -> Entry:
        """A kernel message on the serial console, with the dmesg uptime stamp."""
        text = f"[{node.uptime(at, self.t0):12.6f}] {row.text.format(**fields)}\r\n"
        if at % US == 0:
            at += self.integer(1, 999)
        self.serial_no += self.integer(1, 9)
        stamps = self._stamps(at, insert_id=str(self.serial_no))
        entry = logentry.serial_line(text, node=node.name, instance_id=node.instance_id, **stamps)
        return self._keep(at, entry, row)

    def audit(self, node: Node, at: int, row: SystemEvent) -> Entry:
        """A Compute Engine system event about the node's VM."""
        at -= at % US
        operation = f"systemevent-{at // MS}-{self.hex(13)}-{self.hex(8)}-{self.hex(8)}"
        entry = logentry.system_event(
            row.method,
            row.status,
            node=node.name,
            instance_id=node.instance_id,
            operation_id=operation,
            **self._stamps(at, insert_id=self.insert_id(12)),
        )
        return self._keep(at, entry, row)
