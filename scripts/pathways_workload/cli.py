"""The command line: parse flags, pick a source, run the action, map errors to exit codes.

This is the only place that turns exceptions into messages and exit codes.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from typing import NoReturn, TextIO

from pathways_workload import __version__, target
from pathways_workload.errors import ToolError, UsageError
from pathways_workload.query import SEVERITIES, Options, Request
from pathways_workload.registry import ACTIONS, Action
from pathways_workload.runner import Output, run_action
from pathways_workload.sources.base import Source
from pathways_workload.sources.files import FileSource
from pathways_workload.timestamps import parse_timestamp_ns
from pathways_workload.window import Window, WindowFlags, resolve_window

Clock = Callable[[], int]
# A bug in the tool (EX_SOFTWARE), apart from 1, a check that ran and failed.
INTERNAL_ERROR = 70


class _Parser(argparse.ArgumentParser):
    """argparse, but a bad flag is a one-line UsageError instead of usage text and exit."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see --help)")


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value


def _severity(text: str) -> str:
    if text.upper() not in SEVERITIES:
        raise argparse.ArgumentTypeError(f"{text!r} is not one of {', '.join(SEVERITIES)}")
    return text.upper()


def _action(text: str) -> str:
    if text not in ACTIONS:
        raise argparse.ArgumentTypeError(
            f"unknown action {text!r}; choose one of {', '.join(ACTIONS)}"
        )
    return text


def _flag(group: argparse._ArgumentGroup, name: str, **kwargs: object) -> None:
    """Add `--a_b` with its hyphen alias `--a-b`."""
    names = [f"--{name}"] + ([f"--{name.replace('_', '-')}"] if "_" in name else [])
    group.add_argument(*names, dest=name, **kwargs)  # type: ignore[arg-type]


def build_parser() -> argparse.ArgumentParser:
    actions_help = "\n".join(f"  {name:<26} {action.help}" for name, action in ACTIONS.items())
    parser = _Parser(
        prog="debug_workload.py",
        description="Find out why a Pathways on Cloud workload failed, from Cloud Logging. "
        "Without --execute it prints the gcloud commands; with --execute it runs them; "
        "with --logs_file it replays recorded exports offline.",
        epilog=f"actions:\n{actions_help}\n\nexit codes: 0 ok (also when nothing matched), "
        "1 a check failed, 2 bad arguments or filter, 3 no credentials or permission, "
        "4 Cloud Logging failed after retries, 5 unreadable or corrupt input file, "
        "70 a bug in this tool",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    where = parser.add_argument_group("target")
    _flag(where, "project", help="Google Cloud project of the cluster")
    _flag(where, "cluster_name", help="GKE cluster name")
    _flag(where, "location", help="cluster region or zone")
    _flag(where, "namespace", default="default", help="Kubernetes namespace (default: default)")
    _flag(where, "jobset_name", help="the workload is this JobSet")
    _flag(where, "lws_name", help="the workload is this LeaderWorkerSet")
    _flag(where, "job_name", help="the workload is this plain Job")
    _flag(where, "pod_prefix", help="the workload is the pods whose names start with this")
    _flag(
        where,
        "workload",
        action="append",
        default=[],
        metavar="KIND:NAME",
        help="repeatable; KIND is jobset, lws, job or pod; several are OR-ed",
    )
    _flag(where, "node_names", metavar="A,B", help="nodes to inspect instead of discovering them")
    _flag(
        where,
        "container_names",
        metavar="A,B",
        help="container names for a per-container action (custom-named containers)",
    )
    when = parser.add_argument_group("time window (always bounded)")
    _flag(when, "start_time", help="RFC 3339 start, e.g. 2026-10-22T11:10:00Z")
    _flag(when, "duration", help="window length, e.g. 30m, 1h, 1h30m, 90s (default 1h)")
    _flag(when, "end_time", help="RFC 3339 end")
    _flag(when, "issue_time", help="window = issue_time - 30m .. issue_time + 30m")
    shaping = parser.add_argument_group("shaping")
    _flag(
        shaping,
        "action",
        required=True,
        type=_action,
        metavar="ACTION",
        help="what to look for (listed below)",
    )
    _flag(
        shaping,
        "min_severity",
        type=_severity,
        help="severity floor: " + ", ".join(SEVERITIES) + " (default per action)",
    )
    _flag(
        shaping,
        "extra_terms",
        action="append",
        default=[],
        metavar="A,B",
        help="more search strings, OR-ed with the action's terms (actions without terms: "
        "only entries mentioning one of them)",
    )
    _flag(shaping, "limit", type=_positive, default=200, help="most lines output (default 200)")
    _flag(
        shaping,
        "order",
        choices=("asc", "desc"),
        default="asc",
        help="asc: earliest first (default); desc: latest first",
    )
    _flag(
        shaping,
        "first_per_pod",
        type=_positive,
        metavar="N",
        help="per pod and container keep the first N lines plus the last",
    )
    _flag(
        shaping,
        "fetch_limit",
        type=_positive,
        default=1000,
        help="lines fetched before grouping (default 1000)",
    )
    _flag(shaping, "format", choices=("text", "json"), default="text", help="text or json")
    source = parser.add_argument_group("source")
    _flag(source, "execute", action="store_true", help="run the queries against Cloud Logging")
    _flag(
        source,
        "logs_file",
        action="append",
        default=[],
        metavar="PATH",
        help="repeatable; replay recorded exports offline (JSON array, JSON Lines, gzipped, "
        "or a folder)",
    )
    _flag(source, "filter", help="with --action=query: your own Logging filter")
    return parser


def _split(values: Sequence[str]) -> tuple[str, ...]:
    return tuple(part.strip() for value in values for part in value.split(",") if part.strip())


def target_flags(args: argparse.Namespace) -> target.TargetFlags:
    """The target flags as given."""
    return target.TargetFlags(
        project=args.project,
        cluster_name=args.cluster_name,
        location=args.location,
        namespace=args.namespace,
        jobset_name=args.jobset_name,
        lws_name=args.lws_name,
        job_name=args.job_name,
        pod_prefix=args.pod_prefix,
        workload=tuple(args.workload),
        node_names=_split([args.node_names or ""]),
        container_names=_split([args.container_names or ""]),
    )


def options_from(args: argparse.Namespace) -> Options:
    if args.filter is not None and args.action != "query":
        raise UsageError("--filter goes with --action=query")
    return Options(
        min_severity=args.min_severity,
        extra_terms=_split(args.extra_terms),
        limit=args.limit,
        order=args.order,
        first_per_pod=args.first_per_pod,
        fetch_limit=args.fetch_limit,
        filter_text=args.filter,
    )


def _cloud_source(project: str | None, err: TextIO) -> Source:
    """The Cloud Logging source; it imports the client only when a query runs."""
    if not project:
        raise UsageError("running queries against Cloud Logging needs --project=PROJECT_ID")
    from pathways_workload.sources.cloud import CloudSource

    return CloudSource(project, err=err)


def _only_duration(flags: WindowFlags) -> bool:
    return flags.duration is not None and not (
        flags.start_time or flags.end_time or flags.issue_time
    )


def _source_and_window(
    args: argparse.Namespace, action: Action, project: str | None, clock: Clock, err: TextIO
) -> tuple[Source | None, Window]:
    """Where entries come from, and the window: the flags', else the export's span or the hour."""
    flags = WindowFlags(args.start_time, args.end_time, args.duration, args.issue_time)
    if args.logs_file:
        files = FileSource(args.logs_file)
        span = None if flags.any_given() and not _only_duration(flags) else files.span()
        return files, resolve_window(flags, span.end_ns if span else clock(), span)
    window = resolve_window(flags, clock())
    if args.execute or action.runs_without_execute:
        return _cloud_source(project, err), window
    return None, window


def _run(args: argparse.Namespace, clock: Clock, out: TextIO, err: TextIO) -> int:
    action = ACTIONS[args.action]
    tgt = target.from_flags(target_flags(args))
    if action.needs_workload:
        target.require_workload(tgt, action.name)
    source, window = _source_and_window(args, action, tgt.project, clock, err)
    err.write(window.describe() + "\n")
    issue_ns = parse_timestamp_ns(args.issue_time) if args.issue_time else None
    request = Request(tgt, window, options_from(args), issue_ns=issue_ns)
    return run_action(action, request, source, Output(out, err, args.format == "json"))


def main(
    argv: Sequence[str] | None = None,
    *,
    clock: Clock = time.time_ns,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Run the command line; returns the exit code (never raises, never a traceback)."""
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        args = build_parser().parse_args(argv)
        return _run(args, clock, out, err)
    except ToolError as error:
        err.write(f"error: {error}\n")
        return error.exit_code
    except KeyboardInterrupt:
        err.write("interrupted\n")
        return 130
    except BrokenPipeError:
        return 0
    except Exception as error:
        err.write(f"internal error: {type(error).__name__}: {error} (please report this)\n")
        return INTERNAL_ERROR


def console_main() -> int:
    """Entry point of the `debug-workload` console script."""
    return main()
