"""Benchmark of --execute against the fake Cloud Logging server with a per-request latency.

For a few actions it prints the requests made against the least possible (one
per query per 1,000 entries needed), and the wall time of the whole action
against its slowest single query run alone: independent queries run at once,
so the ratio should stay near the number of stages an action runs one after another
(1 for most; 2 for preflight, whose coverage probes wait for access; up to 3 for triage),
not the number of queries.
"wall at 0 ms" is the same action with no latency: the tool's own work
(imports are warmed up first), which the ratio also includes.

It also triages generated JobSets of 1,024 and 4,096 hosts: requests against the run's
budget, wall time, and its ratio to the slowest single query. It prints how fast the fake
pages a large export (its matches are
cached per request shape, so only the first page pays for the filter pass),
and what the request budget (a token bucket) adds in wall time before the
Nth request of a run can be sent, for the default and a few other settings,
next to the most requests it lets through in any minute (the project's read
quota is 60 a minute).

    python3 benchmarks/bench_cloud.py [--latency 0.3] [--entries 100000] [--pages 40]
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import io
import json
import math
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "scripts"), str(ROOT)]

from tabulate import tabulate  # noqa: E402
from tests.corpus.large import export  # noqa: E402
from tests.fake_logging import PROJECT, WORKER_NODES, FakeLogging, sample_incident  # noqa: E402
from tests.helpers import container_entry  # noqa: E402

from pathways_workload.cli import main  # noqa: E402
from pathways_workload.lql import compile_filter  # noqa: E402
from pathways_workload.query import Query  # noqa: E402
from pathways_workload.sources import cloud  # noqa: E402
from pathways_workload.sources.base import Fetch, Result  # noqa: E402
from pathways_workload.sources.retry import RequestBudget  # noqa: E402

TARGET = (
    f"--project={PROJECT}",
    "--jobset_name=llama-train",
    "--start_time=2026-10-22T11:00:00Z",
    "--duration=1h",
    "--execute",
)
EVERY_CRASH = 'timestamp>="2026-10-22T00:00:00Z" AND textPayload:"Check failed"'
# (per minute, burst); the first is the default
BUDGETS = ((15, 25), (30, 10), (30, 20), (25, 25), (20, 25))
LARGE = ("cascade-1024", "silent-hang-1024", "cascade-4096")
RUN_SIZES = (10, 25, 40)
CASES = {
    "errors --limit=2500": ("--action=errors", "--limit=2500"),
    "interruptions --node_names=a,b": (
        "--action=interruptions",
        f"--node_names={WORKER_NODES[0]},{WORKER_NODES[1]}",
    ),
    "summary": ("--action=summary",),
    "node-ooms --node_names=a": ("--action=node-ooms", f"--node_names={WORKER_NODES[0]}"),
    "pod-events": ("--action=pod-events",),
    "preflight": ("--action=preflight",),
    "triage": ("--action=triage",),
}


class RecordingSource(cloud.CloudSource):
    """The real cloud source, remembering every fetch it was asked to run."""

    fetches: ClassVar[list[Fetch]] = []

    def run(self, fetches: Sequence[Fetch], anticipated: Sequence[Fetch] = ()) -> list[Result]:
        RecordingSource.fetches.extend(fetches)
        return super().run(fetches, anticipated)


def entries() -> list[dict[str, Any]]:
    """The sample incident plus 3,000 crash lines, so a big sweep needs several pages."""
    crashes = [
        container_entry(
            f"Check failed: shard {i}",
            timestamp=f"2026-10-22T11:40:{i // 1000:02d}.{i % 1000:03d}000001Z",
        )
        for i in range(3000)
    ]
    return sample_incident() + crashes


def least_requests(fetch: Fetch, data: list[dict[str, Any]]) -> int:
    """Pages a fetch needs: its matches up to its limit, 1,000 (or the limit) per page."""
    compiled = compile_filter(fetch.query.filter)
    needed = min(fetch.limit, sum(1 for entry in data if compiled.matches(entry)))
    return max(1, math.ceil(needed / min(fetch.limit, cloud.MAX_PAGE_SIZE)))


def run_action(fake: FakeLogging, args: Sequence[str]) -> tuple[float, int, list[Fetch]]:
    """Wall time, requests and fetches of one command line."""
    RecordingSource.fetches = []
    before = fake.list_requests
    start = time.monotonic()
    code = main([*TARGET, *args], out=io.StringIO(), err=io.StringIO())
    elapsed = time.monotonic() - start
    if code not in (0, 1):
        raise SystemExit(f"{' '.join(args)} exited {code}")
    return elapsed, fake.list_requests - before, list(RecordingSource.fetches)


def slowest_alone(fetches: list[Fetch]) -> float:
    """The longest any one of the fetches takes run by itself (with its own request cap, not
    the share of the run's budget the run itself spent)."""
    times = []
    for fetch in fetches:
        start = time.monotonic()
        cloud.CloudSource(PROJECT, io.StringIO()).run([dataclasses.replace(fetch, allowance=None)])
        times.append(time.monotonic() - start)
    return max(times)


def measure(latency: float) -> list[dict[str, Any]]:
    data = entries()
    rows = []
    with FakeLogging(data) as fake:
        os.environ["CLOUDSDK_API_ENDPOINT_OVERRIDES_LOGGING"] = fake.url
        os.environ["CLOUDSDK_AUTH_DISABLE_CREDENTIALS"] = "true"
        cloud.CloudSource = RecordingSource  # type: ignore[misc]
        run_action(fake, CASES["summary"])  # warm up: imports, connection set-up
        for name, args in CASES.items():
            fake.latency = 0.0
            local, _, _ = run_action(fake, args)
            fake.latency = latency
            wall, requests, fetches = run_action(fake, args)
            slowest = slowest_alone(fetches)
            rows.append(
                {
                    "action": name,
                    "queries": len(fetches),
                    "requests": requests,
                    "least possible": sum(least_requests(f, data) for f in fetches),
                    "wall s": round(wall, 2),
                    "wall at 0 ms s": round(local, 2),
                    "slowest query alone s": round(slowest, 2),
                    "ratio": round(wall / slowest, 2),
                }
            )
    return rows


def large_export(count: int) -> list[dict[str, Any]]:
    """`count` crash lines, one per microsecond; nested fields shared to spare memory."""
    template = container_entry("Check failed: shard 0")
    return [
        {
            **template,
            "insertId": f"big{i:07d}",
            "textPayload": f"Check failed: shard {i}",
            "timestamp": f"2026-10-22T11:{i // 60_000_000:02d}:"
            f"{i // 1_000_000 % 60:02d}.{i % 1_000_000:06d}Z",
        }
        for i in range(count)
    ]


def timed_read(name: str, limit: int) -> float:
    """Seconds to read `limit` entries of every crash line through the cloud source."""
    source = cloud.CloudSource(
        PROJECT, io.StringIO(), budget=RequestBudget(per_minute=10**9, burst=10**6)
    )
    start = time.monotonic()
    source.run([Fetch(Query(name, EVERY_CRASH), limit)])
    return time.monotonic() - start


def fake_paging(count: int, pages: int) -> dict[str, Any]:
    """The fake's filter pass (first page) against the cost of a page once cached."""
    with FakeLogging(large_export(count)) as fake:
        os.environ["CLOUDSDK_API_ENDPOINT_OVERRIDES_LOGGING"] = fake.url
        os.environ["CLOUDSDK_AUTH_DISABLE_CREDENTIALS"] = "true"
        first = timed_read("first page: filter pass over every entry", 1)
        again = timed_read("the same page again, matches cached", 1)
        read = timed_read(f"{pages} pages of 1,000", pages * cloud.MAX_PAGE_SIZE)
        requests = fake.list_requests - 2
    passed = first - again
    return {
        "entries": count,
        "filter pass s": round(passed, 2),
        "us per entry": round(passed / count * 1e6, 1),
        "requests": requests,
        f"{pages} pages s": round(read, 2),
        "re-evaluating every page s (estimate)": round(read + (requests - 1) * passed, 1),
    }


def budget_costs() -> list[dict[str, Any]]:
    """Seconds the budget makes the last of N requests wait, all asked for at once."""
    rows = []
    for per_minute, burst in BUDGETS:
        row: dict[str, Any] = {"per minute": per_minute, "burst": burst}
        for size in RUN_SIZES:
            budget = RequestBudget(per_minute, burst, clock=lambda: 0.0)
            row[f"wait before request {size} s"] = round(
                max(budget.reserve() for _ in range(size)), 1
            )
        row["most requests in any minute"] = per_minute + burst
        rows.append(row)
    return rows


def _gzip_entries(path: Path) -> list[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


def large_triage(name: str, latency: float) -> dict[str, Any]:
    """Triage of a generated 1,024- or 4,096-host incident against the fake, with latency."""
    path, planted = export(name)
    args = (
        f"--project={PROJECT}",
        f"--jobset_name={planted.jobset}",
        f"--start_time={planted.start}",
        f"--end_time={planted.end}",
        "--action=triage",
        "--format=json",
        "--execute",
    )
    with FakeLogging(_gzip_entries(path)) as fake:
        os.environ["CLOUDSDK_API_ENDPOINT_OVERRIDES_LOGGING"] = fake.url
        os.environ["CLOUDSDK_AUTH_DISABLE_CREDENTIALS"] = "true"
        cloud.CloudSource = RecordingSource  # type: ignore[misc]
        RecordingSource.fetches = []
        fake.latency = latency
        out = io.StringIO()
        start = time.monotonic()
        main(list(args), out=out, err=io.StringIO())
        wall = time.monotonic() - start
        requests = fake.list_requests
        report = json.loads(out.getvalue())
        slowest = slowest_alone(list(RecordingSource.fetches))
    return {
        "incident": name,
        "entries": len(fake.entries),
        "requests": requests,
        "budget": 40 if "4096" in name else 25,
        "wall s": round(wall, 1),
        "slowest query alone s": round(slowest, 2),
        "ratio": round(wall / slowest, 1),
        "root cause found": report["root_cause"]["pod"] == planted.root_pod,
    }


def main_bench(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.3, help="seconds per request")
    parser.add_argument("--entries", type=int, default=100_000, help="entries the fake pages")
    parser.add_argument("--pages", type=int, default=40, help="pages of 1,000 to read")
    args = parser.parse_args(argv)
    rows = measure(args.latency)
    print(f"fake Cloud Logging, {args.latency * 1000:.0f} ms per request")
    print(tabulate(rows, headers="keys"))
    worst = max(row["ratio"] for row in rows)
    print(f"worst wall-time ratio (action / slowest query alone): {worst} (target: at most 1.5)")
    print("\nthe fake paging a large export (no latency)")
    print(tabulate([fake_paging(args.entries, args.pages)], headers="keys"))
    print("\nrequest budget: the wait before the Nth request of a run (first row: the default)")
    print(tabulate(budget_costs(), headers="keys"))
    print(f"\ntriage of large workloads, {args.latency * 1000:.0f} ms per request, default budget")
    print(tabulate([large_triage(name, args.latency) for name in LARGE], headers="keys"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main_bench())
