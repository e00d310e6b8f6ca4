"""Control characters a log line carries are shown in text output, never sent raw to the
terminal; JSON output escapes them as JSON does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pathways_workload.analytics.sql import string
from pathways_workload.visible_text import CONTROLS, visible
from tests.helpers import container_entry, run_cli

# Colour, a terminal title (OSC 0), a clipboard write (OSC 52), a CSI in its C1 form, a
# backspace and a carriage return that would hide what came before it on the line.
HOSTILE = (
    "\x1b[31mCheck failed\x1b[0m: boom \x1b]0;title\x07 \x1b]52;c;aGk=\x07 "
    "\u009b2J hidden\x08\x08 text\r overwritten"
)
WORKLOAD = ("--jobset_name=llama-train", "--start_time=2026-10-22T11:00:00Z", "--duration=1h")


def _export(tmp_path: Path, *texts: str) -> str:
    path = tmp_path / "export.jsonl"
    lines = [json.dumps(container_entry(text, severity="CRITICAL")) for text in texts]
    path.write_text("\n".join(lines) + "\n")
    return f"--logs_file={path}"


def _raw_controls(text: str) -> list[str]:
    return CONTROLS.findall(text)


def test_visible_shows_every_control_but_tab_and_newline() -> None:
    assert visible("a\tb\nc") == "a\tb\nc"
    assert visible("\x00\x1b\x7f\u0085\u009f\u00a0") == "\\x00\\x1b\\x7f\\x85\\x9f\u00a0"


def test_visible_shows_separators_and_bidirectional_controls() -> None:
    """A line separator splits a line for `str.splitlines()`; an override shows the rest
    of the terminal line reversed (`…75wk5rekrow-syawhtap`)."""
    assert visible("a\u2028b\u2029c \u202epod \u2066x\u2069 \u200bz") == (
        "a\\u2028b\\u2029c \\u202epod \\u2066x\\u2069 \u200bz"
    )


@pytest.mark.parametrize("action", ["errors", "triage"])
def test_text_output_shows_separators_of_log_lines(tmp_path: Path, action: str) -> None:
    text = "Check failed: a\u2028b \u202eRTL"
    code, out, err = run_cli(f"--action={action}", _export(tmp_path, text), *WORKLOAD)
    assert code == 0, err
    assert "\u2028" not in out and "\u202e" not in out
    assert "Check failed: a\\u2028b \\u202eRTL" in out


@pytest.mark.parametrize("action", ["errors", "triage", "workers"])
def test_text_output_shows_controls_of_log_lines(tmp_path: Path, action: str) -> None:
    code, out, err = run_cli(f"--action={action}", _export(tmp_path, HOSTILE), *WORKLOAD)
    assert code == 0, err
    assert _raw_controls(out) == [] and _raw_controls(err) == []
    assert "\\x1b[31mCheck failed\\x1b[0m" in out
    assert "\\x1b]52;c;aGk=\\x07" in out and "\\x9b2J" in out
    assert "text\\x0d overwritten" in out.replace("\n  ", " ")  # triage wraps a long cause


def test_json_output_escapes_controls_and_keeps_the_message(tmp_path: Path) -> None:
    code, out, err = run_cli(
        "--action=errors", _export(tmp_path, HOSTILE), *WORKLOAD, "--format=json"
    )
    assert code == 0, err
    assert _raw_controls(out) == []
    assert "\\u009b" in out
    assert json.loads(out)["textPayload"] == HOSTILE


def test_a_message_ending_in_crlf_reads_as_lines(tmp_path: Path) -> None:
    export = _export(tmp_path, "Check failed: first\r\nsecond line\r\n")
    code, out, err = run_cli("--action=errors", export, *WORKLOAD)
    assert code == 0, err
    assert "Check failed: first\n    second line\n" in out
    assert "\\x0d" not in out


def test_notes_and_errors_show_controls(tmp_path: Path) -> None:
    missing = tmp_path / "no\x1b]0;x\x07such.json"
    code, out, err = run_cli("--action=errors", f"--logs_file={missing}", *WORKLOAD)
    assert code != 0 and out == ""
    assert _raw_controls(err) == []
    assert "no\\x1b]0;x\\x07such.json" in err


def test_sql_literals_escape_c1_controls() -> None:
    assert string("a\u009bb\u0085c") == "'a\\u009bb\\u0085c'"
