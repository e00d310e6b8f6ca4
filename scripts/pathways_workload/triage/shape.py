"""What the first wave shows of the workload: its pods, its TPU hosts, and the hosts it should have.

A JobSet's worker pods carry their slice (`job-index`), their host in the
slice (`job-completion-index`) and the number of slices
(`replicatedjob-replicas`); a LeaderWorkerSet's, their group and worker
index. The hosts a workload should have are every slice times every host
index up to the highest seen (inferred: a host index above it cannot be
known from the labels).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from pathways_workload import labels
from pathways_workload.describe import container_of, entry_labels, pod_of
from pathways_workload.pod_names import generated_stem
from pathways_workload.sources.base import Entry
from pathways_workload.triage.hosts import entry_host, runs_on_host

Host = tuple[str, str]  # (slice, host index), as the labels write them


@dataclasses.dataclass(frozen=True)
class WorkloadShape:
    """The pods seen, the host each TPU host pod is, and the hosts the workload should have."""

    pods: frozenset[str]
    host_of: dict[str, Host]
    expected: frozenset[Host]

    def unheard(self, alive: set[str]) -> frozenset[str]:
        """The pods not among `alive` (those seen at the end) but those an alive pod replaced:
        after a restart, an earlier attempt's pod whose seat a new pod holds (a TPU host's
        seat is its slice and index; another pod's, its name without the random suffix)."""
        held = {self._seat(pod) for pod in alive}
        return frozenset(pod for pod in self.pods - alive if self._seat(pod) not in held)

    def _seat(self, pod: str) -> Host | str:
        if pod in self.host_of:
            return self.host_of[pod]
        return generated_stem(pod) or pod

    def unseen_hosts(self) -> list[Host]:
        """Hosts the labels say exist but no pod of which logged or had an event."""
        seen = set(self.host_of.values())
        return sorted(self.expected - seen, key=lambda h: (int(h[0]), int(h[1])))


def _slices(found: dict[str, str]) -> int | None:
    replicas = found.get(labels.JOBSET_REPLICAS)
    return int(replicas) if isinstance(replicas, str) and replicas.isdigit() else None


def learn_shape(entries: Iterable[Entry]) -> WorkloadShape:
    """The shape of the workload as its container lines show it."""
    pods: set[str] = set()
    host_of: dict[str, Host] = {}
    slices: set[int] = set()
    highest = -1
    for entry in entries:
        pod = pod_of(entry)
        if not pod or pod in host_of:  # a pod's labels are the same on all its lines
            continue
        if container_of(entry) is None:
            continue
        pods.add(pod)
        if not runs_on_host(entry):
            continue
        found = entry_labels(entry)
        index = entry_host(entry)
        if index is None:
            continue
        host_of[pod] = index
        count = _slices(found)
        if count is not None:
            slices.add(count)
        if index[1].isdigit():
            highest = max(highest, int(index[1]))
    expected = {
        (str(number), str(host))
        for number in range(max(slices, default=0))
        for host in range(highest + 1)
    }
    return WorkloadShape(frozenset(pods), host_of, frozenset(expected | set(host_of.values())))


UNSEEN_TEXT = (
    "(no line in the window from this host: it logged nothing from the window's start; "
    "its last line, if any, is earlier)"
)


def unseen_host_line(host: Host, container: str, window_start: str) -> Entry:
    """A stand-in for the last line of a host that logged nothing in the window.

    It names the host by its labels only (its pod is unknown) and is timed at
    the window's start; it has no insertId, since Cloud Logging never wrote it.
    """
    return {
        "labels": {labels.JOBSET_JOB_INDEX: host[0], labels.JOB_COMPLETION_INDEX: host[1]},
        "resource": {"type": "k8s_container", "labels": {"container_name": container}},
        "severity": "DEFAULT",
        "textPayload": UNSEEN_TEXT,
        "timestamp": window_start,
    }
