"""Run one action: discover nodes when needed, then print its queries or run them."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TextIO

from pathways_workload import actions, reports
from pathways_workload.actions import Action
from pathways_workload.errors import UsageError
from pathways_workload.executor import shape
from pathways_workload.nodes import nodes_from
from pathways_workload.query import NODES_PLACEHOLDER, Query, Request
from pathways_workload.render import write_commands, write_stream
from pathways_workload.sources.base import Fetch, Result, Source
from pathways_workload.sources.files import compile_checked

EMPTY_HINT = (
    "an empty result is not a clean result until --action=preflight passes; widen with "
    "--min_severity=WARNING or --extra_terms"
)


@dataclasses.dataclass
class Run:
    """One invocation: the action, its request, where entries come from, where output goes."""

    action: Action
    request: Request
    source: Source | None
    project: str | None
    out: TextIO
    err: TextIO
    as_json: bool = False

    def fetches(self, queries: list[Query], size: int | None = None) -> list[Fetch]:
        """The queries with the request's order and a limit (by default what it needs)."""
        limit = size or self.request.options.fetch_size
        return [Fetch(query, limit, self.request.options.order) for query in queries]

    def fetch(self, queries: list[Query], size: int | None = None) -> list[Result]:
        assert self.source is not None
        return self.source.run(self.fetches(queries, size))

    def print_fetches(self, fetches: list[Fetch]) -> None:
        if not self.project:
            raise UsageError("printing gcloud commands needs --project=PROJECT_ID")
        write_commands(fetches, self.project, self.request.window, self.out, self.as_json)

    def print_queries(self, queries: list[Query], size: int | None = None) -> None:
        self.print_fetches(self.fetches(queries, size))


def _with_nodes(run: Run) -> Request:
    """The request with the workload's nodes: given, discovered, or a placeholder in print mode."""
    request = run.request
    if request.target.node_names:
        return request.with_nodes(request.target.node_names)
    discovery = actions.discovery_queries(request)
    if run.source is None:
        run.print_queries(discovery, request.options.fetch_limit)
        return request.with_nodes((NODES_PLACEHOLDER,))
    nodes = nodes_from(run.fetch(discovery, request.options.fetch_limit))
    if nodes:
        run.err.write(f"nodes of the workload: {', '.join(nodes)}\n")
        return request.with_nodes(nodes)
    run.err.write(
        "no nodes found for the workload in the window (no Scheduled events or lines); "
        "pass --node_names=NODE,NODE\n"
    )
    return request.with_nodes(())


def _run_entries(run: Run, queries: list[Query], marker: Callable[..., str] | None) -> int:
    stream = shape(run.fetch(queries), run.request.options)
    write_stream(stream, run.out, run.as_json, marker)
    for note in stream.notes:
        run.err.write(note + "\n")
    if not stream.entries:
        run.err.write(f"no entries matched in {run.request.window.span()}\n")
        run.err.write((run.action.empty_hint or EMPTY_HINT) + "\n")
    else:
        run.err.write(f"{len(stream.entries)} entries\n")
    return 0


def run_action(run: Run) -> int:
    """Build the action's queries and print or run them; returns the exit code."""
    request = run.request
    if run.action.needs_nodes and request.nodes is None:
        run = dataclasses.replace(run, request=_with_nodes(run))
    queries = run.action.queries(run.request)
    for query in queries:
        compile_checked(query.filter)
    if not queries:
        run.err.write(
            f"--action={run.action.name}: nothing to query without the workload's nodes\n"
        )
        return 0
    if run.action.report:
        return reports.REPORTS[run.action.name](run, queries)
    if run.source is None:
        run.print_queries(queries)
        return 0
    marker = reports.node_marker(run.request) if run.action.marks_nodes else None
    return _run_entries(run, queries, marker)
