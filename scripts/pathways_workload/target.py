"""Which workload to look at: the target flags, validated.

Names are checked the way Kubernetes and Google Cloud would accept them, so
no flag value can carry quotes, spaces or parentheses into a filter.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from pathways_workload.errors import UsageError

WORKLOAD_KINDS = ("jobset", "lws", "job", "pod")

_KUBE_NAME_RE = re.compile(r"[a-z0-9]([-a-z0-9.]*[a-z0-9])?")
_POD_PREFIX_RE = re.compile(r"[a-z0-9][-a-z0-9.]*")
# What gcloud's --project takes (googlecloudsdk/core/properties.py, _VALID_PROJECT_REGEX): an
# optional domain, then an ID (a legacy one may start with a digit).
_PROJECT_RE = re.compile(
    r"(?:(?:[-a-z0-9]{1,63}\.)*(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?):)?"
    r"[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?"
)
_PROJECT_NUMBER_RE = re.compile(r"[0-9]+")
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
    namespace_given: bool = False  # --namespace was passed (not only its default)


@dataclasses.dataclass(frozen=True)
class TargetFlags:
    """The target flags as given on the command line (None where not passed)."""

    project: str | None = None
    cluster_name: str | None = None
    location: str | None = None
    namespace: str | None = None
    jobset_name: str | None = None
    lws_name: str | None = None
    job_name: str | None = None
    pod_prefix: str | None = None
    workload: Sequence[str] = ()
    node_names: Sequence[str] = ()
    container_names: Sequence[str] = ()


def check_name(
    flag: str, value: str, pattern: re.Pattern[str] = _KUBE_NAME_RE, given: str | None = None
) -> str:
    """Refuse names that Kubernetes would not accept (quotes, spaces, parentheses...);
    `given` is the flag's whole value when the name is only part of it."""
    said = given if given is not None else value
    if len(value) > 253:
        raise UsageError(
            f"--{flag}={said!r}: {len(value)} characters; a Kubernetes name has at most 253"
        )
    if not pattern.fullmatch(value):
        raise UsageError(
            f"--{flag}={said!r}: not a valid name; use lowercase letters, digits, '-' and '.'"
        )
    return value


def check_project(value: str, flag: str = "--project") -> str:
    """A project ID as gcloud takes it. `gcloud logging` refuses a project number
    (googlecloudsdk/calliope/base.py, RequireProjectID), and exports and Log Analytics
    name a project by its ID in `logName`, so a number is refused with the way to its ID."""
    if _PROJECT_NUMBER_RE.fullmatch(value):
        raise UsageError(
            f"{flag}={value}: a project number; gcloud logging, exports and Log Analytics "
            f"name a project by its ID: pass the ID, which `gcloud projects describe {value} "
            "--format='value(projectId)'` prints"
        )
    if not _PROJECT_RE.fullmatch(value):
        raise UsageError(f"{flag}={value!r}: not a Google Cloud project ID, e.g. my-project")
    return value


def check_location(value: str) -> str:
    if not _LOCATION_RE.fullmatch(value):
        raise UsageError(f"--location={value!r}: not a region or zone, e.g. us-east5 or us-east5-b")
    return value


def parse_workload(spec: str) -> Workload:
    """Parse `KIND:NAME` from --workload."""
    kind, sep, name = spec.partition(":")
    if not sep or kind not in WORKLOAD_KINDS:
        other = (
            "; for the pods of a Deployment or another controller, "
            f"give their name prefix: --workload=pod:{name}-"
            if sep and name
            else ""
        )
        raise UsageError(
            f"--workload={spec!r}: use KIND:NAME with KIND one of {', '.join(WORKLOAD_KINDS)}"
            + other
        )
    pattern = _POD_PREFIX_RE if kind == "pod" else _KUBE_NAME_RE
    return Workload(kind, check_name("workload", name, pattern, given=spec))


def check_pod_prefix(value: str) -> str:
    return check_name("pod_prefix", value, _POD_PREFIX_RE)


def _workloads(flags: TargetFlags) -> tuple[Workload, ...]:
    workloads = [parse_workload(spec) for spec in flags.workload]
    for kind, flag, name in (
        ("jobset", "jobset_name", flags.jobset_name),
        ("lws", "lws_name", flags.lws_name),
        ("job", "job_name", flags.job_name),
    ):
        if name is not None:
            workloads.append(Workload(kind, check_name(flag, name)))
    if flags.pod_prefix is not None:
        workloads.append(Workload("pod", check_pod_prefix(flags.pod_prefix)))
    return tuple(dict.fromkeys(workloads))


def from_flags(flags: TargetFlags) -> Target:
    """The target the flags describe, every value validated."""
    return Target(
        project=flags.project and check_project(flags.project),
        cluster_name=flags.cluster_name and check_name("cluster_name", flags.cluster_name),
        location=flags.location and check_location(flags.location),
        namespace=check_name("namespace", flags.namespace or "default"),
        namespace_given=flags.namespace is not None,
        workloads=_workloads(flags),
        node_names=tuple(check_name("node_names", name) for name in flags.node_names),
        container_names=tuple(
            check_name("container_names", name) for name in flags.container_names
        ),
    )


def require_workload(target: Target, action: str) -> None:
    if not target.workloads:
        raise UsageError(
            f"--action={action} needs the workload: pass --jobset_name, --lws_name, --job_name, "
            "--pod_prefix or --workload=KIND:NAME (--action=pods lists the candidates)"
        )
