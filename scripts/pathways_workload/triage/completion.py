"""A workload that finished: the event that its JobSet (every Job) or its Job succeeded, or,
where no event was read (text logs hold none), the client's clean exit as xpk logs it. What
its pods log after it (Killing, SIGTERM, lost peers) is the stopping of pods no longer
needed, not a failure, and its pods have not hung; a headless JobSet its client Job leaves
running idles on, and can still fail or hang.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pathways_workload import filters, selectors
from pathways_workload.describe import (
    container_of,
    event_reason,
    involved_object,
    message,
    owner_of,
    pod_of,
)
from pathways_workload.query import Request
from pathways_workload.sources.base import Entry, entry_time_ns
from pathways_workload.target import Target
from pathways_workload.terms import COMPLETIONS
from pathways_workload.triage.rules import Failure

# The object each kind of workload is, as an event names it.
_OBJECTS = {kind: object_kind for kind, (object_kind, _) in COMPLETIONS.items()}
SECOND_NS = 10**9
# xpk's wrapper echoes the exit status of the user's command after it (`echo
# EXIT_CODE=$EXIT_CODE`, AI-Hypercomputer/xpk src/xpk/core/docker_container.py): 0 is a clean exit.
CLEAN_EXIT = "EXIT_CODE=0"


def completion_events(target: Target) -> str:
    """The events that say one of the target's workloads succeeded, or "" when none of them
    is a JobSet or Job."""
    said = [
        filters.all_of(
            [
                filters.equals("jsonPayload.involvedObject.kind", COMPLETIONS[workload.kind][0]),
                filters.equals("jsonPayload.involvedObject.name", workload.name),
                filters.equals("jsonPayload.reason", COMPLETIONS[workload.kind][1]),
            ]
        )
        for workload in target.workloads
        if workload.kind in COMPLETIONS
    ]
    return filters.all_of([selectors.object_events(target), filters.any_of(said)]) if said else ""


def completion(
    events: Sequence[Entry], request: Request, owners: Iterable[tuple[str, str]] = ()
) -> Entry | None:
    """The earliest event saying one of the workloads succeeded, or one of the `owners`
    (kind, name) of pods named by a prefix, if any."""
    named = [(workload.kind, workload.name) for workload in request.target.workloads]
    wanted = {(*COMPLETIONS[kind], name) for kind, name in [*named, *owners] if kind in COMPLETIONS}
    done = [
        entry
        for entry in events
        if (about := involved_object(entry)) is not None
        and (about[0], event_reason(entry), about[1]) in wanted
    ]
    return min(done, key=entry_time_ns, default=None)


def clean_exit(lines: Sequence[Entry], clients: frozenset[str]) -> Entry | None:
    """The client's earliest clean exit as xpk logs it (its line among `lines`, of the
    `clients` containers): the completion logs without events can show."""
    done = [e for e in lines if container_of(e) in clients and message(e).strip() == CLEAN_EXIT]
    return min(done, key=entry_time_ns, default=None)


def before_completion(
    failures: Sequence[Failure], completed: Entry | None, started: frozenset[str] = frozenset()
) -> list[Failure]:
    """The failures that began before the workload completed, or later in the pods of another
    object than the one that completed (a headless JobSet that outlives its client Job) or in
    pods `started` after it (see `started_after`): the rest are its teardown. An event's time
    is in whole seconds, so the teardown begins at the completion's second."""
    if completed is None:
        return list(failures)
    done_ns = entry_time_ns(completed) // SECOND_NS * SECOND_NS
    return [
        failure
        for failure in failures
        if failure.cause.time_ns < done_ns
        or _elsewhere(failure.cause.entry, completed)
        or failure.cause.pod in started
    ]


def started_after(
    completed: Entry | None, events: Sequence[Entry], startup: Sequence[Entry]
) -> frozenset[str]:
    """The pods that started after the workload completed (the object made again under its
    name): scheduled (`Scheduled` among `events`), or logging start-up lines (`startup`),
    after the completion's second. A finished run's teardown starts no pod."""
    done_ns = finished_by(completed)
    if done_ns is None:
        return frozenset()
    scheduled = [e for e in events if event_reason(e) == "Scheduled"]
    return frozenset(
        pod
        for entry in [*scheduled, *startup]
        if entry_time_ns(entry) >= done_ns and (pod := pod_of(entry)) is not None
    )


def outliving(
    entries: Sequence[Entry], completed: Entry, started: frozenset[str] = frozenset()
) -> list[Entry]:
    """The entries from the pods of another object than the one that completed (a headless
    JobSet beside its client Job), or from pods `started` after it: they run on after the
    completion."""
    return [e for e in entries if _elsewhere(e, completed) or pod_of(e) in started]


def _elsewhere(entry: Entry, completed: Entry) -> bool:
    """Whether the entry's pod belongs to another object than the one that completed."""
    owner, done = owner_of(entry), involved_object(completed)
    return owner is not None and done is not None and (_OBJECTS.get(owner[0]), owner[1]) != done


def finished_by(completed: Entry | None) -> int | None:
    """The end of the second the workload completed in (an event's time is in whole seconds):
    a component whose lines stop by then finished with it; None when it did not complete."""
    if completed is None:
        return None
    return (entry_time_ns(completed) // SECOND_NS + 1) * SECOND_NS
