"""The interruptions action reads the audit entries Compute Engine and GKE write about nodes."""

from __future__ import annotations

import json
from pathlib import Path

from pathways_workload.describe import nodepool_of
from pathways_workload.node_discovery import nodes_about
from tests.helpers import audit_event, run_cli
from tests.logentry import nodepool_audit

NODE = "gke-pw-cluster-tpu-np-1-8a1b2c3d-x9k2"
WINDOW = ("--start_time=2026-10-22T11:00:00Z", "--duration=1h")
TARGET = ("--project=pw-demo", "--cluster_name=pw-cluster", "--location=us-east5")


def test_interruptions_shows_node_pool_repairs_and_the_nodes_preemption(tmp_path: Path) -> None:
    repair = nodepool_audit(
        "google.container.v1.ClusterManager.RepairNodePool",
        nodepool="tpu-np-1",
        timestamp="2026-10-22T11:31:00.250Z",
        insert_id="repair-1",
        operation_id="operation-1761132660250-5e2aac8c",
    )
    created = nodepool_audit(
        "google.container.v1.ClusterManager.CreateNodePool",
        nodepool="tpu-np-2",
        timestamp="2026-10-22T11:32:00Z",
        insert_id="create-1",
        operation_id="operation-1761132720000-0d1e2f3a",
    )
    preempted = audit_event("compute.instances.preempted", NODE, "2026-10-22T11:30:00.5Z")
    export = tmp_path / "export.json"
    export.write_text(json.dumps([created, repair, preempted]), encoding="utf-8")
    code, out, err = run_cli(
        "--action=interruptions",
        f"--logs_file={export}",
        *TARGET,
        "--jobset_name=llama-train",
        f"--node_names={NODE}",
        *WINDOW,
    )
    assert code == 0, err
    lines = out.splitlines()
    assert [line.split()[0] for line in lines] == [
        "2026-10-22T11:30:00.5Z",
        "2026-10-22T11:31:00.250Z",
    ]
    assert "compute.instances.preempted" in lines[0] and NODE in lines[0]
    assert "cluster/pw-cluster/nodepool/tpu-np-1" in lines[1] and "RepairNodePool" in lines[1]


def test_a_node_pool_operation_is_about_the_nodes_of_its_pool() -> None:
    """A node pool operation names no node: it is about the nodes whose GKE names
    (`gke-<cluster>-<pool>-<8 hex>-<4 chars>`) name its cluster and pool, by its resource
    labels or else its audit resource name."""
    nodes = [NODE, "gke-pw-cluster-tpu-np-1-0-2b3c4d5e-a1b2", "gke-pw-cluster-cpu-np-1f2e3d4c-z9y8"]
    operation = nodepool_audit(
        "google.container.v1.ClusterManager.UpdateNodePool",
        nodepool="tpu-np-1",
        timestamp="2026-10-22T11:31:00Z",
        insert_id="update-1",
        operation_id="operation-1761132660000-5e2aac8c",
    )
    assert nodepool_of(operation) == ("pw-cluster", "tpu-np-1")
    assert nodes_about(operation, nodes) == [NODE]
    operation["resource"]["labels"] = {"project_id": "pw-demo"}
    assert nodes_about(operation, nodes) == [NODE]
    preempted = audit_event("compute.instances.preempted", NODE, "2026-10-22T11:30:00.5Z")
    assert nodepool_of(preempted) is None and nodes_about(preempted, nodes) == [NODE]


def test_node_pool_operations_are_read_when_no_node_of_the_workload_is_found(
    tmp_path: Path,
) -> None:
    """The node pool query is the cluster's and needs no node: found none (the pods never
    ran, perhaps because of that upgrade), it is still asked, as print mode prints it."""
    upgrade = nodepool_audit(
        "google.container.v1.ClusterManager.UpgradeNodePool",
        nodepool="tpu-np-1",
        timestamp="2026-10-22T11:31:00Z",
        insert_id="upgrade-1",
        operation_id="operation-1761132660000-5e2aac8c",
    )
    export = tmp_path / "export.json"
    export.write_text(json.dumps([upgrade]), encoding="utf-8")
    code, out, err = run_cli(
        "--action=interruptions",
        f"--logs_file={export}",
        *TARGET,
        "--jobset_name=llama-train",
        *WINDOW,
    )
    assert code == 0, err
    assert [line.split()[0] for line in out.splitlines()] == ["2026-10-22T11:31:00Z"]
    assert "UpgradeNodePool" in out
    assert "no nodes found for the workload in the window" in err
    assert "nothing to query" not in err
