"""What happened where and when: one lane of events per host, head container, node and log.

The report's `timeline` is drawn by the HTML report and read by agents. Lanes:
- one per head-pod container (by container name, across restart attempts; per
  group for a LeaderWorkerSet, whose every group has its own leader);
- one per TPU host the workload has or should have (slice and host index, across
  the pods of every attempt), including hosts that never failed and hosts that
  logged nothing in the window;
- one per workload node with node-level evidence (OOM kills, interruptions) that ran
  no TPU host: node-level evidence about a host's node goes on that host's lane, and so
  does a failure's cause that is an event about a host's pod (an image it cannot pull);
- one for Kubernetes events and one for the JobSet controller, when they hold evidence.

A lane's events: its first error in each failure (the root cause marked as
such), later errors, symptoms, OOM kills, interruptions, events, the `hang`
point of the component that went quiet first in a hang, and its last line:
a `quiet` event when the lane stopped logging QUIET_AFTER_NS or more before
the workload's newest line (when a hang is all that failed, before the logs' known
end: see `_quiet_by`) (with when its next line was due), unless it stopped by
the time the workload completed (it finished, it did not hang). Symptoms and
later errors are capped per lane (`omitted` counts the rest).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Any

from pathways_workload import labels, terms
from pathways_workload.describe import (
    container_of,
    entry_labels,
    event_reason,
    message,
    node_of,
    pod_of,
    where,
)
from pathways_workload.query import Request
from pathways_workload.shaping import identity
from pathways_workload.sources.base import Entry, entry_time_ns
from pathways_workload.terms import RM_CONTAINERS, USER_CONTAINERS
from pathways_workload.timestamps import format_timestamp_ns
from pathways_workload.triage.evidence import Evidence, restart_attempt
from pathways_workload.triage.fetches import QUIET_AFTER_NS
from pathways_workload.triage.hosts import (
    HOST_CONTAINERS,
    NODE_SOURCES,
    TEARDOWN,
    HostPod,
    entry_host,
    follows_the_client,
    pod_on_node,
    runs_on_host,
)
from pathways_workload.triage.rules import Failure, next_line_due
from pathways_workload.triage.shape import Host, unseen_host_line

# Per lane: at most this many symptoms, and this many events besides first errors,
# node-level events and the last line.
SYMPTOMS_PER_LANE = 3
OTHERS_PER_LANE = 12
# Longer messages are cut (the root cause keeps its whole message).
MESSAGE_LIMIT = 2000
LANE_ORDER = ("head", "host", "node", "events", "controller")
EVENT_SOURCES = ("pod-event", "cluster-event")
HEAD_ORDER = USER_CONTAINERS + terms.PROXY_CONTAINERS + RM_CONTAINERS
# Events a lane always keeps, whatever the caps.
ALWAYS_KEPT = ("root_cause", "first_error", "oom", "interruption", "hang", "quiet", "last_line")

# A host lane with one of these failed.
FAILED_KINDS = ("root_cause", "first_error", "oom", "interruption", "hang")

LaneKey = tuple[str, str]  # (lane kind, name)


@dataclasses.dataclass
class _Lane:
    """A lane being assembled: its events by time, what it ran on, and its lines."""

    key: LaneKey
    events: list[tuple[int, dict[str, Any]]] = dataclasses.field(default_factory=list)
    pods: set[str] = dataclasses.field(default_factory=set)
    nodes: set[str] = dataclasses.field(default_factory=set)
    lines: list[Entry] = dataclasses.field(default_factory=list)
    silent_from: str | None = None  # a host that logged nothing in the window: its start


def lane_of(entry: Entry, source: str = "container") -> LaneKey:
    """The lane an entry belongs to."""
    if source in NODE_SOURCES:
        return ("node", node_of(entry) or where(entry))  # a node pool operation: its pool
    if source in EVENT_SOURCES:
        return ("events", "Kubernetes events")
    if source == "controller":
        return ("controller", "JobSet controller")
    container = container_of(entry) or "?"
    found = entry_labels(entry)
    index = entry_host(entry) if runs_on_host(entry) else None
    if index:
        return ("host", "/".join(index))
    group = found.get(labels.LWS_GROUP_INDEX)  # each LeaderWorkerSet group has its own leader
    return ("head", f"{container} (group {group})" if isinstance(group, str) else container)


def cut_message(text: str) -> str:
    """`text`, or its first MESSAGE_LIMIT characters and how many more there are."""
    if len(text) <= MESSAGE_LIMIT:
        return text
    return f"{text[:MESSAGE_LIMIT]}… ({len(text) - MESSAGE_LIMIT} more characters)"


def _event(entry: Entry, kind: str, attempt: str | None, **more: Any) -> dict[str, Any]:
    return {
        "timestamp": entry.get("timestamp"),
        "kind": kind,
        "where": where(entry),
        "message": cut_message(message(entry)),
        "attempt": attempt,
        **more,
    }


def _node_kind(item: Evidence) -> str:
    """`oom` for kernel and node OOM kills and the kubelet's node pressure, `interruption`
    for everything else node-level."""
    text = message(item.entry)
    if event_reason(item.entry) in terms.NODE_MEMORY_REASONS or any(
        term in text for term in terms.NODE_OOM_TERMS
    ):
        return "oom"
    return "interruption"


def _kind(item: Evidence, root: Evidence | None, first: bool) -> str:
    if item is root:
        return "root_cause"
    if item.source in NODE_SOURCES:
        return _node_kind(item)
    if first:  # an event is first only on its host's lane: the cause of its failure
        return "first_error"
    if item.source in EVENT_SOURCES or item.source == "controller":
        return "event"
    return "symptom" if item.symptom else "error"


def host_on_node(pods: Sequence[HostPod], node: str | None, time_ns: int) -> LaneKey | None:
    """The host lane of the host pod on the node at the time (see `pod_on_node`)."""
    chosen = pod_on_node(pods, node, time_ns)
    return ("host", f"{chosen.slice}/{chosen.host}") if chosen else None


def _evidence_lane(item: Evidence, failure: Failure, pods: Sequence[HostPod]) -> LaneKey:
    """The lane of an item of evidence: node-level evidence on the lane of the host that ran
    on the node, and a failure's cause that is an event about a host's pod (an image it
    cannot pull) on that host's lane, as the report's failing hosts count it."""
    key = lane_of(item.entry, item.source)
    if item.source in NODE_SOURCES:
        return host_on_node(pods, item.node, item.time_ns) or key
    if item is failure.cause and item.source in EVENT_SOURCES:
        host = next((pod for pod in pods if pod.pod == item.pod), None)
        return ("host", f"{host.slice}/{host.host}") if host else key
    return key


def _add_evidence(
    lanes: dict[LaneKey, _Lane],
    failures: Sequence[Failure],
    root: Evidence | None,
    pods: Sequence[HostPod],
) -> None:
    """Every failure's evidence on its lane (see `_evidence_lane`); a lane's first error per
    failure marked. A hang's evidence is the
    last lines of what went quiet, in the order it went quiet: a host's first is the one
    that went quiet first (an older line of a component that logs seldom went quiet later),
    and its others are drawn as last lines, not errors."""
    for failure in failures:
        started: set[LaneKey] = set()
        ordered = failure.evidence if failure.hang else sorted(failure.evidence, key=Evidence.order)
        for item in ordered:
            key = _evidence_lane(item, failure, pods)
            lane = lanes.setdefault(key, _Lane(key))
            eligible = (
                key[0] in ("head", "host")
                and TEARDOWN not in item.message
                and not follows_the_client(item)
            )
            first = eligible and key not in started
            if first or item is root:
                started.add(key)
            kind = _kind(item, root, first)
            if failure.hang and kind == "error":
                kind = "last_line"
            event = _event(item.entry, kind, failure.attempt)
            event["downstream"] = item.symptom
            if item is root and failure.due_ns is not None:
                event["due_at"] = format_timestamp_ns(failure.due_ns)
            lane.events.append((item.time_ns, event))


def _add_lines(lanes: dict[LaneKey, _Lane], lines: Iterable[Entry]) -> None:
    """The workload's container lines on their lanes: pods, nodes, and the last line."""
    for entry in lines:
        key = lane_of(entry)
        lane = lanes.setdefault(key, _Lane(key))
        lane.lines.append(entry)
        pod, node = pod_of(entry), node_of(entry)
        if pod:
            lane.pods.add(pod)
        if node:
            lane.nodes.add(node)


def _add_hang(lanes: dict[LaneKey, _Lane], hang: Entry | None, root: Evidence | None) -> None:
    """The component that went quiet first in a hang, when it is not the root cause itself."""
    if hang is None or (root is not None and identity(root.entry) == identity(hang)):
        return
    key = lane_of(hang)
    lane = lanes.setdefault(key, _Lane(key))
    due = format_timestamp_ns(next_line_due(lane.lines, hang)) if lane.lines else None
    event = _event(hang, "hang", restart_attempt(hang), due_at=due)
    lane.events.append((entry_time_ns(hang), event))


def _last_line(
    lane: _Lane, newest_ns: int, marked: set[tuple[str, str, str]], done_ns: int | None
) -> dict[str, Any]:
    """The lane's last line as an event (`quiet` when it stopped well before the newest line,
    not by `done_ns`, when the workload completed), and whether the lane went quiet; no event
    when that line is already marked."""
    last = max(lane.lines, key=entry_time_ns)
    finished = done_ns is not None and entry_time_ns(last) < done_ns
    quiet = not finished and newest_ns - entry_time_ns(last) >= QUIET_AFTER_NS
    fields: dict[str, Any] = {"quiet": quiet, "last_line": last.get("timestamp"), "due_at": None}
    if quiet:
        fields["due_at"] = format_timestamp_ns(next_line_due(lane.lines, last))
    if identity(last) not in marked:
        kind = "quiet" if quiet else "last_line"
        extra = {"due_at": fields["due_at"]} if quiet else {}
        lane.events.append(
            (entry_time_ns(last), _event(last, kind, restart_attempt(last), **extra))
        )
    return fields


def _capped(events: list[tuple[int, dict[str, Any]]]) -> tuple[list[dict[str, Any]], int]:
    """The lane's events by time, symptoms and other events capped; and how many were left."""
    kept, symptoms, others = [], 0, 0
    for _, event in sorted(events, key=lambda pair: pair[0]):
        if event["kind"] in ALWAYS_KEPT:
            kept.append(event)
        elif event["kind"] == "symptom" and symptoms < SYMPTOMS_PER_LANE:
            symptoms += 1
            kept.append(event)
        elif event["kind"] != "symptom" and others < OTHERS_PER_LANE:
            others += 1
            kept.append(event)
    return kept, len(events) - len(kept)


def _order(key: LaneKey) -> tuple[int, int, int, str]:
    """Head lanes (by group, then client, proxy, RM), hosts by slice and index, the rest."""
    kind, name = key
    if kind == "host":
        slice_, _, host = name.partition("/")
        return (1, _number(slice_), _number(host), name)
    container, _, group = name.partition(" (group ")
    rank = HEAD_ORDER.index(container) if container in HEAD_ORDER else len(HEAD_ORDER)
    return (LANE_ORDER.index(kind), _number(group.rstrip(")")) if group else 0, rank, name)


def _number(text: str) -> int:
    return int(text) if text.isdigit() else 1 << 30


def _describe(
    lane: _Lane,
    newest_ns: int,
    marked: set[tuple[str, str, str]],
    on_node: dict[str, list[str]],
    done_ns: int | None,
) -> dict[str, Any]:
    kind, name = lane.key
    slice_, _, host = name.partition("/") if kind == "host" else (None, "", None)
    quiet = lane.silent_from is not None
    fields: dict[str, Any] = {"quiet": quiet, "last_line": None, "due_at": lane.silent_from}
    if lane.lines:
        fields = _last_line(lane, newest_ns, marked, done_ns)
    events, omitted = _capped(lane.events)
    return {
        "lane": kind,
        "name": name,
        "slice": slice_,
        "host": host or None,
        "pods": sorted(lane.pods),
        "nodes": sorted(lane.nodes),
        "ran": on_node.get(name, []) if kind == "node" else [],
        "failed": any(e["kind"] in FAILED_KINDS for e in events),
        **fields,
        "omitted": omitted,
        "events": events,
    }


def _unseen(
    lanes: dict[LaneKey, _Lane], unseen: Sequence[Host], pods: Sequence[HostPod], request: Request
) -> None:
    """Hosts the labels say exist but that logged nothing: quiet from the window's start (with
    their pods, when events named them: a pod whose image could not be pulled)."""
    for host in unseen:
        key = ("host", "/".join(host))
        lane = lanes.setdefault(key, _Lane(key))
        lane.silent_from = request.window.start
        lane.pods.update(pod.pod for pod in pods if (pod.slice, pod.host) == host)
        if not lane.events:
            stand_in = unseen_host_line(host, HOST_CONTAINERS[0], request.window.start)
            event = _event(stand_in, "quiet", None, due_at=request.window.start)
            lane.events.append((entry_time_ns(stand_in), event))


def attempts(lines: Iterable[Entry]) -> list[dict[str, Any]]:
    """Each JobSet restart attempt seen: its first and last line (its start is a boundary)."""
    spans: dict[str, list[Entry]] = {}
    for entry in lines:
        attempt = restart_attempt(entry)
        if attempt is not None:
            span = spans.setdefault(attempt, [entry, entry])
            span[0] = min(span[0], entry, key=entry_time_ns)
            span[1] = max(span[1], entry, key=entry_time_ns)
    return [
        {
            "attempt": attempt,
            "first_line": first.get("timestamp"),
            "last_line": last.get("timestamp"),
        }
        for attempt, (first, last) in sorted(
            spans.items(), key=lambda pair: entry_time_ns(pair[1][0])
        )
    ]


@dataclasses.dataclass(frozen=True)
class Workload:
    """What triage learnt of the workload: its container lines read (earliest first), its
    host pods, the hosts its labels say exist but that logged nothing, and when it completed
    (`finished_by`), if it did."""

    lines: Sequence[Entry]
    host_pods: Sequence[HostPod]
    unseen: Sequence[Host]
    done_ns: int | None = None


def _quiet_by(newest_ns: int, failures: Sequence[Failure], request: Request) -> int:
    """What a lane's silence is measured to: the workload's newest line, or, when all that
    failed is a hang (found with no error), how far the logs are known to run, as the hang
    was (the whole workload may have gone quiet at once)."""
    if failures and all(failure.hang for failure in failures):
        return max(newest_ns, request.logged_until_ns or 0)
    return newest_ns


def build(
    workload: Workload,
    failures: Sequence[Failure],
    chosen: Failure | None,
    request: Request,
    hang: Entry | None = None,
) -> dict[str, Any]:
    """The timeline: restart attempts and every lane's events, in drawing order.

    `hang` is the component that went quiet first when the failure is a hang.
    """
    lines = workload.lines
    root = chosen.cause if chosen else None
    lanes: dict[LaneKey, _Lane] = {}
    _add_lines(lanes, lines)
    _add_evidence(lanes, failures, root, list(workload.host_pods))
    _add_hang(lanes, hang, root)
    _unseen(lanes, workload.unseen, workload.host_pods, request)
    marked = {identity(e) for e in (root.entry if root else None, hang) if e is not None}
    newest = max((entry_time_ns(e) for e in lines), default=0)
    quiet_by = _quiet_by(newest, failures, request)
    on_node: dict[str, list[str]] = {}
    for (kind, name), lane in sorted(lanes.items(), key=lambda pair: _order(pair[0])):
        for node in lane.nodes:
            on_node.setdefault(node, []).append(f"{kind} {name}")
    return {
        "newest_line": format_timestamp_ns(newest) if lines else None,
        "attempts": attempts(lines),
        "lanes": [
            _describe(lanes[key], quiet_by, marked, on_node, workload.done_ns)
            for key in sorted(lanes, key=_order)
        ],
    }
