"""Tracebacks logged one line per entry: the exception line is found and shown with its header."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from pathways_workload import tracebacks
from pathways_workload.describe import bare_text
from tests.helpers import container_entry, run_cli
from tests.test_incidents import NAMES, target_args

CLIENT = "llama-train-pathways-head-0-0-abcde"
TIME = "2026-10-22T11:30:00.100000000Z"
FRAMES = [
    '  File "/app/train.py", line 12, in <module>',
    "    main()",
    '  File "/app/train.py", line 9, in main',
    "    mesh = make_mesh(shape)",
]


def _lines(texts: list[str], start: str = "2026-10-22T11:30:00.100000000Z", **kw: Any) -> list:
    """One entry per line, all with the same timestamp (as GKE records a burst of stderr)."""
    return [
        container_entry(
            text, pod=CLIENT, container="jax-tpu", severity="ERROR", timestamp=start, **kw
        )
        for text in texts
    ]


def test_the_exception_line_is_found_by_its_shape_not_its_position() -> None:
    entries = _lines(
        [
            "Traceback (most recent call last):",
            *FRAMES,
            "ValueError: mesh shape (4, 8) does not match 16 devices",
        ]
    )
    entries[-1]["insertId"] = "aaa-first-by-id"  # sorts before the header's insertId
    header = entries[0]
    header["insertId"] = "aaa-0"
    built = tracebacks.assemble(header, entries)
    assert built.exception is not None
    assert bare_text(built.exception["textPayload"]).startswith("ValueError: mesh")


def test_lines_sharing_the_header_time_are_read_whatever_their_insert_ids() -> None:
    """Lines of one burst share a timestamp and their insertIds are random: a header whose
    insertId sorts after the exception's still ends with that exception, its header first."""
    texts = ["Traceback (most recent call last):", *FRAMES, "MemoryError"]
    entries = _lines(texts)
    for entry, insert_id in zip(entries, ["zz-header", "aa", "mm", "nn", "pp", "bb-exception"]):
        entry["insertId"] = insert_id
    built = tracebacks.assemble(entries[0], entries)
    assert built.exception is entries[-1]
    assert built.text() == texts


def test_triage_names_the_exception_of_a_traceback_whose_header_sorts_last(
    tmp_path: Path,
) -> None:
    texts = ["Traceback (most recent call last):", *FRAMES, "ValueError: bad mesh"]
    entries = _lines(texts)
    for entry, insert_id in zip(entries, ["zz-header", "aa", "mm", "nn", "pp", "bb-exception"]):
        entry["insertId"] = insert_id
    path = tmp_path / "export.json"
    path.write_text(json.dumps(entries))
    args = (f"--logs_file={path}", "--jobset_name=llama-train", "--format=json")
    code, out, err = run_cli(*args, "--action=triage")
    assert code == 0, err
    root = json.loads(out)["root_cause"]
    assert root["message"] == "ValueError: bad mesh"
    assert root["traceback"] == texts
    assert not root["downstream_only"]


def test_chained_exceptions_end_with_the_last_one() -> None:
    texts = [
        "[rank0]: Traceback (most recent call last):",
        '[rank0]:   File "/app/train.py", line 3, in <module>',
        "[rank0]: KeyError: 'mesh'",
        "[rank0]: ",
        "[rank0]: During handling of the above exception, another exception occurred:",
        "[rank0]: Traceback (most recent call last):",
        '[rank0]:   File "/app/train.py", line 5, in <module>',
        "[rank0]: ModuleNotFoundError: No module named 'orbax'",
    ]
    entries = _lines(texts)
    for number, entry in enumerate(entries):
        entry["insertId"] = f"id{number:03d}"
    assert tracebacks.is_header(entries[0])
    built = tracebacks.assemble(entries[0], entries)
    assert built.exception is entries[-1]


def test_lines_that_only_look_like_exceptions_are_not() -> None:
    assert not tracebacks.is_exception_line("  ValueError: indented, a frame's source")
    assert not tracebacks.is_exception_line("WARNING:absl:pathwaysutils: Detected backend.")
    assert not tracebacks.is_exception_line("Epoch: 3")
    assert tracebacks.is_exception_line("jax.errors.JaxRuntimeError: UNAVAILABLE: Socket closed")
    assert tracebacks.is_exception_line("KeyboardInterrupt")


def _export(tmp_path: Path) -> Path:
    texts = ["Traceback (most recent call last):", *FRAMES, "ValueError: bad mesh"]
    entries = _lines(texts)
    for number, entry in enumerate(entries):
        entry["insertId"] = f"tb{number:03d}"
    path = tmp_path / "export.json"
    path.write_text(json.dumps(entries))
    return path


def test_errors_show_the_exception_after_its_header(tmp_path: Path) -> None:
    args = (f"--logs_file={_export(tmp_path)}", "--jobset_name=llama-train", "--action=errors")
    code, out, err = run_cli(*args)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].endswith("jax-tpu: Traceback (most recent call last):")
    assert lines[1].endswith("jax-tpu: ValueError: bad mesh")
    code, out, err = run_cli(*args, "--first_per_pod=1")
    assert code == 0, err
    assert "ValueError: bad mesh" in out


@pytest.mark.parametrize("engine", ["logging", "analytics"])
@pytest.mark.parametrize(("order", "first"), [("asc", "Traceback"), ("desc", "ValueError")])
def test_an_exception_line_the_sweep_matched_keeps_its_place_in_its_group(
    tmp_path: Path, engine: str, order: str, first: str
) -> None:
    """Every line is ERROR, so the sweep matches the exception itself: it is the group's
    last line (first, latest first), not a follower of a header left out of the group."""
    args = (f"--logs_file={_export(tmp_path)}", "--jobset_name=llama-train", "--action=errors")
    code, out, err = run_cli(
        *args, "--min_severity=ERROR", "--first_per_pod=1", f"--order={order}", f"--engine={engine}"
    )
    assert code == 0, err
    header, *lines = out.splitlines()
    assert header.endswith(": 2 of 6 matching lines ==")
    shown = [line.split("jax-tpu: ", 1)[1] for line in lines]
    assert shown[0].startswith(first)
    assert sorted(shown) == ["Traceback (most recent call last):", "ValueError: bad mesh"]


def test_print_mode_says_how_to_follow_a_traceback_up() -> None:
    code, out, err = run_cli(
        "--project=pw-demo",
        "--jobset_name=llama-train",
        "--action=errors",
        "--issue_time=2026-10-22T11:40:00Z",
    )
    assert code == 0, err
    assert "for the first `Traceback (most recent call last):` line of each container" in out
    assert '# resource.labels.pod_name="POD"' in out


def test_group_headers_count_the_lines_they_show() -> None:
    """A traceback's exception, shown with its header, counts among the group's lines:
    no header may say it shows more lines than the group has."""
    header = re.compile(r"^== .*: (\d+) of (\d+) matching lines ==$")
    for name in NAMES:
        code, out, err = run_cli(*target_args(name), "--action=errors", "--first_per_pod=1")
        assert code == 0, err
        counts = [header.match(line) for line in out.splitlines()]
        shown = [(int(m.group(1)), int(m.group(2))) for m in counts if m]
        assert all(lines <= total for lines, total in shown), (name, shown)


def test_a_traceback_the_window_ends_before_its_exception_says_so(tmp_path: Path) -> None:
    """The follow-up reads to the window's end: an exception past it is missing, and the
    header alone must not pass for the whole story."""
    entries = _lines(["Traceback (most recent call last):", *FRAMES], "2026-10-22T11:59:58Z")
    entries += _lines(["ValueError: bad mesh"], "2026-10-22T12:00:01Z")
    path = tmp_path / "export.jsonl"
    path.write_text("".join(json.dumps(entry) + "\n" for entry in entries))
    window = ("--start_time=2026-10-22T11:00:00Z", "--end_time=2026-10-22T12:00:00Z")
    args = (f"--logs_file={path}", "--jobset_name=llama-train", *window)
    code, out, err = run_cli(*args, "--action=errors")
    assert code == 0, err
    assert out.splitlines()[-1].endswith("jax-tpu: Traceback (most recent call last):")
    assert (
        f"note: the traceback at 2026-10-22T11:59:58Z in default/{CLIENT}/jax-tpu has no "
        "exception line before the window's end (2026-10-22T12:00:00Z): read past it with a "
        "later --end_time"
    ) in err.splitlines()
    code, out, err = run_cli(*args[:-1], "--end_time=2026-10-22T12:00:08Z", "--action=errors")
    assert code == 0, err
    assert out.splitlines()[-1].endswith("jax-tpu: ValueError: bad mesh")
    assert "no exception line" not in err


@pytest.mark.parametrize("action", ["errors", "triage"])
def test_a_traceback_in_a_container_no_filter_can_name_is_shown_without_its_follow_up(
    tmp_path: Path, action: str
) -> None:
    """A container name with a control character (no Kubernetes object has one; a hand-written
    entry can) cannot go into the follow-up's filter: that made the run exit 2 and show
    nothing of what the sweep found. The header is shown; it is not followed up."""
    entries = [
        container_entry(text, pod=CLIENT, container="jax-tpu\x01", timestamp=TIME)
        for text in ("Traceback (most recent call last):", "ValueError: bad mesh")
    ]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(entries))
    code, out, err = run_cli(
        f"--logs_file={path}", "--jobset_name=llama-train", f"--action={action}"
    )
    assert code == 0, err
    assert "Traceback (most recent call last):" in out
