"""Filter clauses that select a target's entries, and the infrastructure clauses shared by actions.

A workload is selected by the labels its pods carry wherever the entries carry
them (container lines, pod events), never by a pod-name prefix alone: `train`
is a prefix of a different JobSet `train-eval`.
"""

from __future__ import annotations

from collections.abc import Sequence

from pathways_workload import filters, labels, terms
from pathways_workload.target import Target, Workload

# Replicated-job names the Pathways launchers use; a JobSet's Jobs are `<jobset>-<rjob>-<index>`.
REPLICATED_JOB_NAMES = ("pathways-head", "worker", "pathways-worker", "head", "rm", "proxy")
JOBSET_CONTROLLER_NAMESPACE = 'resource.labels.namespace_name="jobset-system"'
SERIAL_CONSOLE_LOG = "serialconsole.googleapis.com/serial_port_1_output"
SYSTEM_EVENT_LOG = "cloudaudit.googleapis.com/system_event"
GCE_INSTANCE = 'resource.type="gce_instance"'


def _cluster_clauses(target: Target) -> list[str]:
    clauses = []
    if target.cluster_name:
        clauses.append(filters.equals("resource.labels.cluster_name", target.cluster_name))
    if target.location:
        clauses.append(filters.equals("resource.labels.location", target.location))
    return clauses


def cluster_scope(resource_type: str, target: Target, namespaced: bool) -> str:
    """`resource.type` plus cluster, location and (for namespaced types) namespace."""
    clauses = [filters.equals("resource.type", resource_type), *_cluster_clauses(target)]
    if namespaced:
        clauses.append(filters.equals("resource.labels.namespace_name", target.namespace))
    return filters.all_of(clauses)


def _pod_name_prefix(prefix: str) -> str:
    return f'resource.labels.pod_name=~"^{filters.regex_literal(prefix)}"'


def _container_clause(workload: Workload) -> str:
    if workload.kind == "jobset":
        return filters.equals(filters.label(labels.JOBSET_NAME), workload.name)
    if workload.kind == "lws":
        return filters.equals(filters.label(labels.LWS_NAME), workload.name)
    if workload.kind == "job":
        return filters.equals(filters.label(labels.JOB_NAME), workload.name)
    return _pod_name_prefix(workload.name)


def _owner(kind: str, name: str) -> str:
    owner_type = filters.equals(filters.label(labels.OWNER_TYPE), kind)
    return f"{owner_type} AND {filters.equals(filters.label(labels.OWNER_NAME), name)}"


def _pod_event_clause(workload: Workload) -> str:
    if workload.kind == "jobset":
        return "(" + _owner("JobSet", workload.name) + ")"
    if workload.kind == "job":
        # A JobSet's Job is not its pods' top-level owner: they are its indexed pods,
        # `<job>-<completion index>-<random suffix>`, owned by the JobSet.
        name = filters.regex_literal(workload.name)
        pods = f'resource.labels.pod_name=~"^{name}-[0-9]+-[a-z0-9]{{5}}$"'
        owned = filters.equals(filters.label(labels.OWNER_TYPE), "JobSet")
        return f"(({_owner('Job', workload.name)}) OR ({owned} AND {pods}))"
    if workload.kind == "lws":
        # LWS pods are `<lws>-<group>` (leader) and `<lws>-<group>-<worker>`, workers counted
        # from 1 (kubernetes-sigs/lws): `<lws>-2-0` is another LWS's leader, not ours.
        name = filters.regex_literal(workload.name)
        return f'resource.labels.pod_name=~"^{name}-[0-9]+(-[1-9][0-9]*)?$"'
    return _pod_name_prefix(workload.name)


def _object_event_clause(workload: Workload) -> str | None:
    kind_field, name_field = "jsonPayload.involvedObject.kind", "jsonPayload.involvedObject.name"
    if workload.kind == "jobset":
        jobs = "|".join(REPLICATED_JOB_NAMES)
        name = filters.regex_literal(workload.name)
        return filters.any_of(
            [
                f'({kind_field}="JobSet" AND {filters.equals(name_field, workload.name)})',
                f'({kind_field}="Job" AND {name_field}=~"^{name}-({jobs})-[0-9]+$")',
            ]
        )
    if workload.kind == "lws":
        # Its pods are made by StatefulSets: `<lws>` (the leaders) and one per group named
        # after the group's leader, `<lws>-<group>`; a pod it could not create is their event.
        name = filters.regex_literal(workload.name)
        return filters.any_of(
            [
                f'({kind_field}="LeaderWorkerSet" AND {filters.equals(name_field, workload.name)})',
                f'({kind_field}="StatefulSet" AND {name_field}=~"^{name}(-[0-9]+)?$")',
            ]
        )
    if workload.kind == "job":
        return f'({kind_field}="Job" AND {filters.equals(name_field, workload.name)})'
    return None


def container_lines(target: Target, containers: tuple[str, ...] = (), fixed: bool = False) -> str:
    """Container log lines of the workload's pods, optionally of some containers only: those
    --container_names gives, unless `fixed` (another role than the action's own)."""
    clauses = [
        cluster_scope("k8s_container", target, namespaced=True),
        filters.any_of(_container_clause(workload) for workload in target.workloads),
    ]
    names = containers if fixed else target.container_names or containers
    if names:
        clauses.append(filters.one_of("resource.labels.container_name", names))
    return filters.all_of(clauses)


def _pod_selector(target: Target) -> str:
    """The workload's pods as `k8s_pod` entries (events carry owner labels only)."""
    return filters.all_of(
        [
            cluster_scope("k8s_pod", target, namespaced=True),
            filters.any_of(_pod_event_clause(workload) for workload in target.workloads),
        ]
    )


def _object_selector(target: Target) -> str:
    """The workload's JobSet, LeaderWorkerSet and Jobs as `k8s_cluster` entries, or ""."""
    present = [c for c in map(_object_event_clause, target.workloads) if c]
    if not present:
        return ""
    return filters.all_of(
        [
            cluster_scope("k8s_cluster", target, namespaced=False),
            filters.equals("jsonPayload.involvedObject.namespace", target.namespace),
            filters.any_of(present),
        ]
    )


# A JobSet's or Job's name is a label value of its pods (`jobset-name`, `job-name`): at most
# 63 characters (Kubernetes' label value limit).
NAME_MAX = 63


def owner_completions(target: Target) -> str:
    """For pods named by a prefix, the events saying a JobSet or Job that may own them
    succeeded (one named by a start of the prefix, or starting with it), or ""."""
    prefixes = [workload.name for workload in target.workloads if workload.kind == "pod"]
    if not prefixes:
        return ""
    name = "jsonPayload.involvedObject.name"
    names = [
        clause
        for prefix in prefixes
        for clause in (
            f'{name}=~"^{filters.regex_literal(prefix)}"',
            filters.one_of(name, [prefix[:end] for end in range(1, len(prefix[:NAME_MAX]) + 1)]),
        )
    ]
    said = [
        f"({filters.equals('jsonPayload.involvedObject.kind', kind)} AND "
        f"{filters.equals('jsonPayload.reason', reason)})"
        for kind, reason in terms.COMPLETIONS.values()
    ]
    return filters.all_of(
        [
            filters.log_id("events"),
            cluster_scope("k8s_cluster", target, namespaced=False),
            filters.equals("jsonPayload.involvedObject.namespace", target.namespace),
            filters.any_of(said),
            filters.any_of(names),
        ]
    )


def pod_events(target: Target) -> str:
    """Kubernetes events of the workload's pods."""
    return filters.all_of([filters.log_id("events"), _pod_selector(target)])


def object_events(target: Target) -> str:
    """Events of the workload's JobSet, LeaderWorkerSet and Jobs, or "" for bare pods."""
    selector = _object_selector(target)
    return filters.all_of([filters.log_id("events"), selector]) if selector else ""


def workload_events(target: Target) -> str:
    """Events of the workload's pods and of the objects that own them."""
    return filters.all_of(
        [
            filters.log_id("events"),
            filters.any_of([_pod_selector(target), _object_selector(target)]),
        ]
    )


def target_scope(target: Target) -> str:
    """What the target flags given select, for a filter of the user's own ("" for none).

    With a workload: its container lines and its events. Otherwise the
    cluster, location and namespace given.
    """
    if target.workloads:
        return filters.any_of([container_lines(target), workload_events(target)])
    clauses = _cluster_clauses(target)
    if target.namespace_given:
        clauses.append(filters.equals("resource.labels.namespace_name", target.namespace))
    return filters.all_of(clauses)


def project_logs(project: str) -> str:
    """The project's own logs (an entry with no logName to tell kept): what `gcloud logging
    read --project` reads, for a source that holds several projects' entries (an export)."""
    return f'(NOT logName:* OR logName=~"^projects/{filters.regex_literal(project)}/logs/")'


def on_nodes(nodes: Sequence[str]) -> str:
    """Entries GKE labelled with one of these nodes."""
    return filters.one_of(filters.label(labels.NODE), nodes)


def serial_console_ooms(nodes: Sequence[str] = (), extra: Sequence[str] = ()) -> str:
    """Kernel OOM-kill lines (or lines with an `extra` term) in the serial console (of these
    nodes, when given)."""
    return filters.all_of(
        [
            GCE_INSTANCE,
            filters.log_id(SERIAL_CONSOLE_LOG),
            on_nodes(nodes) if nodes else "",
            filters.message_has_any((*terms.NODE_OOM_TERMS, *extra)),
        ]
    )


def system_events(methods: str) -> str:
    """GCE system-event audit entries (preemption, host maintenance) matching `methods`."""
    return filters.all_of([GCE_INSTANCE, filters.log_id(SYSTEM_EVENT_LOG), methods])


def interruption_methods() -> str:
    """The GCE audit methods that interrupt an instance."""
    return filters.one_of("protoPayload.methodName", terms.INTERRUPTION_METHODS)


def nodepool_operations(target: Target) -> str:
    """Node pool repairs, upgrades, resizes and deletions in the cluster."""
    return filters.all_of(
        [
            cluster_scope("gke_nodepool", target, namespaced=False),
            filters.one_of("protoPayload.methodName", terms.NODEPOOL_METHODS),
        ]
    )


def jobset_controller(target: Target) -> str:
    """Container lines of the JobSet controller (namespace jobset-system)."""
    return filters.all_of(
        [
            cluster_scope("k8s_container", target, namespaced=False),
            JOBSET_CONTROLLER_NAMESPACE,
        ]
    )
