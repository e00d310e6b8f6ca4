"""Entry actions over the workload's containers: the crash sweep and one action per component."""

from __future__ import annotations

from collections.abc import Callable

from pathways_workload import filters, selectors, terms
from pathways_workload.actions.common import fetch, term_match
from pathways_workload.query import Request
from pathways_workload.sources.base import Fetch

Builder = Callable[[Request], list[Fetch]]


def build_errors(request: Request) -> list[Fetch]:
    selection = selectors.container_lines(request.target)
    match = term_match(request, terms.CRASH_TERMS)
    purpose = "crash and fatal-error sweep over every container of the workload"
    return [fetch(request, "crashes", purpose, selection, match)]


def build_elastic(request: Request) -> list[Fetch]:
    """The JAX client and the RM say what the elastic loop did; the proxy, if it was elastic."""
    containers = terms.USER_CONTAINERS + terms.PROXY_CONTAINERS + terms.RM_CONTAINERS
    selection = selectors.container_lines(request.target, containers)
    match = term_match(request, terms.ELASTIC_TERMS + terms.CRASH_TERMS)
    purpose = "elastic recovery timeline (slices lost and back, restores, resume step)"
    return [fetch(request, "elastic", purpose, selection, match)]


def container_action(
    purpose: str, containers: tuple[str, ...], component_terms: tuple[str, ...]
) -> Builder:
    """The builder of a per-container action: its containers, its terms and the crash terms."""

    def build(request: Request) -> list[Fetch]:
        selection = selectors.container_lines(request.target, containers)
        match = term_match(request, component_terms + terms.CRASH_TERMS)
        return [fetch(request, "lines", purpose, selection, match)]

    return build


def build_sidecar(request: Request) -> list[Fetch]:
    sidecars = selectors.container_lines(request.target, terms.SIDECAR_CONTAINERS)
    match = term_match(request, terms.SIDECAR_TERMS + terms.CRASH_TERMS)
    waiting = filters.all_of(
        [
            selectors.container_lines(request.target, terms.WORKER_CONTAINERS, fixed=True),
            filters.message_has_any(terms.SIDECAR_WAITING_TERMS + request.options.extra_terms),
        ]
    )
    return [
        fetch(request, "sidecars", "the colocated Python sidecar containers", sidecars, match),
        fetch(
            request,
            "waiting",
            "workers mentioning the sidecar (waiting for it, losing it)",
            waiting,
        ),
    ]
