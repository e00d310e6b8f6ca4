"""Read the parts of a LogEntry a person needs: where it came from, what it says."""

from __future__ import annotations

import json
import re
from typing import Any

from pathways_workload import labels
from pathways_workload.lql.values import SEVERITY_NAMES, severity_level
from pathways_workload.sources.base import Entry

_NODEPOOL_NAME_RE = re.compile(r"/clusters/([^/]+)/nodePools/([^/]+)$")


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def resource_labels(entry: Entry) -> dict[str, Any]:
    # Written out (no `_dict` calls): triage asks this of every entry many times.
    resource = entry.get("resource")
    if isinstance(resource, dict):
        found = resource.get("labels")
        if isinstance(found, dict):
            return found
    return {}


def resource_type(entry: Entry) -> str:
    kind = _dict(entry.get("resource")).get("type")
    return kind if isinstance(kind, str) else ""


def entry_labels(entry: Entry) -> dict[str, Any]:
    return _dict(entry.get("labels"))


def pod_of(entry: Entry) -> str | None:
    pod = resource_labels(entry).get("pod_name")
    return pod if isinstance(pod, str) else None


def container_of(entry: Entry) -> str | None:
    container = resource_labels(entry).get("container_name")
    return container if isinstance(container, str) else None


# Labels naming the object that made a line's pod, the most specific first.
OWNER_LABELS = (
    ("jobset", labels.JOBSET_NAME),
    ("lws", labels.LWS_NAME),
    ("job", labels.JOB_NAME),
)


def owner_of(entry: Entry) -> tuple[str, str] | None:
    """The kind and name of the object that made the entry's pod, by its labels (GKE's
    top-level controller when no JobSet, LWS or Job label is there); None when none names it."""
    found = entry_labels(entry)
    for kind, key in OWNER_LABELS:
        if isinstance(found.get(key), str):
            return kind, str(found[key])
    owner_type, owner_name = found.get(labels.OWNER_TYPE), found.get(labels.OWNER_NAME)
    if owner_type is None and owner_name is None:
        return None
    return str(owner_type or "?").lower(), str(owner_name or "?")


def node_of(entry: Entry) -> str | None:
    """The node (GCE instance) an entry is about, wherever the entry says it."""
    places = (
        lambda: entry_labels(entry).get(labels.NODE),
        lambda: resource_labels(entry).get("node_name"),
        lambda: _instance_from_audit(entry),
        lambda: _dict(_dict(entry.get("jsonPayload")).get("source")).get("host"),
    )
    for place in places:
        value = place()
        if isinstance(value, str) and value:
            return value
    return None


def nodepool_of(entry: Entry) -> tuple[str, str] | None:
    """The cluster and node pool a node pool operation is about (its resource labels, else its
    audit resource name `.../clusters/C/nodePools/P`), or None for other entries."""
    if resource_type(entry) != "gke_nodepool":
        return None
    found = resource_labels(entry)
    cluster, pool = found.get("cluster_name"), found.get("nodepool_name")
    if not (isinstance(cluster, str) and isinstance(pool, str)):
        name = _NODEPOOL_NAME_RE.search(str(_dict(entry.get("protoPayload")).get("resourceName")))
        cluster, pool = name.groups() if name else (None, None)
    return (cluster, pool) if cluster and pool else None


def _instance_from_audit(entry: Entry) -> str | None:
    name = _dict(entry.get("protoPayload")).get("resourceName")
    if isinstance(name, str) and "/instances/" in name:
        return name.rsplit("/", 1)[-1]
    return None


def where(entry: Entry) -> str:
    """`namespace/pod/container`, `node/NAME`, `instance/NAME` or `cluster/NAME`."""
    labels = resource_labels(entry)
    kind = resource_type(entry)
    if kind in ("k8s_container", "k8s_pod"):
        parts = [labels.get("namespace_name"), labels.get("pod_name"), labels.get("container_name")]
        return "/".join(str(part) for part in parts if part)
    if kind == "k8s_node":
        return f"node/{labels.get('node_name', '?')}"
    if kind == "gce_instance":
        return f"instance/{node_of(entry) or labels.get('instance_id', '?')}"
    if kind == "gke_nodepool":
        return (
            f"cluster/{labels.get('cluster_name', '?')}/nodepool/{labels.get('nodepool_name', '?')}"
        )
    return f"cluster/{labels.get('cluster_name', kind or '?')}"


def message(entry: Entry) -> str:
    """The human part of an entry: text, message (`msg` of zap's and klog's JSON lines), event
    or audit summary, else compact JSON."""
    text = entry.get("textPayload")
    if isinstance(text, str):
        return text
    payload = _dict(entry.get("jsonPayload"))
    involved = _dict(payload.get("involvedObject"))
    if involved and "reason" in payload:
        return (
            f"{payload.get('reason')}: {payload.get('message', '')} "
            f"({involved.get('kind', '?')}/{involved.get('name', '?')})"
        )
    for key in ("message", "MESSAGE", "msg"):
        if isinstance(payload.get(key), str):
            return str(payload[key])
    audit = _dict(entry.get("protoPayload"))
    if audit:
        status = _dict(audit.get("status")).get("message")
        summary = f"{audit.get('methodName', '?')} {audit.get('resourceName', '')}".strip()
        return f"{summary}: {status}" if status else summary
    body = payload or entry.get("protoPayload")
    return json.dumps(body, sort_keys=True, ensure_ascii=False) if body else ""


# Prefixes launchers put before every line a process writes: torchrun's rank
# (`[rank0]: `), mpirun's (`[1,0]<stdout>: `) and Ray's task marker
# (`(train_lm_task pid=39298, ip=10.130.0.55) `).
_LAUNCHER_PREFIX_RE = re.compile(
    r"^(?:\[rank\d+\]:|\[\d+,\d+\]<std(?:out|err)>:|\((?:[\w.-]+ )?pid=\d+(?:, ip=[\d.]+)?\))"
    r"[ \t]?",
    re.MULTILINE,
)


# Terminal control sequences (ECMA-48 CSI: `ESC [`, parameters, a final byte), such as the
# colour codes a logger writes when it thinks its output is a terminal (`\x1b[31m`).
_TERMINAL_CODE_RE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")


def bare_text(text: str) -> str:
    """The text as the process meant it: without its colour codes, and before a launcher
    prefixed each of its lines."""
    if "\x1b" in text:
        text = _TERMINAL_CODE_RE.sub("", text)
    return _LAUNCHER_PREFIX_RE.sub("", text)


def bare_message(entry: Entry) -> str:
    """The message without colour codes or a launcher prefix: what signatures are matched
    against."""
    return bare_text(message(entry))


def involved_object(entry: Entry) -> tuple[str, str] | None:
    """A Kubernetes event's object as (kind, name), or None for other entries."""
    found = _dict(_dict(entry.get("jsonPayload")).get("involvedObject"))
    kind, name = found.get("kind"), found.get("name")
    return (kind, name) if isinstance(kind, str) and isinstance(name, str) else None


def source_group(entry: Entry) -> str:
    """Where an entry came from, as --first_per_pod groups it: `where`, and for an event
    about a cluster-level object (a JobSet, a Job) that object, each its own group."""
    place = where(entry)
    about = involved_object(entry) if resource_type(entry) == "k8s_cluster" else None
    return f"{place}/{about[0]}/{about[1]}" if about else place


def event_reason(entry: Entry) -> str:
    """A Kubernetes event's reason (`Scheduled`, `OOMKilling`...), or "" for other entries."""
    reason = _dict(entry.get("jsonPayload")).get("reason")
    return reason if isinstance(reason, str) else ""


def audit_method(entry: Entry) -> str:
    """An audit entry's method (`compute.instances.preempted`...), or "" for other entries."""
    method = _dict(entry.get("protoPayload")).get("methodName")
    return method if isinstance(method, str) else ""


def severity(entry: Entry) -> str:
    """The severity's name, upper-cased as the query language reads it (a level's number, as
    proto3 JSON may write it, named)."""
    value = entry.get("severity")
    if isinstance(value, str) and not (value.isascii() and value.isdigit()):
        return value.upper() or "DEFAULT"
    return SEVERITY_NAMES.get(severity_level(value), "DEFAULT")
