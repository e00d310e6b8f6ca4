"""Triage's and the versions action's reports, from their named results."""

from __future__ import annotations

from pathways_workload.commands import checks_run
from pathways_workload.plan import Results
from pathways_workload.query import Request
from pathways_workload.reports import TableReport, TriageReport
from pathways_workload.triage.analysis import analyze
from pathways_workload.triage.answers import TriageResults
from pathways_workload.triage.versions import collect

NEXT_STEPS = (
    "--action=workers --min_severity=WARNING",
    "--action=proxy --min_severity=WARNING",
    "--action=pathways-rm --min_severity=WARNING",
    "--action=user-workload --min_severity=DEFAULT",
    "--extra_terms=<strings your workload logs when it fails>",
)
VERSION_COMPONENTS = ("server", "proxy", "sidecar", "jax")


def present_triage(request: Request, results: Results) -> TriageReport:
    """The root cause, the failures, symptoms, failing hosts, versions and every check run."""
    data = {
        "action": "triage",
        "workload": [str(w) for w in request.target.workloads],
        "window": request.window.as_json(),
        **analyze(TriageResults.of(results), request),
        "requests": sum(result.requests for result in results),
        "checks": checks_run(results, request.target.project, request.window),
    }
    root = data["root_cause"]
    if root is None or (root["scenario"] is None and not root["downstream_only"]):
        data["next"] = list(NEXT_STEPS)
    return TriageReport(data)


def present_versions(request: Request, results: Results) -> TableReport:
    """Image tags, Build labels and the client's JAX version, with mismatches."""
    found = collect(entry for result in results for entry in result.entries)
    data = {
        "action": "versions",
        **found,
        "checks": checks_run(results, request.target.project, request.window),
    }
    rows = [
        {"component": name, "version": found[name] or "not seen"} for name in VERSION_COMPONENTS
    ]
    rows += [
        {"component": f"Build label ({container})", "version": version}
        for container, version in sorted(found["build_labels"].items())
    ]
    footer = [f"- MISMATCH: {problem}" for problem in found["mismatches"]]
    footer += [f"- UNKNOWN VERSION: {problem}" for problem in found["unknown_versions"]]
    return TableReport(data, rows, footer=tuple(footer))
