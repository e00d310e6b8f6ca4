"""Test entries in the shapes Cloud Logging produces (through tests.logentry), and a CLI runner."""

from __future__ import annotations

import io
import itertools
from typing import Any

from pathways_workload.cli import main
from pathways_workload.plan import Results
from pathways_workload.query import Query, Request
from pathways_workload.registry import Action
from tests import logentry
from tests.logentry import DEMO, owner_labels, pod_labels

PROJECT = DEMO.project
CLUSTER = DEMO.name
LOCATION = DEMO.location
_IDS = itertools.count(1)


def _insert_id() -> str:
    return f"id{next(_IDS):06d}"


def _jobset_labels(jobset: str) -> dict[str, str]:
    return {
        **pod_labels({"jobset.sigs.k8s.io/jobset-name": jobset}),
        **owner_labels("JobSet", jobset),
    }


def container_entry(
    text: str,
    *,
    jobset: str = "llama-train",
    pod: str = "llama-train-worker-0-0-abcde",
    container: str = "pathways-worker",
    severity: str = "ERROR",
    timestamp: str = "2026-10-22T11:30:00.123456789Z",
    node: str = "gke-pw-cluster-tpu-np-1-8a1b2c3d-x9k2",
    namespace: str = "default",
) -> dict[str, Any]:
    """A k8s_container line of a JobSet pod, header already stripped."""
    return logentry.container_line(
        text,
        pod=pod,
        container=container,
        node=node,
        timestamp=timestamp,
        insert_id=_insert_id(),
        labels=_jobset_labels(jobset),
        namespace=namespace,
        severity=severity,
        receive_timestamp=timestamp,
    )


def run_cli(*argv: str) -> tuple[int, str, str]:
    """Run the command line in-process; returns (exit code, stdout, stderr).

    The clock reads 2027-01-01T00:00:00Z, after every recorded incident.
    """
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err, clock=lambda: 1798761600 * 10**9)
    return code, out.getvalue(), err.getvalue()


def node_event(reason: str, text: str, node: str, timestamp: str) -> dict[str, Any]:
    """A node-problem-detector or kubelet event about a node (whole-second timestamp)."""
    event = logentry.core_event(
        reason,
        text,
        involved=logentry.involved_object("Node", node),
        source={"component": "kernel-monitor", "host": node},
        type="Warning",
        last_timestamp=timestamp,
    )
    resource = logentry.node_resource(DEMO, node)
    return logentry.event_entry(
        event, resource=resource, timestamp=timestamp, insert_id=_insert_id()
    )


def serial_line(text: str, node: str, timestamp: str) -> dict[str, Any]:
    """A serial-console line of a GKE node's instance (no severity, as recorded)."""
    return logentry.serial_line(
        text, node=node, instance_id="1234", timestamp=timestamp, insert_id=_insert_id()
    )


def audit_event(method: str, node: str, timestamp: str) -> dict[str, Any]:
    """A GCE system_event audit entry (preemption, host error, maintenance)."""
    insert_id = _insert_id()
    return logentry.system_event(
        method,
        "Instance was preempted.",
        node=node,
        instance_id="1234",
        timestamp=timestamp,
        insert_id=insert_id,
        operation_id=f"systemevent-{insert_id}",
    )


def scheduled_event(
    pod: str, node: str, jobset: str = "llama-train", timestamp: str = "2026-10-22T11:00:00Z"
) -> dict[str, Any]:
    """The default scheduler's Scheduled event of a JobSet pod."""
    event = logentry.core_event(
        "Scheduled",
        f"Successfully assigned default/{pod} to {node}",
        involved=logentry.involved_object("Pod", pod, namespace="default"),
        source={"component": "default-scheduler"},
        last_timestamp=timestamp,
    )
    return logentry.event_entry(
        event,
        resource=logentry.pod_resource(DEMO, "default", pod),
        timestamp=timestamp,
        insert_id=_insert_id(),
        labels=owner_labels("JobSet", jobset),
    )


def pulled_event(
    image: str, container: str, pod: str, jobset: str = "llama-train"
) -> dict[str, Any]:
    """The kubelet's Pulled event for one container of a JobSet pod."""
    event = logentry.core_event(
        "Pulled",
        f'Successfully pulled image "{image}" in 12.1s (12.1s including waiting).',
        involved=logentry.involved_object(
            "Pod", pod, namespace="default", field_path=f"spec.containers{{{container}}}"
        ),
        source={"component": "kubelet"},
        last_timestamp="2026-10-22T11:00:20Z",
    )
    return logentry.event_entry(
        event,
        resource=logentry.pod_resource(DEMO, "default", pod),
        timestamp="2026-10-22T11:00:20Z",
        insert_id=_insert_id(),
        labels=owner_labels("JobSet", jobset),
    )


def queries_of(action: Action, request: Request) -> list[Query]:
    """The queries of every stage of an action, for a request that already knows its nodes."""
    request = action.request_for(request)
    return [fetch.query for stage in action.stages for fetch in stage.build(request, Results())]
