"""Run one action: its stages through a source (or printed), then its presenter and a renderer."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import TextIO

from pathways_workload import filters
from pathways_workload.describe import resource_labels
from pathways_workload.errors import (
    AccessError,
    CheckFailed,
    CloudLoggingError,
    IncompleteReport,
    UsageError,
)
from pathways_workload.filters import check_valid
from pathways_workload.lql.parser import MAX_FILTER_LENGTH
from pathways_workload.output_stream import keep_note
from pathways_workload.plan import Chain, Results, Stage
from pathways_workload.pod_names import (
    mixed_owner_notes,
    sibling_job_notes,
    sibling_lws_notes,
)
from pathways_workload.query import Request
from pathways_workload.registry import Action
from pathways_workload.render.output import write_report
from pathways_workload.render.printed import GcloudPrinter, Printer, one_name_length
from pathways_workload.reports import Report, TableReport, TriageReport
from pathways_workload.sources.base import Entry, Fetch, Source
from pathways_workload.target import Target
from pathways_workload.window import Window

PRINT_NEEDS_PROJECT = "printing gcloud commands needs --project=PROJECT_ID"

# Says, once a run is over, the window its source learnt (None: it learnt none).
Settle = Callable[[], Window | None]
# How far the logs are known to run, asked once the queries ran (see Request.logged_until_ns).
Until = Callable[[], int | None]


@dataclasses.dataclass(frozen=True)
class Output:
    """Where the answer goes, its format (`text`, `json` or `html`), and print mode's printer."""

    out: TextIO
    err: TextIO
    format: str = "text"  # text, json or html
    verbose: bool = False
    commands_out: str | None = None
    printer: Printer = dataclasses.field(default_factory=GcloudPrinter)

    @property
    def as_json(self) -> bool:
        return self.format == "json"


def _project(request: Request) -> str:
    if not request.target.project:
        raise UsageError(PRINT_NEEDS_PROJECT)
    return request.target.project


def _print(fetches: list[Fetch], request: Request, output: Output) -> None:
    output.printer.commands(fetches, _project(request), request.window, output.out, output.as_json)


def _blame_length(request: Request, length: int) -> None:
    """Say which flag made a query longer than Cloud Logging accepts, if one did."""
    workloads, containers = request.target.workloads, request.target.container_names
    blamed = [
        (flag, what, advice)
        for flag, what, advice, given in (
            (
                "--extra_terms/--extra_term",
                "these terms",
                "search for fewer or shorter terms",
                bool(request.options.extra_terms),
            ),
            (
                "--workload",
                f"{len(workloads)} workloads",
                "name fewer workloads (run once per group of them)",
                len(workloads) > 1,
            ),
            (
                "--container_names",
                f"{len(containers)} containers",
                "name fewer containers",
                bool(containers),
            ),
        )
        if given
    ]
    if blamed:
        flag, what, advice = blamed[0]
        raise UsageError(
            f"{flag}: with {what} a query has {length:,} characters; Cloud Logging accepts at "
            f"most {MAX_FILTER_LENGTH:,}: {advice}"
        )


def _check_filters(fetches: list[Fetch], request: Request, sentinel: str | None = None) -> None:
    """Every filter compiles; one that extra terms pushed past the length limit says so (a
    filter chained to names found earlier, with the longest name in place of `sentinel`)."""
    for item in fetches:
        length = len(item.query.filter)
        if sentinel and sentinel in item.query.filter:
            length = one_name_length(item.query.filter, sentinel)
        if length > MAX_FILTER_LENGTH:
            _blame_length(request, length)
        check_valid(item.query.filter)


def _nothing_to_query(action: Action, output: Output) -> int:
    output.err.write(f"--action={action.name}: nothing to query without the workload's nodes\n")
    return 0


def _built_stages(action: Action, request: Request) -> list[tuple[Stage, Request, list[Fetch]]]:
    """Every stage with the request it sees and its fetches as print mode asks them, each
    filter checked before anything is printed (a bad flag is one line, nothing above it)."""
    built = []
    sentinel = None
    for stage in action.stages:
        fetches = stage.build(request, Results())
        _check_filters(fetches, request, sentinel)
        built.append((stage, request, fetches))
        sentinel = stage.chain.sentinel if stage.chain else sentinel
        if stage.assume:
            request = stage.assume(request)
    return built


def check_stages(action: Action, request: Request, printing: bool) -> None:
    """Build the fetches a run starts with (in print mode every stage's), to raise a flag's
    error (a filter the tool cannot use, a query past the length limit) before anything is
    written."""
    if printing:
        _built_stages(action, action.request_for(request))
        return
    request = action.request_for(request)
    _check_filters(action.stages[0].build(request, Results()), request, None)


def _print_stages(action: Action, request: Request, output: Output) -> int:
    """Print mode: every stage's commands, later stages chained to what earlier ones find."""
    built = _built_stages(action, request)
    chained: tuple[Chain, str] | None = None
    printer = output.printer
    if request.options.first_per_pod:
        printer.grouping_note(output.out, output.err, output.as_json)
    for stage, asked, fetches in built:
        if not fetches and stage.required:
            return _nothing_to_query(action, output)
        project = _project(asked)
        if not fetches and stage.print_note:
            note = printer.note(stage.print_note, asked, project)
            if output.as_json:  # stdout holds JSON records only
                output.err.write(note + "\n")
            else:
                output.out.write(note + "\n\n")
        printer.commands(fetches, project, asked.window, output.out, output.as_json, chained)
        if stage.chain and fetches:
            chained = (stage.chain, printer.recipe(stage.chain, fetches, project))
            printer.write_recipe(*chained, output.out, output.as_json)
    return 0


def _run_stages(
    action: Action, request: Request, source: Source, output: Output
) -> tuple[Request, Results, AccessError | CloudLoggingError | None]:
    """Every stage through the source, up to a required stage with nothing to ask (said
    on stderr: the report then tells what the stages before it found), or up to an
    optional stage Cloud Logging failed or refused, once earlier stages answered (its error
    returned).

    The results returned are those of the stages that answer the action.
    """
    results = answers = Results()
    for stage in action.stages:
        fetches = stage.build(request, results)
        _check_filters(fetches, request)
        if not fetches and stage.required:
            _nothing_to_query(action, output)
            break
        try:
            ahead = stage.anticipate(request) if stage.anticipate else []
            found = source.run(fetches, ahead) if fetches else []
        except (AccessError, CloudLoggingError) as error:
            if not stage.required and list(answers):
                return request, answers, error
            if isinstance(error, AccessError) and action.runs_without_execute:
                _print(fetches, request, output)
            raise
        results = results.plus(found)
        answers = answers.plus(found) if stage.answers else answers
        if stage.learn:
            request, notes = stage.learn(request, results)
            for note in notes:
                output.err.write(note + "\n")
    return request, answers, None


def mixed_scope_notes(target: Target, entries: Sequence[Entry]) -> list[str]:
    """A note when the entries read, with no --project or --cluster_name to keep one, come
    from several projects or clusters (an export of many): they are read here as one."""
    notes = []
    for flag, key, given in (
        ("--project", "project_id", target.project),
        ("--cluster_name", "cluster_name", target.cluster_name),
    ):
        found = sorted({str(resource_labels(entry).get(key) or "") for entry in entries} - {""})
        if not given and len(found) > 1:
            notes.append(
                f"note: the entries read come from {len(found)} {key.split('_')[0]}s "
                f"({', '.join(found)}), read here as one; to read one alone, pass {flag}"
            )
    return notes


# After an optional stage failed: the report was written from the stages before it.
INCOMPLETE = "the report holds only what the checks before that query found, and is incomplete"
NO_SPAN = "the export, which holds no entry with a usable timestamp"


def _settled(
    request: Request, results: Results, settle: Settle, output: Output
) -> tuple[Request, Results]:
    """The run's window once the source has learnt it (an export's span, read in the pass)."""
    span = settle()
    window = span or dataclasses.replace(request.window, note=NO_SPAN)
    output.err.write(window.describe() + "\n")
    if span is not None:
        results = results.rewindowed(filters.within(request.window), filters.within(span))
    until = span.end_ns if span is not None else None
    return dataclasses.replace(request, window=window, logged_until_ns=until), results


def _marked_incomplete(report: Report, said: str) -> Report:
    """The report saying it is incomplete (`incomplete` in its JSON object, a footer line
    under a table); entry lines have nowhere to say it (the error and exit 4 do)."""
    if isinstance(report, TableReport):
        footer = (*report.footer, f"- INCOMPLETE: {said}")
        return dataclasses.replace(report, data={**report.data, "incomplete": said}, footer=footer)
    if isinstance(report, TriageReport):
        return dataclasses.replace(report, data={**report.data, "incomplete": said})
    return report


def run_action(
    action: Action,
    request: Request,
    source: Source | None,
    output: Output,
    settle: Settle | None = None,
    until: Until | None = None,
) -> int:
    """Print or run the action's fetches and write its report; returns the exit code.

    With `settle`, the request's window only bounds what the source holds; the window
    the report gives is what `settle` says once the stages ran (the logs run to its end).
    Else `until` says how far the logs run, once the stages ran.
    """
    request = action.request_for(request)
    if source is None:
        return _print_stages(action, request, output)
    asked, results, failed = _run_stages(action, request, source, output)
    ran = (asked, results)
    if settle is not None:
        ran = _settled(*ran, settle, output)
    elif until is not None:
        ran = (dataclasses.replace(asked, logged_until_ns=until()), results)
    entries = [entry for result in ran[1] for entry in result.entries]
    workloads = request.target.workloads
    notes = (mixed_owner_notes, sibling_lws_notes, sibling_job_notes)
    for note in (note for notes_of in notes for note in notes_of(workloads, entries)):
        output.err.write(note + "\n")
    for note in mixed_scope_notes(request.target, entries):
        output.err.write(note + "\n")
    report = action.present(*ran)
    incomplete = f"{failed}; {INCOMPLETE}" if failed is not None else None
    if incomplete:  # the error line says it on stderr, after the report
        keep_note(output.err, f"warning: {incomplete}")
        report = _marked_incomplete(report, incomplete)
    write_report(
        report,
        output.out,
        output.err,
        output.format,
        verbose=output.verbose,
        commands_out=output.commands_out,
    )
    if failed is not None and incomplete is not None:
        raise IncompleteReport(incomplete, failed.exit_code)
    if isinstance(report, TableReport) and report.failed:
        raise CheckFailed(report.failed)
    return 0
