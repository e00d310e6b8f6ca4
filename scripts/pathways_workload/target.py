"""Which workload to look at, and the filter clauses that select its entries.

A workload is selected by the labels its pods carry wherever the entries carry
them (container lines, pod events), never by a pod-name prefix alone: `train`
is a prefix of a different JobSet `train-eval`.
"""

from __future__ import annotations

import dataclasses
import re

from pathways_workload import filters
from pathways_workload.errors import UsageError

WORKLOAD_KINDS = ("jobset", "lws", "job", "pod")
JOBSET_NAME_LABEL = "k8s-pod/jobset_sigs_k8s_io/jobset-name"
LWS_NAME_LABEL = "k8s-pod/leaderworkerset_sigs_k8s_io/name"
JOB_NAME_LABEL = "k8s-pod/batch_kubernetes_io/job-name"
LWS_GROUP_LABEL = "k8s-pod/leaderworkerset_sigs_k8s_io/group-index"
NODE_LABEL = "compute.googleapis.com/resource_name"
OWNER_TYPE_LABEL = "logging.gke.io/top_level_controller_type"
OWNER_NAME_LABEL = "logging.gke.io/top_level_controller_name"
# Replicated-job names the Pathways launchers use; a JobSet's Jobs are `<jobset>-<rjob>-<index>`.
REPLICATED_JOB_NAMES = ("pathways-head", "worker", "pathways-worker", "head", "rm", "proxy")

_KUBE_NAME_RE = re.compile(r"[a-z0-9]([-a-z0-9.]*[a-z0-9])?")
_POD_PREFIX_RE = re.compile(r"[a-z0-9][-a-z0-9.]*")
_PROJECT_RE = re.compile(r"([a-z][-a-z0-9.]*:)?[a-z][-a-z0-9]{3,61}[a-z0-9]")
_LOCATION_RE = re.compile(r"[a-z]+-[a-z]+[0-9]+(-[a-z])?")


@dataclasses.dataclass(frozen=True)
class Workload:
    """One Kubernetes object whose pods belong to the workload."""

    kind: str
    name: str

    def __str__(self) -> str:
        return f"{self.kind}:{self.name}"


@dataclasses.dataclass(frozen=True)
class Target:
    """The cluster, namespace and workload objects a run looks at."""

    project: str | None = None
    cluster_name: str | None = None
    location: str | None = None
    namespace: str = "default"
    workloads: tuple[Workload, ...] = ()
    node_names: tuple[str, ...] = ()
    container_names: tuple[str, ...] = ()


def check_name(flag: str, value: str, pattern: re.Pattern[str] = _KUBE_NAME_RE) -> str:
    """Refuse names that Kubernetes would not accept (quotes, spaces, parentheses...)."""
    if len(value) > 253 or not pattern.fullmatch(value):
        raise UsageError(
            f"--{flag}={value!r}: not a valid name; use lowercase letters, digits, '-' and '.'"
        )
    return value


def check_project(value: str) -> str:
    if not _PROJECT_RE.fullmatch(value):
        raise UsageError(f"--project={value!r}: not a Google Cloud project id, e.g. my-project")
    return value


def check_location(value: str) -> str:
    if not _LOCATION_RE.fullmatch(value):
        raise UsageError(f"--location={value!r}: not a region or zone, e.g. us-east5 or us-east5-b")
    return value


def parse_workload(spec: str) -> Workload:
    """Parse `KIND:NAME` from --workload."""
    kind, sep, name = spec.partition(":")
    if not sep or kind not in WORKLOAD_KINDS:
        raise UsageError(
            f"--workload={spec!r}: use KIND:NAME with KIND one of {', '.join(WORKLOAD_KINDS)}"
        )
    pattern = _POD_PREFIX_RE if kind == "pod" else _KUBE_NAME_RE
    return Workload(kind, check_name("workload", name, pattern))


def check_pod_prefix(value: str) -> str:
    return check_name("pod_prefix", value, _POD_PREFIX_RE)


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
        return filters.equals(filters.label(JOBSET_NAME_LABEL), workload.name)
    if workload.kind == "lws":
        return filters.equals(filters.label(LWS_NAME_LABEL), workload.name)
    if workload.kind == "job":
        return filters.equals(filters.label(JOB_NAME_LABEL), workload.name)
    return _pod_name_prefix(workload.name)


def _owner(kind: str, name: str) -> str:
    owner_type = filters.equals(filters.label(OWNER_TYPE_LABEL), kind)
    return f"{owner_type} AND {filters.equals(filters.label(OWNER_NAME_LABEL), name)}"


def _pod_event_clause(workload: Workload) -> str:
    if workload.kind == "jobset":
        return "(" + _owner("JobSet", workload.name) + ")"
    if workload.kind == "job":
        return "(" + _owner("Job", workload.name) + ")"
    if workload.kind == "lws":
        # LWS pods are `<lws>-<group>` (leader) and `<lws>-<group>-<worker>`.
        name = filters.regex_literal(workload.name)
        return f'resource.labels.pod_name=~"^{name}-[0-9]+(-[0-9]+)?$"'
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
        return f'({kind_field}="LeaderWorkerSet" AND {filters.equals(name_field, workload.name)})'
    if workload.kind == "job":
        return f'({kind_field}="Job" AND {filters.equals(name_field, workload.name)})'
    return None


def require_workload(target: Target, action: str) -> None:
    if not target.workloads:
        raise UsageError(
            f"--action={action} needs the workload: pass --jobset_name, --lws_name, --job_name, "
            "--pod_prefix or --workload=KIND:NAME (--action=pods lists the candidates)"
        )


def container_lines(target: Target, containers: tuple[str, ...] = ()) -> str:
    """Container log lines of the workload's pods, optionally of some containers only."""
    clauses = [
        cluster_scope("k8s_container", target, namespaced=True),
        filters.any_of(_container_clause(workload) for workload in target.workloads),
    ]
    names = target.container_names or containers
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


def node_names_clause(field: str, nodes: tuple[str, ...]) -> str:
    return filters.one_of(field, nodes)
