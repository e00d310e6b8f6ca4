"""Join triage's answers into one timeline and decide what failed first."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pathways_workload import scenarios
from pathways_workload.describe import container_of, message, node_of, pod_of
from pathways_workload.nodes import nodes_from
from pathways_workload.query import Request
from pathways_workload.sources.base import Entry, Result, entry_time_ns
from pathways_workload.terms import USER_CONTAINERS
from pathways_workload.triage import rules, versions
from pathways_workload.triage.evidence import Evidence, classify
from pathways_workload.triage.queries import CONTROLLER, CRASH, EVENTS, LAST_LINES, NODES, STARTUP

PROGRESS_TERM = "completed step"


def _brief(entry: Entry) -> dict[str, Any]:
    return {
        "timestamp": entry.get("timestamp"),
        "pod": pod_of(entry),
        "container": container_of(entry),
        "node": node_of(entry),
        "message": message(entry),
    }


def _scenario_of(failure: rules.Failure) -> scenarios.Scenario | None:
    if failure.hang:
        return scenarios.BY_NUMBER[14]
    found = failure.cause.scenario
    for item in failure.evidence:
        found = found or item.scenario
    return found


def describe_failure(failure: rules.Failure) -> dict[str, Any]:
    """A failure as the report shows it: where, when, what, which known scenario."""
    scenario = _scenario_of(failure)
    others = [e.entry for e in failure.evidence if e is not failure.cause]
    evidence = [failure.cause.entry, *others[:4]]
    return {
        **_brief(failure.cause.entry),
        "source": "hang" if failure.hang else failure.cause.source,
        "restart_attempt": failure.attempt,
        "scenario": scenario.number if scenario else None,
        "scenario_title": scenario.title if scenario else None,
        "cause": scenario.cause if scenario else None,
        "fix": scenario.fix if scenario else None,
        "evidence": evidence,
    }


def _evidence(results: Sequence[Result], nodes: set[str]) -> list[Evidence]:
    entries = list(results[CRASH].entries) + list(results[EVENTS].entries)
    entries += [e for e in results[NODES].entries if node_of(e) in nodes]
    if not results[LAST_LINES].entries:
        entries += results[CONTROLLER].entries
    found = (classify(entry) for entry in entries)
    return [item for item in found if item is not None]


def _progress_end(entries: Sequence[Entry]) -> int | None:
    steps = [
        entry_time_ns(e)
        for e in entries
        if container_of(e) in USER_CONTAINERS and PROGRESS_TERM in message(e)
    ]
    return max(steps) if steps else None


def analyze(results: Sequence[Result], request: Request, issue_ns: int | None) -> dict[str, Any]:
    """The report's findings (everything but the checks)."""
    nodes = set(
        nodes_from([results[EVENTS], results[CRASH], results[STARTUP], results[LAST_LINES]])
    )
    failures = rules.split_failures(_evidence(results, nodes))
    latest = rules.last_lines(results[LAST_LINES].entries)
    if not failures:
        quiet = rules.quiet_first(latest, _progress_end(results[LAST_LINES].entries))
        failures = [rules.hang_failure(quiet)] if quiet else []
    chosen = rules.pick(failures, issue_ns)
    hosts = rules.failing_hosts(chosen) if chosen else []
    lowest = rules.lowest_indexed(hosts)
    everything = [e for r in results for e in r.entries]
    return {
        "root_cause": describe_failure(chosen) if chosen else None,
        "failures": [describe_failure(f) for f in failures],
        "symptoms": [_brief(s.entry) for s in chosen.symptoms] if chosen else [],
        "failing_hosts": hosts,
        "lead_host": hosts[0] if hosts else None,
        "lowest_indexed_host": lowest,
        "workload_nodes": sorted(nodes),
        "versions": versions.collect(everything),
        "last_lines": [_brief(entry) for _, entry in sorted(latest.items())],
    }
