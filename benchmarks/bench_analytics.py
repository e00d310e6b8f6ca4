"""Log Analytics figures: SQL queries per triage, DuckDB against the query-language engine,
and the bytes a one-hour window would process per action.

Prints figures; asserts nothing. Generates a JobSet export of `--hosts` worker
pods (gzipped JSON Lines, one hour), then:
- triage's fetches (the wave print mode shows) as one SQL query, against the
  `entries.list` requests the same fetches take (one per 1,000-entry page);
- time and peak memory (max RSS of a child process) of the file source and
  of the DuckDB engine (load plus query) on the same fetches;
- per entry action, the columns its SQL reads and the bytes those columns
  hold in the export, scaled to one hour. This is an estimate from the
  export's JSON sizes; DuckDB's scanned bytes say nothing about BigQuery
  billing, and only a dry run against the real view gives the real figure.

    python3 benchmarks/bench_analytics.py [--hosts=4096] [--lines=15]
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT))

from tests.helpers import container_entry, run_cli  # noqa: E402

from pathways_workload.analytics import columns, queries  # noqa: E402
from pathways_workload.registry import ACTIONS  # noqa: E402

TARGET = (
    "--project=pw-demo",
    "--cluster_name=pw-cluster",
    "--location=us-east5",
    "--jobset_name=llama-train",
    "--start_time=2026-10-22T11:00:00Z",
    "--duration=1h",
)
PAGE = 1000
REPORTS = {"preflight", "neighbors", "triage", "versions", "pods", "query"}
CHILD = """
import json, resource, sys, time
sys.path[:0] = [{scripts!r}, {root!r}]
from pathways_workload.query import Query
from pathways_workload.sources.base import Fetch
filters = json.load(open({filters!r}))
fetches = [Fetch(Query("q", text), 1000) for text in filters]
start = time.monotonic()
if {engine!r} == "logging":
    from pathways_workload.sources.files import FileSource
    results = FileSource([{export!r}]).run(fetches)
else:
    from pathways_workload.analytics import queries
    from pathways_workload.analytics.offline import OfflineStore
    from pathways_workload.analytics.source import AnalyticsSource
    with OfflineStore([{export!r}]) as store:
        view = queries.View("`pw-demo.logs._Default`", "pw-demo")
        results = AnalyticsSource(store.rows, view, full=False).run(fetches)
seconds = time.monotonic() - start
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps([seconds, rss, [len(r.entries) for r in results]]))
"""


def write_export(path: Path, hosts: int, lines: int) -> int:
    """A one-hour JobSet export: `lines` lines per worker, a crash on one, a cascade after."""
    rng = random.Random(7)
    count = 0
    with gzip.open(path, "wt", encoding="utf-8") as out:
        for host in range(hosts):
            pod = f"llama-train-worker-{host // 64}-{host % 64}-abcde"
            for line in range(lines):
                second = rng.randrange(3600)
                text = f"step {line}: loss 1.{rng.randrange(999):03d}"
                severity = "INFO"
                if line == lines - 1:
                    text = "Check failed: peer lost connection" if host == 700 else "lost peer"
                    severity = "ERROR"
                entry = container_entry(
                    text,
                    pod=pod,
                    severity=severity,
                    timestamp=f"2026-10-22T11:{second // 60:02d}:{second % 60:02d}.{line:06d}Z",
                    node=f"gke-pw-cluster-tpu-np-{host // 64}-{host:05d}",
                )
                out.write(json.dumps(entry) + "\n")
                count += 1
    return count


def printed_filters(*args: str) -> list[str]:
    code, out, _ = run_cli(*TARGET, *args, "--format=json")
    return [json.loads(line)["filter"] for line in out.splitlines()] if code == 0 else []


def measure(engine: str, export: Path, filters_file: Path) -> tuple[float, float, list[int]]:
    code = CHILD.format(
        scripts=str(ROOT / "scripts"),
        root=str(ROOT),
        filters=str(filters_file),
        engine=engine,
        export=str(export),
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(done.stderr)
    seconds, rss, counts = json.loads(done.stdout)
    return seconds, rss, counts


def column_sizes(export: Path) -> dict[str, int]:
    """Bytes of each view column in the export, by the JSON size of its LogEntry key."""
    sizes: dict[str, int] = {}
    with gzip.open(export, "rt", encoding="utf-8") as lines:
        for line in lines:
            entry = json.loads(line)
            for field in columns.VIEW_COLUMNS:
                if field.key in entry:
                    sizes[field.name] = sizes.get(field.name, 0) + len(json.dumps(entry[field.key]))
    return sizes


def referenced(text: str) -> set[str]:
    names = {field.name for field in columns.VIEW_COLUMNS}
    return {word for word in re.findall(r"[a-z_]+", text) if word in names}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hosts", type=int, default=4096)
    parser.add_argument("--lines", type=int, default=15)
    options = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        export = Path(folder) / "export.jsonl.gz"
        entries = write_export(export, options.hosts, options.lines)
        size = export.stat().st_size
        print(f"export: {options.hosts} hosts, {entries} entries, {size:,} bytes gzipped")
        triage = printed_filters("--action=triage")
        filters_file = Path(folder) / "filters.json"
        filters_file.write_text(json.dumps(triage))
        results: dict[str, tuple[float, float, list[int]]] = {}
        for engine in ("logging", "analytics"):
            results[engine] = measure(engine, export, filters_file)
            seconds, rss, counts = results[engine]
            print(f"{engine:9s}: {seconds:6.2f} s, peak RSS {rss:6.0f} MB, entries {counts}")
        matched = results["analytics"][2]
        print(
            f"triage's first wave: {len(triage)} fetches = 1 SQL query; entries.list would need "
            f">= {sum(max(1, -(-n // PAGE)) for n in matched)} requests for the same first pages"
        )
        report_bytes(export, entries)
    return 0


def report_bytes(export: Path, entries: int) -> None:
    sizes = column_sizes(export)
    print("estimated bytes per hour of this workload's logs (text output / --format=json):")
    for name in ACTIONS:
        if name in REPORTS:
            continue
        filters = printed_filters(f"--action={name}", "--node_names=gke-pw-cluster-tpu-np-0-00000")
        if not filters:
            continue
        view = queries.View("`pw-demo.logs._Default`", "pw-demo")
        asked = [queries.Question(text, 200) for text in filters]
        text_cols = referenced(queries.build(asked, view, full=False))
        json_cols = referenced(queries.build(asked, view, full=True))
        text_bytes = sum(sizes.get(c, 0) for c in text_cols)
        json_bytes = sum(sizes.get(c, 0) for c in json_cols)
        print(f"  {name:26s} {text_bytes / 1e6:8.1f} MB / {json_bytes / 1e6:8.1f} MB")
    print(f"  (all columns: {sum(sizes.values()) / 1e6:.1f} MB for {entries} entries)")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
