"""Offline replay speed and memory: `--action=errors` and `--action=triage` on a big export.

Prints figures; it asserts nothing. Compares the replay with a plain `json.loads`
of every line (target: ratio at most 1.0), with `jq` doing the equivalent select
(target: at least 5 times faster), and reports peak memory (target: under 200 MB,
also for a 1.5 GB export with --big).

    python3 benchmarks/bench_offline.py [--entries=300000] [--big]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "scripts"), str(ROOT)]

from tests.logentry import container_line, pod_labels  # noqa: E402

from pathways_workload.terms import CRASH_TERMS  # noqa: E402

WINDOW = ("--start_time=2026-10-22T10:00:00Z", "--duration=4h")
BENIGN = (
    "I/O step finished in {n} ms",
    "completed step: {n}, seconds: 0.166, TFLOP/s/device: 41.524, loss: 2.17",
    "Transferring {n} buffers to device 3",
    "MegaScale transport heartbeat from peer {n} ok",
    "gRPC server handled request {n} in 12 ms",
)


def synthetic_entry(rng: random.Random, index: int) -> dict[str, object]:
    """A k8s_container line of about 570 bytes (as in the issue's 170 MB for 300,000 entries),
    mostly benign, a few crash lines."""
    jobset = "llama-train" if rng.random() < 0.85 else "llama-train-eval"
    slice_index, host = rng.randrange(4), rng.randrange(4)
    text = rng.choice(BENIGN).format(n=index)
    if rng.random() < 0.003:
        text = f"{rng.choice(CRASH_TERMS)}: synthetic failure {index}"
    seconds = 36000 + index * 14400 // 300000
    stamp = f"2026-10-22T{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
    severity = rng.choice(("INFO", "INFO", "INFO", "WARNING", "ERROR"))
    return container_line(
        text,
        pod=f"{jobset}-worker-{slice_index}-{host}-x7k2p",
        container="pathways-worker",
        node=f"gke-pw-tpu-np-{slice_index}-abcd-{host}",
        timestamp=f"{stamp}.{rng.randrange(10**9):09d}Z",
        insert_id=f"{index:016x}",
        labels=pod_labels({"jobset.sigs.k8s.io/jobset-name": jobset}),
        severity=severity,
    )


def write_export(path: Path, entries: int) -> None:
    rng = random.Random(7)
    with path.open("w") as handle:
        for index in range(entries):
            handle.write(json.dumps(synthetic_entry(rng, index)) + "\n")


def measure(command: list[str]) -> tuple[float, float]:
    """Wall seconds and peak resident memory (MB) of a child process."""
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - start
    if status:
        raise SystemExit(f"{command[:3]} failed with status {status}")
    return elapsed, usage.ru_maxrss / 1024


def json_loads_seconds(path: Path) -> float:
    start = time.perf_counter()
    with path.open("rb") as handle:
        for line in handle:
            json.loads(line)
    return time.perf_counter() - start


def jq_command(path: Path) -> list[str]:
    pattern = "|".join(
        term.lower().replace("(", "\\\\(").replace(")", "\\\\)").replace(".", "\\\\.")
        for term in CRASH_TERMS
    )
    program = (
        'select(.labels["k8s-pod/jobset_sigs_k8s_io/jobset-name"] == "llama-train" and '
        f'((.textPayload // .jsonPayload.message // "") | test("{pattern}"; "i")))'
    )
    return ["jq", "-c", program, str(path)]


def report(path: Path) -> None:
    size_mb = path.stat().st_size / 1e6
    tool = [
        sys.executable,
        str(ROOT / "scripts" / "debug_workload.py"),
        f"--logs_file={path}",
        "--jobset_name=llama-train",
        *WINDOW,
    ]
    loads = json_loads_seconds(path)
    errors, errors_mb = measure([*tool, "--action=errors", "--limit=1000"])
    triage, triage_mb = measure([*tool, "--action=triage"])
    print(f"export: {path.name}, {size_mb:.0f} MB")
    print(f"json.loads of every line:   {loads:6.2f} s")
    print(
        f"--action=errors:            {errors:6.2f} s  ratio {errors / loads:.2f}  "
        f"peak {errors_mb:.0f} MB"
    )
    print(
        f"--action=triage:            {triage:6.2f} s  {triage / errors:.2f}x errors  "
        f"peak {triage_mb:.0f} MB"
    )
    if shutil.which("jq"):
        jq, jq_mb = measure(jq_command(path))
        print(
            f"jq equivalent select:       {jq:6.2f} s  tool is {jq / errors:.1f}x faster  "
            f"(jq peak {jq_mb:.0f} MB)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--entries", type=int, default=300_000)
    parser.add_argument("--big", action="store_true", help="also a 1.5 GB export (memory)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "export.jsonl"
        write_export(path, args.entries)
        report(path)
        if args.big:
            big = Path(folder) / "big.jsonl"
            with big.open("wb") as handle:
                for _ in range(9):
                    with path.open("rb") as part:
                        shutil.copyfileobj(part, handle)
            _, peak = measure(
                [
                    sys.executable,
                    str(ROOT / "scripts" / "debug_workload.py"),
                    f"--logs_file={big}",
                    "--jobset_name=llama-train",
                    *WINDOW,
                    "--action=errors",
                ]
            )
            print(f"--action=errors on {big.stat().st_size / 1e9:.1f} GB: peak {peak:.0f} MB")


if __name__ == "__main__":
    main()
