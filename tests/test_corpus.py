"""The recorded-incident corpus is what its specs write, and its writers keep every entry."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from tests.corpus.build import FOLDER, build, write_corpus
from tests.corpus.writer import export_text, write_json_lines
from tests.helpers import run_cli
from tests.test_incidents import target_args


def test_the_checked_in_corpus_is_what_the_specs_write(tmp_path: Path) -> None:
    write_corpus(tmp_path)
    written = sorted(path.name for path in tmp_path.iterdir())
    assert written == sorted(path.name for path in FOLDER.iterdir() if path.suffix != ".py")
    stale = [
        name for name in written if (tmp_path / name).read_bytes() != (FOLDER / name).read_bytes()
    ]
    assert not stale, f"run python3 tests/fixtures/incidents/generate.py; these differ: {stale}"


def test_json_lines_are_in_order_minute_by_minute_and_the_same_every_time(tmp_path: Path) -> None:
    incident = build("silent_hang")
    first, second = tmp_path / "a.jsonl.gz", tmp_path / "b.jsonl.gz"
    write_json_lines(first, incident)
    write_json_lines(second, incident)
    assert first.read_bytes() == second.read_bytes()
    with gzip.open(first, "rt", encoding="utf-8") as lines:
        entries = [json.loads(line) for line in lines]
    assert sorted(e["insertId"] for e in entries) == sorted(e["insertId"] for _, e in incident.rows)
    minutes = [entry["timestamp"][:16] for entry in entries]
    assert minutes == sorted(minutes)
    stamps = [entry["timestamp"] for entry in entries]
    assert stamps != sorted(stamps), "nothing was shuffled within a minute"


def test_a_gzipped_json_lines_export_replays_like_the_json_array(tmp_path: Path) -> None:
    incident = build("host_oom_worker")
    array, lines = tmp_path / "export.json", tmp_path / "export.jsonl.gz"
    array.write_text(export_text(incident.rows), encoding="utf-8")
    write_json_lines(lines, incident)
    window = [a for a in target_args("host-oom-worker") if not a.startswith("--logs_file=")]
    outputs = []
    for path in (array, lines):
        code, out, err = run_cli(f"--logs_file={path}", *window, "--action=errors", "--format=json")
        assert code == 0, err
        outputs.append(out)
    assert outputs[0] and outputs[0] == outputs[1]
