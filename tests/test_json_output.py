"""JSON output: entries exactly as read, as valid JSON, one per line.

Numbers keep the text they were read with; an entry read as one minified line
is written as read; anything else is minified. The line separators U+2028,
U+2029 and U+0085 (and the other C1 controls) are escaped, so readers that split
on them see one entry per line.
"""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from pathways_workload.exact_json import output_line, parse_entry
from tests.helpers import container_entry, run_cli
from tests.test_cli_hardening import INCIDENT

ERRORS = (
    "--action=errors",
    "--jobset_name=llama-train",
    "--start_time=2026-10-22T11:00:00Z",
    "--duration=1h",
    "--format=json",
)
SEPARATORS = ("\u2028", "\u2029", "\u0085")


def _strict(line: str) -> Any:
    """Parse as strict JSON: NaN and Infinity are not JSON."""

    def refuse(token: str) -> None:
        raise ValueError(f"{token} is not JSON")

    return json.loads(line, parse_constant=refuse)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b'{"a": 1e400}', '{"a":1e400}'),
        (b'{"a":0.10000000000000000555}', None),
        (
            b'{"a": 1E2, "b": [-0, -0.0, 12345678901234567890123], "c": NaN}',
            '{"a":1E2,"b":[-0,-0.0,12345678901234567890123],"c":"NaN"}',
        ),
        (
            b'{"a": NaN, "b": Infinity, "c": -Infinity}',
            '{"a":"NaN","b":"Infinity","c":"-Infinity"}',
        ),
    ],
)
def test_numbers_keep_their_text_and_output_is_json(raw: bytes, expected: str | None) -> None:
    entry = parse_entry(raw)
    line = output_line(entry)
    _strict(line)
    if expected is None:
        assert line == raw.decode()
    else:
        assert line == expected


def test_numbers_still_compare_as_numbers() -> None:
    entry = parse_entry(b'{"a": 1E2, "b": 0.5, "c": 1e400}')
    assert entry["a"] == 100
    assert entry["b"] < 1
    assert entry["c"] > 10**300


def test_a_minified_line_is_written_as_read() -> None:
    raw = b'{"b":2.50,"a":"caf\xc3\xa9 \\u00e9, \\"NaN\\"","c":{"d":[]}}'
    assert output_line(parse_entry(raw)) == raw.decode()


def test_blanks_between_tokens_are_removed_and_strings_kept() -> None:
    raw = b'{"b": 2.50,  "a": "caf\xc3\xa9 \\u00e9",\t"c": {"d": []}}'
    assert output_line(parse_entry(raw)) == '{"b":2.50,"a":"café é","c":{"d":[]}}'


@pytest.mark.parametrize("separator", SEPARATORS)
def test_line_separators_are_escaped(separator: str) -> None:
    raw = json.dumps({"textPayload": f"a{separator}b"}, ensure_ascii=False).encode()
    line = output_line(parse_entry(raw))
    assert not any(char in line for char in SEPARATORS)
    assert f"\\u{ord(separator):04x}" in line
    assert _strict(line) == {"textPayload": f"a{separator}b"}


def test_a_multi_line_record_is_minified() -> None:
    raw = b'{\n  "a": [\n    1,\n    2.50\n  ],\n  "b": {\n    "c": "d"\n  }\n}'
    assert output_line(parse_entry(raw)) == '{"a":[1,2.50],"b":{"c":"d"}}'


def test_entries_not_read_from_a_file_are_written_as_json() -> None:
    entry = {"a": 1.5, "b": float("nan"), "c": "x\u2028\ud800", "d": [True, None]}
    line = output_line(entry)
    assert _strict(line) == {"a": 1.5, "b": "NaN", "c": "x\u2028\ud800", "d": [True, None]}
    line.encode("utf-8")
    assert "\u2028" not in line


def _export(path: Path, texts: list[str]) -> list[dict[str, Any]]:
    return [
        container_entry(text, timestamp=f"2026-10-22T11:1{i}:00Z") for i, text in enumerate(texts)
    ]


def test_minified_json_lines_come_out_byte_for_byte(tmp_path: Path) -> None:
    """Log sinks write each entry as one minified line."""
    entries = _export(tmp_path, ["Check failed: one", "Check failed: two"])
    entries[0]["jsonPayload"] = {"ratio": 0.1}
    lines = [json.dumps(entry, separators=(",", ":")) for entry in entries]
    lines[0] = lines[0].replace("0.1", "0.10000000000000000555")
    path = tmp_path / "a.jsonl"
    path.write_text("\n".join(lines) + "\n")
    code, out, err = run_cli(*ERRORS, f"--logs_file={path}")
    assert code == 0, err
    assert out.splitlines() == lines


def test_gcloud_array_entries_come_out_minified_with_their_numbers(tmp_path: Path) -> None:
    entries = _export(tmp_path, ["Check failed: one\u2028two"])
    entries[0]["jsonPayload"] = {"big": "BIG"}
    text = json.dumps(entries, indent=2, sort_keys=True, ensure_ascii=False)
    path = tmp_path / "a.json"
    path.write_text(text.replace('"BIG"', "1e400"))
    code, out, err = run_cli(*ERRORS, f"--logs_file={path}")
    assert code == 0, err
    [line] = out.splitlines()
    assert '"big":1e400' in line
    assert "\\u2028" in line
    assert _strict(line)["textPayload"] == "Check failed: one\u2028two"


@pytest.mark.parametrize("separator", SEPARATORS)
@pytest.mark.parametrize(
    "args",
    [
        ("--project=pw-demo", "--action=errors"),
        (
            "--project=pw-demo",
            "--engine=analytics",
            "--analytics_dataset=pw-demo.logs",
            "--analytics_location=US",
            "--action=errors",
        ),
        (f"--logs_file={INCIDENT}", "--action=triage"),
    ],
    ids=["printed", "printed-sql", "triage-report"],
)
def test_every_json_record_stays_one_line_for_any_splitter(
    separator: str, args: tuple[str, ...]
) -> None:
    """Printed commands and reports hold what the user typed: the line separators in it are
    escaped, as in entries, so `str.splitlines()` sees the records `\\n` separates."""
    code, out, err = run_cli(
        *args,
        "--jobset_name=gemma-train",
        "--issue_time=2026-11-17T13:30:00Z",
        f"--extra_terms=a{separator}b",
        "--format=json",
    )
    assert code in (0, 1), err
    assert separator not in out
    records = [json.dumps(json.loads(line), ensure_ascii=False) for line in out.splitlines()]
    as_bytes = "".join(f"\\x{byte:02x}" for byte in separator.encode())
    # As typed; or in a command, which quotes such a character as its UTF-8 bytes.
    written = [f"a{separator}b", json.dumps(f"a{as_bytes}b")[1:-1]]
    assert any(form in record for form in written for record in records)


def test_a_long_entry_is_written_without_memory_per_character(tmp_path: Path) -> None:
    """A 5 MB message (an array written with blanks, so the entry is minified on output):
    the writer's look for blanks outside strings costs no memory per character (it cost
    about 120 bytes a character: 600 MB here). Measured in this process (a child's peak
    would count the pages it shared with this one when forked)."""
    entry = container_entry("Check failed: " + "y" * 5_000_000, timestamp="2026-10-22T11:30:00Z")
    path = tmp_path / "long.json"
    path.write_text(json.dumps([entry], indent=1))
    tracemalloc.start()
    try:
        code, out, err = run_cli(f"--logs_file={path}", *ERRORS[:2], "--format=json")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert code == 0, err
    assert json.loads(out)["textPayload"] == entry["textPayload"]
    assert peak < 150 << 20, peak
