"""The HTML report in a real browser: headless Chromium renders every corpus incident's report
with its script running, the root cause marked, a lane per host, the checks table and no
console message; the timeline is drawn; workload text never runs.

Chromium is kept off the network (tests/browser.py); without it these tests skip, except
under CI.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from tests.browser import colour_count, measure, open_page
from tests.corpus.large import export
from tests.helpers import run_cli
from tests.html_report import hostile_export, long_root_cause_report, write_report
from tests.test_incidents import NAMES, expected
from tests.test_timeline import _host_of_pod

ROOT_COLOUR = (0xC5, 0x22, 0x1F)  # --root in report.css
_ROOT_MARK_RE = re.compile(r'id="root-mark"[^>]*>\s*<title>(.*?)</title>', re.S)
_HOST_LANE_RE = re.compile(r'data-lane="host/')


def _root_title(dom: str) -> str | None:
    found = _ROOT_MARK_RE.search(dom)
    return html.unescape(found.group(1)) if found else None


@pytest.mark.parametrize("name", NAMES)
def test_chromium_renders_every_incident_with_its_root_cause(name: str, tmp_path: Path) -> None:
    path, _ = write_report(tmp_path, name)
    page = open_page(path)
    assert page.console == []
    assert '<html lang="en" class="js">' in page.dom  # the script ran
    assert re.search(r'<div class="controls js-only">(<button[^>]*>[^<]*</button>)+', page.dom)
    planted = expected(name)["root_cause"]
    title = _root_title(page.dom)
    if planted is None:
        assert title is None
    else:
        assert title is not None
        assert planted["timestamp"] in title and planted["message_contains"] in title
    assert len(_HOST_LANE_RE.findall(page.dom)) == len(set(_host_of_pod(name).values()))
    assert 'id="checks-table"' in page.dom and "Logs Explorer</a>" in page.dom


@pytest.mark.parametrize("name", ["lost-connection-to-peer", "host-oom-worker", "silent-hang"])
def test_the_timeline_is_drawn(name: str, tmp_path: Path) -> None:
    """The page against itself with the lanes hidden: what differs is the drawing, and the
    root-cause mark is in it."""
    path, _ = write_report(tmp_path, name)
    hidden = tmp_path / "hidden.html"
    text = path.read_text(encoding="utf-8")
    hidden.write_text(text.replace("</head>", "<style>.lanes{visibility:hidden}</style></head>"))
    size = (1400, 3200)
    shots = [tmp_path / "drawn.png", tmp_path / "hidden.png"]
    for source, shot in zip((path, hidden), shots):
        assert open_page(source, shot, size).console == []
    from PIL import Image, ImageChops

    with Image.open(shots[0]) as drawn, Image.open(shots[1]) as blank:
        box = ImageChops.difference(drawn.convert("RGB"), blank.convert("RGB")).getbbox()
    assert box is not None, "the lanes drew nothing"
    left, top, right, bottom = box
    assert right - left > 600 and bottom - top > 100  # lanes across the page, many of them
    assert colour_count(shots[0], ROOT_COLOUR, box) >= 30  # the root-cause diamond


def test_workload_text_never_runs(tmp_path: Path) -> None:
    logs = hostile_export(tmp_path)
    for action in ("triage", "errors"):
        out = tmp_path / f"{action}.html"
        code, _, err = run_cli(
            f"--logs_file={logs}",
            "--jobset_name=llama-train",
            f"--action={action}",
            "--format=html",
            f"--output={out}",
        )
        assert code == 0, err
        text = out.read_text(encoding="utf-8")
        without_policy = tmp_path / f"{action}-no-policy.html"
        without_policy.write_text(
            re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", text)
        )
        for source in (out, without_policy):
            page = open_page(source)
            assert page.console == []
            assert "data-pwned" not in page.dom.split("<body", 1)[1].split(">", 1)[0]
            assert "<img" not in page.dom
            assert "&lt;script&gt;document.body.setAttribute" in page.dom


def test_the_1024_host_report_renders_collapsed_per_slice(tmp_path: Path) -> None:
    path, planted = export("cascade-1024")
    out = tmp_path / "big.html"
    code, _, err = run_cli(
        f"--logs_file={path}",
        *planted.target(),
        "--action=triage",
        "--format=html",
        f"--output={out}",
    )
    assert code == 0, err
    page = open_page(out)
    assert page.console == []
    assert len(re.findall(r'<details class="group" data-group="slice/\d+">', page.dom)) == 16
    assert '<details class="group" data-group="slice/0" open' not in page.dom
    assert len(_HOST_LANE_RE.findall(page.dom)) == 1024
    title = _root_title(page.dom)
    assert title is not None and planted.root_time in title and planted.root_pod in title


def test_the_view_names_its_date(tmp_path: Path) -> None:
    """Zoomed in on a window of days, the ticks say hours only: the view's line says the
    date it starts on."""
    path, _ = write_report(tmp_path, "lost-connection-to-peer")
    page = open_page(path)
    assert page.console == []
    (view,) = re.findall(r'<span class="view">([^<]*)</span>', page.dom)
    assert re.match(r"view from 2026-11-20 \d\d:\d\d:\d\d\.\d{3} UTC, ", view), view


def test_a_megabyte_root_cause_line_leaves_the_timeline_near_the_top(tmp_path: Path) -> None:
    """The root cause's line and each evidence line scroll in a box a few lines high: with
    the evidence open, the timeline still starts about where it does for a short line
    (~650 px), not 100,000 px down the page."""
    path = long_root_cause_report(tmp_path)
    top = "document.getElementById('timeline').getBoundingClientRect().top + scrollY"
    opened = "document.querySelectorAll('#root-cause details').forEach(d => { d.open = true; })"
    assert measure(path, top) < 1_000
    assert measure(path, f"({opened}, {top})") < 1_500
