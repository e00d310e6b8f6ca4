"""Benchmark of the Logging query language engine on a crash-sweep filter.

Builds the kind of filter the `errors` action sends (scope, a timestamp window,
about twenty search terms over textPayload and jsonPayload.message, and a
severity floor), generates realistic k8s_container entries (mostly benign
lines, a few crashes), and prints how many entries per second `matches` and
`may_match_raw` get through on one core, and how fast raw lines are read
with the fast path in front of parsing.

    PYTHONPATH=scripts python3 benchmarks/bench_lql.py [--entries N]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "scripts"), str(ROOT)]

from tests.logentry import Cluster, container_line, pod_labels  # noqa: E402

from pathways_workload.lql import compile_filter  # noqa: E402

CRASH_TERMS = (
    "Check failed",
    "Segmentation fault",
    "Traceback (most recent call last)",
    "Fatal Python error",
    "core dumped",
    "SIGSEGV",
    "SIGABRT",
    "OOMKilled",
    "out of memory",
    "RESOURCE_EXHAUSTED",
    "unknown flag",
    "Permission denied",
    "terminate called",
    "std::bad_alloc",
    "DEADLINE_EXCEEDED",
    "HANG_DETECTED",
    "Recv completion error",
    "Still waiting to acquire semaphore",
    "GOAWAY",
    "Aborted",
)
BENIGN_LINES = (
    "I1022 11:{m:02d}:{s:02d}.{u:06d} 1 server_lib.cc:1473] Pathways Server serving on [::]:29001",
    "Completed step {n} in {u} us, loss={f:.4f}",
    "I1022 11:{m:02d}:{s:02d}.{u:06d} 7 resource_manager.cc:{n}] Slice 0 is ready with 16 hosts",
    "W1022 11:{m:02d}:{s:02d}.{u:06d} 9 grpc_util.cc:88] Retrying RPC to worker {n}",
    "Saving checkpoint at step {n} to gs://bucket/run/checkpoints/{n}",
    "jax.distributed initialized: process {n} of 64, coordinator my-run-pathways-head-0-0.my-run",
    "Transfer of {n} bytes over DCN finished in {u} us",
)
SEVERITIES = ("INFO", "INFO", "INFO", "INFO", "WARNING", "ERROR")
CONTAINERS = ("jax-tpu", "pathways-proxy", "pathways-rm", "pathways-worker")
Item = TypeVar("Item")
WINDOW = ("2026-10-22T11:10:00Z", "2026-10-22T12:10:00Z")
CLUSTER = Cluster(project="my-project", name="tpu-cluster", location="us-central1")


def crash_sweep_filter() -> str:
    """The filter of a crash sweep over one JobSet's containers."""
    quoted = " OR ".join(json.dumps(term) for term in CRASH_TERMS)
    return "\n".join(
        (
            'resource.type="k8s_container"',
            'resource.labels.namespace_name="default"',
            'labels."k8s-pod/jobset_sigs_k8s_io/jobset-name"="my-run"',
            f'timestamp>="{WINDOW[0]}"',
            f'timestamp<="{WINDOW[1]}"',
            f"(textPayload:({quoted}) OR jsonPayload.message:({quoted})) OR severity>=CRITICAL",
        )
    )


def make_entry(rng: random.Random, index: int) -> dict[str, object]:
    """One k8s_container entry of the workload; about one in 500 is a crash line."""
    minute, second = divmod(rng.randrange(3600), 60)
    line = rng.choice(BENIGN_LINES).format(
        m=minute, s=second, u=rng.randrange(10**6), n=rng.randrange(10**5), f=rng.random()
    )
    if rng.random() < 0.002:
        line = f"F1022 11:{minute:02d}:{second:02d} 1 tpu.cc:42] {rng.choice(CRASH_TERMS)}: x"
    container = rng.choice(CONTAINERS)
    moment = f"2026-10-22T11:{10 + minute % 50:02d}:{second:02d}"
    stream = rng.choice(("stdout", "stderr"))
    nanos = rng.randrange(10**9)
    severity = rng.choice(SEVERITIES)
    structured = container == "jax-tpu" and rng.random() < 0.5
    labels = {
        "jobset.sigs.k8s.io/jobset-name": "my-run",
        "jobset.sigs.k8s.io/job-index": "0",
        "batch.kubernetes.io/job-completion-index": str(index % 16),
    }
    return container_line(
        {"message": line, "logger": "absl"} if structured else line,
        pod=f"my-run-worker-0-{index % 16}-abcde",
        container=container,
        node=f"gke-tpu-np-{index % 16:04x}",
        timestamp=f"{moment}.{nanos:09d}Z",
        insert_id=f"{index:016x}",
        labels=pod_labels(labels),
        stream=stream,
        severity=severity,
        receive_timestamp=f"{moment}.5Z",
        cluster=CLUSTER,
    )


def rate(function: Callable[[Item], object], items: Sequence[Item], rounds: int = 3) -> float:
    """Best items-per-second of `function` over `items` in a few rounds."""
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        for item in items:
            function(item)
        best = min(best, time.perf_counter() - started)
    return len(items) / best


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print the rates."""
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    arguments.add_argument("--entries", type=int, default=100_000)
    count = arguments.parse_args(argv).entries
    rng = random.Random(20261022)
    entries = [make_entry(rng, index) for index in range(count)]
    lines = [json.dumps(entry).encode("utf-8") for entry in entries]
    compiled = compile_filter(crash_sweep_filter())
    matched = sum(map(compiled.matches, entries))
    passed = sum(map(compiled.may_match_raw, lines))
    print(f"filter: {len(compiled.text)} characters; {count} entries, {matched} match")
    print(f"matches:       {rate(compiled.matches, entries):>12,.0f} entries/s")
    print(f"may_match_raw: {rate(compiled.may_match_raw, lines):>12,.0f} lines/s ({passed} pass)")
    print(f"json.loads:    {rate(json.loads, lines):>12,.0f} lines/s (for scale)")

    def read_line(line: bytes) -> bool:
        return compiled.may_match_raw(line) and compiled.matches(json.loads(line))

    print(f"lines, fast path then parse and match: {rate(read_line, lines):>12,.0f} lines/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
