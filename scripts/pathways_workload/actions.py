"""The registry of actions: each a pure builder from a request to its queries.

`--help`, SKILL.md's action table and the registry test all read `ACTIONS`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from pathways_workload import filters, target, terms
from pathways_workload.errors import UsageError
from pathways_workload.query import Query, Request
from pathways_workload.triage.queries import EVENTS, STARTUP, triage_fetches

# A builder gets the request and the severity floor: --min_severity, else the action's default.
Builder = Callable[[Request, str], list[Query]]


@dataclasses.dataclass(frozen=True)
class Action:
    """One `--action`: its help line, its builder and how its answer is shown."""

    name: str
    help: str
    build: Builder
    default_severity: str = "DEFAULT"
    report: bool = False
    needs_workload: bool = True
    needs_nodes: bool = False
    marks_nodes: bool = False  # mark the lines about the workload's own nodes
    empty_hint: str | None = None  # what to run when nothing matched

    def queries(self, request: Request) -> list[Query]:
        """The action's queries, with its default severity unless --min_severity says otherwise."""
        return self.build(request, request.options.min_severity or self.default_severity)


def _scoped(request: Request, *clauses: str | None) -> str:
    return filters.all_of([*(c for c in clauses if c), filters.within(request.window)])


def _term_match(request: Request, builtin: tuple[str, ...], floor: str) -> str | None:
    """A line matches when it has a term OR its severity reaches the floor."""
    if floor == "DEFAULT":
        return None
    found = builtin + request.options.extra_terms
    return filters.any_of([filters.message_has_any(found), f"severity>={floor}"])


def _narrowing(request: Request) -> str | None:
    """For actions without terms, the severity floor and extra terms narrow the selection."""
    clauses = []
    if request.options.min_severity and request.options.min_severity != "DEFAULT":
        clauses.append(f"severity>={request.options.min_severity}")
    if request.options.extra_terms:
        clauses.append(filters.message_has_any(request.options.extra_terms))
    return filters.all_of(clauses) or None


def _nodes(request: Request) -> tuple[str, ...]:
    if request.nodes is None:
        raise ValueError("the workload's nodes must be discovered before this builder runs")
    return request.nodes


def _container_action(
    purpose: str, containers: tuple[str, ...], component_terms: tuple[str, ...]
) -> Builder:
    def build(request: Request, floor: str) -> list[Query]:
        selection = target.container_lines(request.target, containers)
        match = _term_match(request, component_terms + terms.CRASH_TERMS, floor)
        return [Query(purpose, _scoped(request, selection, match))]

    return build


def build_sidecar(request: Request, floor: str) -> list[Query]:
    sidecars = target.container_lines(request.target, terms.SIDECAR_CONTAINERS)
    match = _term_match(request, terms.SIDECAR_TERMS + terms.CRASH_TERMS, floor)
    waiting = filters.all_of(
        [
            target.container_lines(request.target, terms.WORKER_CONTAINERS),
            filters.message_has_any(("colocated python", "sidecar", *request.options.extra_terms)),
        ]
    )
    return [
        Query("the colocated Python sidecar containers", _scoped(request, sidecars, match)),
        Query(
            "workers mentioning the sidecar (waiting for it, losing it)", _scoped(request, waiting)
        ),
    ]


def discovery_queries(request: Request) -> list[Query]:
    """Find the workload's nodes: Scheduled events, and the node label of its lines."""
    scheduled = filters.all_of(
        [
            target.pod_events(request.target),
            filters.equals("jsonPayload.reason", terms.SCHEDULED_REASON),
        ]
    )
    lines = target.container_lines(request.target)
    return [
        Query(
            "nodes the workload's pods were scheduled to (Scheduled events)",
            _scoped(request, scheduled),
        ),
        Query("nodes the workload's containers logged from", _scoped(request, lines)),
    ]


def build_errors(request: Request, floor: str) -> list[Query]:
    selection = target.container_lines(request.target)
    match = _term_match(request, terms.CRASH_TERMS, floor)
    return [
        Query(
            "crash and fatal-error sweep over every container of the workload",
            _scoped(request, selection, match),
        )
    ]


def build_node_ooms(request: Request, _floor: str) -> list[Query]:
    nodes = _nodes(request)
    oom_events = filters.one_of("jsonPayload.reason", terms.NODE_OOM_REASONS)
    node_events = filters.all_of(
        [
            target.cluster_scope("k8s_node", request.target, namespaced=False),
            filters.any_of(
                [
                    f'(log_id("events") AND {oom_events})',
                    filters.message_has_any(terms.NODE_OOM_TERMS),
                ]
            ),
        ]
    )
    narrow = _narrowing(request)
    queries = [
        Query(
            "host OOM kills on the cluster's nodes (node events, kernel and kubelet lines)",
            _scoped(request, node_events, narrow),
        ),
    ]
    if nodes:
        serial = filters.all_of(
            [
                'resource.type="gce_instance"',
                filters.log_id("serialconsole.googleapis.com/serial_port_1_output"),
                filters.one_of(filters.label(target.NODE_LABEL), nodes),
                filters.message_has_any(terms.NODE_OOM_TERMS),
            ]
        )
        queries.append(
            Query(
                "kernel OOM kills in the serial console of the workload's nodes",
                _scoped(request, serial, narrow),
            )
        )
    return queries


def build_pod_events(request: Request, _floor: str) -> list[Query]:
    events = target.workload_events(request.target)
    return [
        Query(
            "Kubernetes events of the workload's pods, Jobs and JobSet/LWS",
            _scoped(request, events, _narrowing(request)),
        )
    ]


def build_interruptions(request: Request, _floor: str) -> list[Query]:
    nodes = _nodes(request)
    if not nodes:
        return []
    instances = "|".join(filters.regex_literal(node) for node in nodes)
    audit = filters.all_of(
        [
            'resource.type="gce_instance"',
            filters.log_id("cloudaudit.googleapis.com/system_event"),
            filters.any_of(
                [
                    filters.one_of("protoPayload.methodName", terms.INTERRUPTION_METHODS),
                    filters.one_of("operation.producer", terms.INTERRUPTION_METHODS),
                ]
            ),
            f'protoPayload.resourceName=~"/instances/({instances})$"',
        ]
    )
    node_events = filters.all_of(
        [
            filters.log_id("events"),
            target.cluster_scope("k8s_node", request.target, namespaced=False),
            filters.one_of("resource.labels.node_name", nodes),
            filters.any_of(
                [
                    filters.one_of("jsonPayload.reason", terms.NODE_INTERRUPTION_REASONS),
                    filters.message_has_any(
                        ("NodeNotReady", "Preemption", "Termination", "Maintenance")
                    ),
                ]
            ),
        ]
    )
    nodepools = filters.all_of(
        [
            target.cluster_scope("gke_nodepool", request.target, namespaced=False),
            filters.one_of("protoPayload.methodName", terms.NODEPOOL_METHODS),
        ]
    )
    narrow = _narrowing(request)
    return [
        Query(
            "preemption, host maintenance and host errors of the workload's nodes (GCE audit)",
            _scoped(request, audit, narrow),
        ),
        Query(
            "node events of the workload's nodes (not ready, reboots, repairs, terminations)",
            _scoped(request, node_events, narrow),
        ),
        Query(
            "node pool repairs, upgrades and resizes in the cluster",
            _scoped(request, nodepools, narrow),
        ),
    ]


def build_neighbors(request: Request, _floor: str) -> list[Query]:
    if not _nodes(request):
        return []
    selection = filters.all_of(
        [
            target.cluster_scope("k8s_container", request.target, namespaced=False),
            filters.one_of(filters.label(target.NODE_LABEL), _nodes(request)),
        ]
    )
    return [
        Query(
            "every container that logged on the workload's nodes",
            _scoped(request, selection, _narrowing(request)),
        )
    ]


def build_elastic(request: Request, floor: str) -> list[Query]:
    selection = target.container_lines(request.target)
    match = _term_match(request, terms.ELASTIC_TERMS + terms.CRASH_TERMS, floor)
    return [
        Query(
            "elastic recovery timeline (slices lost and back, restores, resume step)",
            _scoped(request, selection, match),
        )
    ]


def build_summary(request: Request, floor: str) -> list[Query]:
    controller = filters.all_of(
        [
            target.cluster_scope("k8s_container", request.target, namespaced=False),
            'resource.labels.namespace_name="jobset-system"',
        ]
    )
    names = tuple(workload.name for workload in request.target.workloads)
    controller_match = _term_match(request, terms.SUMMARY_CONTROLLER_TERMS + names, floor)
    controller_events = filters.all_of(
        [
            filters.log_id("events"),
            target.cluster_scope("k8s_pod", request.target, namespaced=False),
            'resource.labels.namespace_name="jobset-system"',
        ]
    )
    scheduling = filters.all_of(
        [
            target.pod_events(request.target),
            filters.one_of(
                "jsonPayload.reason",
                ("FailedScheduling", "FailedCreate", "FailedMount", "FailedAttachVolume"),
            ),
        ]
    )
    workload_events = filters.any_of([target.object_events(request.target), scheduling])
    return [
        Query(
            "JobSet controller logs (namespace jobset-system): validation, webhook, OOM",
            _scoped(request, controller, controller_match),
        ),
        Query(
            "JobSet controller pod events (restarts, OOM kills of the controller manager)",
            _scoped(request, controller_events, _narrowing(request)),
        ),
        Query(
            "JobSet, LWS and Job events of the workload, and scheduling failures of its pods",
            _scoped(request, workload_events, _narrowing(request)),
        ),
    ]


def build_query(request: Request, _floor: str) -> list[Query]:
    text = request.options.filter_text
    if not text:
        raise UsageError("--action=query needs --filter='<Logging query>'")
    return [Query("your filter", _scoped(request, f"(\n{text}\n)"))]


def build_pods(request: Request, _floor: str) -> list[Query]:
    lines = target.cluster_scope("k8s_container", request.target, namespaced=True)
    if request.target.workloads:
        lines = target.container_lines(request.target)
    events = filters.all_of(
        [filters.log_id("events"), target.cluster_scope("k8s_pod", request.target, namespaced=True)]
    )
    return [
        Query(
            "pods that logged in the namespace, with their owner labels",
            _scoped(request, lines, _narrowing(request)),
        ),
        Query(
            "pod events in the namespace (pods that did not log, and their owners)",
            _scoped(request, events),
        ),
    ]


def build_preflight(request: Request, _floor: str) -> list[Query]:
    anything = target.cluster_scope("k8s_container", request.target, namespaced=False)
    return [
        Query(
            "can we read this project's container logs in the window", _scoped(request, anything)
        ),
        Query(
            "did the workload log anything in the window (every container, every severity)",
            _scoped(request, target.container_lines(request.target)),
        ),
    ]


def build_triage(request: Request, _floor: str) -> list[Query]:
    return [fetch.query for fetch in triage_fetches(request)]


def build_versions(request: Request, _floor: str) -> list[Query]:
    fetches = triage_fetches(request)
    return [fetches[STARTUP].query, fetches[EVENTS].query]


ACTIONS: dict[str, Action] = {
    action.name: action
    for action in (
        Action(
            "preflight",
            "check log access and that the workload logged in the window "
            "(runs its checks even without --execute)",
            build_preflight,
            report=True,
        ),
        Action(
            "errors",
            "crash and fatal-error sweep over every container, earliest first",
            build_errors,
            default_severity="CRITICAL",
            empty_hint="nothing in the crash sweep: run --action=node-ooms and --action=pod-events "
            "(OOM kills and evictions rarely reach container logs), and --action=preflight "
            "if you have not",
        ),
        Action(
            "node-ooms",
            "host OOM kills: node events, kernel and serial-console lines",
            build_node_ooms,
            needs_nodes=True,
            marks_nodes=True,
        ),
        Action(
            "pod-events",
            "Kubernetes events of the workload's pods, Jobs and JobSet/LWS",
            build_pod_events,
        ),
        Action(
            "interruptions",
            "preemption, host maintenance, host errors and node repairs on the workload's nodes",
            build_interruptions,
            needs_nodes=True,
        ),
        Action(
            "neighbors",
            "every namespace/pod/container that logged on the workload's nodes",
            build_neighbors,
            report=True,
            needs_nodes=True,
        ),
        Action(
            "elastic",
            "elastic recovery timeline from the RM and the JAX client",
            build_elastic,
            default_severity="CRITICAL",
        ),
        Action(
            "summary",
            "why a JobSet never started or stays suspended: controller logs, "
            "JobSet/Job events, scheduling failures",
            build_summary,
            default_severity="ERROR",
        ),
        Action(
            "user-workload",
            "the JAX client: progress (completed steps) and the first exception",
            _container_action(
                "the JAX client container(s)", terms.USER_CONTAINERS, terms.USER_TERMS
            ),
            default_severity="ERROR",
        ),
        Action(
            "proxy",
            "the IFRT proxy: start-up, RM connection, socket closures, stalls",
            _container_action(
                "the IFRT proxy container", terms.PROXY_CONTAINERS, terms.PROXY_TERMS
            ),
            default_severity="ERROR",
        ),
        Action(
            "pathways-rm",
            "the resource manager: slice readiness, placement, topology, restarts",
            _container_action(
                "the resource manager container", terms.RM_CONTAINERS, terms.RM_TERMS
            ),
            default_severity="ERROR",
        ),
        Action(
            "workers",
            "every pathways-worker: first failure, hang detectors, transfer errors",
            _container_action(
                "the pathways-worker containers",
                terms.WORKER_CONTAINERS,
                terms.WORKER_TERMS,
            ),
            default_severity="ERROR",
        ),
        Action(
            "colocated-python-sidecar",
            "the colocated Python sidecar, and workers waiting for it",
            build_sidecar,
            default_severity="ERROR",
        ),
        Action(
            "query",
            "your own --filter, through the same window, limit and ordering",
            build_query,
            needs_workload=False,
        ),
        Action(
            "triage",
            "the whole first pass in one command: preflight, crash sweep, node OOMs, pod "
            "events, interruptions, last lines and versions, with a root-cause report",
            build_triage,
            report=True,
        ),
        Action(
            "versions",
            "image tags, Build labels and the client's JAX version, with mismatches",
            build_versions,
            report=True,
        ),
        Action(
            "pods",
            "which pods logged in the namespace and window, and which object owns each",
            build_pods,
            report=True,
            needs_workload=False,
        ),
    )
}
