"""Every benchmark still runs: each at a tiny size, through its own command line.

The benchmarks print figures and assert nothing, so a change to an interface
they stand in for (a source, the corpus engine) would otherwise break them
unseen. Each must exit 0 and print the heading of its figures; the figures
themselves are not judged here. (bench_html needs Chromium and large pages:
tests/test_html_browser.py covers what it measures.)
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RUNS = {
    "bench_lql.py": (["--entries", "2000"], "may_match_raw:"),
    "bench_corpus.py": (["--slices", "2", "--hosts", "2"], "peak RSS:"),
    "bench_analytics.py": (["--slices", "2", "--hosts", "4"], "triage: "),
    "bench_cloud.py": (["--latency", "0", "--entries", "2000", "--pages", "2"], "cascade-4096"),
}


@pytest.mark.parametrize("script", sorted(RUNS))
def test_a_benchmark_runs_at_a_tiny_size(script: str) -> None:
    args, heading = RUNS[script]
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert heading in done.stdout


def test_the_offline_benchmark_runs_at_a_tiny_size(tmp_path: Path) -> None:
    script = ROOT / "benchmarks" / "bench_offline.py"
    args = ["--entries", "3000", "--repeat", "1", f"--folder={tmp_path}", "--large"]
    done = subprocess.run(
        [sys.executable, str(script), *args], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "triage, no window flags" in done.stdout and "json.loads of every line" in done.stdout
    assert "triage, silent-hang-1024, gzipped" in done.stdout
    assert "triage, dense-cascade-1024, gzipped" in done.stdout
