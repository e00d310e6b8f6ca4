"""The one registry of actions: each entry is its stages of fetches and its presenter.

`--help`, SKILL.md's action table and the tests all read `ACTIONS`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from pathways_workload import terms
from pathways_workload.actions import events, node_level, pods, preflight, sweeps
from pathways_workload.actions.entry_report import EVERY_ENTRY_HINT, present_entries
from pathways_workload.actions.followups import after_sweep
from pathways_workload.actions.teardown import after_teardown
from pathways_workload.plan import Results, Stage, single
from pathways_workload.query import Request
from pathways_workload.reports import EntryReport, Report, TableReport, TriageReport
from pathways_workload.sources.base import Fetch
from pathways_workload.triage import fetches as triage
from pathways_workload.triage import stages as triage_stages
from pathways_workload.triage.present import present_triage, present_versions

Presenter = Callable[[Request, Results], Report]


@dataclasses.dataclass(frozen=True)
class Action:
    """One `--action`: its help line, its stages of fetches, and how its answer is presented.

    `default_severity` is the severity floor when --min_severity is not given;
    `runs_without_execute` actions (preflight) run even in print mode, since
    checking access is their purpose. `report` is the kind of report `present` returns.
    """

    name: str
    help: str
    stages: tuple[Stage, ...]
    present: Presenter
    report: type[Report] = EntryReport
    default_severity: str = "DEFAULT"
    needs_workload: bool = True
    runs_without_execute: bool = False
    reports_checks: bool = False  # its report lists the queries it ran (--commands_out)
    # What it reads whole, where --extra_terms and --min_severity cannot narrow it (or None).
    reads_whole: str | None = None
    # It reads every container of the workload by role: --container_names only names the
    # container of unprefixed text logs, and narrows none of its queries.
    every_container: bool = False

    @property
    def reads_nodes(self) -> bool:
        """It reads the workload's nodes (found by discovery, or named by --node_names)."""
        return node_level.NODE_DISCOVERY in self.stages

    def request_for(self, request: Request) -> Request:
        """The request with this action's severity floor unless --min_severity says otherwise
        (and without --container_names for an action that reads every container)."""
        floor = request.options.min_severity or self.default_severity
        target = request.target
        if self.every_container:
            target = dataclasses.replace(target, container_names=())
        return dataclasses.replace(request, floor=floor, target=target)


def _after_discovery(build: Callable[[Request, Results], list[Fetch]]) -> tuple[Stage, ...]:
    return (node_level.NODE_DISCOVERY, Stage(build))


def _component(
    name: str,
    help_line: str,
    purpose: str,
    containers: tuple[str, ...],
    component_terms: tuple[str, ...],
    follow_tracebacks: bool = False,
) -> Action:
    """A per-container action: its containers' lines with their terms or ERROR and above."""
    stages = single(sweeps.container_action(purpose, containers, component_terms))
    if follow_tracebacks:
        stages = (*stages, after_sweep("lines"))
    stages = (*stages, after_teardown("lines"))
    return Action(name, help_line, stages, present_entries(), default_severity="ERROR")


ERRORS_HINT = (
    "nothing in the crash sweep: run --action=node-ooms and --action=pod-events "
    "(OOM kills and evictions rarely reach container logs), and --action=preflight "
    "if you have not"
)

ACTIONS: dict[str, Action] = {
    action.name: action
    for action in (
        Action(
            "preflight",
            "check log access and that the workload logged in the window "
            "(runs its checks even without --execute)",
            (
                Stage(
                    lambda request, _: preflight.build_preflight(request),
                    anticipate=preflight.coverage_probes,
                ),
                Stage(lambda request, _: preflight.coverage_probes(request), required=False),
            ),
            preflight.present_preflight,
            TableReport,
            runs_without_execute=True,
            reads_whole="it counts every line of the workload",
        ),
        Action(
            "errors",
            "crash and fatal-error sweep over every container, earliest first",
            (*single(sweeps.build_errors), after_sweep("crashes"), after_teardown("crashes")),
            present_entries(ERRORS_HINT),
            default_severity="CRITICAL",
        ),
        Action(
            "node-ooms",
            "host OOM kills and node pressure: node events, kernel and serial-console lines",
            _after_discovery(node_level.build_node_ooms),
            present_entries(EVERY_ENTRY_HINT, marks_nodes=True),
        ),
        Action(
            "pod-events",
            "Kubernetes events of the workload's pods, Jobs and JobSet/LWS",
            single(events.build_pod_events),
            present_entries(EVERY_ENTRY_HINT),
        ),
        Action(
            "interruptions",
            "preemption, host maintenance, host errors and node repairs on the workload's nodes",
            _after_discovery(node_level.build_interruptions),
            present_entries(EVERY_ENTRY_HINT),
        ),
        Action(
            "neighbors",
            "every namespace/pod/container that logged on the workload's nodes",
            _after_discovery(node_level.build_neighbors),
            node_level.present_neighbors,
            TableReport,
        ),
        Action(
            "elastic",
            "elastic recovery timeline from the JAX client, the IFRT proxy and the RM",
            single(sweeps.build_elastic),
            present_entries(),
            default_severity="CRITICAL",
        ),
        Action(
            "summary",
            "why a JobSet never started or stays suspended: controller logs, "
            "JobSet/Job events, scheduling failures",
            single(events.build_summary),
            present_entries(),
            # The controller writes every line to stderr, which GKE marks ERROR.
            default_severity="CRITICAL",
        ),
        _component(
            "user-workload",
            "the JAX client: progress (completed steps) and the first exception",
            "the JAX client container(s)",
            terms.USER_CONTAINERS,
            terms.USER_TERMS,
            follow_tracebacks=True,
        ),
        _component(
            "proxy",
            "the IFRT proxy: start-up, RM connection, socket closures, stalls",
            "the IFRT proxy container",
            terms.PROXY_CONTAINERS,
            terms.PROXY_TERMS,
        ),
        _component(
            "pathways-rm",
            "the resource manager: slice readiness, placement, topology, restarts",
            "the resource manager container",
            terms.RM_CONTAINERS,
            terms.RM_TERMS,
        ),
        _component(
            "workers",
            "every pathways-worker: first failure, hang detectors, transfer errors",
            "the pathways-worker containers",
            terms.WORKER_CONTAINERS,
            terms.WORKER_TERMS,
        ),
        Action(
            "colocated-python-sidecar",
            "the colocated Python sidecar, and workers waiting for it",
            (*single(sweeps.build_sidecar), after_teardown("sidecars")),
            present_entries(),
            default_severity="ERROR",
        ),
        Action(
            "query",
            "your own --filter, ANDed with the target flags given, through the same window, "
            "limit and ordering",
            single(events.build_query),
            present_entries(EVERY_ENTRY_HINT),
            needs_workload=False,
            reads_whole="put the terms and the severity in --filter",
        ),
        Action(
            "triage",
            "the whole first pass in one command: preflight, crash sweep, node OOMs, pod "
            "events, interruptions, last lines and versions, with a root-cause report",
            triage_stages.STAGES,
            present_triage,
            TriageReport,
            default_severity="CRITICAL",
            reports_checks=True,
            every_container=True,
        ),
        Action(
            "versions",
            "image tags, Build labels and the client's JAX version, with mismatches",
            single(
                lambda request: [*triage.startup_fetches(request), triage.events_fetch(request)]
            ),
            present_versions,
            TableReport,
            reports_checks=True,
            reads_whole="it reads the start-up and version lines",
            every_container=True,
        ),
        Action(
            "pods",
            "which pods logged in the namespace and window, and which object owns each",
            single(pods.build_pods),
            pods.present_pods,
            TableReport,
            needs_workload=False,
        ),
    )
}
