"""Log entries built from the catalogues' example lines, in the shapes Cloud Logging stores.

A container line goes to the head pod (RM, proxy, JAX client) or to a TPU host's
pod (worker, sidecar) of the JobSet `llama-train`; the other kinds of example
become the event, journal, serial-console or audit entry they name.
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any

from pathways_workload import examples, terms
from pathways_workload.examples import Example
from pathways_workload.query import Options, Request
from pathways_workload.target import Target, Workload
from pathways_workload.timestamps import parse_timestamp_ns
from pathways_workload.window import Window
from tests.helpers import (
    CLUSTER,
    LOCATION,
    PROJECT,
    audit_event,
    container_entry,
    node_event,
    serial_line,
)

JOBSET = "llama-train"
HEAD_POD = "llama-train-pathways-head-0-0-hhhhh"
WORKER_POD = "llama-train-worker-0-0-abcde"
HEAD_NODE = "gke-pw-cluster-cpu-np-5f3a9c1e-h7kq"
WORKER_NODE = "gke-pw-cluster-tpu-np-1-8a1b2c3d-x9k2"
TIMESTAMP = "2026-10-22T11:30:00.123456789Z"
HEAD_CONTAINERS = terms.USER_CONTAINERS + terms.PROXY_CONTAINERS + terms.RM_CONTAINERS
WINDOW = Window(
    parse_timestamp_ns("2026-10-22T11:10:00Z"), parse_timestamp_ns("2026-10-22T12:10:00Z")
)
TARGET = Target(PROJECT, CLUSTER, LOCATION, "default", (Workload("jobset", JOBSET),))
REQUEST = Request(TARGET, WINDOW, Options(), (WORKER_NODE, HEAD_NODE))
_IDS = itertools.count(1)


def _scope(kind: str, **labels: str) -> dict[str, Any]:
    return {
        "type": kind,
        "labels": {"project_id": PROJECT, "location": LOCATION, "cluster_name": CLUSTER, **labels},
    }


def _event(
    kind: str, involved: dict[str, str], example: Example, resource: dict[str, Any]
) -> dict[str, Any]:
    return {
        "insertId": f"ev{next(_IDS):06d}",
        "jsonPayload": {
            "involvedObject": involved,
            "reason": example.reason,
            "message": example.line,
            "type": "Warning" if example.severity == "WARNING" else "Normal",
        },
        "logName": f"projects/{PROJECT}/logs/events",
        "resource": resource,
        "severity": example.severity,
        "timestamp": "2026-10-22T11:30:00Z",
        **kind_labels(kind),
    }


def kind_labels(kind: str) -> dict[str, Any]:
    """Pod events carry the owner labels of their pod; other events carry none."""
    if kind != examples.POD_EVENT:
        return {}
    return {
        "labels": {
            "logging.gke.io/top_level_controller_type": "JobSet",
            "logging.gke.io/top_level_controller_name": JOBSET,
        }
    }


def _pod_event(example: Example) -> dict[str, Any]:
    involved = {"kind": "Pod", "name": WORKER_POD, "namespace": "default"}
    resource = _scope("k8s_pod", namespace_name="default", pod_name=WORKER_POD)
    return _event(examples.POD_EVENT, involved, example, resource)


def _jobset_event(example: Example) -> dict[str, Any]:
    involved = {"kind": "JobSet", "name": JOBSET, "namespace": "default"}
    return _event(examples.JOBSET_EVENT, involved, example, _scope("k8s_cluster"))


def _kubelet_line(example: Example) -> dict[str, Any]:
    return {
        "insertId": f"kl{next(_IDS):06d}",
        "jsonPayload": {"MESSAGE": example.line, "SYSLOG_IDENTIFIER": "kubelet"},
        "logName": f"projects/{PROJECT}/logs/kubelet",
        "resource": _scope("k8s_node", node_name=WORKER_NODE),
        "severity": example.severity,
        "timestamp": TIMESTAMP,
    }


def _nodepool_entry(example: Example) -> dict[str, Any]:
    return {
        "insertId": f"np{next(_IDS):06d}",
        "logName": f"projects/{PROJECT}/logs/cloudaudit.googleapis.com%2Factivity",
        "protoPayload": {
            "methodName": example.line,
            "resourceName": f"projects/{PROJECT}/locations/{LOCATION}/clusters/{CLUSTER}/"
            "nodePools/tpu-np-1",
        },
        "resource": _scope("gke_nodepool", nodepool_name="tpu-np-1"),
        "severity": example.severity,
        "timestamp": TIMESTAMP,
    }


def _controller_line(example: Example) -> dict[str, Any]:
    entry = container_entry(
        example.line,
        pod="jobset-controller-manager-6d9f8b7c5-abcde",
        container="manager",
        severity=example.severity,
        namespace="jobset-system",
    )
    entry["labels"] = {"compute.googleapis.com/resource_name": HEAD_NODE}
    return entry


def _node_event(example: Example) -> dict[str, Any]:
    entry = node_event(example.reason, example.line, WORKER_NODE, "2026-10-22T11:30:00Z")
    entry["severity"] = example.severity
    return entry


BUILDERS = {
    examples.POD_EVENT: _pod_event,
    examples.JOBSET_EVENT: _jobset_event,
    examples.NODE_EVENT: _node_event,
    examples.KUBELET: _kubelet_line,
    examples.SERIAL_CONSOLE: lambda e: serial_line(e.line, WORKER_NODE, TIMESTAMP),
    examples.AUDIT: lambda e: audit_event(e.line, WORKER_NODE, TIMESTAMP),
    examples.NODEPOOL: _nodepool_entry,
    examples.CONTROLLER: _controller_line,
}


def entry_of(example: Example, severity: str | None = None) -> dict[str, Any]:
    """The entry an example line arrives as (at another severity when given)."""
    if severity is not None:
        example = dataclasses.replace(example, severity=severity)
    if example.container in BUILDERS:
        return BUILDERS[example.container](example)
    head = example.container in HEAD_CONTAINERS
    return container_entry(
        example.line,
        jobset=JOBSET,
        pod=HEAD_POD if head else WORKER_POD,
        container=example.container,
        severity=example.severity,
        timestamp=TIMESTAMP,
        node=HEAD_NODE if head else WORKER_NODE,
    )
