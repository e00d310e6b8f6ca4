"""The command line's flags: the parser, and the typed values the rest of the tool takes.

Nothing past this module sees the argparse namespace.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn, TextIO, cast

from pathways_workload import __version__, filters, target
from pathways_workload.actions.node_level import NODES_SENTINEL
from pathways_workload.analytics.dataset import DEFAULT_MAX_BYTES_BILLED as DEFAULT_CAP
from pathways_workload.analytics.dataset import DEFAULT_VIEW, Dataset
from pathways_workload.errors import UsageError
from pathways_workload.lql import values
from pathways_workload.output_stream import GuardedOutput

if TYPE_CHECKING:
    from _typeshed import SupportsWrite
from pathways_workload.query import SEVERITIES, Options
from pathways_workload.registry import ACTIONS
from pathways_workload.sources.text_logs import FORMATS
from pathways_workload.window import WindowFlags

ENGINES = ("logging", "analytics")
# BigQuery locations: multi-regions (US, EU) and regions (us-east5, europe-west4).
_BQ_LOCATION = re.compile(r"[A-Za-z]{2,}(?:-[a-z]+[0-9]+)?")
MAX_INT64 = 2**63 - 1
REPEAT_HINTS = {
    "jobset_name": "for several workloads use --workload=jobset:A --workload=jobset:B",
    "lws_name": "for several workloads use --workload=lws:A --workload=lws:B",
    "job_name": "for several workloads use --workload=job:A --workload=job:B",
    "pod_prefix": "for several prefixes use --workload=pod:A --workload=pod:B",
    "node_names": "give the nodes comma-separated: --node_names=A,B",
    "container_names": "give the containers comma-separated: --container_names=A,B",
}


class _Parser(argparse.ArgumentParser):
    """argparse, but a bad flag is a one-line UsageError instead of usage text and exit."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message}{_value_hint(message)} (see --help)")

    def _print_message(self, message: str, file: SupportsWrite[str] | None = None) -> None:
        """--help and --version: a full disk or a closed standard output is exit 74, as for
        any output (argparse would ignore the failure and exit 0)."""
        if message:
            stream = GuardedOutput(cast(TextIO, sys.stdout if file is None else file))
            stream.write(message)
            stream.flush()

    def _get_values(self, action: argparse.Action, arg_strings: list[str]) -> Any:
        """`--flag=--` gives the flag the value `--`, checked as any other: Python before 3.12
        drops it as the end of options, leaving an empty list no check sees (a namespace
        quietly the default, a term list that crashed the tool)."""
        if action.option_strings and action.nargs is None and arg_strings == ["--"]:
            value = self._get_value(action, "--")
            self._check_value(action, value)
            return value
        return super()._get_values(action, arg_strings)


def _value_hint(message: str) -> str:
    """For a flag left without its value: `--extra_term -x` reads `-x` as another flag, so
    say how a value starting with '-' is given."""
    found = re.fullmatch(r"argument (--[a-z_]+)(?:/--[a-z-]+)?: expected one argument", message)
    if found is None:
        return ""
    return f"; give it a value (one that starts with '-' as {found[1]}=-VALUE)"


def _not_empty(option_string: str | None, values: Any) -> None:
    """A flag given an empty value (`--namespace=`, an unset shell variable) is refused: taken
    as the default, it would quietly search something else."""
    if isinstance(values, str) and not values.strip():
        raise UsageError(f"{option_string}= is empty: give it a value, or leave the flag out")


class _Once(argparse.Action):
    """A flag that takes one value: given twice, it is refused rather than overwritten."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        if self.dest != "filter":  # a blank filter gets its own, longer message
            _not_empty(option_string, values)
        if self.dest in getattr(namespace, "_given", set()):
            hint = REPEAT_HINTS.get(self.dest, "give it once")
            raise UsageError(f"{option_string} was given more than once; {hint}")
        namespace._given = {*getattr(namespace, "_given", set()), self.dest}
        setattr(namespace, self.dest, values)


class _Each(argparse._AppendAction):
    """A repeatable flag: each value is kept, none of them empty."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        _not_empty(option_string, values)
        super().__call__(parser, namespace, values, option_string)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value


def _count(text: str) -> int:
    """A count of entries: positive, and at most gcloud's --limit and BigQuery's INT64."""
    value = _positive(text)
    if value > MAX_INT64:
        raise argparse.ArgumentTypeError(f"{text!r} must be at most {MAX_INT64}")
    return value


def _path(text: str) -> str:
    """A file path; no file name holds a NUL byte (only a caller of `main` can pass one)."""
    if "\0" in text:
        raise argparse.ArgumentTypeError(f"{text!r} holds a NUL byte, which no path can")
    return text


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


def _flag(group: argparse._ArgumentGroup, name: str, **kwargs: Any) -> None:
    """Add `--a_b` with its hyphen alias `--a-b`; a flag with one value takes it once."""
    names = [f"--{name}"] + ([f"--{name.replace('_', '-')}"] if "_" in name else [])
    if "action" not in kwargs:
        kwargs["action"] = _Once
    group.add_argument(*names, dest=name, **kwargs)


def build_parser() -> argparse.ArgumentParser:
    actions_help = "\n".join(f"  {name:<26} {action.help}" for name, action in ACTIONS.items())
    parser = _Parser(
        prog="debug_workload.py",
        allow_abbrev=False,
        description="Find out why a Pathways on Cloud workload failed, from Cloud Logging. "
        "Without --execute it prints the gcloud commands; with --execute it runs them; "
        "with --logs_file it replays recorded exports offline.",
        epilog=f"actions:\n{actions_help}\n\nexit codes: 0 ok (also when nothing matched), "
        "1 a check failed, 2 bad arguments or filter, 3 no credentials or permission, "
        "4 Cloud Logging (or BigQuery) failed after retries, 5 unreadable or corrupt input file, "
        "70 a bug in this tool, 74 the output could not be written",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    where = parser.add_argument_group("target")
    _flag(where, "project", help="Google Cloud project of the cluster")
    _flag(where, "cluster_name", help="GKE cluster name")
    _flag(where, "location", help="cluster region or zone")
    _flag(where, "namespace", help="Kubernetes namespace (default: default)")
    _flag(where, "jobset_name", help="the workload is this JobSet")
    _flag(where, "lws_name", help="the workload is this LeaderWorkerSet")
    _flag(where, "job_name", help="the workload is this plain Job")
    _flag(where, "pod_prefix", help="the workload is the pods whose names start with this")
    _flag(
        where,
        "workload",
        action=_Each,
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
        action=_Each,
        default=[],
        metavar="A,B",
        help="more search strings, comma-separated, OR-ed with the action's terms (actions "
        "without terms: only entries mentioning one of them)",
    )
    _flag(
        shaping,
        "extra_term",
        action=_Each,
        default=[],
        metavar="TEXT",
        help="repeatable; one more search string taken verbatim (commas included)",
    )
    _flag(shaping, "limit", type=_count, help="most lines output (default 200)")
    _flag(
        shaping,
        "order",
        choices=("asc", "desc"),
        help="asc: earliest first (default); desc: latest first",
    )
    _flag(
        shaping,
        "first_per_pod",
        type=_count,
        metavar="N",
        help="per pod and container keep the first N lines plus the last",
    )
    _flag(
        shaping,
        "fetch_limit",
        type=_count,
        help="lines fetched before grouping (default 1000)",
    )
    _flag(
        shaping,
        "format",
        choices=("text", "json", "html"),
        default="text",
        help="text, json, or html: one self-contained page with a timeline (triage and the "
        "entry actions, with --execute or --logs_file)",
    )
    _flag(
        shaping,
        "verbose",
        action="store_true",
        help="a text triage report shows each check's full command",
    )
    _flag(
        shaping,
        "commands_out",
        type=_path,
        metavar="PATH",
        help="write the full commands of a report's checks to this file",
    )
    _flag(
        shaping,
        "output",
        type=_path,
        metavar="PATH",
        help="write the output to PATH (whole, once complete) instead of standard output",
    )
    source = parser.add_argument_group("source")
    _flag(source, "execute", action="store_true", help="run the queries against Cloud Logging")
    _flag(
        source,
        "logs_file",
        action=_Each,
        type=_path,
        default=[],
        metavar="PATH",
        help="repeatable; replay recorded exports offline (JSON array, JSON Lines, gzipped, "
        "or a folder) or plain-text container logs (kubectl logs, with or without "
        "--prefix --timestamps)",
    )
    _flag(
        source,
        "logs_format",
        choices=FORMATS,
        help="with --logs_file: auto (default: recognised by the first lines), export (JSON "
        "only) or kubectl (read as text container logs)",
    )
    _flag(source, "filter", help="with --action=query: your own Logging filter")
    _engine_flags(parser)
    return parser


def _engine_flags(parser: argparse.ArgumentParser) -> None:
    """The flags of `--engine=analytics` (Log Analytics SQL on the linked BigQuery dataset)."""
    engine = parser.add_argument_group("engine")
    _flag(
        engine,
        "engine",
        choices=ENGINES,
        default="logging",
        help="logging: the Logging query language, entries.list (default); analytics: Log "
        "Analytics SQL on the bucket's linked BigQuery dataset (offline: DuckDB)",
    )
    _flag(
        engine,
        "analytics_dataset",
        metavar="PROJECT.DATASET",
        help="the BigQuery dataset linked to the log bucket",
    )
    _flag(engine, "analytics_view", help="the log view to read (default _Default)")
    _flag(
        engine,
        "analytics_location",
        help="the linked dataset's BigQuery location, e.g. US (not the cluster's location)",
    )
    _flag(
        engine,
        "billing_project",
        help="the project that runs the BigQuery jobs (default --project)",
    )
    _flag(
        engine,
        "max_bytes_billed",
        type=_positive,
        help=f"BigQuery refuses a query that would bill more bytes (default {DEFAULT_CAP:,})",
    )
    _flag(
        engine,
        "log_view",
        metavar="PROJECT.LOCATION.BUCKET.VIEW",
        help="also print the SQL addressed for the Log Analytics page",
    )


def _split(flag: str, values: Sequence[str]) -> tuple[str, ...]:
    """A comma-separated flag's items; a value that names none (`,`, two unset shell
    variables) is refused, as an empty value is."""
    items: list[str] = []
    for value in values:
        parts = [part.strip() for part in value.split(",") if part.strip()]
        if not parts:
            hint = REPEAT_HINTS.get(flag, "give the terms comma-separated: --extra_terms=A,B")
            raise UsageError(f"--{flag}={value!r} names nothing: {hint}")
        items += parts
    return tuple(items)


def _searchable(flag: str, terms: Sequence[str]) -> tuple[str, ...]:
    """Search terms given with `flag`, each one a string a filter can search for (and not
    the placeholder print mode writes for the nodes discovery finds)."""
    for term in terms:
        problem = filters.unsearchable(term)
        if not values.fold(term).strip():
            problem = (
                "searches ignore every character of it (a byte-order mark, a zero-width "
                "space), so it would match every line; type the term without them"
            )
        if NODES_SENTINEL.casefold() in term.casefold():
            problem = (
                f"{NODES_SENTINEL} stands for the discovered nodes in printed commands; "
                "search for another string"
            )
        if problem:
            raise UsageError(f"{flag}={term!r}: {problem}")
    return tuple(terms)


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
        node_names=_split("node_names", [args.node_names] if args.node_names else []),
        container_names=_split(
            "container_names", [args.container_names] if args.container_names else []
        ),
    )


def options_from(args: argparse.Namespace) -> Options:
    """The shaping flags."""
    if args.filter is not None and args.action != "query":
        raise UsageError("--filter goes with --action=query")
    return Options(
        min_severity=args.min_severity,
        extra_terms=_searchable("--extra_terms", _split("extra_terms", args.extra_terms))
        + _searchable("--extra_term", args.extra_term),
        limit=args.limit or Options.limit,
        order=args.order or Options.order,
        first_per_pod=args.first_per_pod,
        fetch_limit=args.fetch_limit or Options.fetch_limit,
        filter_text=args.filter,
    )


def analytics_flags(args: argparse.Namespace) -> Dataset | None:
    """Where `--engine=analytics` runs its SQL; None with the default engine.

    Raises:
        UsageError: an analytics flag was given with the default engine.
    """
    given = {
        "--analytics_dataset": args.analytics_dataset,
        "--analytics_view": args.analytics_view,
        "--analytics_location": args.analytics_location,
        "--billing_project": args.billing_project,
        "--max_bytes_billed": args.max_bytes_billed,
        "--log_view": args.log_view,
    }
    if args.engine != "analytics":
        for flag, value in given.items():
            if value is not None:
                raise UsageError(f"{flag} goes with --engine=analytics")
        return None
    if args.billing_project is not None:
        target.check_project(args.billing_project, "--billing_project")
    if args.analytics_location is not None and not _BQ_LOCATION.fullmatch(args.analytics_location):
        raise UsageError(
            f"--analytics_location={args.analytics_location!r}: not a BigQuery location, "
            "e.g. US, EU or us-east5"
        )
    if (args.max_bytes_billed or 0) > MAX_INT64:
        raise UsageError(
            f"--max_bytes_billed={args.max_bytes_billed}: more than BigQuery takes "
            f"(at most {MAX_INT64})"
        )
    return Dataset(
        dataset=args.analytics_dataset,
        billing_project=args.billing_project or args.project,
        location=args.analytics_location,
        view=args.analytics_view or DEFAULT_VIEW,
        max_bytes_billed=args.max_bytes_billed or DEFAULT_CAP,
        log_view=args.log_view,
    )


def window_flags(args: argparse.Namespace) -> WindowFlags:
    """The window flags as given."""
    return WindowFlags(args.start_time, args.end_time, args.duration, args.issue_time)
