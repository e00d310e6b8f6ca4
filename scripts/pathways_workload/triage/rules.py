"""The root-cause rules (references/root-cause-rules.md says them in prose).

1. Only evidence from the workload's pods and the nodes that hosted them counts.
2. The earliest real error wins, across containers, nodes and infrastructure.
3. Known downstream symptoms never win while an earlier cause exists.
4. A node-level event (kernel OOM kill, interruption) stands for anything up to
   NODE_EVENT_TOLERANCE_NS before its whole-second timestamp, so it beats the
   container errors it caused; a precisely timed line about the same node
   within that span is preferred as the evidence.
5. Restart attempts split the window into failures; the one at the issue time
   is the root cause.
6. With no error at all, the component that went quiet first is the cause of a
   hang; with no quiet component either, the run was healthy.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from pathways_workload.describe import container_of, pod_of
from pathways_workload.sources.base import Entry, entry_time_ns
from pathways_workload.terms import USER_CONTAINERS
from pathways_workload.triage.evidence import NODE_EVENT_TOLERANCE_NS, Evidence

QUIET_AFTER_NS = 5 * 60 * 10**9
HOST_COMPONENTS = ("pathways-worker", "colocated-python-sidecar")


@dataclasses.dataclass(frozen=True)
class Failure:
    """One failure in the window: its cause, the evidence and what followed."""

    cause: Evidence
    attempt: str | None
    symptoms: list[Evidence]
    evidence: list[Evidence]
    hang: bool = False


def _refine(cause: Evidence, candidates: Sequence[Evidence]) -> Evidence:
    """Prefer a precisely timed node-level line about the same node as a coarse event."""
    if not cause.coarse:
        return cause
    for other in candidates:
        if (
            other.source in ("serial-console", "audit")
            and other.node == cause.node
            and cause.time_ns - NODE_EVENT_TOLERANCE_NS <= other.time_ns <= cause.time_ns
        ):
            return other
    return cause


def root_of(evidence: Sequence[Evidence]) -> Evidence | None:
    """The cause among the evidence: the earliest non-symptom, else the earliest symptom."""
    causes = sorted((e for e in evidence if not e.symptom), key=Evidence.order)
    if causes:
        return _refine(causes[0], causes)
    symptoms = sorted(evidence, key=Evidence.order)
    return symptoms[0] if symptoms else None


def _attempt_of(item: Evidence, starts: list[tuple[int, str]]) -> str | None:
    """Node-level evidence has no attempt label: the latest attempt begun before it."""
    if item.attempt is not None or not starts:
        return item.attempt
    chosen = starts[0][1]
    for start, attempt in starts:
        if start <= item.effective_ns + NODE_EVENT_TOLERANCE_NS:
            chosen = attempt
    return chosen


def split_failures(evidence: Sequence[Evidence]) -> list[Failure]:
    """One failure per restart attempt that has evidence, chronological."""
    starts: dict[str, int] = {}
    for item in evidence:
        if item.attempt is not None:
            starts[item.attempt] = min(starts.get(item.attempt, item.time_ns), item.time_ns)
    ordered_starts = sorted((time, attempt) for attempt, time in starts.items())
    groups: dict[str | None, list[Evidence]] = {}
    for item in evidence:
        groups.setdefault(_attempt_of(item, ordered_starts), []).append(item)
    failures = []
    for attempt, items in groups.items():
        cause = root_of(items)
        if cause is None:
            continue
        after = [e for e in items if e is not cause and e.symptom]
        failures.append(
            Failure(
                cause, attempt, sorted(after, key=Evidence.order), sorted(items, key=Evidence.order)
            )
        )
    return sorted(failures, key=lambda f: f.cause.order())


def pick(failures: Sequence[Failure], issue_ns: int | None) -> Failure | None:
    """The failure at the issue time: the last one begun by then, else the earliest."""
    if not failures:
        return None
    if issue_ns is None:
        return failures[0]
    before = [f for f in failures if f.cause.effective_ns <= issue_ns]
    return before[-1] if before else failures[0]


def last_lines(entries: Sequence[Entry]) -> dict[tuple[str, str], Entry]:
    """The latest entry of each pod/container."""
    latest: dict[tuple[str, str], Entry] = {}
    for entry in entries:
        key = (pod_of(entry) or "?", container_of(entry) or "?")
        if key not in latest or entry_time_ns(entry) > entry_time_ns(latest[key]):
            latest[key] = entry
    return latest


def quiet_first(latest: dict[tuple[str, str], Entry], progress_end_ns: int | None) -> Entry | None:
    """The component that went quiet first when progress stopped well before the end.

    Progress is the user workload's `completed step` lines; components that go
    quiet in the minutes before the last step are the suspects, the earliest
    of them the lead. Components that only log at start-up are not suspects.
    """
    if progress_end_ns is None or not latest:
        return None
    newest = max(entry_time_ns(entry) for entry in latest.values())
    if newest - progress_end_ns < QUIET_AFTER_NS:
        return None
    suspects = sorted(
        (entry_time_ns(entry), key)
        for key, entry in latest.items()
        if key[1] not in USER_CONTAINERS
        and progress_end_ns - QUIET_AFTER_NS <= entry_time_ns(entry) <= progress_end_ns
    )
    if suspects:
        return latest[suspects[0][1]]
    users = [entry for key, entry in latest.items() if key[1] in USER_CONTAINERS]
    return min(users, key=entry_time_ns) if users else None


def hang_failure(entry: Entry) -> Failure:
    item = Evidence(entry, entry_time_ns(entry), "container", symptom=False)
    return Failure(item, None, [], [item], hang=True)


def failing_hosts(failure: Failure) -> list[dict[str, str]]:
    """Per failing TPU host of the failure: its first error; earliest first."""
    firsts: dict[str, Evidence] = {}
    for item in failure.evidence:
        if item.host() is not None and item.pod and item.pod not in firsts:
            firsts[item.pod] = item
    rows = []
    for pod, item in sorted(firsts.items(), key=lambda pair: pair[1].order()):
        slice_index, host_index = item.host() or ("?", "?")
        rows.append(
            {
                "pod": pod,
                "node": item.node or "",
                "slice": slice_index,
                "host": host_index,
                "first_error_time": str(item.entry.get("timestamp")),
                "first_error": item.message.splitlines()[0] if item.message else "",
            }
        )
    return rows


def lowest_indexed(hosts: Sequence[dict[str, str]]) -> dict[str, str] | None:
    """The failing host with the lowest (slice, host) index."""

    def index(row: dict[str, str]) -> tuple[int, int]:
        try:
            return int(row["slice"]), int(row["host"])
        except ValueError:
            return (1 << 30, 1 << 30)

    return min(hosts, key=index) if hosts else None
