"""How fast the corpus engine writes a large JobSet: slices x hosts TPU workers training for the
hour (with the usual decoy JobSet, bystander and node chatter), as gzipped JSON Lines.

Prints the entries, the time to plant and to write them, the sizes and the peak memory.

    python3 benchmarks/bench_corpus.py [--slices 16] [--hosts 64]
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "scripts"), str(ROOT)]

from tests.corpus import beats  # noqa: E402
from tests.corpus.clock import sec  # noqa: E402
from tests.corpus.incident import Incident, Story  # noqa: E402
from tests.corpus.layouts import release  # noqa: E402
from tests.corpus.writer import write_json_lines  # noqa: E402


def plant(slices: int, hosts: int) -> Incident:
    """A healthy JobSet of slices x hosts workers, for the hour."""
    story = Story(
        slug=f"scale-{slices}x{hosts}",
        seed=slices * 1000 + hosts,
        start="2026-12-01T08:00:00Z",
        title=f"A {slices}x{hosts} JobSet trains",
        scenario=None,
        layout="xpk",
        summary="Benchmark scene: nothing fails.",
    )
    inc = Incident(story)
    run = beats.standard(
        inc, "big-train", release(), slices=slices, hosts=hosts, itype="tpuv6e:8x8"
    )
    boot = beats.start_run(inc, run, run.launch)
    beats.steady(inc, run, boot)
    beats.train(inc, run, boot.first_step, inc.t1 - sec(2), beats.Training(step_time=9.0))
    beats.node_noise(inc)
    return inc


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slices", type=int, default=16)
    parser.add_argument("--hosts", type=int, default=64)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    incident = plant(args.slices, args.hosts)
    planted = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"{incident.story.slug}.jsonl.gz"
        write_json_lines(path, incident)
        written = time.perf_counter()
        size = path.stat().st_size
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{args.slices}x{args.hosts} = {args.slices * args.hosts} TPU hosts")
    print(f"entries:  {len(incident.rows):>10,}")
    print(f"plant:    {planted - started:10.1f} s")
    print(f"write:    {written - planted:10.1f} s (JSON Lines, shuffled per minute, gzipped)")
    print(f"gzipped:  {size / 1e6:10.1f} MB")
    print(f"peak RSS: {peak:10.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
