"""Join triage's answers into one timeline and decide what failed first."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pathways_workload import coverage, scenarios
from pathways_workload.describe import (
    container_of,
    involved_object,
    message,
    node_of,
    owner_of,
    pod_of,
    where,
)
from pathways_workload.node_discovery import nodes_about, nodes_from, nodes_in
from pathways_workload.pod_names import replicated_jobs, sibling_job, without_sibling_lws
from pathways_workload.query import Request
from pathways_workload.sources.base import Entry, Result, entry_time_ns
from pathways_workload.terms import RECOVERY_TERMS, WORKER_CONTAINERS
from pathways_workload.timestamps import format_timestamp_ns
from pathways_workload.tracebacks import is_header
from pathways_workload.triage import rules, timeline, versions
from pathways_workload.triage.answers import MISSING_CRASHES, UNSEEN_HOSTS, TriageResults
from pathways_workload.triage.completion import (
    before_completion,
    clean_exit,
    completion,
    finished_by,
    outliving,
    started_after,
)
from pathways_workload.triage.evidence import (
    HEAD_LOGS,
    PEER_LOGS,
    Evidence,
    attempt_of,
    classify,
    peer_logs,
    restart_attempt,
    symptom_of,
    with_tracebacks,
)
from pathways_workload.triage.fetches import PROGRESS_TERM, QUIET_AFTER_NS, TAIL
from pathways_workload.triage.grouping import symptom_groups
from pathways_workload.triage.hosts import (
    HOST_CONTAINERS,
    HostPod,
    entry_host,
    failing_hosts,
    head_nodes,
    host_of,
    host_pods,
    lead_host,
    lowest_indexed,
    own_crash_pods,
    pods_in,
)
from pathways_workload.triage.shape import Host, learn_shape, unseen_host_line

WORKER_CONTAINER = WORKER_CONTAINERS[0]
# Controllers log through zap: `<time>\tINFO\t<logger>\t<message>` even on stderr.
_ROUTINE_LEVEL_RE = re.compile(r"\t(?:DEBUG|INFO)\t")
# The namespaces a controller line names (zap fields and klog object references).
_NAMESPACE_RE = re.compile(r'"namespace": ?"([^"]*)"')
# A root cause known only downstream this soon after the window's start may report a failure
# that began before it; the earlier start suggested reaches this far back.
EARLY_NS = 60 * 10**9
EARLIER_NS = 10 * 60 * 10**9


def _brief(entry: Entry) -> dict[str, Any]:
    index = entry_host(entry) if container_of(entry) in HOST_CONTAINERS else None
    return {
        "timestamp": entry.get("timestamp"),
        "pod": pod_of(entry),
        "container": container_of(entry),
        "node": node_of(entry),
        "host": "/".join(index) if index else None,
        "where": f"host {'/'.join(index)}" if index and not pod_of(entry) else where(entry),
        "message": message(entry),
    }


# How close in time a line must be to the cause to count as the cause's own evidence.
OWN_EVIDENCE_NS = 30 * 10**9
# The lines of one message the logging agent split are logged within this of each other.
SPLIT_MESSAGE_NS = 10**9


def _own(item: Evidence, cause: Evidence) -> bool:
    """Evidence from the cause's own pod and container (or node), in the seconds around it."""
    near = abs(item.time_ns - cause.time_ns) <= OWN_EVIDENCE_NS
    if cause.pod is not None:
        return near and (item.pod, item.container) == (cause.pod, cause.container)
    return near and item.node is not None and item.node == cause.node


def _scenario_of(failure: rules.Failure) -> scenarios.Scenario | None:
    """The scenario of the cause line, else of its own evidence; never a symptom's elsewhere.

    A hang is the hang scenario. An interruption is the teardown scenario (its own
    record names it); otherwise a SIGTERM is only the JobSet tearing down, never the label.
    A wrapping scenario on the rest of the cause's own message (split into lines: a core
    halt whose next line names the launch group) names it over the cause line's own.
    """
    if failure.hang:
        return scenarios.HANG
    cause = failure.cause
    if cause.scenario is not None:
        return cause.scenario if cause.scenario.wraps else _split_off(failure) or cause.scenario
    own = [item.scenario for item in failure.evidence if _own(item, cause)]
    found = [scenario for scenario in own if scenario is not None]
    return next((s for s in found if not s.teardown), None)


def _split_off(failure: rules.Failure) -> scenarios.Scenario | None:
    """A wrapping scenario on a line of the cause's pod and container logged in the same
    second: the rest of the cause's message, which the logging agent split into lines."""
    cause = failure.cause
    return next(
        (
            item.scenario
            for item in failure.evidence
            if item.scenario is not None
            and item.scenario.wraps
            and (item.pod, item.container) == (cause.pod, cause.container)
            and abs(item.time_ns - cause.time_ns) <= SPLIT_MESSAGE_NS
        ),
        None,
    )


def _reported_scenario(
    failure: rules.Failure, head_nodes: frozenset[str]
) -> scenarios.Scenario | None:
    """The failure's known scenario; a lost peer on the head node is the head's services."""
    scenario = _scenario_of(failure)
    if scenario is not None and scenario.lost_peer:
        peers = {scenarios.peer_node(item.message) for item in failure.evidence}
        if peers & head_nodes:
            return scenarios.HEAD_SERVICE
    return scenario


def _peer_nodes(failure: rules.Failure) -> list[str]:
    """The nodes the failure's lost-peer lines name, sorted."""
    return sorted(
        {node for item in failure.evidence if (node := scenarios.peer_node(item.message))}
    )


def describe_failure(
    failure: rules.Failure, head_nodes: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """A failure as the report shows it: where, when, what, which known scenario, and for a
    failure known only by downstream lines, whose logs hold its reason."""
    scenario = _reported_scenario(failure, head_nodes)
    others = [e.entry for e in failure.evidence if e is not failure.cause]
    evidence = [failure.cause.entry, *others[:4]]
    symptom = symptom_of(failure.cause.entry) if failure.cause.symptom else None
    look = None
    if symptom is not None:  # known only downstream: whose logs hold the reason
        look = HEAD_LOGS if scenario is scenarios.HEAD_SERVICE else symptom.look
    if look is PEER_LOGS:
        look = peer_logs(_peer_nodes(failure))
    return {
        **_brief(failure.cause.entry),
        "traceback": list(failure.cause.traceback),
        "due_at": format_timestamp_ns(failure.due_ns) if failure.due_ns is not None else None,
        "time_guessed": failure.cause.time_guessed,
        "source": "hang" if failure.hang else failure.cause.source,
        "restart_attempt": failure.attempt,
        "scenario": scenario.number if scenario else None,
        "scenario_slug": scenario.slug if scenario else None,
        "scenario_title": scenario.title if scenario else None,
        "cause": scenario.cause if scenario else None,
        "fix": scenarios.fix_of(scenario, failure.cause.entry) if scenario else None,
        "downstream_only": look is not None,
        "reason_in": look.logs if look else None,
        "read_next": list(look.actions) if look else [],
        "evidence": evidence,
    }


def _on_host(
    failure: rules.Failure, head_nodes: frozenset[str], pods: dict[str, HostPod]
) -> dict[str, Any]:
    """A failure as the report shows it, a node's evidence given the TPU host that ran there
    at the time."""
    found = describe_failure(failure, head_nodes)
    if found["host"] is None and found["pod"] in pods:
        found["host"] = f"{pods[found['pod']].slice}/{pods[found['pod']].host}"
    elif found["host"] is None and found["node"]:
        lane = timeline.host_on_node(list(pods.values()), found["node"], failure.cause.time_ns)
        found["host"] = lane[1] if lane else None
    return found


def _about(entry: Entry, names: Sequence[str], namespace: str) -> bool:
    """A controller error about one of the workload's objects (named exactly, quoted), in its
    namespace when the line names one: a JobSet of the same name elsewhere is another's."""
    text = message(entry)
    if _ROUTINE_LEVEL_RE.search(text) or not any(f'"{name}"' in text for name in names):
        return False
    namespaces = _NAMESPACE_RE.findall(text)
    return not namespaces or namespace in namespaces


def _own_events(found: TriageResults, request: Request) -> list[Entry]:
    """The events, without the Job events of a sibling JobSet named like the workload's Jobs
    (`X-pathways-worker-0` of JobSet `X-pathways` when X's pods run replicated job `worker`)
    and those of a sibling LeaderWorkerSet's leaders named like the workload's workers."""
    lines, events = found.container_lines(), found.entries(found.events)
    jobsets = [w.name for w in request.target.workloads if w.kind == "jobset"]
    replicated = {jobset: replicated_jobs(jobset, [*lines, *events]) for jobset in jobsets}

    def sibling(entry: Entry) -> bool:
        about = involved_object(entry)
        return (
            about is not None
            and about[0] == "Job"
            and any(sibling_job(about[1], jobset, jobs) for jobset, jobs in replicated.items())
        )

    events = [entry for entry in events if not sibling(entry)]
    return without_sibling_lws(request.target.workloads, events, lines)


def _evidence(
    found: TriageResults, nodes: set[str], events: list[Entry], request: Request
) -> list[Evidence]:
    crashes = found.entries(found.crashes)
    entries = crashes + events
    entries += [
        entry
        for entry in found.entries(found.node_events + found.instances)
        if nodes_about(entry, nodes)
    ]
    if not any(result.entries for result in found.latest):
        names = [workload.name for workload in request.target.workloads]
        namespace = request.target.namespace
        entries += [e for e in found.entries(found.controller) if _about(e, names, namespace)]
    evidence = [item for item in map(classify, entries) if item is not None]
    return rules.shutting_down(with_tracebacks(evidence, crashes, found.follow_ups))


def _last_step(entries: Sequence[Entry], clients: frozenset[str]) -> Entry | None:
    """The user workload's latest progress line (of its `clients` containers)."""
    steps = [e for e in entries if container_of(e) in clients and PROGRESS_TERM in message(e)]
    return max(steps, key=entry_time_ns) if steps else None


def _progress_end(entries: Sequence[Entry], clients: frozenset[str]) -> int | None:
    step = _last_step(entries, clients)
    return entry_time_ns(step) if step is not None else None


def _failures(
    found: TriageResults,
    nodes: set[str],
    events: list[Entry],
    request: Request,
    completed: Entry | None,
) -> tuple[list[rules.Failure], list[Evidence]]:
    """Every failure in the window (a hang among them: see `_hang`), and the warnings the run
    kept progressing after; `events`: the workload's own; none from the pods of the object
    that `completed` after it (its teardown), and in a run that completed a hang only of
    the pods that outlive it (see `_hang_after`)."""
    recoveries = [
        entry_time_ns(e)
        for e in found.entries(found.startup)
        if any(term in message(e) for term in RECOVERY_TERMS)
    ]
    last = found.latest_lines()
    evidence = _evidence(found, nodes, events, request)
    evidence, warnings = rules.kept_going(evidence, last, _last_step(last, found.clients()))
    evidence, node_events = rules.went_on_after(evidence, last)
    evidence, outlived = rules.outlived(evidence)
    survived = sorted([*warnings, *node_events, *outlived], key=Evidence.order)
    started = started_after(completed, events, found.entries(found.startup))
    failures = before_completion(rules.split_failures(evidence, recoveries), completed, started)
    if completed is None:
        hangs = _hang(found, request, failures)
    else:
        hangs = _hang_after(found, failures, completed, started)
    for hang in hangs:
        failures = rules.with_hang(failures, hang)
    return sorted(failures, key=lambda f: f.cause.order()), survived


def _hang(
    found: TriageResults, request: Request, failures: Sequence[rules.Failure]
) -> list[rules.Failure]:
    """A hang if something went quiet: with no error at all, or after errors the run stepped
    on from (a restart that resumed), in the attempt of the last step; or before errors
    that cannot have stopped its steps (see `_stopped_steps`). Kubernetes events alone after
    the last step (the hung run deleted or restarted) rule out no hang, and the attempt they
    stopped is looked at too; with no failure at all, so is every restart attempt before the
    latest (restarted with no Kubernetes event read)."""
    last, clients = found.latest_lines(), found.clients()
    unseen = _unseen_hosts(found, request)
    if not failures:  # all of it may have gone quiet at once: the logs run on without it
        until = request.logged_until_ns
        return _quiet_in(last, clients, unseen, request, failures, until) or _earlier_hang(
            last, clients, request
        )
    step = _last_step(last, clients)
    if step is None or any(
        _stopped_steps(f, entry_time_ns(step)) and not rules.stopped_from_outside(f)
        for f in failures
    ):
        return []
    stopped = [f.attempt for f in failures if rules.stopped_from_outside(f)]
    for attempt in dict.fromkeys([attempt_of(step), *stopped]):
        lines = [e for e in last if attempt_of(e) == attempt]
        silent = unseen if attempt == attempt_of(step) else []
        hang = _quiet_in(lines, clients, silent, request, failures)
        if hang:
            return hang
    return []


def _earlier_hang(
    last: list[Entry], clients: frozenset[str], request: Request
) -> list[rules.Failure]:
    """The hang of the earliest restart attempt before the latest one in which a component
    went quiet and the steps stopped while the attempt logged on (its JobSet then restarted
    it): each attempt is read alone, up to its own last line."""
    attempts: dict[str, int] = {}  # each attempt's latest line
    for entry in last:
        if (attempt := restart_attempt(entry)) is not None:
            attempts[attempt] = max(attempts.get(attempt, 0), entry_time_ns(entry))
    for attempt in sorted(attempts, key=attempts.__getitem__)[:-1]:
        lines = [entry for entry in last if restart_attempt(entry) == attempt]
        hang = _quiet_in(lines, clients, [], request, [])
        if hang:
            return hang
    return []


def _quiet_in(
    last: list[Entry],
    clients: frozenset[str],
    unseen: list[Entry],
    request: Request,
    failures: Sequence[rules.Failure],
    until_ns: int | None = None,
) -> list[rules.Failure]:
    """The hang among `last` (the latest lines of one attempt, or of all), if one went quiet
    (before the newest of them, or `until_ns`: see `rules.went_quiet`)."""
    progress_end = _progress_end(last, clients)
    if progress_end is None and unseen:  # no step in the window: progress stopped by its start
        progress_end = request.window.start_ns
    quiet = rules.went_quiet(last, progress_end, unseen, clients, until_ns)
    if not quiet:
        return []
    first = quiet[0]
    due = entry_time_ns(first) if first in unseen else rules.next_line_due(last, first)
    if rules.ended_on_error(first, due, failures):
        return []
    return [rules.hang_failure(first, due, quiet[1:])]


def _stopped_steps(failure: rules.Failure, step_ns: int) -> bool:
    """Whether a failure may be what stopped the steps whose last was at `step_ns`: it began
    after that step, within QUIET_AFTER_NS of it, or it reports a hang (a hang detector's
    line comes long after); an error that began later, the steps long stopped, came after
    whatever stopped them."""
    since = failure.cause.effective_ns - step_ns
    scenario = _scenario_of(failure)
    return since >= 0 and (since < QUIET_AFTER_NS or (scenario is not None and scenario.hang))


def _hang_after(
    found: TriageResults,
    failures: Sequence[rules.Failure],
    completed: Entry,
    started: frozenset[str],
) -> list[rules.Failure]:
    """A hang of the pods that outlive the object that completed (a headless JobSet its client
    Job leaves running, in its latest restart attempt; pods `started` after it), when none
    failed since: a component of theirs that logged on past the completion, then went quiet
    while the workload logged on, not on an error."""
    done_ns = finished_by(completed) or 0
    last = found.latest_lines()
    alive = outliving(last, completed, started)
    if not alive or any(failure.cause.effective_ns >= done_ns for failure in failures):
        return []
    attempt = restart_attempt(max(alive, key=entry_time_ns))  # every LWS group, though
    alive = [entry for entry in alive if restart_attempt(entry) == attempt]
    quiet = rules.stopped_after(alive, done_ns, max(map(entry_time_ns, last)))
    if not quiet:
        return []
    first = quiet[0]
    due = rules.next_line_due(alive, first)
    if rules.ended_on_error(first, due, failures):
        return []
    return [rules.hang_failure(first, due, quiet[1:])]


def _silent_hosts(found: TriageResults) -> list[Host]:
    """The hosts the JobSet's labels say exist but that logged nothing; none when the reads
    of their last lines were cut (`_hosts_unread`): unread, they are not known to be quiet."""
    return [] if _hosts_unread(found) else found.shape().unseen_hosts()


def _unseen_hosts(found: TriageResults, request: Request) -> list[Entry]:
    """Stand-ins for the hosts the JobSet's labels say exist but that logged nothing."""
    return [
        unseen_host_line(host, WORKER_CONTAINER, request.window.start)
        for host in _silent_hosts(found)
    ]


def _quiet_host(found: TriageResults, chosen: rules.Failure) -> Entry | None:
    """In a hang, the component that went quiet first (within the failure's attempt)."""
    if chosen.hang:
        return chosen.cause.entry
    scenario = _scenario_of(chosen)
    if scenario is None or not scenario.hang:
        return None
    attempt = [e for e in found.latest_lines() if attempt_of(e) == chosen.cause.attempt]
    clients = found.clients()
    return rules.quiet_first(attempt, _progress_end(attempt, clients), clients=clients)


def _hosts(
    pods: dict[str, HostPod],
    failures: list[rules.Failure],
    chosen: rules.Failure | None,
    quiet: Entry | None,
) -> list[dict[str, Any]]:
    """The chosen failure's failing hosts; for a head-pod failure, those of the window. In a
    hang, in the order the hosts went quiet (when each one's next line was due), the lead
    first, and only those: the errors beside a hang are ones the run stepped on from, so
    their hosts are not where it began; each host by the line of its component that went
    quiet first (not an older line of one that logs seldom and went quiet later); else
    earliest first."""
    if chosen and chosen.hang:
        first: dict[str | None, Evidence] = {}  # each pod's line that went quiet first
        for item in chosen.evidence:
            first.setdefault(item.pod, item)
        order = {pod: rank for rank, pod in enumerate(first)}
        hosts = failing_hosts(list(first.values()), pods, quiet, chosen.cause)
        return sorted(hosts, key=lambda row: order.get(row["pod"], len(order)))
    hosts = failing_hosts(chosen.evidence, pods, quiet, chosen.cause) if chosen else []
    return hosts or failing_hosts([item for f in failures for item in f.evidence], pods)


def _began_on(
    chosen: rules.Failure | None, quiet: Entry | None, pods: dict[str, HostPod]
) -> str | None:
    """The host pod where the failure began: in a hang the one that went quiet first, else
    the one the root cause happened on (its node's host for node evidence)."""
    if quiet is not None and pod_of(quiet) in pods:
        return pod_of(quiet)
    host = host_of(chosen.cause, pods) if chosen else None
    return host.pod if host else None


def _opens(symptom: Evidence, cause: Evidence) -> bool:
    """The header of the traceback the cause's exception ends (shown with it, not apart)."""
    return bool(cause.traceback) and is_header(symptom.entry) and _own(symptom, cause)


def crash_coverage(found: TriageResults) -> str | None:
    """None when every pod's (and every host's) first crash line was read; else what may be
    missing and why: the sweep reads on until each pod seen has one, so hosts whose lines
    were left unread (see `_hosts_unread`) may still have failed after it stopped."""
    sweep = [r for r in found.crashes if r.fetch.name != MISSING_CRASHES]
    asked = [r for r in found.crashes if r.fetch.name == MISSING_CRASHES]
    if not sweep or not sweep[-1].truncated:
        return None
    every_pod = sweep[-1].answered or (
        bool(asked) and all(not r.truncated or r.answered for r in asked)
    )
    hosts = _hosts_unread(found)
    if every_pod and not hosts:
        return None
    seen = own_crash_pods(found.entries(found.crashes))
    pods = len(found.shape().pods - seen)
    no_crash = f"{pods} of the workload's pods showed no crash line before then and were not all"
    unread = [] if every_pod else [f"{no_crash} asked by name"]
    unread += [f"{hosts} hosts the labels say exist showed no line at all"] if hosts else []
    reached = [entry_time_ns(e) for e in sweep[-1].entries]
    stopped = f"at {format_timestamp_ns(max(reached))}" if reached else "before its first line"
    return (
        f"the crash sweep stopped {stopped} within the request budget; {', and '.join(unread)}: "
        "they may have failed later (narrow the window to see them)"
    )


def _cut_tail(found: TriageResults) -> bool:
    """Whether the latest lines stopped before the first of them (the read was cut)."""
    tail = [r for r in found.latest if r.fetch.name == TAIL]
    return bool(tail) and tail[-1].truncated


def _hosts_unread(found: TriageResults) -> int:
    """How many hosts that showed no line had their last lines left unread within the
    request budget (not asked, or the read cut)."""
    unseen = [r for r in found.latest if r.fetch.name == UNSEEN_HOSTS]
    hosts = found.shape().unseen_hosts()
    cut = not unseen or any(r.truncated for r in unseen)
    return len(hosts) if hosts and cut and _cut_tail(found) else 0


def quiet_coverage(found: TriageResults) -> str | None:
    """None when the last line of every pod (and of every host the labels say exist) was
    read; else how many were left unread within the request budget, and what that means."""
    if not _cut_tail(found):
        return None
    shape = found.shape()
    pods = len(shape.unheard(pods_in(found.latest_lines())))
    hosts_unread = _hosts_unread(found)
    if not pods and not hosts_unread:
        return None
    unread = [f"{pods} pods"] if pods else []
    unread += [f"{hosts_unread} hosts that showed no line"] if hosts_unread else []
    return (
        f"the last lines of {' and '.join(unread)} were not read within the request budget: "
        "one of them may have gone quiet first (narrow the window, or read them with "
        "--action=workers)"
    )


def quiet_before(found: TriageResults, chosen: rules.Failure | None) -> str | None:
    """When the chosen failure is a hang's symptom (a hang detector's report, say) and the
    latest lines were cut short of it: the lines before it, which show the host that went
    quiet first, were not read."""
    scenario = _scenario_of(chosen) if chosen and not chosen.hang else None
    if chosen is None or scenario is None or not scenario.hang or not _cut_tail(found):
        return None
    tail = [entry_time_ns(e) for r in found.latest if r.fetch.name == TAIL for e in r.entries]
    at = entry_time_ns(chosen.cause.entry)
    if not tail or min(tail) <= at:
        return None
    return (
        f"the latest lines read reach back to {format_timestamp_ns(min(tail))}, after the "
        f"failure at {format_timestamp_ns(at)}: the host that went quiet before it may be "
        "unread (narrow the window to end soon after it, or read the last lines with "
        "--action=workers)"
    )


def analyze(found: TriageResults, request: Request) -> dict[str, Any]:
    """The report's findings (everything but the checks)."""
    events = _own_events(found, request)
    nodes = {*nodes_in(events), *nodes_from(found.crashes + found.startup + found.latest)}
    completed = completion(events, request, _pod_owners(found, request))
    if completed is None and not events:  # text logs: no event says the workload completed
        completed = clean_exit(found.container_lines(), found.clients())
    failures, survived = _failures(found, nodes, events, request, completed)
    chosen = rules.pick(failures, request.issue_ns)
    quiet = _quiet_host(found, chosen) if chosen else None
    pods = host_pods(found.container_lines(), events)
    hosts = _hosts(pods, failures, chosen, quiet)
    latest = rules.last_lines(found.latest_lines())
    head = head_nodes(found.container_lines())
    symptoms = [s for s in chosen.symptoms if not _opens(s, chosen.cause)] if chosen else []
    root = _on_host(chosen, head, pods) if chosen else None
    gaps = _early(root, chosen, request) if root and chosen else []
    gaps += _too_soon(found) if chosen is None and completed is None else []
    return {
        "root_cause": root,
        "completed": _brief(completed) if completed else None,
        "failures": [_on_host(f, head, pods) for f in failures],
        "survived": [_brief(item.entry) for item in survived],
        "symptoms": [_brief(s.entry) for s in symptoms],
        "symptom_groups": symptom_groups(symptoms),
        "failing_hosts": hosts,
        "origin_hosts": [row["pod"] for row in hosts if not row["downstream"] and row["pod"]],
        "failing_hosts_missing": crash_coverage(found),
        "quiet_hosts_missing": quiet_coverage(found) or quiet_before(found, chosen),
        "lead_host": lead_host(hosts, _began_on(chosen, quiet, pods)),
        "lowest_indexed_host": lowest_indexed(hosts),
        "workload_nodes": sorted(nodes),
        "versions": _versions(found),
        "last_lines": [_brief(entry) for _, entry in sorted(latest.items())],
        "coverage": _coverage(found, gaps),
        "timeline": timeline.build(
            timeline.Workload(
                found.container_lines(),
                list(pods.values()),
                _silent_hosts(found),
                finished_by(completed),
            ),
            failures,
            chosen,
            request,
            quiet,
        ),
    }


def _pod_owners(found: TriageResults, request: Request) -> set[tuple[str, str]]:
    """For pods named by a prefix, the objects their labels say made them (kind, name)."""
    if not any(workload.kind == "pod" for workload in request.target.workloads):
        return set()
    return {owner for entry in found.container_lines() if (owner := owner_of(entry))}


def _early(root: dict[str, Any], chosen: rules.Failure, request: Request) -> list[str]:
    """When the root cause is known only by downstream lines from the window's first minute,
    the failure they report may have begun before the window: the gap that says so, with
    the window flags that read from earlier (they run as given, whatever set the window)."""
    after_ns = chosen.cause.time_ns - request.window.start_ns
    if not root["downstream_only"] or after_ns >= EARLY_NS:
        return []
    earlier = format_timestamp_ns(request.window.start_ns - EARLIER_NS)
    return [
        f"the root cause is known only by downstream lines, the first {after_ns / 1e9:.3g} s "
        "after the window's start: the failure they report may have begun before it; read "
        f"from an earlier start: --start_time={earlier} --end_time={request.window.end} "
        "(in place of the window flags given)"
    ]


def _too_soon(found: TriageResults) -> list[str]:
    """When the user workload's steps stopped, overdue, less than the quiet span before the
    last line read (too soon to tell a hang): the gap that says so, and what to read."""
    last, clients = found.latest_lines(), found.clients()
    step = _last_step(last, clients)
    if step is None:
        return []
    since = max(map(entry_time_ns, last)) - entry_time_ns(step)
    steps = [e for e in last if where(e) == where(step) and PROGRESS_TERM in message(e)]
    due = rules.next_line_due(steps, step)
    if since < rules.STEP_SLACK_NS or since >= QUIET_AFTER_NS or due >= entry_time_ns(step) + since:
        return []
    return [
        f"the user workload's last step, at {step.get('timestamp')}, came {since // 10**9} s "
        f"before the last line read, though the next was due at {format_timestamp_ns(due)}: "
        f"progress may have stopped too recently to tell a hang (that takes "
        f"{QUIET_AFTER_NS // (60 * 10**9)} minutes of silence); read again with a later "
        "--end_time"
    ]


def _versions(found: TriageResults) -> dict[str, Any]:
    """The versions the lines read show, and `complete`: whether the reads that show them
    (start-up lines, events) ran to their end; if not, a version not seen may be unread."""
    cut = any(result.truncated for result in found.startup + found.events)
    every = (entry for result in found.every() for entry in result.entries)
    return {**versions.collect(every), "complete": not cut}


def _coverage(found: TriageResults, gaps: list[str]) -> dict[str, Any]:
    """What the logs hold: each component's lines read, each log kind's presence, the gaps
    (with `gaps`, found by the analysis)."""
    lines = found.entries(found.crashes + found.startup + found.latest + found.head_lines)
    expected = learn_shape(lines).expected
    instances = [str(entry.get("logName")) for entry in found.entries(found.instances)]
    kinds = {
        "Kubernetes events": bool(found.entries(found.events_any + found.events)),
        "node logs": bool(found.entries(found.node_any + found.node_events)),
        "serial console": bool(found.entries(found.serial_any))
        or any("serialconsole" in name for name in instances),
    }
    audited = any("system_event" in name for name in instances)
    audit = {"kind": "GCE audit (preemption, maintenance)", "seen": audited, "gap": None}
    probed = {
        "Kubernetes events": found.events_any,
        "node logs": found.node_any,
        "serial console": found.serial_any,
    }
    unchecked = [kind for kind, asked in probed.items() if not asked or _all_cut(asked)]
    made = coverage.report(lines, expected, kinds, (audit,), not _hosts_unread(found), unchecked)
    return {**made, "gaps": [*made["gaps"], *gaps, *_budget_cut(found)]}


def _all_cut(results: list[Result]) -> bool:
    """Whether the request budget stopped every one of these reads before it read anything."""
    return all(result.cut and not result.entries for result in results)


def _budget_cut(found: TriageResults) -> list[str]:
    """The gap that names the checks the run's request budget stopped short, if any."""
    cut = [result.fetch.query.purpose for result in found.every() if result.cut]
    if not cut:
        return []
    return [
        f"the run's request budget ran out before {len(cut)} "
        f"{'check was' if len(cut) == 1 else 'checks were'} done ("
        + "; ".join(cut)
        + "): what they would have read is missing from this report (Cloud Logging sent "
        "partial-scan or short pages, or retries took requests; narrow the window and rerun)"
    ]
