"""Triage's later stages: what the first wave's answers leave open, asked within a budget.

Stage two: when the crash sweep was cut, read it on from where it stopped until
every pod of the workload has shown its first crash line; when the events were
cut, read on the ones that are not routine start-up events (a thousand hosts
starting fill the first read); and read the last lines of every pod (and host)
missing from the latest lines, the candidates of a hang. Stage three: the pods
whose crash lines the budget did not reach, by name; and the lines after the
earliest traceback headers. Every stage stays within the run's request budget:
25 requests for a workload of up to 1,024 hosts, 40 above (the project's read
quota is 60 a minute). It is a hard cap on requests sent, retries and partial-scan
pages included: a stage asks only what fits in what is left, and its reads stop
when that is spent.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from pathways_workload import filters, labels, selectors, terms
from pathways_workload.actions import probes
from pathways_workload.actions.common import fetch
from pathways_workload.actions.followups import FOLLOW_UP_PAGES, TRACEBACK_NOTE, traceback_fetches
from pathways_workload.describe import container_of, message, pod_of
from pathways_workload.plan import Build, PrintNote, Results, Stage
from pathways_workload.query import Request
from pathways_workload.sources.base import PAGE_SIZE, Entry, Fetch, Result, entry_time_ns
from pathways_workload.sources.paging import pages_needed, within_pages
from pathways_workload.timestamps import format_timestamp_ns
from pathways_workload.triage import fetches
from pathways_workload.triage.answers import (
    CRASH_NAMES,
    MISSING_CRASHES,
    MORE_CRASHES,
    MORE_EVENTS,
    SUSPECTS,
    UNSEEN_HOSTS,
    TriageResults,
)
from pathways_workload.triage.evidence import QUIET_EVENT_REASONS
from pathways_workload.triage.hosts import (
    HEAD_CONTAINERS,
    HEAD_REPLICATED_JOBS,
    entry_host,
    own_crash_pods,
    pods_in,
)
from pathways_workload.triage.shape import Host, WorkloadShape

LARGE_WORKLOAD_HOSTS = 1024
BUDGET, LARGE_BUDGET = 25, 40
# Requests kept back for the third stage: missing pods and traceback follow-ups.
THIRD_STAGE_RESERVE = 2 + FOLLOW_UP_PAGES
# Lines read per suspect: enough to see how often it logs.
SUSPECT_LINES = 3
# What a read counts lines by: a pod's name, or a host.
K = TypeVar("K")
# The events the read-on of the events leaves out: the routine ones, but a workload's
# completion (routine, yet what says the run finished and its stops are its teardown).
_COMPLETED = {reason for _, reason in terms.COMPLETIONS.values()}
SKIPPED_EVENTS = "NOT " + filters.one_of(
    "jsonPayload.reason", [reason for reason in QUIET_EVENT_REASONS if reason not in _COMPLETED]
)


def budget(shape: WorkloadShape) -> int:
    """The most requests a triage of this workload may make."""
    return LARGE_BUDGET if len(shape.expected) > LARGE_WORKLOAD_HOSTS else BUDGET


def spent(results: Results) -> int:
    return sum(result.requests for result in results)


def _answers(results: Results) -> TriageResults:
    """The results by question, once per stage (its caches shared by every builder)."""
    return results.derived("answers", lambda: TriageResults.of(results))


def _shape(results: Results) -> WorkloadShape:
    return _answers(results).shape()


def _all_crashed(wanted: set[str], already: set[str]) -> Callable[[Sequence[Entry]], bool]:
    """Every wanted pod has a crash line of its own among the entries (or already)."""

    def seen(entries: Sequence[Entry]) -> bool:
        return wanted <= already | own_crash_pods(entries)

    return seen


def _each_seen(
    wanted: set[K], times: int, key: Callable[[Entry], K | None]
) -> Callable[[Sequence[Entry]], bool]:
    """Every wanted pod, host or other `key` of an entry has at least `times` lines among
    the entries."""

    def seen(entries: Sequence[Entry]) -> bool:
        counts: dict[K, int] = {}
        for found in map(key, entries):
            if found is not None and found in wanted:
                counts[found] = counts.get(found, 0) + 1
        return len(counts) == len(wanted) and min(counts.values(), default=times) >= times

    return seen


def _since(entries: Sequence[Entry]) -> str:
    """From the latest instant the entries reached (its lines there come again); "" (from
    the window's start) when there are none."""
    if not entries:
        return ""
    return f'timestamp>="{format_timestamp_ns(max(map(entry_time_ns, entries)))}"'


def _crashes_from(request: Request, after: Result, extra: str = "") -> str:
    """The crash sweep from the last instant `after` reached."""
    return filters.all_of(
        [
            selectors.container_lines(request.target),
            extra,
            fetches.crash_match(request),
            _since(after.entries),
        ]
    )


def _more_crashes(request: Request, results: Results, pages: int) -> list[Fetch]:
    """Read the crash sweep on until every known pod has its first crash line."""
    sweep = results.all(fetches.CRASHES)
    if not sweep or not sweep[0].truncated or sweep[0].answered or pages <= 0:
        return []
    first = sweep[0]
    wanted = set(_shape(results).pods)
    return [
        fetch(
            request,
            MORE_CRASHES,
            "the crash sweep read on, until every pod has its first crash line",
            _crashes_from(request, first),
            limit=pages * PAGE_SIZE,
            order="asc",
            until=_all_crashed(wanted, own_crash_pods(first.entries)),
        )
    ]


def _more_events(request: Request, results: Results) -> list[Fetch]:
    """When the events were cut, the rest of them but the routine ones, from where they stopped."""
    first = results.all(fetches.EVENTS)
    if not first or not first[0].truncated:
        return []
    return [
        fetch(
            request,
            MORE_EVENTS,
            "the workload's Kubernetes events read on, but routine start-up ones",
            selectors.workload_events(request.target),
            SKIPPED_EVENTS,
            _since(first[0].entries),
            limit=PAGE_SIZE,
            order="asc",
        )
    ]


def _by_pod(
    request: Request,
    name: str,
    purpose: str,
    pods: list[str],
    pages: int,
    extra: str = "",
) -> list[Fetch]:
    """Fetches about these pods by name, split to fit the filter limit, sharing `pages`.

    The latest first for hang suspects (until each pod shows SUSPECT_LINES lines); the
    earliest first otherwise (until each pod shows up).
    """
    chunks = filters.split_to_fit(
        pods,
        lambda chunk: filters.all_of([filters.one_of("resource.labels.pod_name", chunk), extra]),
    )[:pages]
    share = max(1, pages // max(1, len(chunks)))
    latest = name == SUSPECTS
    return [
        fetch(
            request,
            name,
            purpose,
            selectors.container_lines(request.target),
            text,
            limit=share * PAGE_SIZE,
            order="desc" if latest else "asc",
            until=(
                _each_seen(set(chunk), SUSPECT_LINES, pod_of)
                if latest
                else _all_crashed(set(chunk), set())
            ),
        )
        for chunk, text in chunks
    ]


def _suspect_pods(results: Results, shape: WorkloadShape) -> list[str]:
    """Pods missing from the latest lines (but those a restart replaced): they went quiet,
    or log less often than the tail."""
    return sorted(shape.unheard(pods_in(results.entries(fetches.TAIL))))


def _one_host(slice_: str, host: str) -> str:
    """The lines of a TPU host by its slice and index: the index by its label, or by the
    pod's name (`<job>-<index>-<suffix>`) where the label is missing (before Kubernetes
    1.28)."""
    in_slice = filters.equals(filters.label(labels.JOBSET_JOB_INDEX), slice_)
    index = filters.equals(filters.label(labels.JOB_COMPLETION_INDEX), host)
    named = f'resource.labels.pod_name=~"-{slice_}-{host}-[a-z0-9]{{5}}$"'
    return f"({in_slice} AND ({index} OR {named}))"


def _host_clause(hosts: Sequence[Host]) -> str:
    """The lines of these TPU hosts, by slice and index; not the head pod's, which is slice
    0, index 0 of its own replicated job."""
    head = filters.any_of(
        [
            filters.one_of("resource.labels.container_name", HEAD_CONTAINERS),
            filters.one_of(filters.label(labels.JOBSET_REPLICATED_JOB), HEAD_REPLICATED_JOBS),
        ]
    )
    return filters.all_of([f"NOT {head}", filters.any_of(_one_host(s, h) for s, h in hosts)])


def _suspects(request: Request, results: Results, pages: int) -> list[Fetch]:
    """The last lines of every pod the latest lines miss, and of hosts no line has shown."""
    shape = _shape(results)
    found: list[Fetch] = []
    pods = _suspect_pods(results, shape)
    if pods and pages > 0:
        found += _by_pod(
            request,
            SUSPECTS,
            "the last lines of the pods missing from the latest lines (who went quiet, and when)",
            pods,
            pages,
        )
    unseen = shape.unseen_hosts()
    left = pages - sum(pages_needed(asked.limit) for asked in found)
    chunks = filters.split_to_fit(unseen, _host_clause)[: max(0, left)] if unseen else []
    share = max(1, left // max(1, len(chunks)))
    for chunk, text in chunks:
        found.append(
            fetch(
                request,
                UNSEEN_HOSTS,
                "the last lines of hosts the labels say exist but no line showed",
                selectors.container_lines(request.target),
                text,
                limit=share * PAGE_SIZE,
                order="desc",
                until=_each_seen(set(chunk), SUSPECT_LINES, entry_host),
            )
        )
    return found


def _probes(request: Request, results: Results) -> list[Fetch]:
    """Where the first wave saw nothing, whether the logs hold that kind of evidence at all."""
    found = _answers(results)
    empty = {
        probes.EVENTS_ANY: not found.entries(found.events),
        probes.NODE_ANY: not found.entries(found.node_events),
        probes.SERIAL_ANY: not any(
            "serialconsole" in str(e.get("logName")) for e in found.entries(found.instances)
        ),
    }
    asked = probes.probe_fetches(request, [kind for kind, gap in empty.items() if gap])
    seen = {container_of(e) for e in found.entries(found.crashes + found.startup + found.latest)}
    head = (terms.USER_CONTAINERS, terms.PROXY_CONTAINERS, terms.RM_CONTAINERS)
    if any(seen.isdisjoint(containers) for containers in head):
        asked.append(probes.head_lines_fetch(request))
    tail = results.all(fetches.TAIL)
    stepped = any(fetches.PROGRESS_TERM in message(e) for e in results.entries(fetches.TAIL))
    if tail and tail[0].truncated and not stepped:
        asked.append(fetches.progress_fetch(request))  # when did training last advance
    return asked


def second_stage(request: Request, results: Results) -> list[Fetch]:
    asked = _probes(request, results) + _more_events(request, results)
    left = budget(_shape(results)) - spent(results) - len(asked) - THIRD_STAGE_RESERVE
    more = _more_crashes(request, results, max(0, left - 2))
    used = sum(f.limit // PAGE_SIZE for f in more)
    return asked + more + _suspects(request, results, max(0, left - used))


def _missing_crashes(request: Request, results: Results, pages: int) -> list[Fetch]:
    """Pods the crash sweep never reached within its budget, asked for by name."""
    crash_results = [r for name in CRASH_NAMES for r in results.all(name)]
    last = crash_results[-1] if crash_results else None
    if last is None or not last.truncated or last.answered or pages <= 0:
        return []
    seen = own_crash_pods(e for r in crash_results for e in r.entries)
    missing = sorted(_shape(results).pods - seen)
    if not missing:
        return []
    return _by_pod(
        request,
        MISSING_CRASHES,
        "crash lines of the pods the sweep did not reach",
        missing,
        pages,
        filters.all_of([fetches.crash_match(request), _since(last.entries)]),
    )


def third_stage(request: Request, results: Results) -> list[Fetch]:
    left = budget(_shape(results)) - spent(results)
    missing = _missing_crashes(request, results, max(0, left - FOLLOW_UP_PAGES))
    crashes = _answers(results).entries(_answers(results).crashes)
    return missing + traceback_fetches(request, crashes)


# Print mode: how to read on the crash sweep and the events, and the last lines of quiet
# pods, by hand.
READ_ON_NOTE = PrintNote(
    lambda request: (
        f"then, when the crash sweep above comes back with all {request.options.fetch_limit} "
        "lines: run it again with",
        "its timestamp>= bound moved to the last line's timestamp, until every pod of the",
        "workload shows up; when the events query does, run it again from its last event with",
        f"{SKIPPED_EVENTS} added;",
        "and for each pod missing from the latest lines, run the latest",
        'lines query with resource.labels.pod_name="POD" added, to see when it went quiet',
    )
)


def _probes_ahead(request: Request) -> list[Fetch]:
    """Every question of the second stage built from the request alone."""
    return probes.probe_fetches(request, probes.ALL_KINDS)


def _budgeted(build: Build) -> Build:
    """A stage's builder whose fetches are held `within_pages` of the requests the run has
    left: those that do not fit are not asked, and those asked stop when it is spent."""

    def held(request: Request, results: Results) -> list[Fetch]:
        left = budget(_shape(results)) - spent(results)
        return within_pages(build(request, results), left)

    return held


STAGES = (
    Stage(
        _budgeted(lambda request, _: fetches.triage_fetches(request)),
        anticipate=lambda request: within_pages(_probes_ahead(request)),
    ),
    Stage(_budgeted(second_stage), required=False, print_note=READ_ON_NOTE),
    Stage(_budgeted(third_stage), required=False, print_note=TRACEBACK_NOTE),
)
