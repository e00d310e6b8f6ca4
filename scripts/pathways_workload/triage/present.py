"""Triage's and the versions action's reports, from their named results."""

from __future__ import annotations

from typing import Any

from pathways_workload import terms
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
# The containers each per-container step of NEXT_STEPS reads.
STEP_CONTAINERS = dict(
    zip(
        NEXT_STEPS,
        (
            terms.WORKER_CONTAINERS,
            terms.PROXY_CONTAINERS,
            terms.RM_CONTAINERS,
            terms.USER_CONTAINERS,
        ),
    )
)
# When the workload's containers logged nothing: why its pods did not start, or never ran.
NEVER_STARTED_STEPS = ("--action=pod-events", "--action=summary", "--action=preflight")
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
    data["next"] = []
    finished = root is None and data["completed"] is not None  # nothing to look closer at
    unexplained = root is None or (root["scenario"] is None and not root["downstream_only"])
    if unexplained and not finished:
        logged = any(
            kind["seen"] for kind in data["coverage"]["kinds"] if kind["kind"] == "container logs"
        )
        data["next"] = _next_steps(root) if logged else list(NEVER_STARTED_STEPS)
    return TriageReport(data)


def _next_steps(root: dict[str, Any] | None) -> list[str]:
    """The steps to look closer, the one that reads the root cause's container first."""
    container = root["container"] if root else None
    own = [step for step, names in STEP_CONTAINERS.items() if container in names]
    return own + [step for step in NEXT_STEPS if step not in own]


def present_versions(request: Request, results: Results) -> TableReport:
    """Image tags, Build labels and the client's JAX version, with mismatches; when a read was
    cut by --fetch_limit, a version not seen may only be unread, and the report says so."""
    found = collect(entry for result in results for entry in result.entries)
    cut = [result.fetch.query.purpose for result in results if result.truncated]
    data = {
        "action": "versions",
        "window": request.window.as_json(),
        **found,
        "complete": not cut,
        "checks": checks_run(results, request.target.project, request.window),
    }
    unseen = "not seen (unread?)" if cut else "not seen"
    rows = [{"component": name, "version": found[name] or unseen} for name in VERSION_COMPONENTS]
    rows += [
        {"component": f"Build label ({container})", "version": version}
        for container, version in sorted(found["build_labels"].items())
    ]
    footer = [f"- MISMATCH: {problem}" for problem in found["mismatches"]]
    footer += [f"- UNKNOWN VERSION: {problem}" for problem in found["unknown_versions"]]
    footer += [
        f"- Incomplete: --fetch_limit={request.options.fetch_limit} cut the read of the "
        f"{purpose}: versions and mismatches logged later are missing (raise --fetch_limit, "
        "or narrow the window to the start of the run)"
        for purpose in cut
    ]
    return TableReport(data, rows, footer=tuple(footer))
