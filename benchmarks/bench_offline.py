"""Offline replay speed and memory, as ratios to a plain json.loads pass over the same export.

Writes, in a temporary folder, a JSON Lines export of a 64-host JobSet (4 slices of 16 hosts,
plus its head pod and a few other pods and nodes): by default 300,000 entries of about 850
bytes over one hour, about 0.1% of them crash lines, each written by
`json.dumps(sort_keys=True)` on its own line and shuffled within its minute as a log sink
writes them; the same entries as gcloud's indented JSON array; and both gzipped. Each figure
is the best of --repeat runs of a child process (the tool as a user runs it, from cached
bytecode), and each ratio compares with a json.loads pass over every line of the JSON Lines
export, also a child process, measured in the same run. With --big, also the peak memory of
replaying a 1.5 GB export. With --large, also triage of the generated 1,024-host incidents
(tests/corpus/large.py: a cascade, a silent hang, and a cascade whose workers log every 30
to 40 s, about 62,000 entries in the hour; gzipped JSON Lines as a log sink writes them) as
written and decompressed, against json.loads over each one's JSON Lines; with --large --big,
the 4,096-host cascade too.

    python3 benchmarks/bench_offline.py [--entries=300000] [--repeat=3] [--big] [--large]
                                        [--scripts=DIR] [--folder=DIR]

--scripts measures another checkout's scripts/ folder on the same exports (for example the
code before a change, from `git archive`); --folder keeps the exports there and reuses them
on the next run. It prints figures; it asserts nothing.
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "scripts"), str(ROOT)]

from tests.corpus.large import export as large_export  # noqa: E402
from tests.logentry import container_line, pod_labels  # noqa: E402

from pathways_workload.terms import CRASH_TERMS  # noqa: E402

START = 1792666800  # 2026-10-22T11:00:00Z
HOUR = 3600
WORKLOAD = "--jobset_name=llama-train"
LARGE_NAMES = ("cascade-1024", "silent-hang-1024", "dense-cascade-1024")
WINDOW = ("--start_time=2026-10-22T11:00:00Z", "--duration=1h")
BIG_BYTES = 1_500_000_000
CHILD_ENVIRONMENT = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
JSON_LOADS = "import json, sys\nfor line in open(sys.argv[1], 'rb'):\n    json.loads(line)\n"
MESSAGES = (
    "I1022 {clock} {tid} program_executor.cc:{line}] Executed program {n} in {ms} ms; "
    "host memory in use {gib} GiB",
    "I1022 {clock} {tid} megascale_transport.cc:{line}] Heartbeat from peer {peer} ok; "
    "{pending} sends outstanding",
    "I1022 {clock} {tid} step_timer.cc:{line}] completed step: {n}, seconds: 0.{ms}, "
    "TFLOP/s/device: 41.{pending}",
    "W1022 {clock} {tid} buffer_cache.cc:{line}] Evicting {pending} cached buffers "
    "({gib} GiB) for program {n}",
)


def _pods(rng: random.Random) -> list[tuple[str, str, str, dict[str, str]]]:
    """(pod, container, node, labels) of every container that logs."""

    def suffix() -> str:
        return "".join(rng.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(5))

    pods = []
    for job_index in range(4):
        for host in range(16):
            labels = pod_labels(
                {
                    "batch.kubernetes.io/job-completion-index": str(host),
                    "batch.kubernetes.io/job-name": f"llama-train-worker-{job_index}",
                    "jobset.sigs.k8s.io/job-index": str(job_index),
                    "jobset.sigs.k8s.io/jobset-name": "llama-train",
                }
            )
            pod = f"llama-train-worker-{job_index}-{host}-{suffix()}"
            node = f"gke-pw-cluster-tpu-np-{job_index}-8a1b2c3d-{suffix()}"
            pods.append((pod, "pathways-worker", node, labels))
    head = f"llama-train-pathways-head-0-0-{suffix()}"
    head_labels = pod_labels({"jobset.sigs.k8s.io/jobset-name": "llama-train"})
    for container in ("pathways-rm", "pathways-proxy", "jax-tpu"):
        pods.append((head, container, "gke-pw-cluster-cpu-np-5e6f7a8b-h3d2", head_labels))
    other = pod_labels({"jobset.sigs.k8s.io/jobset-name": "llama-eval"})
    pods.append((f"llama-eval-worker-0-0-{suffix()}", "pathways-worker", "gke-pw-other", other))
    return pods


def _message(rng: random.Random, index: int, second: int) -> str:
    if rng.random() < 0.001:
        return f"E1022 11:{second // 60 % 60:02d}:00 {rng.choice(CRASH_TERMS)}: synthetic {index}"
    clock = f"11:{second // 60 % 60:02d}:{second % 60:02d}.{rng.randrange(10**6):06d}"
    return rng.choice(MESSAGES).format(
        clock=clock,
        tid=rng.randrange(1000, 9999),
        line=rng.randrange(50, 900),
        n=index,
        ms=rng.randrange(10, 999),
        gib=f"{rng.uniform(10, 300):.1f}",
        pending=rng.randrange(0, 99),
        peer=rng.randrange(64),
    )


def entries(count: int) -> Iterator[list[dict[str, object]]]:
    """The export's entries, one minute at a time, shuffled within the minute."""
    rng = random.Random(7)
    pods = _pods(rng)
    per_minute = max(1, count // 60)
    for minute in range(0, count, per_minute):
        batch = []
        for index in range(minute, min(count, minute + per_minute)):
            second = index * HOUR // count
            pod, container, node, labels = rng.choice(pods)
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(START + second))
            nanos = f"{rng.randrange(10**9):09d}"
            batch.append(
                container_line(
                    _message(rng, index, second),
                    pod=pod,
                    container=container,
                    node=node,
                    timestamp=f"{stamp}.{nanos}Z",
                    receive_timestamp=f"{stamp}.{nanos[:6]}999Z",
                    insert_id="".join(
                        rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(16)
                    ),
                    labels=labels,
                    severity=rng.choice(("INFO", "INFO", "INFO", "WARNING", "ERROR")),
                )
            )
        rng.shuffle(batch)
        yield batch


def write_exports(folder: Path, count: int) -> dict[str, Path]:
    """The JSON Lines export, gcloud's array of the same entries, and both gzipped."""
    paths = {
        "lines": folder / f"export-{count}.jsonl",
        "array": folder / f"export-{count}.json",
        "lines.gz": folder / f"export-{count}.jsonl.gz",
        "array.gz": folder / f"export-{count}.json.gz",
    }
    if all(path.exists() for path in paths.values()):
        return paths
    with (
        paths["lines"].open("w") as lines,
        paths["array"].open("w") as array,
        gzip.open(paths["lines.gz"], "wt", compresslevel=6) as lines_gz,
        gzip.open(paths["array.gz"], "wt", compresslevel=6) as array_gz,
    ):
        first = True
        for batch in entries(count):
            for entry in batch:
                line = json.dumps(entry, sort_keys=True) + "\n"
                lines.write(line)
                lines_gz.write(line)
                item = json.dumps(entry, indent=2, sort_keys=True, ensure_ascii=False)
                item = ("[\n" if first else ",\n") + "  " + item.replace("\n", "\n  ")
                array.write(item)
                array_gz.write(item)
                first = False
        array.write("\n]\n")
        array_gz.write("\n]\n")
    return paths


@dataclasses.dataclass(frozen=True)
class Run:
    """One child process: wall seconds, CPU seconds (user and system) and peak memory (MB)."""

    wall: float
    cpu: float
    peak: float


def measure(command: list[str]) -> Run:
    """Run a child as a user's installed copy runs: from cached bytecode (pip compiles it at
    install time), whatever PYTHONDONTWRITEBYTECODE this shell has; best-of runs reuse it."""
    start = time.perf_counter()
    child = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=CHILD_ENVIRONMENT
    )
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - start
    assert child.stderr is not None
    if status:
        raise SystemExit(f"{command[2:5]} failed: {child.stderr.read().decode()[-500:]}")
    return Run(elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def one_pass(path: Path, action: str) -> str:
    """A child program doing what an action without window flags does in one pass:
    queries whose window is every plausible instant, the export's span reported after."""
    return f"""
import sys, time
from pathways_workload import target
from pathways_workload.arguments import build_parser, options_from, target_flags
from pathways_workload.query import Request
from pathways_workload.registry import ACTIONS
from pathways_workload.runner import Output, run_action
from pathways_workload.sources.files import FileSource, plausible_window
args = build_parser().parse_args(["--action={action}", "{WORKLOAD}", "--logs_file={path}"])
source = FileSource(args.logs_file, err=sys.stderr)
window = plausible_window(time.time_ns())
request = Request(target.from_flags(target_flags(args)), window, options_from(args))
run_action(ACTIONS["{action}"], request, source, Output(sys.stdout, sys.stderr))
sys.stderr.write(source.span().describe() + "\\n")
"""


class Bench:
    """The rows of the table. Each run of a row is paired with a json.loads pass run just
    before it, and the row's ratio is the median of the pairs' ratios, so that the load
    other processes put on the machine, which drifts, cancels out."""

    def __init__(self, scripts: Path, paths: dict[str, Path], repeat: int) -> None:
        self.scripts = scripts
        self.paths = paths
        self.repeat = repeat
        self.loads: list[float] = []
        self.ratios: dict[str, float] = {}

    def tool(self, layout: str, *args: str, workload: str = WORKLOAD) -> list[str]:
        script = str(self.scripts / "debug_workload.py")
        return [sys.executable, script, f"--logs_file={self.paths[layout]}", workload, *args]

    def row(
        self, name: str, command: list[str], versus: str | None = None, loads_of: str = "lines"
    ) -> None:
        """One row; its ratios are to json.loads over the JSON Lines export `loads_of`."""
        loads_command = [sys.executable, "-c", JSON_LOADS, str(self.paths[loads_of])]
        runs, ratios = [], []
        for _ in range(self.repeat):
            loads = measure(loads_command).wall
            if loads_of == "lines":
                self.loads.append(loads)
            runs.append(measure(command))
            ratios.append(runs[-1].wall / loads)
        ratio = statistics.median(ratios)
        self.ratios[name] = ratio
        text = f"{ratio:5.2f}x json.loads ({min(ratios):.2f}-{max(ratios):.2f})"
        if versus:
            text += f"  {ratio / self.ratios[versus]:4.2f}x {versus}"
        best = min(runs, key=lambda run: run.wall)
        peak = max(run.peak for run in runs)
        print(f"{name:<34} {best.wall:5.2f} s  cpu {best.cpu:5.2f} s  peak {peak:4.0f} MB  {text}")


def report(bench: Bench) -> None:
    lines = bench.paths["lines"]
    print(
        f"export: {lines.stat().st_size / 1e6:.0f} MB JSON Lines, "
        f"{bench.paths['array'].stat().st_size / 1e6:.0f} MB gcloud array, "
        f"{bench.paths['lines.gz'].stat().st_size / 1e6:.0f} MB gzipped; best of "
        f"{bench.repeat} runs, ratios the median of runs each paired with a json.loads pass"
    )
    bench.row("errors, no window flags", bench.tool("lines", "--action=errors"))
    bench.row("errors, window flags", bench.tool("lines", "--action=errors", *WINDOW))
    bench.row("triage, no window flags", bench.tool("lines", "--action=triage"))
    bench.row(
        "errors, gzipped", bench.tool("lines.gz", "--action=errors"), "errors, no window flags"
    )
    bench.row(
        "triage, gzipped", bench.tool("lines.gz", "--action=triage"), "triage, no window flags"
    )
    bench.row(
        "errors, gcloud array", bench.tool("array", "--action=errors"), "errors, no window flags"
    )
    bench.row(
        "triage, gcloud array", bench.tool("array", "--action=triage"), "triage, no window flags"
    )
    bench.row(
        "triage, gcloud array gzipped",
        bench.tool("array.gz", "--action=triage"),
        "triage, gcloud array",
    )
    if (bench.scripts / "pathways_workload" / "sources" / "span.py").exists():
        for action in ("errors", "triage"):
            for layout, versus in (("lines", None), ("lines.gz", "lines"), ("array", "lines")):
                name = f"{action}, one pass, {layout}"
                program = [sys.executable, "-c", one_pass(bench.paths[layout], action)]
                command = ["env", f"PYTHONPATH={bench.scripts}", *program]
                bench.row(name, command, f"{action}, one pass, {versus}" if versus else None)


def large_rows(bench: Bench, folder: Path, names: Sequence[str]) -> None:
    """Triage of the generated 1,024- and 4,096-host incidents (tests/corpus/large.py), as
    written (gzipped) and decompressed, each against json.loads over its JSON Lines."""
    for name in names:
        packed, planted = large_export(name)
        plain = folder / f"{name}.jsonl"
        if not plain.exists():
            with gzip.open(packed, "rb") as source, plain.open("wb") as target:
                shutil.copyfileobj(source, target, 1 << 22)
        bench.paths[name], bench.paths[f"{name}.gz"] = plain, packed
        workload = f"--jobset_name={planted.jobset}"
        print(f"{name}: {plain.stat().st_size / 1e6:.0f} MB JSON Lines, {_lines(plain)} entries")
        row = f"triage, {name}"
        bench.row(row, bench.tool(name, "--action=triage", workload=workload), loads_of=name)
        command = bench.tool(f"{name}.gz", "--action=triage", workload=workload)
        bench.row(f"{row}, gzipped", command, row, loads_of=name)


def _lines(path: Path) -> int:
    with path.open("rb") as lines:
        return sum(1 for _ in lines)


def big_export(paths: dict[str, Path], folder: Path) -> Path:
    """About 1.5 GB of JSON Lines: the export repeated."""
    big = folder / "big.jsonl"
    if big.exists():
        return big
    with big.open("wb") as handle:
        while handle.tell() < BIG_BYTES:
            with paths["lines"].open("rb") as part:
                shutil.copyfileobj(part, handle, 1 << 22)
    return big


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=300_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--big",
        action="store_true",
        help="also the peak memory on 1.5 GB (and, with --large, the 4,096-host cascade)",
    )
    parser.add_argument(
        "--large", action="store_true", help="also triage of the 1,024-host incidents"
    )
    parser.add_argument("--scripts", type=Path, default=ROOT / "scripts")
    parser.add_argument("--folder", type=Path, help="keep the exports here, reuse them")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-offline-") as name:
        folder = args.folder or Path(name)
        folder.mkdir(parents=True, exist_ok=True)
        paths = write_exports(folder, args.entries)
        bench = Bench(args.scripts, paths, args.repeat)
        report(bench)
        if args.large:
            names = [*LARGE_NAMES, *(["cascade-4096"] if args.big else [])]
            large_rows(bench, folder, names)
        loads = sorted(bench.loads)
        print(
            f"json.loads of every line: {loads[0]:.2f} s best, {statistics.median(loads):.2f} s "
            f"median, {loads[-1]:.2f} s worst, over {len(loads)} runs"
        )
        if args.big:
            paths["big"] = big_export(paths, folder)
            for action in ("errors", "triage"):
                run = measure(bench.tool("big", f"--action={action}"))
                size = paths["big"].stat().st_size / 1e9
                print(f"{action} on {size:.1f} GB: {run.wall:.1f} s, peak {run.peak:.0f} MB")


if __name__ == "__main__":
    main()
