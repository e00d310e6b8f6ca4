"""A crash sweep's follow-up: whether the workload completed before the SIGTERM lines it shows.

A finished run's pods are stopped, and log SIGTERM as a crash's cascade does; the
JobSet's `AllJobsCompleted` or the client Job's `Completed` event tells the two apart.
"""

from __future__ import annotations

from collections.abc import Sequence

from pathways_workload import selectors
from pathways_workload.actions.common import fetch
from pathways_workload.describe import message, owner_of
from pathways_workload.plan import PrintNote, Results, Stage
from pathways_workload.query import Request
from pathways_workload.sources.base import Entry, Fetch
from pathways_workload.triage.completion import completion, completion_events
from pathways_workload.triage.hosts import TEARDOWN

COMPLETION = "completion"
PURPOSE = "whether the workload completed before the SIGTERM lines (then they are its teardown)"
# Each completable workload's event, repeated a few times at most (a recreated object).
MOST_EVENTS = 10


def completion_fetches(request: Request, found: Sequence[Entry]) -> list[Fetch]:
    """The completion events of the workload's JobSets and Jobs, when `found` has SIGTERM
    lines; none otherwise."""
    if not any(TEARDOWN in message(entry) for entry in found):
        return []
    wanted = _completion_fetch(request)
    return [wanted] if wanted else []


def _completion_fetch(request: Request) -> Fetch | None:
    """The read of the workload's completion events (for pods named by a prefix, those of the
    JobSets and Jobs that may own them), or None when it can have none."""
    target = request.target
    events = completion_events(target) or selectors.owner_completions(target)
    return (
        fetch(request, COMPLETION, PURPOSE, events, limit=MOST_EVENTS, order="asc")
        if events
        else None
    )


def completion_notes(request: Request, results: Results) -> list[str]:
    """A note naming the event that says the workload completed, if one was read."""
    shown = [
        entry for result in results if result.fetch.name != COMPLETION for entry in result.entries
    ]
    owners = {owner for entry in shown if (owner := owner_of(entry))}
    done = completion(results.entries(COMPLETION), request, owners)
    if done is None:
        return []
    return [
        f"note: completed at {done.get('timestamp')} ({message(done)}): the SIGTERM lines of "
        "its pods from then on are its teardown, not a failure (--action=triage reads the "
        "whole run)"
    ]


# Print mode: how to tell a finished run's teardown from a crash's cascade.
COMPLETION_NOTE = PrintNote(
    lambda request: (
        (
            "then, if the sweep above prints SIGTERM lines (as a run with --execute checks):",
            "whether the workload completed before them, in which case they are its teardown:",
        )
        if _completion_fetch(request)
        else (
            "then, if the sweep above prints SIGTERM lines: a LeaderWorkerSet never completes;",
            "if a JobSet or Job owns the pods, name it (--jobset_name, --job_name) to read",
            "whether it completed before them, in which case they are its teardown",
        )
    ),
    _completion_fetch,
)


def after_teardown(sweep: str) -> Stage:
    """A stage that reads whether the workload completed, when the fetches named `sweep`
    found SIGTERM lines."""
    return Stage(
        lambda request, results: completion_fetches(request, results.entries(sweep)),
        required=False,
        print_note=COMPLETION_NOTE,
    )
