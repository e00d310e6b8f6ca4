"""Helpers for the HTML report's tests: write a report, read its structure, hostile lines."""

from __future__ import annotations

import html.parser
import json
from pathlib import Path
from typing import Any

from tests.helpers import container_entry, run_cli
from tests.test_incidents import INCIDENTS, expected, target_args

# Lines a workload could log, each trying to run script in the report.
SCRIPT_TAG = "<script>document.body.setAttribute('data-pwned','script');alert(1)</script>"
BREAKOUT = "</script><img src=x onerror=\"document.body.setAttribute('data-pwned','img')\">"
COMMENT = "<!-- <svg onload=\"document.body.setAttribute('data-pwned','svg')\"> \u2028 -->"
HOSTILE = (
    f"Check failed: device busy {BREAKOUT}",
    f"DEADLINE_EXCEEDED: lost connection to peer {SCRIPT_TAG}",
    f"Check failed: plain <script>alert(1)</script> {COMMENT}",
)


def write_report(tmp: Path, name: str, *more: str, fmt: str = "html") -> tuple[Path, str]:
    """A corpus incident's triage report written to a file; returns it and stderr."""
    path = tmp / f"{name}.{fmt}"
    code, out, err = run_cli(
        *target_args(name, True), "--action=triage", f"--format={fmt}", f"--output={path}", *more
    )
    assert code == 0, err
    assert out == ""
    return path, err


def hostile_export(tmp: Path) -> Path:
    """A recorded export whose crash lines carry markup and script."""
    entries = [
        container_entry(
            text, pod=f"llama-train-worker-0-{i}-abcde", timestamp=f"2026-10-22T11:30:0{i}.5Z"
        )
        for i, text in enumerate(HOSTILE)
    ]
    path = tmp / "hostile.json"
    path.write_text(json.dumps(entries))
    return path


# A megabyte appended to the root cause's line of lost-connection-to-peer.
LONG_TAIL = " " + "A" * 1_000_000


def long_root_cause_report(tmp: Path) -> Path:
    """lost-connection-to-peer's triage page, its root-cause line a megabyte long."""
    entries = json.loads(incident_path("lost-connection-to-peer").read_text())
    planted = expected("lost-connection-to-peer")["root_cause"]["message_contains"]
    (root,) = [e for e in entries if str(e.get("textPayload", "")).startswith(planted)]
    root["textPayload"] += LONG_TAIL
    logs = tmp / "long-line.json"
    logs.write_text(json.dumps(entries))
    page = tmp / "long-line.html"
    args = ("--jobset_name=llama-train", "--action=triage", "--format=html")
    code, _, err = run_cli(f"--logs_file={logs}", *args, f"--output={page}")
    assert code == 0, err
    return page


class Structure(html.parser.HTMLParser):
    """What a page is made of: elements with their attributes, and the text of each script."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self.text: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))
        self._in_script = tag == "script"
        if self._in_script:
            self.scripts.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts[-1] += data
        else:
            self.text.append(data)

    def tags(self, name: str) -> list[dict[str, str | None]]:
        return [attrs for tag, attrs in self.elements if tag == name]


def structure(page: str) -> Structure:
    parsed = Structure()
    parsed.feed(page)
    parsed.close()
    return parsed


def report_data(page: str) -> Any:
    """The JSON the page carries for tools."""
    parsed = structure(page)
    index = [attrs.get("id") for attrs in parsed.tags("script")].index("report-data")
    return json.loads(parsed.scripts[index])


def incident_path(name: str) -> Path:
    return INCIDENTS / f"{name}.json"
