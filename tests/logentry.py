"""LogEntry builders: the shapes Cloud Logging stores for GKE and Compute Engine logs.

Every entry that the tests, the recorded-incident corpus and the benchmarks make comes from
here, so all of them look like what `gcloud logging read --format=json` prints (the project's
research note on GKE Pathways log shapes gives the source of each shape). The functions are
pure: callers pass ids and timestamps (RFC 3339 text, as exported), and a field passed as
None is left out, as Cloud Logging leaves out fields it has no value for.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

Entry = dict[str, Any]

NODE_LABEL = "compute.googleapis.com/resource_name"
OWNER_KIND = "logging.gke.io/top_level_controller_type"
OWNER_NAME = "logging.gke.io/top_level_controller_name"
JOURNAL_UNITS = {  # systemd unit: (log id, executable)
    "kubelet": ("kubelet", "/home/kubernetes/bin/kubelet"),
    "containerd": ("container-runtime", "/usr/bin/containerd"),
}
PRIORITY_SEVERITY = {6: "INFO", 4: "WARNING", 3: "ERROR"}
SERIAL_PORT_1 = "serialconsole.googleapis.com/serial_port_1_output"
SYSTEM_EVENT = "cloudaudit.googleapis.com/system_event"
ADMIN_ACTIVITY = "cloudaudit.googleapis.com/activity"
AUDIT_LOG_TYPE = "type.googleapis.com/google.cloud.audit.AuditLog"


@dataclass(frozen=True)
class Cluster:
    """Where the logs come from: the project, the GKE cluster, its location, the nodes' zone."""

    project: str = "pw-demo"
    name: str = "pw-cluster"
    location: str = "us-east5"
    zone: str = "us-east5-b"


DEMO = Cluster()


def log_name(cluster: Cluster, log_id: str) -> str:
    """`projects/P/logs/ID`, with the slashes of the id escaped as `%2F`."""
    return f"projects/{cluster.project}/logs/{quote(log_id, safe='')}"


def pod_labels(kubernetes_labels: Mapping[str, str]) -> dict[str, str]:
    """Pod labels as entries carry them: `k8s-pod/` first, the dots of the key's domain as `_`."""
    labels = {}
    for key, value in kubernetes_labels.items():
        domain, slash, name = key.rpartition("/")
        labels[f"k8s-pod/{domain.replace('.', '_')}{slash}{name}"] = value
    return labels


def owner_labels(kind: str, name: str) -> dict[str, str]:
    """The labels naming the top-level controller (JobSet, Job, Deployment...) of a pod."""
    return {OWNER_KIND: kind, OWNER_NAME: name}


# --------------------------------------------------------------------------- resources


def _resource(kind: str, cluster: Cluster, **labels: str) -> Entry:
    scope = {"project_id": cluster.project, "location": cluster.location}
    return {"type": kind, "labels": {**scope, "cluster_name": cluster.name, **labels}}


def container_resource(cluster: Cluster, namespace: str, pod: str, container: str) -> Entry:
    """`k8s_container`: a container's stdout and stderr."""
    return _resource(
        "k8s_container", cluster, namespace_name=namespace, pod_name=pod, container_name=container
    )


def pod_resource(cluster: Cluster, namespace: str, pod: str) -> Entry:
    """`k8s_pod`: events about a pod."""
    return _resource("k8s_pod", cluster, namespace_name=namespace, pod_name=pod)


def node_resource(cluster: Cluster, node: str) -> Entry:
    """`k8s_node`: a node's journald logs and the events about it."""
    return _resource("k8s_node", cluster, node_name=node)


def cluster_resource(cluster: Cluster) -> Entry:
    """`k8s_cluster`: events about any other object (JobSet, Job, Workload...)."""
    return _resource("k8s_cluster", cluster)


def nodepool_resource(cluster: Cluster, nodepool: str) -> Entry:
    """`gke_nodepool`: audit entries about a node pool."""
    return _resource("gke_nodepool", cluster, nodepool_name=nodepool)


def instance_resource(cluster: Cluster, instance_id: str) -> Entry:
    """`gce_instance`: a node's VM (serial console, system-event audit)."""
    labels = {"instance_id": instance_id, "project_id": cluster.project, "zone": cluster.zone}
    return {"type": "gce_instance", "labels": labels}


# --------------------------------------------------------------------------- entries


def _entry(
    cluster: Cluster,
    log_id: str,
    resource: Entry,
    timestamp: str,
    insert_id: str,
    *,
    receive_timestamp: str | None = None,
    severity: str | None = None,
    labels: Mapping[str, str] | None = None,
    **payload: Any,
) -> Entry:
    entry: Entry = {
        "insertId": insert_id,
        "logName": log_name(cluster, log_id),
        "resource": resource,
        "timestamp": timestamp,
        **payload,
    }
    optional = {"receiveTimestamp": receive_timestamp, "severity": severity, "labels": labels}
    entry.update({key: value for key, value in optional.items() if value is not None})
    return entry


def container_line(
    payload: str | Mapping[str, Any],
    *,
    pod: str,
    container: str,
    node: str,
    timestamp: str,
    insert_id: str,
    labels: Mapping[str, str] | None = None,
    namespace: str = "default",
    stream: str = "stderr",
    severity: str | None = None,
    source_location: tuple[str, int] | None = None,
    receive_timestamp: str | None = None,
    cluster: Cluster = DEMO,
) -> Entry:
    """A container's line: text, or a JSON object the agent parsed (`jsonPayload`).

    `labels` are the pod's labels as entries carry them; the node label is added. Without a
    severity, stdout is INFO and stderr ERROR; a glog line the agent parsed passes its
    severity and `source_location` and only its message as the payload.
    """
    body: Entry = (
        {"textPayload": payload} if isinstance(payload, str) else {"jsonPayload": dict(payload)}
    )
    if source_location is not None:
        body["sourceLocation"] = {"file": source_location[0], "line": str(source_location[1])}
    return _entry(
        cluster,
        stream,
        container_resource(cluster, namespace, pod, container),
        timestamp,
        insert_id,
        receive_timestamp=receive_timestamp,
        severity=severity or ("ERROR" if stream == "stderr" else "INFO"),
        labels={**(labels or {}), NODE_LABEL: node},
        **body,
    )


def zap_console(stamp: str, level: str, logger: str, message: str, fields: str) -> str:
    """A controller-runtime (zap console encoder) line, as a JobSet or Kueue manager logs it."""
    return f"{stamp}\t{level}\t{logger}\t{message}\t{fields}"


# --------------------------------------------------------------------------- events


def involved_object(
    kind: str,
    name: str,
    *,
    api_version: str | None = None,
    namespace: str | None = None,
    uid: str | None = None,
    resource_version: str | None = None,
    field_path: str | None = None,
) -> Entry:
    """The object an event is about (the fields given)."""
    fields = {
        "apiVersion": api_version,
        "namespace": namespace,
        "uid": uid,
        "resourceVersion": resource_version,
        "fieldPath": field_path,
    }
    return {"kind": kind, "name": name, **{k: v for k, v in fields.items() if v is not None}}


def core_event(
    reason: str,
    message: str,
    *,
    involved: Entry,
    source: Mapping[str, str],
    last_timestamp: str,
    type: str = "Normal",
    reporting: tuple[str, str] = ("", ""),
    metadata: Mapping[str, str] | None = None,
) -> Entry:
    """A core/v1 Event (kubelet, scheduler, job controller...): no eventTime, a lastTimestamp."""
    event = _event_body(reason, message, involved, type, reporting, metadata)
    return {**event, "source": dict(source), "eventTime": None, "lastTimestamp": last_timestamp}


def events_api_event(
    reason: str,
    message: str,
    *,
    involved: Entry,
    event_time: str,
    action: str,
    type: str = "Normal",
    reporting: tuple[str, str] = ("", ""),
    metadata: Mapping[str, str] | None = None,
) -> Entry:
    """An Event recorded through events.k8s.io (the JobSet controller): eventTime and action,
    an empty source, no lastTimestamp."""
    event = _event_body(reason, message, involved, type, reporting, metadata)
    return {**event, "source": {}, "eventTime": event_time, "action": action}


def _event_body(
    reason: str,
    message: str,
    involved: Entry,
    type: str,
    reporting: tuple[str, str],
    metadata: Mapping[str, str] | None,
) -> Entry:
    body: Entry = {
        "apiVersion": "v1",
        "kind": "Event",
        "involvedObject": involved,
        "reason": reason,
        "message": message,
        "type": type,
        "reportingComponent": reporting[0],
        "reportingInstance": reporting[1],
    }
    if metadata is not None:
        body["metadata"] = dict(metadata)
    return body


def event_entry(
    event: Entry,
    *,
    resource: Entry,
    timestamp: str,
    insert_id: str,
    labels: Mapping[str, str] | None = None,
    receive_timestamp: str | None = None,
    cluster: Cluster = DEMO,
) -> Entry:
    """The event exporter's entry for an Event: WARNING for a Warning event, else INFO."""
    return _entry(
        cluster,
        "events",
        resource,
        timestamp,
        insert_id,
        receive_timestamp=receive_timestamp,
        severity="WARNING" if event["type"] == "Warning" else "INFO",
        labels=labels,
        jsonPayload=event,
    )


# --------------------------------------------------------------------------- nodes and VMs


def journal_line(
    message: str,
    *,
    unit: str,
    node: str,
    boot_id: str,
    pid: int,
    timestamp: str,
    insert_id: str,
    priority: int = 6,
    receive_timestamp: str | None = None,
    cluster: Cluster = DEMO,
) -> Entry:
    """A node's journald line of the kubelet or containerd (`jsonPayload.MESSAGE`)."""
    log_id, executable = JOURNAL_UNITS[unit]
    journal = {
        "_BOOT_ID": boot_id,
        "_COMM": unit,
        "_EXE": executable,
        "_HOSTNAME": node,
        "_PID": str(pid),
        "_SYSTEMD_UNIT": f"{unit}.service",
        "_TRANSPORT": "stdout",
        "MESSAGE": message,
        "PRIORITY": str(priority),
        "SYSLOG_FACILITY": "3",
        "SYSLOG_IDENTIFIER": unit,
    }
    return _entry(
        cluster,
        log_id,
        node_resource(cluster, node),
        timestamp,
        insert_id,
        receive_timestamp=receive_timestamp,
        severity=PRIORITY_SEVERITY[priority],
        jsonPayload=journal,
    )


def serial_line(
    text: str,
    *,
    node: str,
    instance_id: str,
    timestamp: str,
    insert_id: str,
    receive_timestamp: str | None = None,
    cluster: Cluster = DEMO,
) -> Entry:
    """A line of a VM's serial port 1 (kernel messages): no severity, the node as a label."""
    return _entry(
        cluster,
        SERIAL_PORT_1,
        instance_resource(cluster, instance_id),
        timestamp,
        insert_id,
        receive_timestamp=receive_timestamp,
        labels={NODE_LABEL: node},
        textPayload=text,
    )


def system_event(
    method: str,
    status: str,
    *,
    node: str,
    instance_id: str,
    timestamp: str,
    insert_id: str,
    operation_id: str,
    receive_timestamp: str | None = None,
    cluster: Cluster = DEMO,
) -> Entry:
    """A Compute Engine system-event audit entry (preemption, host error, maintenance)."""
    audit = _audit_log(method, f"projects/{cluster.project}/zones/{cluster.zone}/instances/{node}")
    audit.update(
        authenticationInfo={"principalEmail": "system@google.com"},
        request={"@type": f"type.googleapis.com/{method}"},
        serviceName="compute.googleapis.com",
        status={"message": status},
    )
    return _entry(
        cluster,
        SYSTEM_EVENT,
        instance_resource(cluster, instance_id),
        timestamp,
        insert_id,
        receive_timestamp=receive_timestamp,
        severity="INFO",
        operation={"first": True, "id": operation_id, "last": True, "producer": method},
        protoPayload=audit,
    )


def nodepool_audit(
    method: str,
    *,
    nodepool: str,
    timestamp: str,
    insert_id: str,
    operation_id: str,
    receive_timestamp: str | None = None,
    cluster: Cluster = DEMO,
) -> Entry:
    """A GKE admin-activity audit entry about a node pool (repair, upgrade, resize)."""
    name = (
        f"projects/{cluster.project}/locations/{cluster.location}/clusters/{cluster.name}"
        f"/nodePools/{nodepool}"
    )
    audit = _audit_log(method, name)
    audit["serviceName"] = "container.googleapis.com"
    return _entry(
        cluster,
        ADMIN_ACTIVITY,
        nodepool_resource(cluster, nodepool),
        timestamp,
        insert_id,
        receive_timestamp=receive_timestamp,
        severity="NOTICE",
        operation={"first": True, "id": operation_id, "producer": "container.googleapis.com"},
        protoPayload=audit,
    )


def _audit_log(method: str, resource_name: str) -> Entry:
    return {"@type": AUDIT_LOG_TYPE, "methodName": method, "resourceName": resource_name}
