"""What the actions share: scoped fetches and the term-or-severity match."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pathways_workload import filters, terms
from pathways_workload.query import Query, Request
from pathways_workload.sources.base import Entry, Fetch


def scoped(request: Request, *clauses: str | None) -> str:
    """The clauses ANDed, bounded by the request's window."""
    return filters.all_of([*(c for c in clauses if c), filters.within(request.window)])


def fetch(
    request: Request,
    name: str,
    purpose: str,
    *clauses: str | None,
    limit: int | None = None,
    order: str | None = None,
    until: Callable[[Sequence[Entry]], bool] | None = None,
    per_source: int = 0,
) -> Fetch:
    """A fetch of the scoped clauses; by default as many entries as the output needs
    (with --first_per_pod, asked per source too, for an engine that groups where it reads)."""
    grouping = (request.options.first_per_pod or 0) if limit is None else 0
    return Fetch(
        Query(purpose, scoped(request, *clauses)),
        limit or request.options.fetch_size,
        order or request.options.order,
        name,
        until,
        per_source or grouping,
        source_last=grouping > 0,
    )


def term_match(request: Request, builtin: tuple[str, ...]) -> str | None:
    """A line matches when it has a term OR its severity reaches the floor (a routine
    start-up notice, ERROR only for going to stderr, aside)."""
    if request.floor == "DEFAULT":
        return None
    found = builtin + request.options.extra_terms
    routine = filters.message_has_any(terms.ROUTINE_NOTICES)
    severe = filters.all_of([f"severity>={request.floor}", f"NOT {routine}"])
    return filters.any_of([filters.message_has_any(found), severe])


def narrowing(request: Request, with_terms: bool = True) -> str | None:
    """--min_severity narrows the selection; so do --extra_terms for a query without terms
    (`with_terms`: a query with terms takes them as more terms instead)."""
    clauses = []
    if request.options.min_severity and request.options.min_severity != "DEFAULT":
        clauses.append(f"severity>={request.options.min_severity}")
    if request.options.extra_terms and with_terms:
        clauses.append(filters.message_has_any(request.options.extra_terms))
    return filters.all_of(clauses) or None
