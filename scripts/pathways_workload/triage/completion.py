"""A JobSet that finished: the controller's event that every Job succeeded. What its pods log
after it (Killing, SIGTERM, lost peers) is the JobSet stopping the pods it no longer needs,
not a failure, and a finished run has not hung."""

from __future__ import annotations

from collections.abc import Sequence

from pathways_workload.describe import event_reason, involved_object
from pathways_workload.query import Request
from pathways_workload.sources.base import Entry, entry_time_ns
from pathways_workload.triage.rules import Failure

# The JobSet controller's event reason when every Job it runs succeeded (message "jobset
# completed successfully"): kubernetes-sigs/jobset pkg/constants/constants.go,
# AllJobsCompletedReason; recorded as a Normal event on the JobSet.
COMPLETED_REASON = "AllJobsCompleted"
SECOND_NS = 10**9


def completion(events: Sequence[Entry], request: Request) -> Entry | None:
    """The earliest event saying one of the workload's JobSets completed, if any."""
    jobsets = {w.name for w in request.target.workloads if w.kind == "jobset"}
    done = [
        entry
        for entry in events
        if event_reason(entry) == COMPLETED_REASON
        and (about := involved_object(entry)) is not None
        and about[0] == "JobSet"
        and about[1] in jobsets
    ]
    return min(done, key=entry_time_ns, default=None)


def before_completion(failures: Sequence[Failure], completed: Entry | None) -> list[Failure]:
    """The failures that began before the JobSet completed: the rest are its teardown. An
    event's time is in whole seconds, so the teardown begins at the completion's second."""
    if completed is None:
        return list(failures)
    done_ns = entry_time_ns(completed) // SECOND_NS * SECOND_NS
    return [failure for failure in failures if failure.cause.time_ns < done_ns]
