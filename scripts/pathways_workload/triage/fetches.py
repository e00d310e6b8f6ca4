"""Triage's first wave of queries, all independent so they go out at once.

Node-level queries cover the whole cluster (and the project's instances) and
are narrowed to the workload's nodes afterwards, so no query waits for node
discovery, and offline one pass over the export answers all of them. The
latest lines are read back until they cover QUIET_AFTER_NS (anyone missing
from them has gone quiet), within TAIL_PAGES pages. Where SQL answers (Log
Analytics), both are asked per container instead, with no page limit: the
first CRASH_LINES_PER_SOURCE crash lines and the latest TAIL_LINES_PER_SOURCE
lines of every container.
"""

from __future__ import annotations

from collections.abc import Sequence

from pathways_workload import filters, scenarios, selectors, terms
from pathways_workload.actions.common import fetch
from pathways_workload.query import Request
from pathways_workload.sources.base import PAGE_SIZE, Entry, Fetch, entry_time_ns
from pathways_workload.terms import STALL_TERMS, STARTUP_TERMS, VERSION_TERMS

# The crash lines triage reads: the crash sweep's terms, transfer stalls and every known
# failure's own signature.
CRASH_SIGNATURES = tuple(dict.fromkeys(terms.CRASH_TERMS + STALL_TERMS + scenarios.SIGNATURES))
PROGRESS_TERM = "completed step"
# A component silent this long while others log has gone quiet.
QUIET_AFTER_NS = 5 * 60 * 10**9
TAIL_PAGES = 6
# A container's usual interval between lines is read from its last this many lines.
CADENCE_LINES = 5
# A cause can follow a few downstream lines in its own container (with 3, five of the
# recorded incidents lose theirs); 10 keeps a margin at 41,000 rows for 4,096 hosts.
CRASH_LINES_PER_SOURCE = 10
TAIL_LINES_PER_SOURCE = CADENCE_LINES
CRASHES, STARTUP, TAIL, PROGRESS = "crashes", "startup", "tail", "progress"
EVENTS, NODE_EVENTS, INSTANCES, CONTROLLER = "events", "node_events", "instances", "controller"


def crash_match(request: Request) -> str:
    """Crash, fatal and stall terms, known failures' signatures (and the user's terms), or a
    severity at the floor."""
    found = CRASH_SIGNATURES + request.options.extra_terms
    return filters.any_of([filters.message_has_any(found), f"severity>={request.floor}"])


def _node_evidence(request: Request) -> str:
    """OOM, pressure and interruption events and kernel lines of the cluster's nodes."""
    reasons = terms.NODE_MEMORY_REASONS + terms.NODE_INTERRUPTION_REASONS
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
    """The controller's errors that name one of the workload's objects (triage reads no
    other): its routine lines about the cluster's other JobSets, ERROR as all its stderr,
    would fill the read first."""
    errors = filters.any_of(
        [filters.message_has_any(terms.SUMMARY_CONTROLLER_TERMS), "severity>=ERROR"]
    )
    names = tuple(workload.name for workload in request.target.workloads)
    named = filters.message_has_any(names)
    return filters.all_of([selectors.jobset_controller(request.target), named, errors])


def _covers_quiet_span(entries: Sequence[Entry]) -> bool:
    """Latest-first entries reach QUIET_AFTER_NS back from the newest."""
    return bool(entries) and (
        entry_time_ns(entries[0]) - entry_time_ns(entries[-1]) >= QUIET_AFTER_NS
    )


def startup_fetches(request: Request) -> list[Fetch]:
    """Start-up and version lines: the workers' apart from the other containers', so that a
    thousand workers starting cannot use up the read before the client, proxy and RM
    lines (the JAX version, their Build labels)."""
    lines = selectors.container_lines(request.target)
    startup = filters.message_has_any(VERSION_TERMS + STARTUP_TERMS)
    workers = filters.one_of("resource.labels.container_name", terms.WORKER_CONTAINERS)
    limit = request.options.fetch_limit
    return [
        fetch(
            request,
            STARTUP,
            f"start-up and version lines of the workload{but}",
            lines,
            startup,
            part,
            limit=limit,
            order="asc",
        )
        for but, part in (("'s other containers", f"NOT {workers}"), ("'s TPU workers", workers))
    ]


def events_fetch(request: Request) -> Fetch:
    """The workload's events (for pods named by a prefix, with their owners' completions)."""
    target = request.target
    events = filters.any_of(
        [selectors.workload_events(target), selectors.owner_completions(target)]
    )
    purpose = "Kubernetes events of the workload's pods, Jobs and JobSet/LWS"
    return fetch(request, EVENTS, purpose, events, limit=request.options.fetch_limit, order="asc")


def progress_fetch(request: Request) -> Fetch:
    """The latest progress line of the workload (the client's, whatever its container's name:
    no other Pathways container reports training steps)."""
    lines = selectors.container_lines(request.target)
    progress = filters.message_has_any((PROGRESS_TERM,))
    purpose = "the client's latest progress line (when training stopped advancing)"
    return fetch(request, PROGRESS, purpose, lines, progress, limit=1, order="desc")


def triage_fetches(request: Request) -> list[Fetch]:
    """The first wave: crash lines, start-up lines, the latest lines, events, node evidence."""
    lines = selectors.container_lines(request.target)
    limit = request.options.fetch_limit
    return [
        fetch(
            request,
            CRASHES,
            "crash, fatal and stall lines of every workload container",
            lines,
            crash_match(request),
            limit=limit,
            order="asc",
            per_source=CRASH_LINES_PER_SOURCE,
        ),
        *startup_fetches(request),
        fetch(
            request,
            TAIL,
            "the latest lines of the workload (who went quiet, progress at the end)",
            lines,
            limit=TAIL_PAGES * PAGE_SIZE,
            order="desc",
            until=_covers_quiet_span,
            per_source=TAIL_LINES_PER_SOURCE,
        ),
        events_fetch(request),
        fetch(
            request,
            NODE_EVENTS,
            "node OOM kills and interruptions in the cluster (narrowed to the workload's nodes)",
            _node_evidence(request),
            limit=limit,
            order="asc",
        ),
        fetch(
            request,
            INSTANCES,
            "serial-console OOM kills, GCE interruptions and node pool "
            "operations (narrowed to the workload's nodes)",
            _instance_evidence(request),
            limit=limit,
            order="asc",
        ),
        fetch(
            request,
            CONTROLLER,
            "JobSet controller logs (namespace jobset-system)",
            _controller(request),
            limit=limit,
            order="asc",
        ),
    ]
