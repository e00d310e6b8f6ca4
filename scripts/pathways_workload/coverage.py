"""What evidence the logs hold: for each component and each log kind, whether anything was
seen, when, and how many lines were read; and what a gap means.

An empty search is a clean result only where the evidence could have been:
a proxy that never logged, or a project that exports no Kubernetes events,
is a gap to close before concluding anything.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from pathways_workload import terms
from pathways_workload.describe import container_of, pod_of
from pathways_workload.sources.base import Entry, entry_time_ns
from pathways_workload.triage.hosts import client_containers, entry_host, runs_on_host
from pathways_workload.triage.shape import Host

MOST_NAMED = 8

COMPONENTS = (
    ("client", terms.USER_CONTAINERS, True),
    ("proxy", terms.PROXY_CONTAINERS, True),
    ("resource manager", terms.RM_CONTAINERS, True),
    ("workers", terms.WORKER_CONTAINERS, True),
    ("sidecar", terms.SIDECAR_CONTAINERS, False),  # optional: only some workloads run one
)
SILENT = (
    "logged nothing in the window among the lines read: if it ran, its logs are missing "
    "(check the logging agent, or what the export kept); if it never started, "
    "--action=pod-events says why"
)
# A client none of the workload's containers could be (a headless Pathways JobSet).
CLIENT_ELSEWHERE = (
    "; if it runs apart from this workload (a headless JobSet: its own Job, or outside the "
    "cluster), add its Job with --workload=job:NAME or ask for its logs"
)
# Pathways components absent beside a client that logged (a client Job given alone).
SERVER_ELSEWHERE = (
    "; if it runs apart from the client (a headless Pathways JobSet the client's Job works "
    "against), add it with --workload=jobset:NAME"
)
KIND_GAPS = {
    "Kubernetes events": (
        "no Kubernetes events of the namespace in the window: restarts, kills and scheduling "
        "failures cannot be seen; ask for `kubectl get events -n NAMESPACE` (kept about an "
        'hour) or an export that includes log_id("events")'
    ),
    "node logs": (
        "no node logs of the cluster in the window (kubelet, kernel, node events): OOM kills "
        "and node problems cannot be seen; ask for an export that includes "
        'resource.type="k8s_node"'
    ),
    "serial console": (
        "no serial-console output of any node in the window: kernel OOM kills cannot be "
        "confirmed from the console; the nodes may not send their serial port to Cloud Logging"
    ),
}

# A kind of log whose check did not finish: not known to be missing.
UNCHECKED_KIND = (
    "{kind}: not known whether the logs hold any: its check did not finish (the run's "
    "request budget ran out, or Cloud Logging failed); narrow the window and rerun"
)


def _span(entries: Sequence[Entry]) -> tuple[str | None, str | None]:
    """The first and last line's timestamps (of lines at one instant, the first and last
    given)."""
    if not entries:
        return None, None
    times = [entry_time_ns(entry) for entry in entries]
    first, last = min(times), max(times)
    latest = len(times) - 1 - times[::-1].index(last)
    return entries[times.index(first)].get("timestamp"), entries[latest].get("timestamp")


def _silent_hosts(
    workers: Sequence[Entry], expected: Collection[Host], read: bool = True
) -> str | None:
    """The note when TPU hosts the labels say exist logged no line (a host is its slice and
    index: after a restart, two pods are one host); unless `read`, no line of theirs was
    read, for the reads of their last lines were cut."""
    seen = {index for entry in workers if (index := entry_host(entry))}
    silent = sorted(set(expected) - seen, key=lambda host: (int(host[0]), int(host[1])))
    if not silent:
        return None
    named = ", ".join(f"{slice_}/{host}" for slice_, host in silent[:MOST_NAMED])
    more = f" and {len(silent) - MOST_NAMED} more" if len(silent) > MOST_NAMED else ""
    hosts = f"{len(expected) - len(silent)} of the {len(expected)} TPU hosts the labels say exist"
    if read:
        return f"{hosts} logged; silent (slice/host): {named}{more}"
    return (
        f"{hosts} showed a line among the lines read; unread (slice/host): {named}{more} "
        "(the request budget cut the reads of their last lines: they may have logged)"
    )


def components(
    lines: Sequence[Entry], expected_hosts: Collection[Host], hosts_read: bool = True
) -> list[dict[str, Any]]:
    """Per component: pods, lines read, first and last line; a note when it is a gap (of the
    workers, `hosts_read` says whether every host that showed no line was asked for)."""
    rows: list[dict[str, Any]] = []
    clients = client_containers(lines)
    components = [(n, clients if n == "client" else c, r) for n, c, r in COMPONENTS]
    known = {name for _, containers, _ in components for name in containers}
    named = [(container_of(entry), entry) for entry in lines]
    others = sorted({container for container, _ in named if container} - known)
    for name, containers, required in components:
        own = [
            entry
            for container, entry in named
            if _plays(entry, container, name, containers, others)
        ]
        first, last = _span(own)
        pods = len({pod_of(entry) for entry in own})
        note = None
        if not own and required:
            note = f"the {name} {SILENT}" + _other_names(name, others)
            note += CLIENT_ELSEWHERE if name == "client" and not others else ""
            note += SERVER_ELSEWHERE if name != "client" and rows and rows[0]["pods"] else ""
        elif name == "workers":
            note = _silent_hosts(own, expected_hosts, hosts_read)
        rows.append(
            {
                "component": name,
                "pods": pods,
                "lines_read": len(own),
                "first": first,
                "last": last,
                "gap": note,
            }
        )
    return rows


def _plays(
    entry: Entry,
    container: str | None,
    component: str,
    containers: Collection[str],
    others: Sequence[str],
) -> bool:
    """Whether a line (of `container`) is the component's: by its container's name, or, for
    the workers, a container of no known role on a TPU host (a renamed worker)."""
    if container in containers:
        return True
    return component == "workers" and container in others and runs_on_host(entry)


def _other_names(component: str, others: Sequence[str]) -> str:
    """Where a custom-named component's lines may be: the containers of no known role."""
    if not others:
        return ""
    shown = ", ".join(others[:5]) + (f" and {len(others) - 5} more" if len(others) > 5 else "")
    return (
        f"; containers of other names logged ({shown}): if one is the {component}, its lines "
        "are there (--action=user-workload and the others take --container_names)"
    )


def report(
    lines: Sequence[Entry],
    expected_hosts: Collection[Host],
    found: Mapping[str, bool],
    more_kinds: Sequence[dict[str, Any]] = (),
    hosts_read: bool = True,
    unchecked: Collection[str] = (),
) -> dict[str, Any]:
    """What the logs hold: each component (from its lines), each log kind (whether `found`,
    then `more_kinds`, rows of their own), and every gap, one line each (`hosts_read`: see
    `components`; `unchecked`: kinds not found whose check was left undone)."""
    made = {
        "components": components(lines, expected_hosts, hosts_read),
        "kinds": [*_kinds(found, bool(lines), unchecked), *more_kinds],
    }
    return {**made, "gaps": _gaps(made)}


def _kinds(
    found: Mapping[str, bool], containers_seen: bool, unchecked: Collection[str] = ()
) -> list[dict[str, Any]]:
    """Per log kind: whether the logs hold any, and what its absence means (or, when its
    check was left undone, that it is not known)."""
    rows = [
        {
            "kind": "container logs",
            "seen": containers_seen,
            "gap": None if containers_seen else "the workload's containers logged nothing",
        }
    ]
    for kind, seen in found.items():
        gap = UNCHECKED_KIND.format(kind=kind) if kind in unchecked else KIND_GAPS.get(kind)
        rows.append({"kind": kind, "seen": seen, "gap": None if seen else gap})
    return rows


def _gaps(made: dict[str, Any]) -> list[str]:
    rows = made["components"] + made["kinds"]
    return [str(row["gap"]) for row in rows if row.get("gap")]
