"""The few queries triage runs, all independent so they go out in one wave.

Node-level queries cover the whole cluster (and the project's instances) and
are narrowed to the workload's nodes afterwards, so no query waits for node
discovery, and offline one pass over the export answers all of them.
"""

from __future__ import annotations

from pathways_workload import filters, target, terms
from pathways_workload.query import Query, Request
from pathways_workload.sources.base import Fetch
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
CRASH, STARTUP, LAST_LINES, EVENTS, NODES, INSTANCES, CONTROLLER = range(7)


def _fetch(request: Request, purpose: str, *clauses: str, order: str = "asc") -> Fetch:
    text = filters.all_of([*clauses, filters.within(request.window)])
    return Fetch(Query(purpose, text), request.options.fetch_limit, order)


def _node_evidence(request: Request) -> str:
    """OOM and interruption events and kernel lines of the cluster's nodes."""
    reasons = terms.NODE_OOM_REASONS + terms.NODE_INTERRUPTION_REASONS
    return filters.all_of(
        [
            target.cluster_scope("k8s_node", request.target, namespaced=False),
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
            filters.all_of(
                [
                    'resource.type="gce_instance"',
                    filters.log_id("serialconsole.googleapis.com/serial_port_1_output"),
                    filters.message_has_any(terms.NODE_OOM_TERMS),
                ]
            ),
            filters.all_of(
                [
                    'resource.type="gce_instance"',
                    filters.log_id("cloudaudit.googleapis.com/system_event"),
                    filters.one_of("protoPayload.methodName", terms.INTERRUPTION_METHODS),
                ]
            ),
            filters.all_of(
                [
                    target.cluster_scope("gke_nodepool", request.target, namespaced=False),
                    filters.one_of("protoPayload.methodName", terms.NODEPOOL_METHODS),
                ]
            ),
        ]
    )


def triage_fetches(request: Request) -> list[Fetch]:
    """The fetches, indexed by the constants above."""
    lines = target.container_lines(request.target)
    crash = filters.any_of(
        [
            filters.message_has_any(terms.CRASH_TERMS + STALL_TERMS + request.options.extra_terms),
            f"severity>={request.options.min_severity or 'CRITICAL'}",
        ]
    )
    events = target.workload_events(request.target)
    controller = filters.all_of(
        [
            target.cluster_scope("k8s_container", request.target, namespaced=False),
            'resource.labels.namespace_name="jobset-system"',
            filters.any_of(
                [filters.message_has_any(terms.SUMMARY_CONTROLLER_TERMS), "severity>=ERROR"]
            ),
        ]
    )
    startup = filters.message_has_any(VERSION_TERMS + STARTUP_TERMS)
    return [
        _fetch(request, "crash, fatal and stall lines of every workload container", lines, crash),
        _fetch(request, "start-up and version lines of the workload", lines, startup),
        _fetch(
            request,
            "the latest lines of the workload (who went quiet, progress at the end)",
            lines,
            order="desc",
        ),
        _fetch(request, "Kubernetes events of the workload's pods, Jobs and JobSet/LWS", events),
        _fetch(
            request,
            "node OOM kills and interruptions in the cluster (narrowed to the workload's nodes)",
            _node_evidence(request),
        ),
        _fetch(
            request,
            "serial-console OOM kills, GCE interruptions and node pool operations "
            "(narrowed to the workload's nodes)",
            _instance_evidence(request),
        ),
        _fetch(request, "JobSet controller logs (namespace jobset-system)", controller),
    ]
