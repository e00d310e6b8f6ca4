"""Log Analytics on a large JobSet: SQL queries per triage, DuckDB against the query-language
engine, and the bytes a one-hour window would process per action.

Prints figures; asserts nothing. The corpus engine plants a JobSet of slices x hosts TPU workers
training for the hour; worker slice 1 host 2 then hits `Check failed` and every other worker
reports the lost peer (the lost-connection-to-peer incident, at scale). It is written as gzipped
JSON Lines, then:
- triage runs through the command line on each engine, each in its own process: wall time, peak
  RSS, the root cause and failing hosts it names, the SQL queries it sent, and the entries.list
  requests the default engine's fetches take (one per page of 1,000), with the minutes the read
  quota (60 a minute) needs for them;
- per action, the columns its SQL reads (text output, and --format=json or a report) and the bytes
  those columns hold in the export, which is one hour. This is an estimate from the export's JSON
  sizes, an upper bound if BigQuery reads only the paths of a JSON column a query uses; DuckDB's
  scanned bytes say nothing about BigQuery billing, and only a dry run on the real view does.

With --export, also triage of that export as a whole (no window flags) on each engine, for
example the 1.5 GB JSON Lines `bench_offline.py --big` leaves in its --folder.

    python3 benchmarks/bench_analytics.py [--slices 16] [--hosts 64]
                                          [--export PATH --jobset NAME]
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "scripts"), str(ROOT)]

from tests.corpus import beats  # noqa: E402
from tests.corpus.clock import sec  # noqa: E402
from tests.corpus.incident import Incident, Story  # noqa: E402
from tests.corpus.layouts import release  # noqa: E402
from tests.corpus.model import WORKER  # noqa: E402
from tests.corpus.specs.lost_connection_to_peer import chip_halts  # noqa: E402
from tests.corpus.writer import write_json_lines  # noqa: E402

from pathways_workload.analytics import columns, queries  # noqa: E402
from pathways_workload.arguments import (  # noqa: E402
    build_parser,
    options_from,
    target_flags,
    window_flags,
)
from pathways_workload.plan import Results  # noqa: E402
from pathways_workload.query import Request  # noqa: E402
from pathways_workload.registry import ACTIONS  # noqa: E402
from pathways_workload.sources.base import Fetch  # noqa: E402
from pathways_workload.target import from_flags as target_from_flags  # noqa: E402
from pathways_workload.window import resolve_window  # noqa: E402

READS_PER_MINUTE = 60
START = "2026-12-01T08:00:00Z"
CRASH_SECOND = 1650
ENGINE = (
    "--engine=analytics",
    "--analytics_dataset=pw-demo.pathways_logs",
    "--analytics_location=US",
)
CHILD = """
import io, json, resource, sys, time
sys.path[:0] = [{scripts!r}, {root!r}]
from pathways_workload import cli
from pathways_workload.analytics import engine
from pathways_workload.sources.files import FileSource
sql, pages = [], []
offline, run = engine.offline_source, FileSource.run
def counted_offline(*args, **kwargs):
    source = offline(*args, **kwargs)
    source.sql_run = sql
    return source
def counted_run(self, fetches, anticipated=()):
    results = run(self, fetches, anticipated)
    pages.extend(result.requests for result in results)
    return results
engine.offline_source, FileSource.run = counted_offline, counted_run
out, err = io.StringIO(), io.StringIO()
start = time.monotonic()
code = cli.main({argv!r}, out=out, err=err)
seconds = time.monotonic() - start
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps([code, seconds, rss, len(sql), sum(pages), out.getvalue(), err.getvalue()]))
"""
_LITERAL = re.compile(r"'(?:[^'\\\\]|\\\\.)*'")


def plant(slices: int, hosts: int) -> Incident:
    """A JobSet of slices x hosts workers training until worker 1-2 crashes and its peers follow."""
    story = Story(
        slug=f"crash-{slices}x{hosts}",
        seed=slices * 1000 + hosts,
        start=START,
        title=f"A {slices}x{hosts} JobSet loses a worker",
        scenario=8,
        layout="xpk",
        summary="Benchmark scene: a worker crashes, its peers report the lost peer.",
    )
    inc = Incident(story)
    run = beats.standard(
        inc, "big-train", release(), slices=slices, hosts=hosts, itype="tpuv6e:8x8"
    )
    boot = beats.start_run(inc, run, run.launch)
    crash_at = inc.t0 + sec(CRASH_SECOND)
    beats.train(inc, run, boot.first_step, crash_at, beats.Training(step_time=9.0))
    chip_halts(inc, run, crash_at)
    beats.steady(inc, run, boot, default=crash_at)
    dead = (f"{run.workers[1][2].name}/{WORKER}", f"{run.head.name}/jax-tpu")
    beats.stop_run(inc, run, crash_at + sec(3), dead=dead, first_failed=f"{run.name}-worker-1")
    beats.node_noise(inc)
    return inc


def triage(engine_args: Sequence[str], target: Sequence[str]) -> dict[str, Any]:
    """Triage in a child process: its figures and what its report names."""
    argv = [*target, "--action=triage", "--format=json", *engine_args]
    code = CHILD.format(scripts=str(ROOT / "scripts"), root=str(ROOT), argv=argv)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(done.stderr)
    status, seconds, rss, sql, pages, out, err = json.loads(done.stdout)
    if status:
        raise SystemExit(err)
    report = json.loads(out)
    root = report["root_cause"] or {}
    return {
        "seconds": seconds,
        "rss": rss,
        "sql": sql,
        "pages": pages,
        "root": (root.get("pod"), root.get("container"), (root.get("message") or "")[:60]),
        "hosts": sorted(host["pod"] for host in report["failing_hosts"]),
    }


def column_sizes(export: Path) -> dict[str, int]:
    """Bytes of each view column in the export, by the JSON size of its LogEntry key."""
    sizes: dict[str, int] = {}
    with gzip.open(export, "rt", encoding="utf-8") as lines:
        for line in lines:
            entry = json.loads(line)
            for field in columns.VIEW_COLUMNS:
                if field.key in entry:
                    size = len(json.dumps(entry[field.key], ensure_ascii=False))
                    sizes[field.name] = sizes.get(field.name, 0) + size
    return sizes


def read_columns(text: str) -> set[str]:
    """The view's columns a query names (outside its string literals)."""
    names = {field.name for field in columns.VIEW_COLUMNS}
    return {word for word in re.findall(r"[a-z_]+", _LITERAL.sub("''", text)) if word in names}


def stage_fetches(name: str, target: Sequence[str]) -> list[list[Fetch]]:
    """The fetches of each stage of an action, as print mode builds them (nodes unknown)."""
    extra = ["--filter=severity>=ERROR"] if name == "query" else []
    args = build_parser().parse_args([*target, f"--action={name}", *extra])
    window = resolve_window(window_flags(args), None)
    request = Request(target_from_flags(target_flags(args)), window, options_from(args))
    request = ACTIONS[name].request_for(request)
    stages = []
    for stage in ACTIONS[name].stages:
        stages.append(stage.build(request, Results()))
        request = stage.assume(request) if stage.assume else request
    return [fetches for fetches in stages if fetches]


def action_columns(name: str, target: Sequence[str]) -> tuple[set[str], set[str]]:
    """The columns an action's queries read: for text output, and for json or a report."""
    view = queries.View("`pw-demo.pathways_logs._Default`", "pw-demo")
    text_columns: set[str] = set()
    json_columns: set[str] = set()
    for fetches in stage_fetches(name, target):
        asked = queries.questions_of(fetches)
        text_columns |= read_columns(queries.build(asked, view, full=False))
        json_columns |= read_columns(queries.build(asked, view, full=True))
    return text_columns, json_columns


def report_bytes(target: Sequence[str], sizes: dict[str, int], entries: int) -> None:
    """Per action, the bytes of the columns its queries read, and which ones json adds."""
    total = sum(sizes.values())
    print(f"bytes per column for the hour ({entries:,} entries, {total / 1e6:.1f} MB in all):")
    print("  " + ", ".join(f"{c} {n / 1e6:.1f} MB" for c, n in sorted(sizes.items())))
    print("estimated bytes a one-hour window reads per action (text output / json or report):")
    for name in ACTIONS:
        text_columns, json_columns = action_columns(name, target)
        text_bytes = sum(sizes.get(column, 0) for column in text_columns)
        json_bytes = sum(sizes.get(column, 0) for column in json_columns)
        added = ", ".join(sorted(json_columns - text_columns)) or "-"
        print(
            f"  {name:26s} {text_bytes / 1e6:9.1f} MB / {json_bytes / 1e6:9.1f} MB "
            f"(json adds: {added})"
        )


def compare_engines(export: Path, jobset: str) -> None:
    """Triage of a whole export on each engine: time, peak memory, and whether they agree."""
    replay = ["--project=pw-demo", f"--jobset_name={jobset}", f"--logs_file={export}"]
    print(f"{export} ({export.stat().st_size / 1e9:.2f} GB), triage of {jobset} as a whole:")
    found = {"logging": triage([], replay), "analytics": triage(ENGINE, replay)}
    for name, figures in found.items():
        print(
            f"  {name:9s}: {figures['seconds']:6.1f} s, peak RSS {figures['rss']:5.0f} MB, "
            f"{len(figures['hosts'])} failing hosts"
        )
    same = found["logging"]["root"] == found["analytics"]["root"]
    print(f"  same root cause: {same}; {found['analytics']['sql']} SQL queries")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slices", type=int, default=16)
    parser.add_argument("--hosts", type=int, default=64)
    parser.add_argument("--export", type=Path, help="also triage this export on each engine")
    parser.add_argument("--jobset", default="llama-train", help="the JobSet of --export")
    args = parser.parse_args(argv)
    if args.export:
        compare_engines(args.export, args.jobset)
    with tempfile.TemporaryDirectory() as folder:
        export = Path(folder) / "big-train.jsonl.gz"
        incident = plant(args.slices, args.hosts)
        write_json_lines(export, incident)
        entries, window = len(incident.rows), [f"--start_time={START}", "--duration=1h"]
        print(
            f"{args.slices}x{args.hosts} = {args.slices * args.hosts} TPU hosts: {entries:,} "
            f"entries, {export.stat().st_size / 1e6:.1f} MB gzipped"
        )
        target = ["--project=pw-demo", "--jobset_name=big-train", *window]
        replay = [*target, f"--logs_file={export}"]
        found = {"logging": triage([], replay), "analytics": triage(ENGINE, replay)}
        for name, figures in found.items():
            print(
                f"triage, {name:9s}: {figures['seconds']:6.1f} s, peak RSS "
                f"{figures['rss']:5.0f} MB, root cause {figures['root']}, "
                f"{len(figures['hosts'])} failing hosts"
            )
        pages = found["logging"]["pages"]
        print(
            f"triage: {found['analytics']['sql']} SQL queries; the same fetches take {pages} "
            f"entries.list requests ({pages / READS_PER_MINUTE:.1f} min of the read quota); "
            f"same report: {found['logging']['root'] == found['analytics']['root']} (root "
            f"cause), {found['logging']['hosts'] == found['analytics']['hosts']} (failing hosts)"
        )
        report_bytes(target, column_sizes(export), entries)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
