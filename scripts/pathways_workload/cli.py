"""The command line: parse flags, pick a source, run the action, map errors to exit codes.

This is the only place that turns exceptions into messages and exit codes.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from typing import TextIO, cast

from pathways_workload import filters, target, user_filter
from pathways_workload.actions import tally
from pathways_workload.analytics import sql
from pathways_workload.analytics.dataset import Dataset
from pathways_workload.arguments import (
    analytics_flags,
    build_parser,
    options_from,
    target_flags,
    window_flags,
)
from pathways_workload.errors import CheckFailed, IncompleteReport, ToolError, UsageError
from pathways_workload.output_file import check_destinations, destination
from pathways_workload.output_stream import (
    GuardedOutput,
    NoteRecorder,
    NotesOutput,
    standard_streams,
)
from pathways_workload.plan import Results
from pathways_workload.query import Request
from pathways_workload.registry import ACTIONS, Action
from pathways_workload.render.html import HTML_REPORTS
from pathways_workload.render.printed import GcloudPrinter, Printer
from pathways_workload.reports import EntryReport
from pathways_workload.runner import (
    NO_SPAN,
    PRINT_NEEDS_PROJECT,
    Output,
    Settle,
    Until,
    check_stages,
    run_action,
)
from pathways_workload.sources.base import PAGE_SIZE, Source
from pathways_workload.sources.files import FileSource, plausible_window
from pathways_workload.sources.text_logs import TextLogOptions, TextLogs
from pathways_workload.timestamps import format_timestamp_ns, parse_timestamp_ns
from pathways_workload.visible_text import VisibleControls
from pathways_workload.window import Window, WindowFlags, as_given, resolve_window

Clock = Callable[[], int]
# A bug in the tool (EX_SOFTWARE), apart from 1, a check that ran and failed.
INTERNAL_ERROR = 70


def _cloud_source(project: str | None, err: TextIO) -> Source:
    """The Cloud Logging source; it imports the client only when a query runs."""
    if not project:
        raise UsageError("running queries against Cloud Logging needs --project=PROJECT_ID")
    from pathways_workload.sources.cloud import CloudSource

    return CloudSource(project, err=err)


def _only_duration(flags: WindowFlags) -> bool:
    """Only --duration: the window ends where the export ends."""
    others = (flags.start_time, flags.end_time, flags.issue_time)
    return flags.duration is not None and others == (None, None, None)


@dataclasses.dataclass(frozen=True)
class _Engine:
    """The query engine chosen: Log Analytics when `dataset` is set, and what it selects."""

    dataset: Dataset | None
    project: str | None
    full: bool

    def printer(self) -> Printer:
        """Print mode's printer, once what every printed query needs is checked."""
        if self.dataset is None:
            if not self.project:
                raise UsageError(PRINT_NEEDS_PROJECT)
            return GcloudPrinter()
        from pathways_workload.analytics import engine

        return engine.printer(self.dataset, self.project, self.full)

    def offline(self, paths: list[str], files: FileSource, stack: ExitStack) -> Source:
        if self.dataset is None:
            return files
        from pathways_workload.analytics import engine

        return engine.offline_source(
            paths, self.dataset, self.project, self.full, stack, files.text, files.files()
        )

    def span(self, files: FileSource) -> Window | None:
        """The export's span; Log Analytics keeps timestamps to the microsecond, so there it
        starts at the earliest entry's microsecond, which a start inside it would exclude."""
        span = files.span()
        if span is None or self.dataset is None:
            return span
        return dataclasses.replace(span, start_ns=sql.micros(span.start_ns) * sql.NANOS_PER_MICRO)

    def note_start(self, window: Window, filter_text: str | None, err: TextIO) -> None:
        """Log Analytics: say when the window starts inside a microsecond, which BigQuery does
        not keep: the query starts at the next one, leaving out a line logged before it
        (and when --filter's own `timestamp>=` does)."""
        if self.dataset is None or window.note:
            return
        _note_filter_start(window, filter_text, err)
        if not window.start_ns % sql.NANOS_PER_MICRO:
            return
        after, before = _microseconds_around(window.start_ns)
        err.write(
            f"note: BigQuery keeps microseconds, so the window starts at the next one, {after}: "
            f"a line logged from {format_timestamp_ns(window.start_ns)} to then is left out; "
            f"to read it, give --start_time={before} --end_time="
            f"{format_timestamp_ns(window.end_ns)} (a line up to 1 µs before the start is then "
            "read too)\n"
        )

    def check_filter(self, text: str, offline: bool) -> None:
        """Log Analytics: the user's --filter needs an exact SQL mapping on its own; offline,
        the engine must be able to evaluate it (the query action checks the query language
        for both engines)."""
        if self.dataset is not None:
            from pathways_workload.analytics import engine

            engine.check_user_filter("--filter", text)
        elif offline:
            user_filter.check_evaluable("--filter", text)

    def cloud(self, err: TextIO) -> Source:
        if self.dataset is None:
            return _cloud_source(self.project, err)
        from pathways_workload.analytics import engine

        return engine.bigquery_source(self.dataset, self.project, self.full, err)


def _note_filter_start(window: Window, filter_text: str | None, err: TextIO) -> None:
    """Say when --filter's top-level `timestamp>=`, later than the window's start, lies inside
    a microsecond: the SQL starts at the next one, as for --start_time."""
    from pathways_workload.analytics import where
    from pathways_workload.lql import LqlError

    try:
        start = where.bounds(filter_text).start_ns if filter_text else None
    except LqlError:
        return
    if start is None or start <= window.start_ns or not start % sql.NANOS_PER_MICRO:
        return
    after, before = _microseconds_around(start)
    bound = format_timestamp_ns(start)
    err.write(
        f'note: BigQuery keeps microseconds, so --filter\'s timestamp>="{bound}" reads from '
        f"the next one, {after}: a line logged from {bound} to then is left out; to read it, "
        f'write timestamp>="{before}" (a line up to 1 µs before it is then read too)\n'
    )


def _microseconds_around(instant_ns: int) -> tuple[str, str]:
    """The microsecond after an instant inside one (where BigQuery's read starts) and the one
    it is inside, as timestamps."""
    after = sql.micros(instant_ns, round_up=True) * sql.NANOS_PER_MICRO
    return format_timestamp_ns(after), format_timestamp_ns(
        sql.micros(instant_ns) * sql.NANOS_PER_MICRO
    )


def _engine(args: argparse.Namespace, action: Action, project: str | None) -> _Engine:
    """The engine; text output of an entry action needs only the columns a line prints."""
    # Grouping in SQL checks attached lines against the filters, which read every column.
    full = args.format != "text" or action.report is not EntryReport or bool(args.first_per_pod)
    return _Engine(analytics_flags(args), project, full)


def _text_logs(
    args: argparse.Namespace, tgt: target.Target, window: Window | None, now_ns: int, err: TextIO
) -> TextLogs:
    """How text container logs among the files are read: what the flags say about them."""
    pods = [workload.name for workload in tgt.workloads if workload.kind == "pod"]
    options = TextLogOptions(
        format=args.logs_format or "auto",
        namespace=tgt.namespace,
        project=tgt.project,
        cluster_name=tgt.cluster_name,
        location=tgt.location,
        workloads=tgt.workloads,
        pod=pods[0] if len(pods) == 1 else None,
        containers=tgt.container_names,
        window=window,
        now_ns=now_ns,
        folders=tuple(args.logs_file),
        tell=lambda note: print(note, file=err),
    )
    return TextLogs(options)


def _source_and_window(
    args: argparse.Namespace,
    action: Action,
    tgt: target.Target,
    engine: _Engine,
    clock: Clock,
    err: TextIO,
    stack: ExitStack,
) -> tuple[Source | None, Window, Settle | None, Until | None]:
    """Where entries come from, the window (the flags', else the export's span or the hour),
    and how far the logs run (`Until`): to now in the cloud, to the export's last entry
    offline, neither past the window's end.

    Replaying an export with no window flag, the default engine learns the export's span
    in the same pass that answers the queries (`Settle`), instead of reading it first.
    """
    flags = window_flags(args)
    if args.logs_file:
        flagged = None
        if flags.any_given() and not _only_duration(flags):
            flagged = resolve_window(flags, clock())
        text = _text_logs(args, tgt, flagged, clock(), err)
        files = FileSource(
            args.logs_file,
            err=err,
            now_ns=clock(),
            text=text,
            window=flagged,
            project=tgt.project,
        )
        if not flags.any_given() and engine.dataset is None:
            return files, plausible_window(clock()), files.span, None
        span = None if flagged else engine.span(files)
        window = flagged or resolve_window(flags, span.end_ns if span else clock(), span)
        if span is None and not flags.any_given():  # no entry with a usable timestamp
            window = dataclasses.replace(plausible_window(clock()), note=NO_SPAN)
        until = _export_until(window, span, files if engine.dataset is None else None)
        return engine.offline(args.logs_file, files, stack), window, None, until
    if args.logs_format is not None:
        raise UsageError("--logs_format goes with --logs_file")
    window = resolve_window(flags, clock())
    if _reads_entries(args, action):
        return engine.cloud(err), window, None, lambda: min(window.end_ns, clock())
    return None, window, None, None


def _export_until(window: Window, span: Window | None, files: FileSource | None) -> Until:
    """How far the exports' logs run: to their last entry (their `span` when known, else as
    the pass over `files` learnt it), never past the window's end; None when unknown."""

    def until() -> int | None:
        end = span.end_ns if span else (files.learnt_end_ns() if files is not None else None)
        return min(window.end_ns, end) if end is not None else None

    return until


def _note_future(window: Window, now_ns: int, err: TextIO) -> None:
    """Say when the window starts after now: nothing can have been logged in it yet, and an
    empty answer would pass for a quiet workload (a mistyped year, a local time read as UTC)."""
    if window.start_ns > now_ns:
        err.write(
            f"note: the window starts after now ({format_timestamp_ns(now_ns)}): nothing can "
            "have been logged in it yet; check the date and the UTC offset of the window flags "
            "(a time without an offset is UTC)\n"
        )


def _reads_entries(args: argparse.Namespace, action: Action) -> bool:
    """Whether the run reads entries (an export, or the cloud) rather than only printing
    the commands that would."""
    return bool(args.logs_file or args.execute or action.runs_without_execute)


def _check_html(action: Action, printing: bool) -> None:
    """--format=html is a report of what was found (triage's, or an entry action's), so
    there must be something to find: checked before any export is read."""
    if action.report not in HTML_REPORTS:
        raise UsageError(
            f"--format=html: --action={action.name} has no HTML report (triage and the entry "
            "actions have one); use --format=text or --format=json"
        )
    if printing:
        raise UsageError(
            "--format=html draws what the queries found: add --execute or --logs_file=PATH "
            "(without them the commands are printed: --format=text or --format=json)"
        )


def _check_narrowing(args: argparse.Namespace, action: Action) -> None:
    """--extra_terms, --extra_term and --min_severity narrow an action's queries; given to
    one they cannot narrow, they would be silently ignored."""
    given = [
        flag
        for flag, value in (
            ("--extra_terms", args.extra_terms),
            ("--extra_term", args.extra_term),
            ("--min_severity", args.min_severity),
        )
        if value
    ]
    if given and action.reads_whole:
        raise UsageError(f"{given[0]} does not narrow --action={action.name}: {action.reads_whole}")


def _check_entry_flags(args: argparse.Namespace, action: Action) -> None:
    """--first_per_pod, --limit and --order shape the lines an entry action prints; a report
    action (a table, triage) prints no such lines. --node_names names the nodes the node
    actions read; others read none. Given to another action, each would be silently ignored."""
    shaping = [
        (flag, what)
        for flag, given, what in (
            ("--first_per_pod", args.first_per_pod, "groups"),
            ("--limit", args.limit, "cuts"),
            ("--order", args.order, "orders"),
        )
        if given
    ]
    if shaping and action.report is not EntryReport:
        flag, what = shaping[0]
        raise UsageError(
            f"{flag} {what} the lines an entry action prints; --action={action.name} writes a "
            "report (--fetch_limit bounds what its reads fetch)"
        )
    if args.node_names and not action.reads_nodes:
        readers = ", ".join(name for name, other in ACTIONS.items() if other.reads_nodes)
        raise UsageError(
            f"--node_names names the nodes these actions read: {readers}; "
            f"--action={action.name} reads no node's logs"
        )


def _note_idle_fetch_limit(args: argparse.Namespace, action: Action, err: TextIO) -> None:
    """--fetch_limit bounds what an entry action fetches before --first_per_pod groups it (and
    what node discovery reads past its own floor); otherwise the action fetches --limit lines,
    so say it is idle."""
    if args.fetch_limit is None or args.first_per_pod or action.report is not EntryReport:
        return
    floor = tally.REPORT_PAGES * PAGE_SIZE
    if action.reads_nodes and args.fetch_limit > floor:
        return
    discovery = (
        f", and its node discovery reads up to {floor:,} lines unless --fetch_limit is higher"
        if action.reads_nodes
        else ""
    )
    err.write(
        "note: --fetch_limit bounds the lines fetched before --first_per_pod groups them; "
        f"without --first_per_pod, --action={action.name} fetches at most --limit lines"
        f"{discovery}, so --fetch_limit changes nothing here\n"
    )


def _note_container_names_offline(action: Action, request: Request, err: TextIO) -> None:
    """Replayed, an action that reads every container by role takes --container_names only as
    the container of text logs that name none: say so, as a JSON export ignores it."""
    if request.target.container_names and action.every_container:
        err.write(
            f"note: --action={action.name} reads every container of the workload by role: "
            "--container_names only names the container of text logs that name none (no "
            "[pod/NAME/CONTAINER] prefix, no POD/CONTAINER.log path)\n"
        )


def _check_container_names(action: Action, request: Request, offline: bool) -> None:
    """--container_names narrows the container lines an action reads; an action whose first
    queries read none (events, nodes), or that reads every container by role and has no text
    logs to name the container of, would silently ignore it."""
    names = request.target.container_names
    if not names or (action.every_container and offline):
        return
    if action.every_container:
        raise UsageError(
            f"--container_names: --action={action.name} reads every container of the workload "
            "by role; the flag only names the container of text logs given with --logs_file: "
            "leave it out"
        )
    clause = filters.one_of("resource.labels.container_name", names)
    fetches = action.stages[0].build(action.request_for(request), Results())
    if not any(clause in fetch.query.filter for fetch in fetches):
        if request.options.filter_text is not None:
            raise UsageError(
                f"--container_names: --action={action.name} reads what --filter selects: put "
                f'resource.labels.container_name="{names[0]}" in --filter instead'
            )
        raise UsageError(
            f"--container_names selects container lines; --action={action.name} reads none "
            "(its events or nodes belong to pods, not containers): leave it out"
        )


def _check_report_flags(args: argparse.Namespace, action: Action) -> None:
    """--commands_out and --verbose show the queries a report's checks ran: they go with an
    action whose report has checks, in a run that reads entries."""
    for flag, given in (("--commands_out", args.commands_out), ("--verbose", args.verbose)):
        if not given:
            continue
        if not action.reports_checks or (flag == "--verbose" and action.name != "triage"):
            which = "--action=triage or versions" if flag == "--commands_out" else "triage"
            raise UsageError(
                f"{flag} shows the commands of a report's checks: it goes with {which} "
                "(print mode prints every command)"
            )
        if not _reads_entries(args, action):
            raise UsageError(
                f"{flag} shows what a run checked: add --execute or --logs_file=PATH (without "
                "them the commands are printed anyway)"
            )
    if args.commands_out == "-":
        raise UsageError("--commands_out=-: give a file (standard output holds the report)")


def _run(args: argparse.Namespace, clock: Clock, out: TextIO, err: TextIO) -> int:
    action = ACTIONS[args.action]
    if args.format == "html":  # the page shows the run's notes too
        err = cast(TextIO, NoteRecorder(err))
    tgt = target.from_flags(target_flags(args))
    if action.needs_workload:
        target.require_workload(tgt, action.name)
    engine = _engine(args, action, tgt.project)
    if args.format == "html":
        _check_html(action, not _reads_entries(args, action))
    _check_report_flags(args, action)
    _check_narrowing(args, action)
    _check_entry_flags(args, action)
    if args.filter is not None:
        engine.check_filter(args.filter, bool(args.logs_file))
    with ExitStack() as stack:
        sourced = _source_and_window(args, action, tgt, engine, clock, err, stack)
        source, window, settle, until = sourced
        issue_ns = parse_timestamp_ns(args.issue_time) if args.issue_time else None
        request = Request(tgt, window, options_from(args), issue_ns=issue_ns)
        _check_container_names(action, request, bool(args.logs_file))
        _note_idle_fetch_limit(args, action, err)
        if args.logs_file:
            _note_container_names_offline(action, request, err)
        # Print mode, and preflight in the cloud, which prints its queries when denied.
        printing = source is None or (action.runs_without_execute and not args.logs_file)
        printer = engine.printer() if printing else GcloudPrinter()
        check_stages(action, request, source is None)
        if settle is None:  # once the flags are known to be right: an error is one line
            err.write(window.describe() + "\n")
            engine.note_start(window, args.filter, err)
        if not args.logs_file:
            _note_future(window, clock(), err)
        output = Output(out, err, args.format, args.verbose, args.commands_out, printer)
        return run_action(action, request, source, output, settle, until)


def main(
    argv: Sequence[str] | None = None,
    *,
    clock: Clock = time.time_ns,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Run the command line; returns the exit code (never raises, never a traceback)."""
    stdout, stderr = standard_streams() if out is None or err is None else (out, err)
    err = cast(TextIO, VisibleControls(cast(TextIO, NotesOutput(err or stderr))))
    try:
        args = build_parser().parse_args(argv)
        check_destinations(
            [("--output", args.output), ("--commands_out", args.commands_out)],
            args.logs_file or [],
        )
        failed: CheckFailed | IncompleteReport | None = None
        with destination(args.output, out or stdout) as stream:
            guarded = GuardedOutput(stream)
            # JSON and HTML escape control characters their own way; text shows them.
            shown = VisibleControls(cast(TextIO, guarded)) if args.format == "text" else guarded
            try:
                code = _run(args, clock, cast(TextIO, shown), err)
            except (CheckFailed, IncompleteReport) as error:
                # A whole report that says FAIL, or what was found before Cloud Logging
                # failed on the queries after it: written all the same.
                failed, code = error, error.exit_code
            guarded.flush()
        if args.output not in (None, "-"):
            err.write(f"report written to {as_given(args.output)}\n")
        if failed is not None:
            raise failed
        return code
    except ToolError as error:
        err.write(f"error: {_one_line(error)}\n")
        return error.exit_code
    except KeyboardInterrupt:
        err.write("interrupted\n")
        return 130
    except BrokenPipeError:
        _silence_stdout(out)
        return 0
    except Exception as error:
        err.write(f"internal error: {type(error).__name__}: {error} (please report this)\n")
        return INTERNAL_ERROR


def _one_line(error: ToolError) -> str:
    """The error's message on one line: a newline it holds (a file name's) is shown as `\\n`;
    only a filter error puts the filter and a caret on lines of their own."""
    message = str(error)
    return message if isinstance(error, UsageError) else message.replace("\n", "\\n")


def _silence_stdout(out: TextIO | None) -> None:
    """The reader stopped early: send what Python flushes at exit nowhere, quietly."""
    if out is None and sys.stdout is not None:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def console_main() -> int:
    """Entry point of the `debug-workload` console script."""
    return main()
