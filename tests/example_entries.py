"""Log entries built from the catalogues' example lines, in the shapes Cloud Logging stores.

A container line goes to the head pod (RM, proxy, JAX client) or to a TPU host's
pod (worker, sidecar) of the JobSet `llama-train`; the other kinds of example
become the event, journal, serial-console or audit entry they name.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable
from typing import Any

from pathways_workload import examples, terms
from pathways_workload.examples import Example
from pathways_workload.query import Options, Request
from pathways_workload.target import Target, Workload
from pathways_workload.timestamps import parse_timestamp_ns
from pathways_workload.window import Window
from tests import logentry
from tests.helpers import CLUSTER, LOCATION, PROJECT, audit_event, container_entry, serial_line
from tests.logentry import DEMO, owner_labels

JOBSET = "llama-train"
HEAD_POD = "llama-train-pathways-head-0-0-hhhhh"
WORKER_POD = "llama-train-worker-0-0-abcde"
HEAD_NODE = "gke-pw-cluster-cpu-np-5f3a9c1e-h7kq"
WORKER_NODE = "gke-pw-cluster-tpu-np-1-8a1b2c3d-x9k2"
TIMESTAMP = "2026-10-22T11:30:00.123456789Z"
EVENT_TIME = "2026-10-22T11:30:00Z"
HEAD_CONTAINERS = terms.USER_CONTAINERS + terms.PROXY_CONTAINERS + terms.RM_CONTAINERS
WINDOW = Window(
    parse_timestamp_ns("2026-10-22T11:10:00Z"), parse_timestamp_ns("2026-10-22T12:10:00Z")
)
TARGET = Target(PROJECT, CLUSTER, LOCATION, "default", (Workload("jobset", JOBSET),))
REQUEST = Request(TARGET, WINDOW, Options(), (WORKER_NODE, HEAD_NODE))
_IDS = itertools.count(1)


def _insert_id() -> str:
    return f"ex{next(_IDS):06d}"


def _event(
    example: Example, involved: dict[str, Any], resource: dict[str, Any], **extra: Any
) -> dict[str, Any]:
    event = logentry.core_event(
        example.reason,
        example.line,
        involved=involved,
        source={"component": "kubelet"},
        type="Warning" if example.severity == "WARNING" else "Normal",
        last_timestamp=EVENT_TIME,
    )
    return logentry.event_entry(
        event, resource=resource, timestamp=EVENT_TIME, insert_id=_insert_id(), **extra
    )


def _pod_event(example: Example) -> dict[str, Any]:
    involved = logentry.involved_object("Pod", WORKER_POD, namespace="default")
    resource = logentry.pod_resource(DEMO, "default", WORKER_POD)
    return _event(example, involved, resource, labels=owner_labels("JobSet", JOBSET))


def _jobset_event(example: Example) -> dict[str, Any]:
    involved = logentry.involved_object("JobSet", JOBSET, namespace="default")
    return _event(example, involved, logentry.cluster_resource(DEMO))


def _node_event(example: Example) -> dict[str, Any]:
    involved = logentry.involved_object("Node", WORKER_NODE)
    return _event(example, involved, logentry.node_resource(DEMO, WORKER_NODE))


def _kubelet_line(example: Example) -> dict[str, Any]:
    return logentry.journal_line(
        example.line,
        unit="kubelet",
        node=WORKER_NODE,
        boot_id="a1ac0b1141674ec4ac6b2dfc2c1baa33",
        pid=1675,
        timestamp=TIMESTAMP,
        insert_id=_insert_id(),
    )


def _nodepool_entry(example: Example) -> dict[str, Any]:
    insert_id = _insert_id()
    return logentry.nodepool_audit(
        example.line,
        nodepool="tpu-np-1",
        timestamp=TIMESTAMP,
        insert_id=insert_id,
        operation_id=f"operation-{insert_id}",
    )


def _controller_line(example: Example) -> dict[str, Any]:
    return logentry.container_line(
        example.line,
        pod="jobset-controller-manager-6d9f8b7c5-abcde",
        container="manager",
        node=HEAD_NODE,
        timestamp=TIMESTAMP,
        insert_id=_insert_id(),
        namespace="jobset-system",
        severity=example.severity,
    )


BUILDERS: dict[str, Callable[[Example], dict[str, Any]]] = {
    examples.POD_EVENT: _pod_event,
    examples.JOBSET_EVENT: _jobset_event,
    examples.NODE_EVENT: _node_event,
    examples.KUBELET: _kubelet_line,
    examples.SERIAL_CONSOLE: lambda example: serial_line(example.line, WORKER_NODE, TIMESTAMP),
    examples.AUDIT: lambda example: audit_event(example.line, WORKER_NODE, TIMESTAMP),
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
