"""Builders of LogEntries in the shapes Cloud Logging produces, and a CLI runner."""

from __future__ import annotations

import io
import itertools
from typing import Any

from pathways_workload.cli import main
from pathways_workload.plan import Results
from pathways_workload.query import Query, Request
from pathways_workload.registry import Action

PROJECT = "pw-demo"
CLUSTER = "pw-cluster"
LOCATION = "us-east5"
_IDS = itertools.count(1)


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
    return {
        "insertId": f"id{next(_IDS):06d}",
        "labels": {
            "compute.googleapis.com/resource_name": node,
            "k8s-pod/jobset_sigs_k8s_io/jobset-name": jobset,
            "logging.gke.io/top_level_controller_name": jobset,
            "logging.gke.io/top_level_controller_type": "JobSet",
        },
        "logName": f"projects/{PROJECT}/logs/stderr",
        "receiveTimestamp": timestamp,
        "resource": {
            "type": "k8s_container",
            "labels": {
                "project_id": PROJECT,
                "location": LOCATION,
                "cluster_name": CLUSTER,
                "namespace_name": namespace,
                "pod_name": pod,
                "container_name": container,
            },
        },
        "severity": severity,
        "textPayload": text,
        "timestamp": timestamp,
    }


def run_cli(*argv: str) -> tuple[int, str, str]:
    """Run the command line in-process; returns (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err, clock=lambda: 1792670400 * 10**9)
    return code, out.getvalue(), err.getvalue()


def node_event(reason: str, text: str, node: str, timestamp: str) -> dict[str, Any]:
    """A node-problem-detector or kubelet event about a node (whole-second timestamp)."""
    return {
        "insertId": f"id{next(_IDS):06d}",
        "jsonPayload": {
            "involvedObject": {"kind": "Node", "name": node},
            "reason": reason,
            "message": text,
            "source": {"component": "kernel-monitor", "host": node},
            "type": "Warning",
        },
        "logName": f"projects/{PROJECT}/logs/events",
        "resource": {
            "type": "k8s_node",
            "labels": {
                "project_id": PROJECT,
                "location": LOCATION,
                "cluster_name": CLUSTER,
                "node_name": node,
            },
        },
        "severity": "WARNING",
        "timestamp": timestamp,
    }


def serial_line(text: str, node: str, timestamp: str) -> dict[str, Any]:
    """A serial-console line of a GKE node's instance (no severity, as recorded)."""
    return {
        "insertId": f"id{next(_IDS):06d}",
        "labels": {"compute.googleapis.com/resource_name": node},
        "logName": f"projects/{PROJECT}/logs/serialconsole.googleapis.com%2Fserial_port_1_output",
        "resource": {
            "type": "gce_instance",
            "labels": {"project_id": PROJECT, "zone": "us-east5-b", "instance_id": "1234"},
        },
        "textPayload": text,
        "timestamp": timestamp,
    }


def audit_event(method: str, node: str, timestamp: str) -> dict[str, Any]:
    """A GCE system_event audit entry (preemption, host error, maintenance)."""
    return {
        "insertId": f"id{next(_IDS):06d}",
        "logName": f"projects/{PROJECT}/logs/cloudaudit.googleapis.com%2Fsystem_event",
        "protoPayload": {
            "methodName": method,
            "resourceName": f"projects/{PROJECT}/zones/us-east5-b/instances/{node}",
            "status": {"message": "Instance was preempted."},
        },
        "resource": {
            "type": "gce_instance",
            "labels": {"project_id": PROJECT, "zone": "us-east5-b", "instance_id": "1234"},
        },
        "severity": "INFO",
        "timestamp": timestamp,
    }


def scheduled_event(
    pod: str, node: str, jobset: str = "llama-train", timestamp: str = "2026-10-22T11:00:00Z"
) -> dict[str, Any]:
    """The default scheduler's Scheduled event of a JobSet pod."""
    return {
        "insertId": f"id{next(_IDS):06d}",
        "jsonPayload": {
            "involvedObject": {"kind": "Pod", "name": pod, "namespace": "default"},
            "reason": "Scheduled",
            "type": "Normal",
            "message": f"Successfully assigned default/{pod} to {node}",
        },
        "labels": {
            "logging.gke.io/top_level_controller_type": "JobSet",
            "logging.gke.io/top_level_controller_name": jobset,
        },
        "logName": f"projects/{PROJECT}/logs/events",
        "resource": {
            "type": "k8s_pod",
            "labels": {
                "project_id": PROJECT,
                "location": LOCATION,
                "cluster_name": CLUSTER,
                "namespace_name": "default",
                "pod_name": pod,
            },
        },
        "severity": "INFO",
        "timestamp": timestamp,
    }


def queries_of(action: Action, request: Request) -> list[Query]:
    """The queries of every stage of an action, for a request that already knows its nodes."""
    request = action.request_for(request)
    return [fetch.query for stage in action.stages for fetch in stage.build(request, Results())]
