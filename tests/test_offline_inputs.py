"""What offline replay accepts as input: folders, streams, encodings, layouts, odd entries.

Whatever the layout, a file that is not UTF-8 JSON text exits 5 naming the file
and the line; a valid export in any layout gcloud or a log sink writes (or a
person could reasonably make from one) is read.
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from pathways_workload.sources import array_decoder, export_reader, inputs, stream
from tests.fake_logging import FakeLogging, point_at
from tests.helpers import container_entry, run_cli
from tests.test_incidents import INCIDENTS, target_args

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "debug_workload.py"
WINDOW = ("--start_time=2026-10-22T11:00:00Z", "--duration=1h")
ERRORS = ("--action=errors", "--jobset_name=llama-train", *WINDOW)
INCOMPLETE = "any output printed before this message is incomplete"


def _entries() -> list[dict[str, Any]]:
    return [
        container_entry("Check failed: one", timestamp="2026-10-22T11:10:00Z"),
        container_entry("fine", severity="INFO", timestamp="2026-10-22T11:20:00Z"),
        container_entry("Check failed: two", timestamp="2026-10-22T11:30:00Z"),
    ]


def _lines_text(entries: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(entry) + "\n" for entry in entries)


def _messages(out: str) -> list[str]:
    return [line.split(": ", 1)[1] for line in out.splitlines()]


# Folders


def test_a_folder_reached_through_dot_dot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "exports").mkdir()
    (tmp_path / "exports" / "a.jsonl").write_text(_lines_text(_entries()))
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    code, out, err = run_cli(*ERRORS, "--logs_file=../exports")
    assert code == 0, err
    assert _messages(out) == ["Check failed: one", "Check failed: two"]


def test_a_folder_inside_a_hidden_folder(tmp_path: Path) -> None:
    folder = tmp_path / ".cache" / "exports"
    (folder / "day1").mkdir(parents=True)
    (folder / "day1" / "a.jsonl").write_text(_lines_text(_entries()[:1]))
    (folder / "b.jsonl").write_text(_lines_text(_entries()[2:]))
    (folder / ".partial.jsonl").write_text("not json at all\n")
    (folder / ".git").mkdir()
    (folder / ".git" / "c.jsonl").write_text("not json either\n")
    code, out, err = run_cli(*ERRORS, f"--logs_file={folder}")
    assert code == 0, err
    assert _messages(out) == ["Check failed: one", "Check failed: two"]


def test_a_broken_symlink_in_a_folder_exits_5(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_text(_lines_text(_entries()))
    (tmp_path / "b.jsonl").symlink_to(tmp_path / "gone.jsonl")
    code, _, err = run_cli(*ERRORS, f"--logs_file={tmp_path}")
    assert code == 5
    assert err.splitlines()[-1].startswith(f"error: {tmp_path / 'b.jsonl'}: ")
    assert "broken symbolic link" in err


def test_a_file_name_with_a_newline_is_named_on_one_line(tmp_path: Path) -> None:
    """The error stays one line: the name's newline is shown as `\\n` (it split the line)."""
    folder = tmp_path / "run\n2"
    folder.mkdir()
    (folder / "a.json").write_text("[\n" + json.dumps(_entries()[0]) + ",\n")
    code, _, err = run_cli(*ERRORS, f"--logs_file={folder}")
    assert code == 5
    assert err.splitlines()[-1] == (
        f"error: {tmp_path}/run\\n2/a.json:2: the JSON array is not closed (a truncated "
        f"export?); {INCOMPLETE}"
    )
    code, _, err = run_cli(*ERRORS, f"--logs_file={tmp_path}/gone\n.json")
    assert code == 5
    assert err.splitlines()[-1] == (
        f"error: {tmp_path}/gone\\n.json: no such file or folder; check --logs_file"
    )


def test_a_symbolic_link_loop_in_a_folder_exits_5(tmp_path: Path) -> None:
    """A link to itself (or two links to each other) cannot be followed: named, exit 5 (it
    was an internal error, exit 70)."""
    (tmp_path / "a.jsonl").write_text(_lines_text(_entries()))
    (tmp_path / "self").symlink_to("self")
    code, _, err = run_cli(*ERRORS, f"--logs_file={tmp_path}")
    assert code == 5, err
    assert err.splitlines()[-1].startswith(f"error: {tmp_path / 'self'}: ")
    assert "symbolic link" in err


def test_an_unreadable_subfolder_exits_5(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a.jsonl").write_text(_lines_text(_entries()))
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "b.jsonl").write_text(_lines_text(_entries()))
    real_scandir = os.scandir

    def scandir(path: Any = ".") -> Any:
        if Path(path) == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    # The suite may run as root, for whom a mode of 000 changes nothing.
    monkeypatch.setattr(os, "scandir", scandir)
    code, _, err = run_cli(*ERRORS, f"--logs_file={tmp_path}")
    assert code == 5
    assert err.splitlines()[-1] == f"error: {locked}: cannot read this folder (Permission denied)"


def test_a_file_behind_a_folder_that_cannot_be_searched_is_not_said_to_be_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under a folder without search permission, stat() of a file fails with EACCES: it was
    reported as "no such file or folder", sending the user to check a path that is right."""
    export = tmp_path / "locked" / "a.jsonl"
    export.parent.mkdir()
    export.write_text(_lines_text(_entries()))
    real_stat = os.stat

    def stat(path: Any, *args: Any, **kwargs: Any) -> Any:
        if str(path) == str(export):
            raise PermissionError(13, "Permission denied", str(path))
        return real_stat(path, *args, **kwargs)

    # The suite may run as root, for whom a mode of 000 changes nothing.
    monkeypatch.setattr(os, "stat", stat)
    code, _, err = run_cli(*ERRORS, f"--logs_file={export}")
    assert code == 5
    assert err.splitlines()[-1] == (
        f"error: {export}: cannot read it (Permission denied); check the permissions of the "
        "folders on its path"
    )


# Streams


def _serve_fifo(path: Path, data: bytes) -> threading.Thread:
    """Write data into a FIFO once a reader opens it (gives up after 20 s, never hangs)."""

    def serve() -> None:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                descriptor = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:
                time.sleep(0.01)
                continue
            os.set_blocking(descriptor, True)
            with os.fdopen(descriptor, "wb") as handle:
                handle.write(data)
            return

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return thread


def test_a_fifo_is_read_as_a_stream(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    thread = _serve_fifo(fifo, gzip.compress(_lines_text(_entries()).encode()))
    code, out, err = run_cli(*ERRORS, f"--logs_file={fifo}")
    thread.join(timeout=20)
    assert code == 0, err
    assert _messages(out) == ["Check failed: one", "Check failed: two"]


def _with_stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def test_dash_reads_standard_input(monkeypatch: pytest.MonkeyPatch) -> None:
    _with_stdin(monkeypatch, json.dumps(_entries(), indent=2).encode())
    code, out, err = run_cli(*ERRORS, "--logs_file=-")
    assert code == 0, err
    assert _messages(out) == ["Check failed: one", "Check failed: two"]


@pytest.mark.parametrize("engine", ["logging", "analytics"])
@pytest.mark.parametrize("packed", [False, True])
def test_standard_input_without_window_flags_replays_its_span(
    monkeypatch: pytest.MonkeyPatch, engine: str, packed: bool
) -> None:
    """The export's span is read first, then the queries: the stream, copied aside, is read
    again (by DuckDB too), not found empty."""
    export = INCIDENTS / "host-oom-worker.json"
    args = ("--action=errors", "--jobset_name=gemma-train", f"--engine={engine}")
    code, from_file, err = run_cli(*args, f"--logs_file={export}")
    assert code == 0, err
    assert len(from_file.splitlines()) > 5
    data = export.read_bytes()
    _with_stdin(monkeypatch, gzip.compress(data) if packed else data)
    code, from_stdin, err = run_cli(*args, "--logs_file=-")
    assert code == 0, err
    assert from_stdin == from_file


def test_standard_input_is_read_again_for_a_second_stage(monkeypatch: pytest.MonkeyPatch) -> None:
    """Node discovery and then the node queries: the stream is read twice."""
    export = INCIDENTS / "host-oom-worker.json"
    args = [arg for arg in target_args("host-oom-worker") if not arg.startswith("--logs_file")]
    code, from_file, err = run_cli(*args, f"--logs_file={export}", "--action=node-ooms")
    assert code == 0, err
    assert from_file
    _with_stdin(monkeypatch, export.read_bytes())
    code, from_stdin, err = run_cli(*args, "--logs_file=-", "--action=node-ooms")
    assert code == 0, err
    assert from_stdin == from_file


def _script(*argv: str, stdin: bytes | None = None, shell: bool = False) -> tuple[int, str, str]:
    command: Any = " ".join(argv) if shell else [sys.executable, str(SCRIPT), *argv]
    done = subprocess.run(
        command,
        input=stdin,
        capture_output=True,
        timeout=120,
        shell=shell,
        executable="/bin/bash" if shell else None,
    )
    return done.returncode, done.stdout.decode(), done.stderr.decode()


class _Zeros(io.RawIOBase):
    """A stream of NUL bytes as long as `size` (as /dev/zero, endless, would be), counting
    what was read of it."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.left = size
        self.read_bytes = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        count = min(len(buffer), self.left)
        buffer[:count] = bytes(count)
        self.left -= count
        self.read_bytes += count
        return count


def test_an_endless_stream_of_nul_bytes_is_refused_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`--logs_file=/dev/zero` copied the stream whole before reading any of it, filling
    the disk without a word; the copy stops after the first piece holding a NUL byte."""
    zeros = _Zeros(64 << 20)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(zeros)))
    code, out, err = run_cli(*ERRORS, "--logs_file=-")
    assert (code, out) == (5, "")
    assert err.splitlines()[-1].startswith("error: <stdin>:1: not a JSON export")
    assert zeros.read_bytes <= 2 << 20


@pytest.mark.parametrize("layout", ["lines", "per-line", "gcloud", "compact", "indent0"])
def test_a_stream_is_refused_at_its_first_bad_byte_as_its_file_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: str
) -> None:
    """Its copy ends with the piece holding a NUL byte, here inside a character and inside
    an entry: still the NUL, not the cut, is named (not "the JSON array is not closed")."""
    filler = container_entry(
        "fine é" + "x" * 600, severity="INFO", timestamp="2026-10-22T11:40:00Z"
    )
    data = _layout(_entries() + [filler] * 4000, layout)
    edge = data.index(b"x" * 40, 2 << 20) + 20  # the end of a piece copied, inside a message
    data = data[: edge - 5] + b"\x00" + data[edge - 4 : edge - 1] + "é".encode() + data[edge + 1 :]
    path = tmp_path / "a.json"
    path.write_bytes(data)
    code, _, err = run_cli(*ERRORS, f"--logs_file={path}")
    line = data.count(b"\n", 0, edge) + 1
    assert (code, err.splitlines()[-1]) == (
        5,
        f"error: {path}:{line}: a NUL byte, which JSON text cannot hold; {INCOMPLETE}",
    )
    monkeypatch.setattr(inputs, "_COPY_BYTES", edge)
    _with_stdin(monkeypatch, data)
    code, _, err = run_cli(*ERRORS, "--logs_file=-")
    assert (code, err.splitlines()[-1]) == (
        5,
        f"error: <stdin>:{line}: a NUL byte, which JSON text cannot hold; {INCOMPLETE}",
    )


def test_dev_stdin_is_read_as_a_stream() -> None:
    code, out, err = _script(
        *ERRORS, "--logs_file=/dev/stdin", stdin=_lines_text(_entries()).encode()
    )
    assert code == 0, err
    assert _messages(out) == ["Check failed: one", "Check failed: two"]


def test_process_substitution_is_read_as_a_stream(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_text(_lines_text(_entries()))
    code, out, err = _script(
        sys.executable, str(SCRIPT), *ERRORS, f"--logs_file=<(cat {path})", shell=True
    )
    assert code == 0, err
    assert _messages(out) == ["Check failed: one", "Check failed: two"]


# Encodings


@pytest.mark.parametrize("quiet_lines", [0, 400])
@pytest.mark.parametrize("layout", ["lines", "gcloud", "per-line"])
def test_a_utf8_byte_order_mark_is_accepted(tmp_path: Path, layout: str, quiet_lines: int) -> None:
    """Also on an export longer than what is read to tell its layout (64 KiB): the mark,
    and nothing else, is skipped."""
    quiet = container_entry("fine " * 40, severity="INFO", timestamp="2026-10-22T11:20:00Z")
    entries = _entries()
    entries[2:2] = [quiet] * quiet_lines
    path = tmp_path / "a.json"
    path.write_bytes(b"\xef\xbb\xbf" + _layout(entries, layout))
    assert path.stat().st_size > 64 << 10 or not quiet_lines
    code, out, err = run_cli(*ERRORS, f"--logs_file={path}")
    assert code == 0, err
    assert _messages(out) == ["Check failed: one", "Check failed: two"]


@pytest.mark.parametrize(
    ("encoding", "name"),
    [
        ("utf-16", "UTF-16LE"),
        ("utf-16-le", "UTF-16LE"),
        ("utf-16-be", "UTF-16BE"),
        ("utf-32", "UTF-32LE"),
    ],
)
@pytest.mark.parametrize("layout", ["lines", "gcloud"])
def test_utf16_is_refused_naming_the_encoding(
    tmp_path: Path, encoding: str, name: str, layout: str
) -> None:
    path = tmp_path / "a.json"
    path.write_bytes(_layout(_entries(), layout).decode().encode(encoding))
    code, out, err = run_cli(*ERRORS, f"--logs_file={path}")
    assert (code, out) == (5, "")
    assert err.splitlines()[-1] == (
        f"error: {path}: the export is {name} text, not UTF-8; convert it first, "
        f"e.g. iconv -f {name} -t UTF-8"
    )


# Layouts


def _layout(entries: list[dict[str, Any]], layout: str) -> bytes:
    if layout == "lines":
        return _lines_text(entries).encode()
    if layout == "gcloud":
        return (json.dumps(entries, indent=2, ensure_ascii=False) + "\n").encode()
    if layout == "compact":
        return json.dumps(entries, ensure_ascii=False).encode()
    if layout == "per-line":
        return ("[\n" + ",\n".join(json.dumps(entry) for entry in entries) + "\n]\n").encode()
    if layout == "indent0":
        return json.dumps(entries, indent=0).encode()
    raise ValueError(layout)


LAYOUTS = ["lines", "gcloud", "compact", "per-line", "indent0"]


@pytest.mark.parametrize("layout", ["per-line", "indent0"])
@pytest.mark.parametrize("compressed", [False, True])
def test_every_valid_array_layout_is_read(tmp_path: Path, layout: str, compressed: bool) -> None:
    data = _layout(_entries(), layout)
    path = tmp_path / "a.json"
    path.write_bytes(gzip.compress(data) if compressed else data)
    code, out, err = run_cli(*ERRORS, f"--logs_file={path}")
    assert code == 0, err
    assert _messages(out) == ["Check failed: one", "Check failed: two"]


def _bad_second_entry(layout: str, bad: bytes) -> tuple[bytes, int]:
    """An export whose second entry (one the crash sweep never matches) holds `bad`; its line."""
    entries = _entries()
    entries[1]["textPayload"] = "fine MARK"
    data = _layout(entries, layout)
    position = data.index(b"MARK")
    return data[:position] + bad + data[position + 4 :], data.count(b"\n", 0, position) + 1


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize(
    ("bad", "what"),
    [(b"\xff", "not UTF-8 text"), (b"\xc3(", "not UTF-8 text"), (b"\x00", "a NUL byte")],
)
@pytest.mark.parametrize("compressed", [False, True])
def test_bytes_that_are_not_json_text_exit_5_in_every_layout(
    tmp_path: Path, layout: str, bad: bytes, what: str, compressed: bool
) -> None:
    data, line = _bad_second_entry(layout, bad)
    path = tmp_path / "a.json"
    path.write_bytes(gzip.compress(data) if compressed else data)
    code, _, err = run_cli(*ERRORS, f"--logs_file={path}")
    assert code == 5
    last = err.splitlines()[-1]
    assert last.startswith(f"error: {path}:{line}: {what}")
    assert last.endswith(INCOMPLETE)


def _torn_entry(layout: str, index: int, payload: str) -> tuple[bytes, int]:
    """An export whose entry `index` (the crash sweep matches only the others), its last key
    a message `payload`, is cut short before its own closing brace: inside the message when
    it ends with `}`, else before the message; the line where that entry starts. Quiet
    entries follow the crash lines, as in a real export, so that the prefilter skips most."""
    quiet = container_entry("fine", severity="INFO", timestamp="2026-10-22T11:40:00Z")
    entries = _entries() + [dict(quiet) for _ in range(200)]
    entries[index].pop("textPayload")
    entries[index]["textPayload"] = payload
    text = _layout(entries, layout).decode()
    value = json.dumps(payload)
    mark = text.index(value)
    end = text.index("}", mark + len(value)) + 1  # after the entry's own closing brace
    cut = mark + len(value) - 1 if payload.endswith("}") else text.rindex("}", 0, mark) + 1
    start = text.rindex("{", 0, text.rindex('"insertId"', 0, mark))
    return (text[:cut] + text[end:]).encode(), text.count("\n", 0, start) + 1


@pytest.mark.parametrize(
    ("layout", "index"), [("lines", 1), ("lines", -1), ("per-line", 1), ("gcloud", 1)]
)
@pytest.mark.parametrize("payload", ["quiet", "quiet }"])
@pytest.mark.parametrize("compressed", [False, True])
@pytest.mark.parametrize("window", [WINDOW, ()])
@pytest.mark.parametrize("action", ["errors", "pods", "triage"])
def test_an_entry_cut_short_exits_5_whether_or_not_a_query_selects_it(
    tmp_path: Path,
    layout: str,
    index: int,
    payload: str,
    compressed: bool,
    window: tuple[str, ...],
    action: str,
) -> None:
    """A line cut short (a truncated export, a torn write) that still began with `{` and
    ended with `}` was accepted when no query's prefilter selected it: "no entries matched",
    or a warning that an entry had no usable timestamp. A `}` inside its message made its
    braces count even."""
    data, line = _torn_entry(layout, index, payload)
    with pytest.raises(json.JSONDecodeError):
        [json.loads(text) for text in (data.splitlines() if layout == "lines" else [data])]
    path = tmp_path / "a.json"
    path.write_bytes(gzip.compress(data) if compressed else data)
    code, _, err = run_cli(
        f"--action={action}", "--jobset_name=llama-train", *window, f"--logs_file={path}"
    )
    assert code == 5, err
    last = err.splitlines()[-1]
    found = re.match(rf"error: {re.escape(str(path))}:(\d+): not valid JSON \(", last)
    assert found, last
    assert last.endswith(INCOMPLETE)
    if layout == "lines":  # an array is decoded: where its text stops being JSON is named
        assert int(found.group(1)) == line


@pytest.mark.parametrize("layout", ["lines", "per-line", "gcloud"])
def test_valid_entries_whose_braces_the_text_cannot_pair_are_read(
    tmp_path: Path, layout: str
) -> None:
    """Braces inside messages and objects nested deeper than the check of whole records
    follows: those records are parsed, never refused."""
    entries = _entries()
    deep: dict[str, Any] = {}
    for _ in range(40):
        deep = {"in": deep}
    quiet = [
        {**container_entry(text, severity="INFO", timestamp="2026-10-22T11:40:00Z"), "x": deep}
        for text in ["}", "{", '"}', "\\}", "}}}"] * 40
    ]
    path = tmp_path / "a.json"
    path.write_bytes(_layout(entries[:2] + quiet + entries[2:], layout))
    code, out, err = run_cli(*ERRORS, f"--logs_file={path}")
    assert code == 0, err
    assert _messages(out) == ["Check failed: one", "Check failed: two"]


@pytest.mark.parametrize("layout", ["lines", "gcloud"])
@pytest.mark.parametrize("as_json", [False, True])
def test_an_unpaired_surrogate_exits_5_before_any_output_of_it(
    tmp_path: Path, layout: str, as_json: bool
) -> None:
    entries = _entries()
    entries[2]["textPayload"] = "Check failed: \ud800 half a pair"
    path = tmp_path / "a.json"
    text = _lines_text(entries) if layout == "lines" else json.dumps(entries, indent=2)
    path.write_text(text)
    line = next(n for n, text_line in enumerate(text.splitlines(), 1) if "\\ud800" in text_line)
    formats = ("--format=json",) if as_json else ()
    code, out, err = run_cli(*ERRORS, f"--logs_file={path}", *formats)
    assert code == 5
    assert "\ud800" not in out
    assert err.splitlines()[-1].startswith(f"error: {path}:{line}: ")
    assert "\\ud800" in err.splitlines()[-1]


def test_deep_nesting_in_a_compact_array_exits_5(tmp_path: Path) -> None:
    entries = _entries()
    deep = "[" * 100_000 + "]" * 100_000
    text = json.dumps(entries)[:-1] + ', {"jsonPayload": {"x": ' + deep + "}}]"
    path = tmp_path / "a.json"
    path.write_text(text)
    code, _, err = run_cli(*ERRORS, f"--logs_file={path}")
    assert code == 5
    last = err.splitlines()[-1]
    assert last.startswith(f"error: {path}:1: ")
    assert "nested too deeply" in last


@pytest.mark.parametrize("engine", ["logging", "analytics"])
def test_a_too_deep_or_too_long_value_never_is_an_internal_error(
    tmp_path: Path, engine: str
) -> None:
    """An integer past Python's 4,300 digits is read as a number that keeps its text; an
    entry nested too deeply for DuckDB's rows to be read back exits 5 (both were exit 70)."""
    digits = "9" * 5000
    entries = _entries()
    line = json.dumps(entries[0])[:-1] + f', "jsonPayload": {{"n": {digits}}}}}'
    path = tmp_path / "a.jsonl"
    path.write_text(line + "\n" + _lines_text(entries[1:]))
    code, out, err = run_cli(*ERRORS, f"--logs_file={path}", f"--engine={engine}", "--format=json")
    assert code == 0, err
    found = [json.loads(line, parse_int=str) for line in out.splitlines()]
    assert [entry["textPayload"] for entry in found] == ["Check failed: one", "Check failed: two"]
    assert found[0]["jsonPayload"]["n"] == digits
    deep = json.dumps(entries[0])[:-1] + ', "jsonPayload": {"d": ' + "[" * 1000 + "]" * 1000 + "}}"
    path.write_text(deep + "\n")
    code, out, err = run_cli(*ERRORS, f"--logs_file={path}", f"--engine={engine}")
    assert code == 5, err
    assert "nested too deeply" in err.splitlines()[-1]


def test_an_entry_as_deep_as_the_reader_takes_is_written_as_json(tmp_path: Path) -> None:
    """An entry nested 900 deep is read (the decoder's limit is about 1,000); written back
    as JSON it came out of a recursion limit as an internal error (exit 70)."""
    entries = _entries()
    deep: Any = "leaf"
    for _ in range(900):
        deep = {"in": deep}
    entries[2]["jsonPayload"] = deep
    path = tmp_path / "a.jsonl"
    path.write_text(_lines_text(entries))  # not minified: written back value by value
    code, out, err = run_cli(*ERRORS, f"--logs_file={path}", "--format=json")
    assert code == 0, err
    found = [json.loads(line) for line in out.splitlines()]
    assert [entry["textPayload"] for entry in found] == ["Check failed: one", "Check failed: two"]
    assert found[1]["jsonPayload"] == deep


@pytest.mark.parametrize("layout", ["compact", "gcloud"])
def test_an_array_entry_over_64_mb_is_read(tmp_path: Path, layout: str) -> None:
    entries = _entries()
    entries[2]["textPayload"] = "Check failed: two " + "y" * (65 << 20)
    path = tmp_path / "a.json"
    path.write_bytes(_layout(entries, layout))
    del entries
    code, out, err = run_cli(*ERRORS, f"--logs_file={path}")
    assert code == 0, err
    assert [message[:17] for message in _messages(out)] == [
        "Check failed: one",
        "Check failed: two",
    ]


@pytest.mark.parametrize("compressed", [False, True])
def test_an_indented_array_whose_indentation_breaks_is_decoded_from_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, compressed: bool
) -> None:
    """Valid JSON whose indentation is not gcloud's from some entry on: every entry is read."""
    monkeypatch.setattr(export_reader, "READ_BYTES", 4096)
    entries = [
        container_entry(f"Check failed: {index}", timestamp=f"2026-10-22T11:{index:02d}:00Z")
        for index in range(40)
    ]
    text = json.dumps(entries, indent=2)
    middle = text.index('"Check failed: 20"')
    odd = text[:middle] + text[middle:].replace('\n        "cluster_name"', '\n  "cluster_name"', 1)
    assert odd != text
    path = tmp_path / "a.json"
    path.write_bytes(gzip.compress(odd.encode()) if compressed else odd.encode())
    code, out, err = run_cli(*ERRORS, f"--logs_file={path}", "--limit=100")
    assert code == 0, err
    assert _messages(out) == [f"Check failed: {index}" for index in range(40)]


def test_the_scanner_writes_nothing_of_its_own_to_stderr(tmp_path: Path) -> None:
    """Every line holds what the filter looks for (so no string is searched for) and one
    line has no timestamp: stderr holds the tool's lines only, not RE2's (written by C++
    straight to the process's stderr, so only a child process shows them)."""
    entries = [container_entry("Check failed: x", timestamp="2026-10-22T11:10:00Z") for _ in "abc"]
    lines = [json.dumps(entry) for entry in entries]
    lines[1] = json.dumps({k: v for k, v in entries[1].items() if k != "timestamp"})
    path = tmp_path / "export.jsonl"
    path.write_text("\n".join(lines) + "\n")
    code, out, err = _script("--action=errors", "--jobset_name=llama-train", f"--logs_file={path}")
    assert code == 0, err
    assert len(out.splitlines()) == 2
    assert [line.split(":")[0] for line in err.splitlines()] == ["warning", "window", "2 entries"]


@pytest.mark.parametrize("written", [int, str])
@pytest.mark.parametrize("engine", ["logging", "analytics"])
def test_a_severity_written_as_its_number_is_that_level(
    tmp_path: Path, engine: str, written: type
) -> None:
    """proto3 JSON may write the severity enum as its number (a client's default JSON), and
    protobuf's parser reads the number in a string too: 500 and "500" are ERROR, for the
    filters (also when the prefilter looks for names among many lines) and for the lines
    printed."""
    quiet = [
        container_entry("fine", severity="INFO", timestamp=f"2026-10-22T11:{i % 50:02d}:00Z")
        for i in range(400)
    ]
    numbered = [
        container_entry(text, timestamp=f"2026-10-22T11:{minute}:00Z")
        for text, minute in (("five hundred", "10"), ("two hundred", "20"), ("six hundred", "30"))
    ]
    for entry, level in zip(numbered, (500, 200, 600)):
        entry["severity"] = written(level)
    path = tmp_path / "export.jsonl"
    path.write_text(_lines_text(quiet[:200] + numbered + quiet[200:]))
    code, out, err = run_cli(
        "--action=query",
        "--filter=severity>=ERROR",
        f"--engine={engine}",
        f"--logs_file={path}",
    )
    assert code == 0, err
    assert [line.split(" ", 2)[1:] for line in out.splitlines()] == [
        ["ERROR", "default/llama-train-worker-0-0-abcde/pathways-worker: five hundred"],
        ["CRITICAL", "default/llama-train-worker-0-0-abcde/pathways-worker: six hundred"],
    ]


@pytest.mark.parametrize("action", ["preflight", "pods", "neighbors", "errors", "triage"])
def test_an_entry_in_two_exports_counts_once(tmp_path: Path, action: str) -> None:
    """The same export twice (or its gzipped copy beside it): every answer is the answer of
    one copy, as Cloud Logging returns an entry once whatever was written twice."""
    incident = ROOT / "tests" / "fixtures" / "incidents" / "host-oom-worker.json"
    (tmp_path / "a.json").write_bytes(incident.read_bytes())
    (tmp_path / "a.json.gz").write_bytes(gzip.compress(incident.read_bytes()))
    args = (f"--action={action}", "--jobset_name=gemma-train", "--format=json")
    once = run_cli(*args, f"--logs_file={incident}", "--fetch_limit=100000")
    twice = run_cli(*args, f"--logs_file={tmp_path}", "--fetch_limit=100000")
    assert once[0] in (0, 1), once[2]
    assert twice[:2] == once[:2]


def _copies_under_a_limit(tmp_path: Path, copies: int, insert_ids: bool) -> tuple[int, str, str]:
    """`--limit=4` over six distinct entries, each written `copies` times (with or without
    its insertId)."""
    entries = [
        container_entry(f"Check failed: {i}", timestamp=f"2026-10-22T11:{10 + i}:00Z")
        for i in range(6)
    ]
    for entry in entries if not insert_ids else []:
        del entry["insertId"]
    path = tmp_path / "a.jsonl"
    path.write_text(_lines_text([entry for entry in entries for _ in range(copies)]))
    return run_cli(
        "--action=query",
        '--filter=textPayload:"Check failed"',
        f"--logs_file={path}",
        "--limit=4",
    )


def test_duplicates_do_not_take_the_place_of_later_entries(tmp_path: Path) -> None:
    """With a limit, the first N distinct entries: a duplicate takes no slot."""
    code, out, err = _copies_under_a_limit(tmp_path, copies=3, insert_ids=True)
    assert code == 0, err
    assert _messages(out) == [f"Check failed: {i}" for i in range(4)]
    assert "--limit=4 cut the output: 2 more matching lines" in err


def test_copies_of_an_entry_without_an_insert_id_take_one_slot(tmp_path: Path) -> None:
    """A hand-made export's entry without an insertId, written twice, is one entry (as the
    cloud source counts it when a page repeats it): the limit still shows N entries."""
    code, out, err = _copies_under_a_limit(tmp_path, copies=2, insert_ids=False)
    assert code == 0, err
    assert _messages(out) == [f"Check failed: {i}" for i in range(4)]
    assert err.endswith("\n4 entries\n")


@pytest.mark.parametrize(
    "stamp",
    ["2026-10-22t11:30:00z", "2026-10-22T11:33:60Z", "2026-10-22T11:34:00,5Z", "2026-10-22 11:35Z"],
)
def test_both_engines_read_every_spelling_of_a_time(tmp_path: Path, stamp: str) -> None:
    """A time the default engine reads (RFC 3339's lowercase letters, a leap second, a
    decimal comma), and a top-level key written with an escape: the same entries on DuckDB."""
    odd = container_entry("Check failed: odd", timestamp=stamp)
    escaped = json.dumps(container_entry("Check failed: escaped", timestamp="2026-10-22T11:40:00Z"))
    escaped = escaped.replace('"timestamp": ', '"time\\u0073tamp": ', 1)
    path = tmp_path / "export.jsonl"
    path.write_text(_lines_text([*_entries(), odd]) + escaped + "\n")
    answers = [
        run_cli(*ERRORS, f"--logs_file={path}", f"--engine={engine}")
        for engine in ("logging", "analytics")
    ]
    assert [code for code, _, _ in answers] == [0, 0], answers
    default, duckdb = (_messages(out) for _, out, _ in answers)
    assert sorted(default) == sorted(
        ["Check failed: one", "Check failed: two", "Check failed: odd", "Check failed: escaped"]
    )
    assert duckdb == default


def _array_texts(entries: list[dict[str, Any]]) -> dict[str, str]:
    """The array layouts: compact, one entry per line, gcloud's indented form."""
    lines = [json.dumps(entry) for entry in entries]
    return {
        "compact": "[" + ",".join(lines) + "]",
        "per-line": "[\n" + ",\n".join(lines) + "\n]\n",
        "gcloud": json.dumps(entries, indent=2) + "\n",
    }


# How each layout is broken: a trailing comma, a missing one, a doubled one, a leading one.
MALFORMED = {
    "a comma after the array's last entry": lambda text: (
        text[: text.rindex("}") + 1] + "," + text[text.rindex("}") + 1 :]
    ),
    "no comma after": lambda text: (
        text.replace(",", " ", 1) if text.startswith("[{") else text.replace("},\n", "}\n", 1)
    ),
    "two commas": lambda text: text.replace("},", "},,", 1),
    "a comma before the array's first entry": lambda text: "[," + text[1:],
}


@pytest.mark.parametrize("entries", [3, 200])
@pytest.mark.parametrize("fault", MALFORMED)
@pytest.mark.parametrize("layout", ["compact", "per-line", "gcloud"])
def test_an_array_with_misplaced_commas_is_corrupt(
    tmp_path: Path, layout: str, fault: str, entries: int
) -> None:
    """Not JSON, so exit 5 naming the file and a line, whatever the layout and size (JSON
    Lines with two objects on a line are refused the same way). An array read in blocks of
    whole entries took a comma after its last entry for one more entry's comma."""
    filler = container_entry("fine", severity="INFO", timestamp="2026-10-22T11:40:00Z")
    text = _array_texts(_entries() + [filler] * (entries - 3))[layout]
    broken = MALFORMED[fault](text)
    with pytest.raises(json.JSONDecodeError):
        json.loads(broken)
    path = tmp_path / "a.json"
    path.write_text(broken)
    code, _, err = run_cli(*ERRORS, f"--logs_file={path}")
    assert code == 5, err
    assert re.match(rf"error: {re.escape(str(path))}:\d+: ", err.splitlines()[-1]), err


# Arrays of one entry per line as json.load reads them, but laid out otherwise here and there.
ODD_ARRAYS = {
    "commas starting lines": lambda lines: (
        "[\n" + lines[0] + "\n" + "".join("," + line + "\n" for line in lines[1:]) + "]\n"
    ),
    "an entry over several lines": lambda lines: (
        "[\n"
        + ",\n".join([*lines[:1], json.dumps(json.loads(lines[1]), indent=2), *lines[2:]])
        + "\n]\n"
    ),
}


@pytest.mark.parametrize("entries", [3, 2000])
@pytest.mark.parametrize("odd", ODD_ARRAYS)
@pytest.mark.parametrize("compressed", [False, True])
def test_a_valid_array_of_one_entry_per_line_laid_out_otherwise_is_read(
    tmp_path: Path, odd: str, entries: int, compressed: bool
) -> None:
    """Such an array was refused: "no comma after this entry". It is decoded from the block
    where its framing breaks on."""
    filler = container_entry("fine", severity="INFO", timestamp="2026-10-22T11:40:00Z")
    everything = _entries()
    everything[2:2] = [filler] * (entries - 3)
    text = ODD_ARRAYS[odd]([json.dumps(entry) for entry in everything])
    assert len(json.loads(text)) == entries
    path = tmp_path / "a.json"
    path.write_bytes(gzip.compress(text.encode()) if compressed else text.encode())
    code, out, err = run_cli(*ERRORS, f"--logs_file={path}")
    assert code == 0, err
    assert _messages(out) == ["Check failed: one", "Check failed: two"]


def test_an_indented_array_read_on_after_its_framing_breaks_keeps_its_last_entry(
    tmp_path: Path,
) -> None:
    """A line of the last entry out of its indentation: that block is decoded as written."""
    text = _array_texts(_entries())["gcloud"]
    at = text.rindex('"textPayload"')
    path = tmp_path / "a.json"
    path.write_text(text[:at].rstrip(" ") + text[at:])
    code, out, err = run_cli(*ERRORS, f"--logs_file={path}")
    assert code == 0, err
    assert _messages(out) == ["Check failed: one", "Check failed: two"]


@pytest.mark.parametrize(
    ("compress", "name"),
    [(bz2.compress, "bzip2"), (lzma.compress, "xz")],
)
def test_another_compression_is_named(tmp_path: Path, compress: Any, name: str) -> None:
    path = tmp_path / "export.json.z"
    path.write_bytes(compress(_lines_text(_entries()).encode()))
    code, out, err = run_cli(*ERRORS, f"--logs_file={path}")
    assert (code, out) == (5, "")
    assert err.splitlines()[-1].startswith(f"error: {path}: compressed with {name}; decompress")


REPLAY = "python3 scripts/debug_workload.py --logs_file=- ..."


@pytest.mark.parametrize(
    ("compress", "what", "pipe"),
    [
        (bz2.compress, "compressed with bzip2", "bunzip2"),
        (lzma.compress, "compressed with xz", "unxz"),
        (
            lambda data: gzip.compress(gzip.compress(data)),
            "a gzip file inside a gzip file",
            "gunzip",
        ),
    ],
)
def test_a_compressed_stream_is_given_a_pipe_that_decompresses_it(
    monkeypatch: pytest.MonkeyPatch, compress: Any, what: str, pipe: str
) -> None:
    """The hint was `bunzip2 -k <stdin>`, which no shell runs; a gzip file inside a gzip
    file was "not a JSON export"."""
    _with_stdin(monkeypatch, compress(_lines_text(_entries()).encode()))
    code, out, err = run_cli(*ERRORS, "--logs_file=-")
    assert (code, out) == (5, "")
    last = err.splitlines()[-1]
    assert last.startswith(f"error: <stdin>: {what}; decompress it first (e.g. ... | {pipe} | ")
    assert f"| {pipe} | {REPLAY})" in last


def test_a_gzip_file_inside_a_gzip_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "export.json.gz"
    path.write_bytes(gzip.compress(gzip.compress(_lines_text(_entries()).encode())))
    code, out, err = run_cli(*ERRORS, f"--logs_file={path}")
    assert (code, out) == (5, "")
    assert err.splitlines()[-1] == (
        f"error: {path}: a gzip file inside a gzip file; decompress it first (e.g. "
        f"gunzip -c {path} | {REPLAY}): gzip is read as is, once"
    )


def test_a_closed_standard_input_is_named_as_closed() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), *ERRORS, "--logs_file=-"],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=lambda: os.close(0),  # the child starts with no standard input
    )
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == (
        "error: --logs_file=- reads standard input, which is closed: pipe an export in"
    )


@pytest.mark.parametrize("stream", [False, True])
def test_an_empty_export_is_said_to_be_empty(
    tmp_path: Path, stream: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failed `kubectl ... |` or an empty file: said so, not only "no entries matched"."""
    path = tmp_path / "empty.json"
    path.write_bytes(b"")
    if stream:
        _with_stdin(monkeypatch, b"")
    code, out, err = run_cli(*ERRORS, "--logs_file=-" if stream else f"--logs_file={path}")
    assert (code, out) == (0, "")
    name = "<stdin>" if stream else str(path)
    assert f"warning: {name} is empty (0 bytes)" in err.splitlines()


def test_copies_of_one_entry_give_the_same_answer_in_either_order_and_in_the_cloud(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two copies of an entry (same timestamp and insertId, other text) are one entry: offline
    keeps the first in the export whichever the order, as the fake Cloud Logging does."""
    first = container_entry("Check failed: first copy", timestamp="2026-10-22T11:11:00Z")
    second = {**first, "textPayload": "Check failed: second copy"}
    other = container_entry("Check failed: another", timestamp="2026-10-22T11:12:00Z")
    path = tmp_path / "export.jsonl"
    path.write_text(_lines_text([first, second, other]))
    args = ("--action=errors", "--jobset_name=llama-train", "--project=pw-demo")
    window = ("--start_time=2026-10-22T11:00:00Z", "--duration=1h", "--format=json")
    answers = {}
    with FakeLogging([first, second, other]) as fake:
        point_at(monkeypatch, fake)
        for order in ("asc", "desc"):
            for where in (f"--logs_file={path}", "--execute"):
                code, out, err = run_cli(*args, *window, f"--order={order}", where)
                assert code == 0, err
                texts = [json.loads(line)["textPayload"] for line in out.splitlines()]
                answers[order, where] = texts if order == "asc" else texts[::-1]
    assert set(map(tuple, answers.values())) == {
        ("Check failed: first copy", "Check failed: another")
    }


def test_an_array_on_one_line_is_read_in_doubling_pieces(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Finding the end of the first line read 64 kB at a time and searched the whole buffer
    again after each read: an array of 60 MB on one line took 20 s, its time growing with
    the square of its size. The reads double now (their count grows with its logarithm)."""
    filler = container_entry(
        "fine " + "x" * 2000, severity="INFO", timestamp="2026-10-22T11:40:00Z"
    )
    entries = _entries() + [filler] * 4000
    path = tmp_path / "one-line.json"
    path.write_text(json.dumps(entries))
    assert path.stat().st_size > 8_000_000
    reads: list[int] = []
    real = stream.Stream.more

    def counted(self: stream.Stream, size: int = stream.READ_BYTES) -> bool:
        reads.append(size)
        return real(self, size)

    monkeypatch.setattr(stream.Stream, "more", counted)
    code, out, err = run_cli(*ERRORS, f"--logs_file={path}")
    assert code == 0, err
    assert _messages(out) == ["Check failed: one", "Check failed: two"]
    assert len(reads) < 40


@pytest.mark.parametrize("layout", ["compact", "indent0", "per-line"])
def test_an_array_on_one_line_is_read_in_bounded_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: str
) -> None:
    """Telling the layout read the first line whole: an array all on one line was held in
    memory whole (a 300 MB export took 640 MB). Now only what one entry needs is."""
    filler = container_entry(
        "fine " + "x" * 2000, severity="INFO", timestamp="2026-10-22T11:40:00Z"
    )
    path = tmp_path / "a.json"
    path.write_bytes(_layout(_entries() + [filler] * 4000, layout))
    assert path.stat().st_size > 8 << 20
    monkeypatch.setattr(array_decoder, "READ_BYTES", 1 << 20)
    most = 0
    real = stream.Stream.more

    def watched(self: stream.Stream, size: int = stream.READ_BYTES) -> bool:
        nonlocal most
        more = real(self, size)
        most = max(most, len(self.buffer))
        return more

    monkeypatch.setattr(stream.Stream, "more", watched)
    code, out, err = run_cli(*ERRORS, f"--logs_file={path}")
    assert code == 0, err
    assert _messages(out) == ["Check failed: one", "Check failed: two"]
    assert most <= 2 << 20


@pytest.mark.parametrize("after", ["[]", "]", "{}", "5", "garbage"])
@pytest.mark.parametrize("layout", ["per-line", "gcloud"])
def test_data_after_a_closed_array_is_named_at_its_line(
    tmp_path: Path, layout: str, after: str
) -> None:
    """It was "this entry is cut short" at the last whole entry, or "the JSON array is not
    closed" though it was. A second array (the outputs of several printed gcloud commands
    saved to one file) is said to be one, with what to do."""
    text = _array_texts(_entries())[layout]
    path = tmp_path / "a.json"
    path.write_text(text + after + "\n")
    code, _, err = run_cli(*ERRORS, f"--logs_file={path}")
    assert code == 5, err
    line = text.count("\n") + 1
    another = (
        ": another array, as when several gcloud commands' outputs go to one file; save each "
        "to its own file and give their folder to --logs_file"
    )
    assert err.splitlines()[-1] == (
        f"error: {path}:{line}: data after the end of the JSON array"
        f"{another if after.startswith('[') else ''}; {INCOMPLETE}"
    )


def test_entries_without_an_insert_id_are_each_kept(tmp_path: Path) -> None:
    """Merging the queries of an action took log, insertId and time for an entry's identity:
    three pods' lines of one second with no insertId (a hand-made export) became one. The
    same content twice is still one entry."""
    entries = []
    for index in range(3):
        entry = container_entry(
            f"Check failed: boom from {index}",
            pod=f"llama-train-worker-0-{index}-abcde",
            timestamp="2026-10-22T11:40:00Z",
        )
        del entry["insertId"]
        entries.append(entry)
    path = tmp_path / "a.jsonl"
    path.write_text(_lines_text(entries))
    code, out, err = run_cli(*ERRORS, f"--logs_file={path}")
    assert code == 0, err
    assert sorted(_messages(out)) == [f"Check failed: boom from {index}" for index in range(3)]
    path.write_text(_lines_text(entries + entries))  # the same lines again: one entry each
    code, out, err = run_cli(*ERRORS, f"--logs_file={path}", "--format=json")
    assert code == 0, err
    assert len(out.splitlines()) == 3


@pytest.mark.parametrize("comma", ["", ","])
def test_blank_lines_after_a_large_arrays_bracket(tmp_path: Path, comma: str) -> None:
    """An array of one entry per line, read in blocks of 4 MiB: its last entry, followed by
    `]` and blank lines, went into a block as if it had a comma; the tail then reported a
    comma that was not there (exit 5). A real one is still refused."""
    filler = container_entry("fine " + "x" * 600, severity="INFO", timestamp="2026-10-22T11:40:00Z")
    entries = _entries() + [filler] * 8000
    text = "[\n" + ",\n".join(json.dumps(entry) for entry in entries) + f"{comma}\n]\n\n\n"
    path = tmp_path / "a.json"
    path.write_text(text)
    assert path.stat().st_size > 5 << 20
    code, out, err = run_cli(*ERRORS, f"--logs_file={path}")
    if comma:
        assert code == 5, err
        assert "a comma after the array's last entry" in err.splitlines()[-1]
    else:
        assert code == 0, err
        assert _messages(out) == ["Check failed: one", "Check failed: two"]


@pytest.mark.parametrize("token", [{}, {"nextPageToken": "next"}])
def test_an_api_response_is_named_with_where_its_entries_are(
    tmp_path: Path, token: dict[str, str]
) -> None:
    """The body `entries.list` answers (curl, the API explorer) was read as one entry without
    a timestamp: "give each a timestamp", which its entries already have."""
    path = tmp_path / "response.json"
    path.write_text(json.dumps({"entries": _entries(), **token}))
    code, out, err = run_cli(*ERRORS, f"--logs_file={path}")
    assert (code, out) == (5, "")
    assert err.splitlines()[-1] + "\n" == (
        f"error: {path}:1: a Cloud Logging API response, not an export: its entries are in "
        "its \"entries\" list; extract them first (e.g. with jq '.entries'), or record them "
        "with `gcloud logging read --format=json`\n"
    )
