"""How big the HTML report is and how long it takes to write and to draw, at 16, 1,024 and
(with --big) 4,096 TPU hosts.

For each generated cascade (tests/corpus/large.py) it prints: triage offline (to the JSON
report), rendering that report as the page, the page's size, and, when Chromium is
installed, what the page takes in headless Chromium (real time, over the DevTools
protocol): from navigation until it has loaded and drawn, to zoom to the root cause, and
to expand every slice, each until the next frame is drawn.

    python3 benchmarks/bench_html.py [--big]
"""

from __future__ import annotations

import argparse
import io
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "scripts"), str(ROOT)]

from tests.browser import DevTools  # noqa: E402
from tests.corpus.large import export  # noqa: E402

from pathways_workload.cli import main as cli_main  # noqa: E402
from pathways_workload.render.html.triage import triage_page  # noqa: E402

# Run in the page: when it has loaded and drawn, then how long a click takes to be drawn.
DRAWN = "new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"
LOADED = (
    "new Promise(done => document.readyState === 'complete' ? done() : "
    f"addEventListener('load', () => done())).then(() => {DRAWN})"
    ".then(() => performance.now())"
)


def click(label: str) -> str:
    """Run in the page: click the timeline's button, and time it until drawn."""
    return (
        "(() => { const start = performance.now(); "
        "[...document.querySelectorAll('.controls button')]"
        f".filter(b => b.textContent === {json.dumps(label)}).forEach(b => b.click()); "
        f"return {DRAWN}.then(() => performance.now() - start); }})()"
    )


def triage(name: str, fmt: str) -> tuple[float, str]:
    """Seconds to run triage on the generated incident, and its output."""
    path, planted = export(name)
    out, err = io.StringIO(), io.StringIO()
    started = time.perf_counter()
    code = cli_main(
        [
            f"--logs_file={path}",
            f"--jobset_name={planted.jobset}",
            f"--start_time={planted.start}",
            f"--end_time={planted.end}",
            "--action=triage",
            f"--format={fmt}",
        ],
        out=out,
        err=err,
    )
    elapsed = time.perf_counter() - started
    if code != 0:
        raise SystemExit(f"triage of {name} failed: {err.getvalue()}")
    return elapsed, out.getvalue()


def browser_times(path: Path) -> tuple[float, float, float]:
    """Milliseconds until the page was loaded and drawn, to zoom to the root cause, and to
    expand every slice, in headless Chromium."""
    browser = DevTools()
    try:
        browser.call("Page.navigate", {"url": path.as_uri()})
        loaded = float(browser.evaluate(LOADED))
        zoom = float(browser.evaluate(click("root cause ±1 s")))
        expand = float(browser.evaluate(click("Expand slices")))
    finally:
        browser.close()
    return loaded, zoom, expand


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--big", action="store_true", help="also the 4,096-host cascade")
    args = parser.parse_args(argv)
    names = ["cascade-16", "cascade-1024"] + (["cascade-4096"] if args.big else [])
    browser = shutil.which("chromium") is not None
    print("incident      triage  render    size   load+draw  zoom  expand all")
    for name in names:
        export(name)  # generated (and cached) before timing
        seconds, out = triage(name, "json")
        report = json.loads(out)
        started = time.perf_counter()
        page = triage_page(report)
        rendered = time.perf_counter() - started
        line = f"{name:<13}{seconds:6.2f}s{rendered:7.2f}s{len(page.encode()) / 1e6:7.2f}MB"
        if browser:
            with tempfile.TemporaryDirectory() as folder:
                path = Path(folder) / "report.html"
                path.write_text(page, encoding="utf-8")
                loaded, zoom, expand = browser_times(path)
            line += f"{loaded:9.0f}ms{zoom:6.0f}ms{expand:9.0f}ms"
        print(line)
    if not browser:
        print("(no chromium: browser figures skipped)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
