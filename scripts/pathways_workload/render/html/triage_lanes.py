"""Triage's `timeline` as lanes to draw: head containers, slices of hosts, nodes, events.

Slices are collapsible; they start open when the workload is small enough to
read lane by lane (OPEN_UP_TO hosts), collapsed otherwise, each summarised
in one lane: its first failure, the spread of its hosts' first errors, and
its quiet hosts, OOM kills and interruptions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pathways_workload.render.html.lanes import Group, Lane, Mark, Timeline
from pathways_workload.render.html.tables import instant
from pathways_workload.timestamps import parse_timestamp_ns
from pathways_workload.triage.timeline import FAILED_KINDS

OPEN_UP_TO = 64
# A collapsed slice's lane shows at most this many quiet hosts and node-level events.
SUMMARY_MARKS = 24
ROOT_ID = "root-mark"
# Event kind: (symbol, CSS classes, what a reader calls it).
KINDS = {
    "root_cause": ("root", "k-root", "ROOT CAUSE"),
    "first_error": ("first", "k-first", "first error"),
    "error": ("error", "k-error", "error"),
    "symptom": ("symptom", "k-symptom", "symptom"),
    "oom": ("oom", "k-oom", "OOM kill"),
    "interruption": ("interruption", "k-interruption", "interruption"),
    "event": ("event", "k-event", "Kubernetes event"),
    "hang": ("quiet", "k-hang", "HANG POINT: went quiet first, last line"),
    "quiet": ("quiet", "k-quiet", "went quiet: last line"),
    "last_line": ("last", "k-last", "last line"),
}
# What the legend shows: a mark's symbol (one of SYMBOLS), CSS classes and meaning.
LEGEND = (
    ("root", "k-root", "root cause"),
    ("first", "k-first", "first error of a lane"),
    ("first", "k-first k-down", "first error, downstream only"),
    ("error", "k-error", "later error"),
    ("symptom", "k-symptom", "symptom"),
    ("oom", "k-oom", "OOM kill"),
    ("interruption", "k-interruption", "interruption"),
    ("event", "k-event", "Kubernetes event"),
    ("quiet", "k-hang", "hang point (went quiet first)"),
    ("quiet", "k-quiet", "went quiet (last line)"),
    ("last", "k-last", "last line"),
)
GROUP_TITLES = {"head": "head pod", "node": "nodes (no TPU host)", "events": "Kubernetes"}


class _Clock:
    """Timestamps as nanoseconds from the window's start."""

    def __init__(self, start: str) -> None:
        self.start = parse_timestamp_ns(start)

    def at(self, timestamp: str | None) -> int | None:
        if not timestamp:
            return None
        try:
            return parse_timestamp_ns(timestamp) - self.start
        except ValueError:
            return None


def _line(event: dict[str, Any]) -> str:
    """A mark's full text: what, when, where, the message, and when a quiet lane was due."""
    name = KINDS.get(event.get("kind", ""), ("", "", "event"))[2]
    if event.get("kind") == "first_error" and event.get("downstream"):
        name += " (downstream)"
    head = f"{name} · {event.get('timestamp')}"
    if event.get("attempt") is not None:
        head += f" · attempt {event['attempt']}"
    due = f"\nits next line was due at {event['due_at']}" if event.get("due_at") else ""
    return f"{head}\n{event.get('where', '')}\n{event.get('message', '')}{due}"


def marks_of(lane: dict[str, Any], clock: _Clock, end: int) -> list[Mark]:
    """A lane's events as marks; a quiet lane's silence as a span to the window's end."""
    marks = []
    for event in lane.get("events", []):
        at = clock.at(event.get("timestamp"))
        if at is None or event.get("kind") not in KINDS:
            continue
        symbol, classes, _ = KINDS[event["kind"]]
        if event["kind"] == "first_error" and event.get("downstream"):
            classes += " k-down"
        root = event["kind"] == "root_cause"
        marks.append(Mark(at, symbol, classes, _line(event), mark_id=ROOT_ID if root else ""))
        if event["kind"] in ("quiet", "hang") or (root and event.get("due_at")):
            silence = f"silent from {event.get('timestamp')} to the window's end"
            marks.append(Mark(at, "", "k-silence", silence, until=end))
    return marks


def _label(lane: dict[str, Any]) -> tuple[str, str]:
    """The lane's short label and its full name; both say how many of its later lines are
    not drawn (the timeline caps each lane's errors)."""
    label, title = _names(lane)
    omitted = lane.get("omitted") or 0
    if not omitted:
        return label, title
    return f"{label} +{omitted}", f"{title}; {omitted} later lines not drawn"


def _names(lane: dict[str, Any]) -> tuple[str, str]:
    pods, nodes = lane.get("pods") or [], lane.get("nodes") or []
    if lane["lane"] == "host":
        short = _telling_pod(lane).rsplit("-", 1)[-1] if pods else "no line"
        seen = f"pods {', '.join(pods) or 'none seen'}; nodes {', '.join(nodes) or '?'}"
        title = f"host {lane['name']}: {seen}"
        return f"{lane['name']}  {short}", title
    if lane["lane"] == "node":
        ran = ", ".join(lane.get("ran") or []) or "nothing of the workload"
        return lane["name"], f"node {lane['name']} (ran {ran})"
    where = f" ({', '.join(pods)})" if pods else ""
    return lane["name"], f"{lane['name']}{where}"


def first_error(lane: dict[str, Any]) -> dict[str, Any]:
    """A host's first error, as the report's failing hosts give it: the root cause on its
    host, else its first error of its own, else its first symptom (a line marked downstream
    just before the host's own error, the kernel's `invoked oom-killer`, is not it)."""
    events = [e for e in lane.get("events", []) if e.get("kind") in FAILED_KINDS]
    roots = [e for e in events if e["kind"] == "root_cause"]
    chosen = roots or [e for e in events if not e.get("downstream")] or events
    return min(chosen, key=lambda e: instant(e.get("timestamp"))) if chosen else {}


def _telling_pod(lane: dict[str, Any]) -> str:
    """The host's pod to name: the one where it failed (or went quiet) first, else its last."""
    parts = str(first_error(lane).get("where", "")).split("/")
    return parts[1] if len(parts) == 3 else str(lane["pods"][-1])


def _lane(lane: dict[str, Any], clock: _Clock, end: int) -> Lane:
    marks = marks_of(lane, clock, end)
    classes = [lane["lane"]]
    classes += ["failed"] if lane.get("failed") else []
    classes += ["quiet"] if lane.get("quiet") else []
    classes += ["root"] if any(m.mark_id == ROOT_ID for m in marks) else []
    label, title = _label(lane)
    key = f"{lane['lane']}/{lane['name']}"
    return Lane(key, label, title, marks, " ".join(classes))


def _firsts(hosts: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each host's first error (the root cause where it is one), by time."""
    found = []
    for lane in hosts:
        events = [
            e for e in lane.get("events", []) if e.get("kind") in ("root_cause", "first_error")
        ]
        found += [min(events, key=lambda e: instant(e.get("timestamp")))] if events else []
    return sorted(found, key=lambda e: instant(e.get("timestamp")))


def _summary(
    hosts: Sequence[dict[str, Any]], lanes: Sequence[Lane], clock: _Clock
) -> tuple[list[Mark], str]:
    """A collapsed slice in one lane, and its note (hosts, failed, quiet)."""
    marks: list[Mark] = []
    firsts = _firsts(hosts)
    times = [at for at in (clock.at(e.get("timestamp")) for e in firsts) if at is not None]
    if times:
        spread = (
            f"{len(firsts)} of {len(hosts)} hosts failed, first errors from "
            f"{firsts[0].get('timestamp')} to {firsts[-1].get('timestamp')}"
        )
        marks.append(Mark(times[0], "", "k-range", spread, until=max(times[-1], times[0] + 1)))
        root = next((e for e in firsts if e.get("kind") == "root_cause"), firsts[0])
        symbol, classes, _ = KINDS[root["kind"]]
        classes += " k-down" if root.get("downstream") and root["kind"] == "first_error" else ""
        marks.append(Mark(clock.at(root.get("timestamp")) or 0, symbol, classes, _line(root)))
    quiet = [m for lane in lanes for m in lane.marks if m.kind in ("k-quiet", "k-hang")]
    nodes = [m for lane in lanes for m in lane.marks if m.kind in ("k-oom", "k-interruption")]
    marks += quiet[:SUMMARY_MARKS] + nodes[:SUMMARY_MARKS]
    quiet_count = sum(1 for lane in hosts if lane.get("quiet"))
    failed = sum(1 for lane in hosts if lane.get("failed"))
    note = f"{len(hosts)} hosts · {failed} failed"
    return marks, note + (f" · {quiet_count} quiet" if quiet_count else "")


def _slices(hosts: Sequence[dict[str, Any]], clock: _Clock, end: int) -> list[Group]:
    by_slice: dict[str, list[dict[str, Any]]] = {}
    for lane in hosts:
        by_slice.setdefault(str(lane.get("slice")), []).append(lane)
    open_up = len(hosts) <= OPEN_UP_TO
    groups = []
    for number, members in by_slice.items():
        lanes = [_lane(lane, clock, end) for lane in members]
        summary, note = _summary(members, lanes, clock)
        groups.append(Group(f"slice/{number}", f"slice {number}", lanes, summary, note, open_up))
    return groups


def _boundaries(timeline: dict[str, Any], clock: _Clock) -> list[tuple[int, str]]:
    attempts = timeline.get("attempts") or []
    found = []
    for attempt in attempts[1:]:
        at = clock.at(attempt.get("first_line"))
        if at is not None:
            found.append((at, f"attempt {attempt.get('attempt')}"))
    return found


def triage_timeline(report: dict[str, Any]) -> Timeline:
    """The timeline of a triage report, from its `timeline` and `window`."""
    clock = _Clock(report["window"]["start"])
    end = clock.at(report["window"]["end"]) or 1
    timeline = report.get("timeline") or {}
    lanes = timeline.get("lanes") or []
    groups = []
    for kind in ("head", "host", "node", "events"):
        members = [
            lane
            for lane in lanes
            if lane["lane"] == kind or (kind == "events" and lane["lane"] == "controller")
        ]
        if kind == "host":
            groups += _slices(members, clock, end)
        elif members:
            groups.append(Group(kind, GROUP_TITLES[kind], [_lane(m, clock, end) for m in members]))
    root = report.get("root_cause") or {}
    return Timeline(
        clock.start,
        clock.start + end,
        groups,
        _boundaries(timeline, clock),
        clock.at(root.get("timestamp")),
        LEGEND,
        completed=_completed(report, clock, end),
    )


def _completed(report: dict[str, Any], clock: _Clock, end: int) -> tuple[int, str] | None:
    """When the workload completed, in the window, and the event's full line."""
    event = report.get("completed") or {}
    at = clock.at(event.get("timestamp"))
    if at is None or not 0 <= at <= end:
        return None
    return at, f"completed · {event.get('timestamp')}\n{event.get('message', '')}"
