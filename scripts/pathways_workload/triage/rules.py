"""The root-cause rules (references/root-cause-rules.md says them in prose).

1. Only evidence from the workload's pods and the nodes that hosted them (and operations
   on those nodes' node pools) counts.
2. The earliest real error wins, across containers, nodes and infrastructure.
3. Known downstream symptoms never win while an earlier cause exists; with
   only symptoms, the earliest is named (and flagged downstream-only).
   Incidental failures (a missing bucket, a Logging permission) win only
   when nothing else was found.
4. A node-level event (kernel OOM kill, interruption) stands for anything up to
   NODE_EVENT_TOLERANCE_NS before its whole-second timestamp, so it beats the
   container errors it caused; a precisely timed line about the same node
   within that span is preferred as the evidence.
5. Restart attempts split the window into failures; the one at the issue time
   is the root cause.
6. With no error at all, or after errors the run stepped on from, the component
   that went quiet first is the cause of a hang; with no quiet component
   either, the run was healthy. Kubernetes events alone after the last step (the
   hung run deleted or restarted) are the hang's aftermath.
7. A container's own errors in the minute after its SIGTERM are it shutting
   down: symptoms of whatever stopped it, never its cause.
8. A warning no known failure explains, after which the user workload kept
   making progress (same attempt, more than a minute on, and on to the end of
   its lines) with no error after it in that attempt, is one the run survived:
   reported apart, never a cause.
9. A node-level event after which the workload went on (nothing of its own, no
   container error or symptom and no pod or cluster event, in the five minutes
   after it, while its lines go on past them, those of its pods on that node
   too) is one the run survived too: an
   OOM kill of another process on the node, or one before the workload's pods
   came there.
10. A container's warning no known failure explains that no error of its attempt followed
   within five minutes, though one came later, is one the run outlived (a
   transient retry, say): reported apart, never a cause of that later error.
"""

from __future__ import annotations

import bisect
import dataclasses
import itertools
import re
from collections.abc import Sequence

from pathways_workload.describe import container_of, node_of, pod_of, severity
from pathways_workload.node_discovery import nodes_about
from pathways_workload.sources.base import Entry, entry_time_ns, sort_key
from pathways_workload.triage.evidence import NODE_EVENT_TOLERANCE_NS, Evidence, attempt_of
from pathways_workload.triage.fetches import CADENCE_LINES, QUIET_AFTER_NS
from pathways_workload.triage.hosts import NODE_SOURCES, TEARDOWN, client_containers

# A node event that ended one of the workload's processes shows in the workload's own logs and
# events within this span (a peer's lost connection, the RM's disconnect, a Killing event).
FALTER_NS = 5 * 60 * 10**9
# After its SIGTERM, a container shuts down within its grace period (30 s by default).
SHUTDOWN_NS = 60 * 10**9
# A component that hangs may still log a line or two just after the last step.
STEP_SLACK_NS = 60 * 10**9
_DIGITS_RE = re.compile(r"[0-9a-f]*[0-9][0-9a-f]*")


@dataclasses.dataclass(frozen=True)
class Failure:
    """One failure in the window: its cause, the evidence and what followed."""

    cause: Evidence
    attempt: str | None
    symptoms: list[Evidence]
    evidence: list[Evidence]
    hang: bool = False
    due_ns: int | None = None  # in a hang: when the quiet component's next line was due


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
    """The cause among the evidence: the earliest decisive item, else the earliest
    symptom (a preamble only when no other symptom exists), else the earliest incidental
    failure."""
    causes = sorted((e for e in evidence if e.decisive), key=Evidence.order)
    if causes:
        return _refine(causes[0], causes)
    symptoms = [e for e in evidence if e.symptom]
    for group in ([e for e in symptoms if not e.preamble], symptoms, evidence):
        if group:
            return min(group, key=Evidence.order)
    return None


def shutting_down(evidence: Sequence[Evidence]) -> list[Evidence]:
    """The evidence, a container's errors in the minute after its own SIGTERM made symptoms
    (rule 7)."""
    told: dict[tuple[str | None, str | None], int] = {}
    for item in evidence:
        if item.pod and TEARDOWN in item.message:
            key = (item.pod, item.container)
            told[key] = min(told.get(key, item.time_ns), item.time_ns)

    def after_sigterm(item: Evidence) -> bool:
        since = item.time_ns - told.get((item.pod, item.container), item.time_ns)
        return 0 < since <= SHUTDOWN_NS

    return [
        dataclasses.replace(item, symptom=True) if after_sigterm(item) else item
        for item in evidence
    ]


def kept_going(
    evidence: Sequence[Evidence], latest: Sequence[Entry], last_step: Entry | None
) -> tuple[list[Evidence], list[Evidence]]:
    """The evidence without the warnings the run survived (rule 8), and those warnings.
    `latest` are the workload's latest lines, `last_step` the user workload's latest step."""
    if last_step is None or not latest:
        return list(evidence), []
    end = entry_time_ns(last_step)
    if max(map(entry_time_ns, latest)) - end >= QUIET_AFTER_NS:  # progress stopped: no survival
        return list(evidence), []
    attempt = attempt_of(last_step)
    warnings = [
        e
        for e in evidence
        if _unexplained_warning(e) and e.attempt == attempt and end - e.time_ns > STEP_SLACK_NS
    ]
    if not warnings:
        return list(evidence), []
    # Errors of the attempt: a warning before one may be where it began (it stays evidence).
    errors = [
        e.time_ns
        for e in evidence
        if e.attempt == attempt and severity(e.entry) != "WARNING" and e.decisive
    ]
    last_error = max(errors, default=None)
    survived = [e for e in warnings if last_error is None or last_error < e.time_ns]
    apart = {id(e) for e in survived}
    return [e for e in evidence if id(e) not in apart], survived


def _unexplained_warning(item: Evidence) -> bool:
    return severity(item.entry) == "WARNING" and not item.symptom and item.scenario is None


def outlived(evidence: Sequence[Evidence]) -> tuple[list[Evidence], list[Evidence]]:
    """The evidence without the warnings the run outlived (rule 10), and those warnings."""
    errors: dict[str | None, list[int]] = {}  # each attempt's error times, in order
    for item in sorted(evidence, key=Evidence.order):
        if item.decisive and severity(item.entry) != "WARNING":
            errors.setdefault(item.attempt, []).append(item.time_ns)

    def outlived_one(item: Evidence) -> bool:
        times = errors.get(item.attempt, [])
        after = bisect.bisect_left(times, item.time_ns)
        return after < len(times) and times[after] - item.time_ns > FALTER_NS

    apart = [
        item
        for item in evidence
        if item.source == "container" and _unexplained_warning(item) and outlived_one(item)
    ]
    if not apart:
        return list(evidence), []
    ids = {id(item) for item in apart}
    return [item for item in evidence if id(item) not in ids], apart


def went_on_after(
    evidence: Sequence[Evidence], latest: Sequence[Entry]
) -> tuple[list[Evidence], list[Evidence]]:
    """The evidence without the node-level events the workload went on after (rule 9), and
    those events. `latest` are the workload's latest lines."""
    own = sorted(e.time_ns for e in evidence if e.source not in NODE_SOURCES)
    logged_until = max([*own, *map(entry_time_ns, latest)], default=None)
    on_node: dict[str, int] = {}  # each node's latest line of the workload
    for entry in latest:
        node = node_of(entry)
        if node:
            on_node[node] = max(on_node.get(node, 0), entry_time_ns(entry))

    def survived(item: Evidence) -> bool:
        if item.source not in NODE_SOURCES or logged_until is None:
            return False
        until = item.time_ns + FALTER_NS
        after = bisect.bisect_left(own, item.effective_ns)
        faltered = after < len(own) and own[after] <= until
        # The workload's pods on that node (or node pool) went quiet with it (a preempted VM
        # logs nothing).
        quiet_there = any(
            item.effective_ns - FALTER_NS <= on_node[node] <= until
            for node in nodes_about(item.entry, on_node)
        )
        return not faltered and not quiet_there and logged_until > until

    apart = [item for item in evidence if survived(item)]
    if not apart:
        return list(evidence), []
    ids = {id(item) for item in apart}
    return [item for item in evidence if id(item) not in ids], apart


def _attempt_of(item: Evidence, starts: list[tuple[int, str]]) -> str | None:
    """Node-level evidence has no attempt label: the latest attempt begun before it."""
    if item.attempt is not None or not starts:
        return item.attempt
    chosen = starts[0][1]
    for start, attempt in starts:
        if start <= item.effective_ns + NODE_EVENT_TOLERANCE_NS:
            chosen = attempt
    return chosen


def _segment(time_ns: int, recoveries: Sequence[int]) -> int:
    """How many recoveries (the run ready again) happened before this moment."""
    return sum(recovery < time_ns for recovery in recoveries)


def split_failures(evidence: Sequence[Evidence], recoveries: Sequence[int] = ()) -> list[Failure]:
    """One failure per restart attempt (or LWS group), split again where the run recovered."""
    starts: dict[str, int] = {}
    for item in evidence:
        if item.attempt is not None:
            starts[item.attempt] = min(starts.get(item.attempt, item.time_ns), item.time_ns)
    ordered_starts = sorted((time, attempt) for attempt, time in starts.items())
    groups: dict[tuple[str | None, int], list[Evidence]] = {}
    for item in evidence:
        key = (_attempt_of(item, ordered_starts), _segment(item.effective_ns, recoveries))
        groups.setdefault(key, []).append(item)
    failures: list[Failure] = []
    for (attempt, _), items in sorted(
        groups.items(), key=lambda pair: min(pair[1], key=Evidence.order).order()
    ):
        if failures and not any(item.decisive for item in items):
            # No cause of its own: the tail of the failure before it (a restart still settling).
            previous = failures.pop()
            items, attempt = previous.evidence + items, previous.attempt
        cause = root_of(items)
        if cause is None:
            continue
        after = [e for e in items if e is not cause and e.symptom]
        failures.append(
            Failure(
                cause, attempt, sorted(after, key=Evidence.order), sorted(items, key=Evidence.order)
            )
        )
    return failures


def signature(failure: Failure) -> str:
    """What makes two failures the same problem: the scenario, else the message's shape."""
    scenario = failure.cause.scenario
    if scenario is not None:
        return f"scenario {scenario.number}"
    first_line = failure.cause.message.strip().splitlines()[-1] if failure.cause.message else ""
    return _DIGITS_RE.sub("#", first_line)


def pick(failures: Sequence[Failure], issue_ns: int | None) -> Failure | None:
    """The failure at the issue time (the last one begun by then, else the earliest).

    When the same failure repeated in the attempts before it (a crash loop),
    its first occurrence is the one to report.
    """
    if not failures:
        return None
    index = 0
    if issue_ns is not None:
        before = [i for i, f in enumerate(failures) if f.cause.effective_ns <= issue_ns]
        index = before[-1] if before else 0
    while index > 0 and signature(failures[index - 1]) == signature(failures[index]):
        index -= 1
    return failures[index]


def last_lines(entries: Sequence[Entry]) -> dict[tuple[str, str], Entry]:
    """The latest entry of each pod/container."""
    latest: dict[tuple[str, str], Entry] = {}
    for entry in entries:
        key = (pod_of(entry) or "?", container_of(entry) or "?")
        if key not in latest or entry_time_ns(entry) > entry_time_ns(latest[key]):
            latest[key] = entry
    return latest


def _went_quiet(times: Sequence[int]) -> int:
    """When a container's next line was due: its last line plus its usual interval, the
    median gap between its last CADENCE_LINES lines (a start-up burst says nothing of it)."""
    recent = times[-CADENCE_LINES:]
    gaps = sorted(later - earlier for earlier, later in itertools.pairwise(recent))
    return times[-1] + (gaps[len(gaps) // 2] if gaps else 0)


def _series(entries: Sequence[Entry]) -> dict[tuple[str, str], list[int]]:
    times: dict[tuple[str, str], list[int]] = {}
    for entry in entries:
        key = (pod_of(entry) or "?", container_of(entry) or "?")
        times.setdefault(key, []).append(entry_time_ns(entry))
    return {key: sorted(series) for key, series in times.items()}


def next_line_due(entries: Sequence[Entry], last: Entry) -> int:
    """When `last`'s component was due to log again (its last line plus its usual interval)."""
    series = _series(entries).get((pod_of(last) or "?", container_of(last) or "?"))
    return _went_quiet(series) if series else entry_time_ns(last)


def _suspects(
    entries: Sequence[Entry], progress_end_ns: int, newest: int, clients: frozenset[str]
) -> list[tuple[int, tuple[str, str]]]:
    """(when the next line was due, pod and container) of the components other than the
    client gone quiet around the last step (their last line, or when their next one was
    due, in the QUIET_AFTER_NS before it), earliest first."""

    def around(at: int) -> bool:
        return progress_end_ns - QUIET_AFTER_NS <= at <= progress_end_ns + STEP_SLACK_NS

    dues = {key: (series[-1], _went_quiet(series)) for key, series in _series(entries).items()}
    return sorted(
        (due, key)
        for key, (last, due) in dues.items()
        if key[1] not in clients
        and newest - last >= QUIET_AFTER_NS
        and (around(last) or around(due))
    )


def went_quiet(
    entries: Sequence[Entry],
    progress_end_ns: int | None,
    unseen: Sequence[Entry] = (),
    clients: frozenset[str] | None = None,
    until_ns: int | None = None,
) -> list[Entry]:
    """The last lines of the components that went quiet when progress stopped well before
    the end (the newest of `entries`, or `until_ns`, how far the logs are known to run,
    when later: all of them may have gone quiet at once), in the order they went quiet;
    the user workload's alone when no other component went quiet.

    Progress is the user workload's `completed step` lines. A component went
    quiet when its next line was due (last line plus its usual interval) and
    never came; the suspects are the components that went quiet around the
    last step. `unseen` stands for hosts that logged nothing in the window
    (each at the window's start): suspects too, when progress stopped soon
    after. `clients`: the user workload's containers (by default, as `entries` show them).
    """
    if progress_end_ns is None or not entries:
        return []
    newest = max(max(entry_time_ns(entry) for entry in entries), until_ns or 0)
    if newest - progress_end_ns < QUIET_AFTER_NS:
        return []
    latest = last_lines(entries)
    clients = client_containers(entries) if clients is None else clients
    candidates = [
        (due, sort_key(latest[key]), latest[key])
        for due, key in _suspects(entries, progress_end_ns, newest, clients)
    ]
    candidates += [
        (entry_time_ns(entry), sort_key(entry), entry)
        for entry in unseen
        if progress_end_ns - QUIET_AFTER_NS <= entry_time_ns(entry) <= progress_end_ns
    ]
    if candidates:
        return [found[2] for found in sorted(candidates, key=lambda found: found[:2])]
    users = [entry for key, entry in latest.items() if key[1] in clients]
    return [min(users, key=entry_time_ns)] if users else []


def stopped_after(entries: Sequence[Entry], since_ns: int, newest_ns: int) -> list[Entry]:
    """The last lines of the components that logged on past `since_ns` and then stopped,
    QUIET_AFTER_NS or more before `newest_ns`, in the order their next lines were due."""
    latest = last_lines(entries)
    quiet = sorted(
        (_went_quiet(series), sort_key(latest[key]), latest[key])
        for key, series in _series(entries).items()
        if series[-1] >= since_ns and newest_ns - series[-1] >= QUIET_AFTER_NS
    )
    return [found[2] for found in quiet]


def quiet_first(
    entries: Sequence[Entry],
    progress_end_ns: int | None,
    unseen: Sequence[Entry] = (),
    clients: frozenset[str] | None = None,
) -> Entry | None:
    """The component that went quiet first (see `went_quiet`): the lead of a hang."""
    quiet = went_quiet(entries, progress_end_ns, unseen, clients)
    return quiet[0] if quiet else None


def ended_on_error(last: Entry, due_ns: int, failures: Sequence[Failure]) -> bool:
    """Whether the quiet component's `last` line is one of a failure's errors (or shares its
    instant, as the lines of a traceback do), or its node was interrupted or OOM-killed in
    the five minutes before that line (a preempted VM runs on for its shutdown) or after it,
    before its next one was due (`due_ns`): the component crashed or lost its host, and the
    stall after it belongs to that failure, not to a hang of its own."""
    pod, container, at = pod_of(last), container_of(last), entry_time_ns(last)
    node = node_of(last)

    def ended(item: Evidence) -> bool:
        if item.source in NODE_SOURCES:
            near = at - FALTER_NS <= item.time_ns and item.effective_ns <= due_ns
            return node is not None and item.node == node and near
        return item.pod == pod and item.container == container and item.time_ns >= at

    return any(ended(item) for failure in failures for item in failure.evidence)


def stopped_from_outside(failure: Failure) -> bool:
    """A failure known only by Kubernetes events (its pods killed, its JobSet restarted or
    failed), with no line of the workload's own: something outside stopped the run."""
    return not failure.hang and all(
        not item.decisive and item.source in ("pod-event", "cluster-event")
        for item in failure.evidence
    )


def with_hang(failures: Sequence[Failure], hang: Failure) -> list[Failure]:
    """The failures with a hang among them; what stopped the hung run from outside after it
    (the pods' `Killing` events when it was deleted or restarted) is the hang's aftermath."""
    attempt = hang.cause.attempt
    after = [
        f
        for f in failures
        if stopped_from_outside(f)
        and f.cause.effective_ns >= hang.cause.effective_ns
        and (attempt is None or f.attempt == attempt)
    ]
    tail = sorted((item for f in after for item in f.evidence), key=Evidence.order)
    hang = dataclasses.replace(
        hang, symptoms=[*hang.symptoms, *tail], evidence=[*hang.evidence, *tail]
    )
    folded = {id(f) for f in after}
    return [*(f for f in failures if id(f) not in folded), hang]


def hang_failure(entry: Entry, due_ns: int, others: Sequence[Entry] = ()) -> Failure:
    """A hang led by `entry`, the last line of the component that went quiet first; `others`
    are the last lines of those that went quiet with it (evidence too)."""
    item, *more = (
        Evidence(line, entry_time_ns(line), "container", symptom=False) for line in (entry, *others)
    )
    return Failure(item, item.attempt, [], [item, *more], hang=True, due_ns=due_ns)
