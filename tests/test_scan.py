"""The block scanner: framing alarms, and a prefilter that never drops a match.

Whatever the encoding an export was written with (ASCII with `\\u` escapes,
or raw UTF-8 as log sinks and gcloud write it) and whatever its framing, a
record the engine would match must come out of the scan as a candidate of
that filter.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import re2
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pathways_workload.errors import InputFileError
from pathways_workload.lql import compile_filter
from pathways_workload.sources import export_reader
from pathways_workload.sources.export_reader import Block
from pathways_workload.sources.framing import NO_STAMP, Framing, LineFraming, ObjectFraming
from pathways_workload.sources.inputs import ExportFile, export_files
from pathways_workload.sources.scan import BlockScanner, _options, whole_records
from tests.helpers import container_entry, run_cli
from tests.lql.strategies import constrained_filters, log_entries

EXPORT = ExportFile("export.json", Path("export.json"))
LINES = LineFraming()
PRETTY = ObjectFraming(b"  ")


def _block(entries: list[dict[str, Any]], framing: Framing, ensure_ascii: bool) -> Block:
    if isinstance(framing, ObjectFraming):
        text = json.dumps(entries, indent=2, ensure_ascii=ensure_ascii)
        body = text[text.index("\n") + 1 : text.rindex("\n")] + ",\n"  # as the reader frames it
    else:
        lines = [json.dumps(entry, ensure_ascii=ensure_ascii) for entry in entries]
        body = "".join(line + ("," if framing.commas else "") + "\n" for line in lines)
    return Block(body.encode(), EXPORT, 0, framing)


def _broken(data: bytes, framing: Framing = LINES) -> bool:
    scanner = BlockScanner([compile_filter('textPayload:"check failed"')])
    return scanner.look(Block(data, EXPORT, 0, framing)).broken


@pytest.mark.parametrize(
    "data",
    [
        b'{"a": 1}\n{"b": "Check failed"}\n',
        b'{"a": "\xc3\xa9"}\r\n{"b": 2}\r\n',
        b'{"a": "x\\u00e9"}\n',
    ],
)
def test_well_framed_lines(data: bytes) -> None:
    assert not _broken(data)


@pytest.mark.parametrize(
    "data",
    [
        b'{"a": 1}\n\n{"b": 2}\n',
        b'{"a": 1}\n {"b": 2}\n',
        b'{"a": 1\n{"b": 2}\n',
        b'{"b": "Check failed\n{"a": 1}\n',
        b'{"b": "caf\xc3\xa9\n{"a": 1}\n',
        b'{"b": "x\\/\n{"a": 1}\n',
        b' {"a": 1}\n',
    ],
)
def test_a_line_that_is_not_one_object_breaks_the_block(data: bytes) -> None:
    """Also when what ends the bad line (a search term, an accent, an escape) is a match."""
    assert _broken(data)


def test_array_lines_may_end_with_a_comma() -> None:
    assert not _broken(b'{"a": 1},\n{"b": 2},\n', LineFraming(commas=True))
    assert _broken(b'{"a": 1}x\n{"b": 2},\n', LineFraming(commas=True))
    assert _broken(b'{"a": 1}\n{"b": 2},\n', LineFraming(commas=True))  # a comma missing


def test_indented_arrays_are_framed_by_their_braces() -> None:
    entries = [container_entry("Check failed: a"), container_entry("fine")]
    assert not BlockScanner([]).look(_block(entries, PRETTY, False)).broken
    good = _block(entries, PRETTY, False).data
    assert _broken(good.replace(b'\n    "insertId"', b'\n  "insertId"', 1), PRETTY)
    assert _broken(good.replace(b"\n  },\n", b"\n  } ,\n", 1), PRETTY)
    assert _broken(good.replace(b"\n  {\n", b"\n  { \n", 1), PRETTY)
    assert _broken(good.replace(b"\n  },\n", b"\n  }\n", 1), PRETTY)  # a comma missing


@pytest.mark.parametrize(
    "data",
    [
        b'{"a": {"b": 1}\n{"b": 2}\n',  # cut before its own closing brace
        b'{"a": "x}\n{"b": 2}\n',  # cut inside a string, after a brace
        b'{"a": "}", "b": {"c": 1}\n',  # a brace in a string makes the count even
        b'{"a": "x\\"}\n',  # an escaped quote does not end the string
        b'{"b": 2}\n{"a": 1}}\n',  # one brace too many
    ],
)
def test_a_record_cut_short_breaks_the_block(data: bytes) -> None:
    """So it is read record by record, each one parsed, though no filter selects it."""
    assert _broken(data)
    assert _broken(data.replace(b"\n", b",\n"), LineFraming(commas=True))


@pytest.mark.parametrize("text", ["{", "}}", "x\\", 'say "}"', "{" * 40, "\u007d", "}\r"])
def test_braces_inside_strings_never_break_the_block(text: str) -> None:
    entries = [container_entry(text), container_entry("Check failed: " + text)]
    for framing in (LINES, LineFraming(commas=True), PRETTY):
        for ensure_ascii in (False, True):
            assert not BlockScanner([]).look(_block(entries, framing, ensure_ascii)).broken


def test_an_indented_entry_cut_short_breaks_the_block() -> None:
    entries = [container_entry("Check failed: a"), container_entry("fine"), container_entry("b")]
    good = _block(entries, PRETTY, False).data
    start = good.index(b'"textPayload": "fine"')
    end = good.index(b"\n  },\n", start)
    assert _broken(good[:start].rstrip(b" ,\n") + good[end + 4 :], PRETTY)


@settings(deadline=None, max_examples=200)
@given(
    entries=st.lists(log_entries(), min_size=1, max_size=4),
    braces=st.text(alphabet='{}[]"\\ :,', max_size=8),
    ensure_ascii=st.booleans(),
)
def test_every_record_cut_after_a_brace_is_found_and_no_whole_one(
    entries: list[dict[str, Any]], braces: str, ensure_ascii: bool
) -> None:
    """Whatever its strings hold: a record cut short ends with a brace to pass for a line
    of JSON Lines, so every such cut of the first record is tried, in every framing."""
    entries[0]["textPayload"] = braces
    for framing in (LINES, LineFraming(commas=True), PRETTY):
        block = _block(entries, framing, ensure_ascii)
        assert whole_records(block)
        end = b"\n  }," if framing is PRETTY else b"},\n" if framing.commas else b"}\n"
        close = block.data.index(end) + end.index(b"}")  # the first record's closing brace
        for cut in (at + 1 for at in range(close) if block.data[at] == ord("}")):
            torn = block.data[:cut] + block.data[close + 1 :]
            assert not whole_records(Block(torn, EXPORT, 0, framing)), torn


def test_a_raw_control_character_is_corrupt_input(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(b'{"a": 1}\n{"b": "\x01"}\n')
    scanner = BlockScanner([compile_filter('textPayload:"x"')])
    block = Block(path.read_bytes(), ExportFile(str(path), path), 0, LineFraming())
    with pytest.raises(InputFileError, match=rf"^{path}:2: a control character \(0x01\)"):
        scanner.look(block)


def test_a_line_with_two_timestamp_keys_is_still_a_candidate() -> None:
    """A payload's own "timestamp" before the matching text: the line is read whole."""
    scanner = BlockScanner([compile_filter('jsonPayload.message:"check failed"')])
    line = b'{"jsonPayload": {"timestamp": "x", "message": "Check failed"}, "timestamp": "y"}\n'
    other = b'{"jsonPayload": {"message": "fine"}, "timestamp": "y"}\n'
    scan = scanner.look(Block(other * 3 + line + other, EXPORT, 0, LINES))
    assert scan.ambiguous
    assert [start for start, _, wanted in scan.candidates if wanted == (0,)] == [len(other) * 3]


def test_groups_the_sample_never_shows_are_told_apart_by_their_shortest_string() -> None:
    """A controller's error words and its namespace are both absent from the first records:
    the scanner searches for the namespace, not for "error", which any later line may hold."""
    where = 'resource.labels.namespace_name="jobset-system"'
    scanner = BlockScanner([compile_filter(f'textPayload:("error" OR "failed") {where}')])
    quiet = json.dumps({"textPayload": "step 1", "timestamp": "t"}).encode() + b"\n"
    errors = json.dumps({"textPayload": "an error", "timestamp": "t"}).encode() + b"\n"
    scanner.look(Block(quiet * 4, EXPORT, 0, LINES))
    assert scanner.look(Block(errors * 4, EXPORT, 0, LINES)).candidates == []


@settings(deadline=None, max_examples=500)
@given(
    st.lists(
        st.sampled_from([b'"', b"t", b"timestam", b"timestamp", b'"timestamp"', b"x", b"\\"]),
        max_size=12,
    ).map(b"".join)
)
def test_a_line_without_a_timestamp_key_is_exactly_what_the_alarm_finds(text: bytes) -> None:
    """The alarm for a line without `"timestamp"` is a regex written out by hand: it must
    match a whole line exactly when the line does not hold the key."""
    alarm = re2.compile(NO_STAMP, _options())
    for before in (b"", b'{"timestamp": "x"}\n'):
        data = before + text + b"\n"
        found = alarm.search(data, max(len(before) - 1, 0))
        whole = found is not None and found.end() == len(data)
        assert whole == (b'"timestamp"' not in text), data


def test_a_line_without_a_timestamp_key_is_still_read() -> None:
    """It is a candidate of the filters it holds, its control characters are refused and a
    broken line after it still breaks the block."""
    scanner = BlockScanner([compile_filter('textPayload:"check failed"')])
    stamped = b'{"textPayload": "fine", "timestamp": "2026-10-22T11:00:00Z"}\n'
    bare = b'{"textPayload": "Check failed: no time", "severity": "ERROR"}\n'
    scan = scanner.look(Block(stamped * 4 + bare + stamped, EXPORT, 0, LINES))
    assert scan.unstamped and not scan.ambiguous
    assert [start for start, _, _ in scan.candidates] == [len(stamped) * 4]
    assert _broken(stamped * 4 + bare + b'{"textPayload": "cut\n')
    assert not scanner.look(Block(stamped * 4, EXPORT, 0, LINES)).unstamped


@settings(deadline=None, max_examples=200)
@given(
    st.lists(
        st.tuples(
            st.booleans(),
            st.sampled_from(["timestamp", "timestam", "x"]),
            st.sampled_from(["timestamp", '"timestamp"', "Check failed"]),
        ),
        min_size=1,
        max_size=5,
    )
)
def test_an_indented_entry_without_a_top_level_timestamp_is_found(
    shapes: list[tuple[bool, str, str]],
) -> None:
    """gcloud's indented array: the alarm finds exactly the entries without a top-level
    "timestamp" key (nested ones and values do not count), and the scan settles them."""
    entries = []
    for stamped, nested_key, text in shapes:
        entry: dict[str, Any] = {"jsonPayload": {nested_key: text, "message": text}}
        if stamped:
            entry["timestamp"] = "2026-10-22T11:00:00Z"
        entries.append(entry)
    block = _block(entries, PRETTY, ensure_ascii=True)
    alarm = re2.compile(PRETTY.unstamped, _options())
    found = [m.group().lstrip(b"\n") for m in alarm.finditer(block.data)]
    bare = [json.dumps(e, indent=2).replace("\n", "\n  ") for e in entries if "timestamp" not in e]
    assert found == [("  " + text).encode() for text in bare]
    scanner = BlockScanner([compile_filter('jsonPayload.message:"check failed"')])
    scan = scanner.look(block)
    assert scan.unstamped == bool(bare) and not scan.ambiguous
    starts = [start for start, _ in PRETTY.spans(block.data)]
    crashes = {starts[i] for i, shape in enumerate(shapes) if shape[2] == "Check failed"}
    assert 0 in scanner.everything or crashes <= {start for start, _, _ in scan.candidates}


def test_an_indented_entry_with_two_top_level_timestamps_is_ambiguous_and_read() -> None:
    entry = '  {\n    "timestamp": "a",\n    "textPayload": "Check failed",\n'
    entry += '    "timestamp": "b"\n  },\n'
    quiet = '  {\n    "textPayload": "fine",\n    "timestamp": "c"\n  },\n'
    scanner = BlockScanner([compile_filter('textPayload:"check failed"')])
    scan = scanner.look(Block((quiet * 3 + entry).encode(), EXPORT, 0, PRETTY))
    assert scan.ambiguous and not scan.unstamped
    assert [start for start, _, _ in scan.candidates] == [len(quiet) * 3 + 2]


def test_a_second_timestamp_key_is_noticed() -> None:
    scanner = BlockScanner([])
    data = b'{"jsonPayload": {"timestamp": "x"}, "timestamp": "y"}\n'
    assert scanner.look(Block(data, EXPORT, 0, LineFraming())).ambiguous
    assert not scanner.look(Block(b'{"timestamp": "y"}\n', EXPORT, 0, LineFraming())).ambiguous


FRAMINGS = [LineFraming(), LineFraming(commas=True), PRETTY]


@settings(deadline=None, max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(log_entries(), min_size=1, max_size=6),
    st.lists(constrained_filters(), min_size=1, max_size=3),
    st.sampled_from(FRAMINGS),
    st.booleans(),
)
def test_the_block_prefilter_never_drops_a_match(
    entries: list[dict[str, Any]], texts: list[str], framing: Framing, ensure_ascii: bool
) -> None:
    """Several filters at once: a line one filter's match settles is still a candidate of
    every other filter that may match it."""
    compiled = [compile_filter(text) for text in texts]
    block = _block(entries, framing, ensure_ascii)
    scanner = BlockScanner(compiled)
    scan = scanner.look(block)
    assert not scan.broken
    starts = [start for start, _ in framing.spans(block.data)]
    for index, one in enumerate(compiled):
        candidates = {start for start, _, wanted in scan.candidates if index in wanted}
        for entry, start in zip(entries, starts):
            if one.matches(entry):
                assert index in scanner.everything or start in candidates, (entry, texts)


def _line_after_a_match(rest: str) -> Block:
    """A line whose first match is a crash term, with `rest` later in the same line."""
    entries = [container_entry("nothing"), container_entry(f"Check failed {'x' * 40} {rest}")]
    return _block(entries, LINES, ensure_ascii=False)


def test_a_line_settled_by_its_first_match_is_still_read_whole(tmp_path: Path) -> None:
    crash, config = (
        compile_filter('textPayload:"check failed"'),
        compile_filter('textPayload:"config file"'),
    )
    scanner = BlockScanner([crash, config])
    block = _line_after_a_match("ＣＯＮＦＩＧ ﬁle")
    assert config.matches(container_entry("ＣＯＮＦＩＧ ﬁle"))
    second = LINES.spans(block.data)[1][0]
    assert (second, LINES.spans(block.data)[1][1], (0, 1)) in scanner.look(block).candidates

    after = (
        b'{"textPayload": "Check failed", "jsonPayload": {"timestamp": "x"}, "timestamp": "y"}\n'
    )
    assert scanner.look(Block(after, EXPORT, 0, LINES)).ambiguous

    path = tmp_path / "a.jsonl"
    path.write_bytes(
        _line_after_a_match("").data.replace(b"x" * 40, b"x" * 20 + b"\x02" + b"x" * 19)
    )
    raw = Block(path.read_bytes(), ExportFile(str(path), path), 0, LINES)
    with pytest.raises(InputFileError, match=rf"^{path}:2: a control character \(0x02\)"):
        scanner.look(raw)


def _fullwidth(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


# Spellings the engine folds to the plain term (NFKC, then case folding).
VARIANTS = (
    str.upper,
    _fullwidth,
    lambda text: text.replace("fi", "\ufb01").replace("ff", "\ufb00"),
    lambda text: text.replace("k", "\u212a").replace("K", "\u212a"),
    lambda text: text.replace("s", "\u017f"),
)


@settings(deadline=None, max_examples=200)
@given(
    st.sampled_from(("config file", "check failed", "oom-kill", "staff")),
    st.sampled_from(VARIANTS),
    st.text(max_size=8),
    st.sampled_from(FRAMINGS),
    st.booleans(),
)
def test_folded_spellings_are_never_dropped(
    term: str, variant: Any, noise: str, framing: Framing, ensure_ascii: bool
) -> None:
    compiled = compile_filter(f'textPayload:"{term}"')
    entries = [container_entry(noise), container_entry(f"{noise}{variant(term)}{noise}")]
    assert compiled.matches(entries[1])
    block = _block(entries, framing, ensure_ascii)
    scanner = BlockScanner([compiled])
    scan = scanner.look(block)
    second = framing.spans(block.data)[1][0]
    assert 0 in scanner.everything or second in {start for start, _, _ in scan.candidates}


def test_raw_utf8_text_folds_like_the_engine(tmp_path: Path) -> None:
    """NFKC and case folding on text written raw, as gcloud and log sinks write it."""
    entry = container_entry("ＣＯＮＦＩＧ ﬁle missing")
    for name, ensure_ascii in (("raw.jsonl", False), ("escaped.jsonl", True)):
        path = tmp_path / name
        path.write_text(json.dumps(entry, ensure_ascii=ensure_ascii) + "\n", encoding="utf-8")
        code, out, err = run_cli(
            "--action=query",
            '--filter=textPayload:"config file"',
            f"--logs_file={path}",
            "--start_time=2026-10-22T11:00:00Z",
        )
        assert code == 0, err
        assert "ＣＯＮＦＩＧ ﬁle missing" in out


@pytest.mark.parametrize("framing", ["gcloud", "per-line"])
def test_an_array_s_last_entry_waits_for_the_end_and_breaks_no_block(
    tmp_path: Path, framing: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every block holds entries that end with their comma (the last entry is the end's, with
    the comma the reader gives it), so a well-formed array is never read the slow way."""
    monkeypatch.setattr(export_reader, "READ_BYTES", 1 << 12)
    entries = [container_entry("Check failed" if i % 10 == 0 else "fine") for i in range(400)]
    if framing == "gcloud":
        text = json.dumps(entries, indent=2) + "\n"
    else:
        text = "[\n" + ",\n".join(json.dumps(entry) for entry in entries) + "\n]\n"
    path = tmp_path / "export.json"
    path.write_text(text)
    (export,) = export_files([str(path)])
    scanner = BlockScanner([compile_filter('textPayload:"check failed"')])
    seen = list(export_reader.read_export(export, 0, scanner.look))
    assert len(seen) > 3
    assert not any(item.look.broken for item in seen)
    assert sum(len(item.look.candidates) for item in seen) == len(entries) // 10
