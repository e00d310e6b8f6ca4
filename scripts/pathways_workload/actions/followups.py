"""Follow-ups of a crash sweep: the lines after each traceback header, to find its exception.

The headers of one sweep are batched into one query (an OR of pod, container
and time ranges; split only to stay under the filter length limit), read
until every traceback has its exception line, within FOLLOW_UP_PAGES pages:
a traceback on every one of a thousand hosts costs a few requests, not a
thousand.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from pathways_workload import filters, selectors, tracebacks
from pathways_workload.actions.common import fetch
from pathways_workload.describe import container_of, pod_of, where
from pathways_workload.plan import PrintNote, Results, Stage
from pathways_workload.query import Query, Request
from pathways_workload.shaping import identity
from pathways_workload.sources.base import PAGE_SIZE, Entry, Fetch, entry_time_ns
from pathways_workload.timestamps import format_timestamp_ns
from pathways_workload.window import Window

FOLLOW_UPS = "traceback_lines"
FOLLOW_UP_PAGES = 3
# As many headers as the follow-up pages can hold whole tracebacks of.
MOST_HEADERS = FOLLOW_UP_PAGES * PAGE_SIZE // tracebacks.FOLLOW_LINES
PURPOSE = (
    "the lines after each traceback header (the next 10 s of its container), for its exception"
)


def _after(header: Entry) -> str:
    """The header's container, from the header to FOLLOW_NS after it."""
    start = entry_time_ns(header)
    return (
        f"({filters.equals('resource.labels.pod_name', pod_of(header) or '')} AND "
        f"{filters.equals('resource.labels.container_name', container_of(header) or '')} AND "
        f'timestamp>="{format_timestamp_ns(start)}" AND '
        f'timestamp<="{format_timestamp_ns(start + tracebacks.FOLLOW_NS)}")'
    )


def _searchable(header: Entry) -> bool:
    """Whether a filter can name the header's pod and container (a name with a control
    character, which no Kubernetes object has, cannot be searched for: it is not followed up)."""
    return not any(
        filters.unsearchable(name or "") for name in (pod_of(header), container_of(header))
    )


def _all_ended(headers: Sequence[Entry]) -> Callable[[Sequence[Entry]], bool]:
    def ended(entries: Sequence[Entry]) -> bool:
        return all(tracebacks.assemble(h, entries).exception is not None for h in headers)

    return ended


def traceback_fetches(request: Request, found: Sequence[Entry]) -> list[Fetch]:
    """The follow-up queries for the earliest traceback headers among `found`."""
    headers = [h for h in tracebacks.first_headers(found, MOST_HEADERS) if _searchable(h)]
    if not headers:
        return []
    scope = selectors.cluster_scope("k8s_container", request.target, namespaced=True)

    def build(chunk: Sequence[Entry]) -> str:
        return filters.all_of([scope, filters.any_of(_after(header) for header in chunk)])

    return [
        fetch(
            request,
            FOLLOW_UPS,
            PURPOSE,
            text,
            limit=min(len(chunk) * tracebacks.FOLLOW_LINES, FOLLOW_UP_PAGES * PAGE_SIZE),
            order="asc",
            until=_all_ended(chunk),
        )
        for chunk, text in filters.split_to_fit(headers, build)
    ]


def exceptions_of(found: Sequence[Entry], results: Results) -> dict[tuple[str, str, str], Entry]:
    """Each traceback header among `found` (by identity) and the exception line that ends it."""
    lines = results.entries(FOLLOW_UPS)
    ends = {}
    for header in tracebacks.first_headers(found, MOST_HEADERS):
        exception = tracebacks.assemble(header, lines).exception
        if exception is not None:
            ends[identity(header)] = exception
    return ends


def cut_short(
    found: Sequence[Entry], ends: Mapping[tuple[str, str, str], Entry], window: Window
) -> list[str]:
    """A note for each traceback header among `found` without its exception line, whose
    follow-up the window's end cut short."""
    return [
        f"note: the traceback at {header.get('timestamp')} in {where(header)} has no exception "
        f"line before the window's end ({window.end}): read past it with a later --end_time"
        for header in tracebacks.first_headers(found, MOST_HEADERS)
        if identity(header) not in ends
        and entry_time_ns(header) + tracebacks.FOLLOW_NS > window.end_ns
    ]


def _example(request: Request) -> Fetch:
    """Print mode: the follow-up of one header, its pod, container and times as placeholders."""
    scope = selectors.cluster_scope("k8s_container", request.target, namespaced=True)
    text = filters.all_of(
        [
            scope,
            'resource.labels.pod_name="POD"',
            'resource.labels.container_name="CONTAINER"',
            'timestamp>="START"',
            'timestamp<="END"',
        ]
    )
    return Fetch(Query(PURPOSE, text), tracebacks.FOLLOW_LINES, "asc", FOLLOW_UPS)


# Print mode: how to read a traceback's exception by hand, for each header found.
TRACEBACK_NOTE = PrintNote(
    lambda _: (
        f"then, for the first `{tracebacks.HEADER}` line of each container the sweep",
        "above prints (as a run with --execute follows them up): its exception line is in",
        "the next 10 s of the same container; substitute the header's pod, container,",
        "timestamp (START) and 10 s later, or the window's end if sooner (END), in:",
    ),
    _example,
)


def after_sweep(sweep: str) -> Stage:
    """A stage that follows up the traceback headers of the fetches named `sweep`."""
    return Stage(
        lambda request, results: traceback_fetches(request, results.entries(sweep)),
        required=False,
        print_note=TRACEBACK_NOTE,
    )
