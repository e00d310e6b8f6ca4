"""Turn the entries triage fetched into evidence: what, where, when, cause or symptom."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from pathways_workload import labels, scenarios, tracebacks
from pathways_workload.describe import (
    container_of,
    entry_labels,
    event_reason,
    message,
    node_of,
    pod_of,
    resource_labels,
    resource_type,
    severity,
)
from pathways_workload.shaping import identity
from pathways_workload.sources.base import Entry, Result, entry_time_ns, sort_key
from pathways_workload.terms import USER_CONTAINERS

# Node-level events carry whole-second timestamps, and the kernel OOM event is
# reported after the kill: such an event may stand for anything up to this long before it.
NODE_EVENT_TOLERANCE_NS = 10 * 10**9

# Downstream errors: (substring, containers where it is a symptom; empty = everywhere).
SYMPTOMS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Socket closed", ()),
    ("Connection to IFRT proxy server was terminated", ()),
    ("lost connection to peer", ()),
    ("Pipe from scheduler to aggregator", ()),
    ("SLICE_FAILURE_CHIP_DRIVER_ERROR", USER_CONTAINERS),
    ("SIGTERM", ()),
    ("Unable to establish connection", ()),
    ("Back-off restarting failed container", ()),
    ("Stopping container", ()),
    ("GOAWAY", ()),
    ("Cancelled", ()),
    # The kernel's preamble to an OOM kill; the `Killed process` line that follows is the evidence.
    ("invoked oom-killer", ()),
)
QUIET_SEVERITIES = ("DEBUG", "INFO", "NOTICE")
SYMPTOM_REASONS = (
    "Killing",
    "BackOff",
    "RestartJobSetFailurePolicyAction",
    "FailJobSetFailurePolicyAction",
    "FailedJobs",
    "ReachedMaxRestarts",
    "BackoffLimitExceeded",
    "FailedScheduling",
    "NodeNotReady",
)
QUIET_EVENT_REASONS = (
    "Scheduled",
    "Pulling",
    "Pulled",
    "Created",
    "Started",
    "SuccessfulCreate",
    "SuccessfulDelete",
    "AllJobsCompleted",
    "InOrderStartupPolicyInProgress",
    "InOrderStartupPolicyCompleted",
    "ResumeJobs",
)


@dataclasses.dataclass(frozen=True)
class Evidence:
    """One entry that says something went wrong, and how to weigh it."""

    entry: Entry
    time_ns: int
    source: str
    symptom: bool
    traceback: tuple[str, ...] = ()  # the traceback this exception line ends, as logged

    @property
    def coarse(self) -> bool:
        """Whole-second node-level events, which may lag what they report."""
        return self.source == "node-event"

    @property
    def effective_ns(self) -> int:
        return self.time_ns - (NODE_EVENT_TOLERANCE_NS if self.coarse else 0)

    @property
    def pod(self) -> str | None:
        return pod_of(self.entry)

    @property
    def container(self) -> str | None:
        return container_of(self.entry)

    @property
    def node(self) -> str | None:
        return node_of(self.entry)

    @property
    def message(self) -> str:
        return message(self.entry)

    @property
    def attempt(self) -> str | None:
        return attempt_of(self.entry)

    @property
    def scenario(self) -> scenarios.Scenario | None:
        return scenarios.match(self.entry)

    def order(self) -> tuple[int, int, tuple[int, str]]:
        rank = {"serial-console": 0, "audit": 0, "node-event": 1}.get(self.source, 2)
        return self.effective_ns, rank, sort_key(self.entry)


def attempt_of(entry: Entry) -> str | None:
    """The JobSet restart attempt (or LWS group) an entry belongs to, if it says."""
    found = entry_labels(entry)
    for key in labels.RESTART_ATTEMPT:
        if isinstance(found.get(key), str):
            return str(found[key])
    group = found.get(labels.LWS_GROUP_INDEX)
    return f"group {group}" if isinstance(group, str) else None


def source_of(entry: Entry) -> str:
    """Which kind of evidence an entry is."""
    kind = resource_type(entry)
    log_name = str(entry.get("logName", ""))
    if kind == "gce_instance":
        return "serial-console" if "serialconsole" in log_name else "audit"
    if kind == "k8s_node":
        return "node-event"
    if kind == "k8s_pod":
        return "pod-event"
    if kind in ("k8s_cluster", "gke_nodepool"):
        return "cluster-event"
    namespace = resource_labels(entry).get("namespace_name")
    return "controller" if namespace == "jobset-system" else "container"


def _is_symptom(entry: Entry) -> bool:
    if tracebacks.is_header(entry):
        return True
    text = message(entry).lower()
    container = container_of(entry) or ""
    for substring, containers in SYMPTOMS:
        if substring.lower() in text and (not containers or container in containers):
            return True
    return event_reason(entry) in SYMPTOM_REASONS


def _is_noise(entry: Entry, source: str) -> bool:
    """Routine events that are not evidence of a failure."""
    if source in ("container", "controller"):
        return severity(entry) in QUIET_SEVERITIES
    if source in ("pod-event", "cluster-event"):
        return event_reason(entry) in QUIET_EVENT_REASONS or (
            severity(entry) != "WARNING"
            and not _is_symptom(entry)
            and scenarios.match(entry) is None
        )
    return False


def classify(entry: Entry) -> Evidence | None:
    """Evidence from an entry, or None for routine entries."""
    source = source_of(entry)
    if _is_noise(entry, source):
        return None
    return Evidence(entry, entry_time_ns(entry), source, _is_symptom(entry))


def with_tracebacks(
    evidence: list[Evidence], crashes: Sequence[Entry], follow_ups: Sequence[Result]
) -> list[Evidence]:
    """The evidence, with the exception line of each traceback the crash lines start.

    A traceback logged one line per entry starts with a header (a symptom: it
    says nothing yet); its exception line, found among the follow-up lines, is
    the evidence, whatever its severity, and carries the traceback with it.
    """
    lines = [entry for result in follow_ups for entry in result.entries]
    ends: dict[tuple[str, str, str], Evidence] = {}
    for header in tracebacks.first_headers(crashes, len(crashes)):
        built = tracebacks.assemble(header, lines)
        if built.exception is not None:
            end = built.exception
            source = source_of(end)
            item = Evidence(end, entry_time_ns(end), source, _is_symptom(end), tuple(built.text()))
            ends[identity(end)] = item
    kept = [item for item in evidence if identity(item.entry) not in ends]
    return kept + list(ends.values())
