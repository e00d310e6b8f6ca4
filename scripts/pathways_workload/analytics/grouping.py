"""The group of an entry in SQL: `describe.where` of the entry, computed by the engine.

`--first_per_pod` groups by pod and container, node-level entries by node or
instance, so the key must be exactly what `describe.where` returns for the
entry the row becomes; the tests compare the two on every corpus incident.
"""

from __future__ import annotations

from pathways_workload import labels
from pathways_workload.analytics import sql

_LABEL = "JSON_VALUE(resource.labels, {path})"
_INSTANCE_IN_AUDIT = r"/instances/(?:.*/)?([^/]*)$"


def _resource_label(key: str) -> str:
    return _LABEL.format(path=sql.json_path((key,)))


def _present(expression: str) -> str:
    """The value, or NULL when it is empty (Python's `if value` test)."""
    return f"NULLIF({expression}, '')"


def node_of() -> str:
    """`describe.node_of`: the node label, node_name, audit instance, or event source host."""
    candidates = (
        f"JSON_VALUE(labels, {sql.json_path((labels.NODE,))})",
        _resource_label("node_name"),
        f"REGEXP_EXTRACT(proto_payload.audit_log.resource_name, {sql.string(_INSTANCE_IN_AUDIT)})",
        f"JSON_VALUE(json_payload, {sql.json_path(('source', 'host'))})",
    )
    return "COALESCE(" + ", ".join(_present(value) for value in candidates) + ")"


def group_key() -> str:
    """`describe.where` as a SQL expression."""
    parts = ", ".join(
        _present(_resource_label(key)) for key in ("namespace_name", "pod_name", "container_name")
    )
    unknown = "'?'"
    return (
        "CASE"
        f" WHEN resource.type IN ('k8s_container', 'k8s_pod') THEN ARRAY_TO_STRING([{parts}], '/')"
        " WHEN resource.type = 'k8s_node' THEN "
        f"CONCAT('node/', COALESCE({_resource_label('node_name')}, {unknown}))"
        " WHEN resource.type = 'gce_instance' THEN CONCAT('instance/', "
        f"COALESCE({node_of()}, {_resource_label('instance_id')}, {unknown}))"
        " WHEN resource.type = 'gke_nodepool' THEN CONCAT("
        f"'cluster/', COALESCE({_resource_label('cluster_name')}, {unknown}), "
        f"'/nodepool/', COALESCE({_resource_label('nodepool_name')}, {unknown}))"
        " ELSE CONCAT('cluster/', "
        f"COALESCE({_resource_label('cluster_name')}, {_present('resource.type')}, {unknown}))"
        " END"
    )
