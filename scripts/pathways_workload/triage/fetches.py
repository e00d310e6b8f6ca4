"""The few queries triage runs, all independent so they go out in one wave.

Node-level queries cover the whole cluster (and the project's instances) and
are narrowed to the workload's nodes afterwards, so no query waits for node
discovery, and offline one pass over the export answers all of them. Each
fetch is named after the field of `TriageResults` that holds its answer.
"""

from __future__ import annotations

import dataclasses

from pathways_workload import filters, selectors, terms
from pathways_workload.actions.common import fetch
from pathways_workload.plan import Results
from pathways_workload.query import Request
from pathways_workload.sources.base import Fetch, Result
from pathways_workload.triage.versions import VERSION_TERMS

STALL_TERMS = ("Still waiting to acquire semaphore", "Recv completion error", "GOAWAY")
STARTUP_TERMS = (
    "IFRT proxy server started",
    "Pathways Server serving",
    "Slices Now Ready",
    "MegaScale transport init",
    "Detected Pathways-on-Cloud backend",
    "Sufficient slices active",
)
# Lines that prove the run is (again) ready: a failure before one is over after it.
RECOVERY_TERMS = ("Slices Now Ready", "Sufficient slices active")


@dataclasses.dataclass(frozen=True)
class TriageResults:
    """Triage's answers, one field per fetch."""

    crashes: Result
    startup: Result
    last_lines: Result
    events: Result
    node_events: Result
    instances: Result
    controller: Result

    @classmethod
    def of(cls, results: Results) -> TriageResults:
        return cls(**{field.name: results.one(field.name) for field in dataclasses.fields(cls)})

    def every(self) -> tuple[Result, ...]:
        """All the answers, in the order the fetches were built."""
        return tuple(getattr(self, field.name) for field in dataclasses.fields(self))


def _node_evidence(request: Request) -> str:
    """OOM and interruption events and kernel lines of the cluster's nodes."""
    reasons = terms.NODE_OOM_REASONS + terms.NODE_INTERRUPTION_REASONS
    return filters.all_of(
        [
            selectors.cluster_scope("k8s_node", request.target, namespaced=False),
            filters.any_of(
                [
                    filters.one_of("jsonPayload.reason", reasons),
                    filters.message_has_any(terms.NODE_OOM_TERMS),
                ]
            ),
        ]
    )


def _instance_evidence(request: Request) -> str:
    """Serial-console OOM kills, GCE interruptions and node pool operations."""
    return filters.any_of(
        [
            selectors.serial_console_ooms(),
            selectors.system_events(selectors.interruption_methods()),
            selectors.nodepool_operations(request.target),
        ]
    )


def _controller(request: Request) -> str:
    errors = filters.any_of(
        [filters.message_has_any(terms.SUMMARY_CONTROLLER_TERMS), "severity>=ERROR"]
    )
    return filters.all_of([selectors.jobset_controller(request.target), errors])


def startup_fetch(request: Request) -> Fetch:
    lines = selectors.container_lines(request.target)
    startup = filters.message_has_any(VERSION_TERMS + STARTUP_TERMS)
    purpose = "start-up and version lines of the workload"
    limit = request.options.fetch_limit
    return fetch(request, "startup", purpose, lines, startup, limit=limit, order="asc")


def events_fetch(request: Request) -> Fetch:
    events = selectors.workload_events(request.target)
    purpose = "Kubernetes events of the workload's pods, Jobs and JobSet/LWS"
    return fetch(request, "events", purpose, events, limit=request.options.fetch_limit, order="asc")


def triage_fetches(request: Request) -> list[Fetch]:
    """One wave: crash lines, start-up lines, the latest lines, events and node evidence."""
    lines = selectors.container_lines(request.target)
    crash = filters.any_of(
        [
            filters.message_has_any(terms.CRASH_TERMS + STALL_TERMS + request.options.extra_terms),
            f"severity>={request.floor}",
        ]
    )
    limit = request.options.fetch_limit
    return [
        fetch(
            request,
            "crashes",
            "crash, fatal and stall lines of every workload container",
            lines,
            crash,
            limit=limit,
            order="asc",
        ),
        startup_fetch(request),
        fetch(
            request,
            "last_lines",
            "the latest lines of the workload (who went quiet, progress at the end)",
            lines,
            limit=limit,
            order="desc",
        ),
        events_fetch(request),
        fetch(
            request,
            "node_events",
            "node OOM kills and interruptions in the cluster (narrowed to the workload's nodes)",
            _node_evidence(request),
            limit=limit,
            order="asc",
        ),
        fetch(
            request,
            "instances",
            "serial-console OOM kills, GCE interruptions and node pool operations "
            "(narrowed to the workload's nodes)",
            _instance_evidence(request),
            limit=limit,
            order="asc",
        ),
        fetch(
            request,
            "controller",
            "JobSet controller logs (namespace jobset-system)",
            _controller(request),
            limit=limit,
            order="asc",
        ),
    ]
