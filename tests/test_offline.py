"""Offline replay: every export format, streaming, ordering, and corrupt input (exit 5)."""

from __future__ import annotations

import dataclasses
import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from pathways_workload.errors import InputFileError
from pathways_workload.query import Query
from pathways_workload.sources.base import Fetch
from pathways_workload.sources.files import FileSource
from tests.helpers import container_entry, run_cli

WORKLOAD = ("--jobset_name=llama-train", "--start_time=2026-10-22T11:00:00Z", "--duration=1h")


def _entries() -> list[dict[str, Any]]:
    return [
        container_entry("Check failed: a", timestamp="2026-10-22T11:30:00.000000002Z"),
        container_entry("Check failed: b", timestamp="2026-10-22T11:30:00.000000001Z"),
        container_entry("déjà vu: Check failed: ü", timestamp="2026-10-22T11:29:00Z"),
        container_entry("fine", severity="INFO", timestamp="2026-10-22T11:20:00Z"),
        container_entry(
            "Check failed: other",
            jobset="llama-train-eval",
            pod="llama-train-eval-worker-0-0-qqqqq",
        ),
    ]


def write(path: Path, entries: list[dict[str, Any]], layout: str) -> Path:
    if layout == "gcloud":
        text = json.dumps(entries[::-1], indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    elif layout == "compact":
        text = json.dumps(entries)
    else:
        text = "".join(json.dumps(entry) + "\n" for entry in entries)
    data = text.encode()
    if path.suffix == ".gz":
        data = gzip.compress(data)
    path.write_bytes(data)
    return path


@pytest.mark.parametrize(
    ("name", "layout"),
    [
        ("a.json", "gcloud"),
        ("a.json", "compact"),
        ("a.jsonl", "lines"),
        ("a.jsonl.gz", "lines"),
        ("a.json.gz", "gcloud"),
    ],
)
def test_every_layout_gives_the_same_answer_in_time_order(
    tmp_path: Path, name: str, layout: str
) -> None:
    path = write(tmp_path / name, _entries(), layout)
    code, out, err = run_cli("--action=errors", f"--logs_file={path}", *WORKLOAD)
    assert code == 0, err
    messages = [line.split(": ", 1)[1] for line in out.splitlines()]
    assert messages == ["déjà vu: Check failed: ü", "Check failed: b", "Check failed: a"]


def test_a_folder_of_exports(tmp_path: Path) -> None:
    entries = _entries()
    write(tmp_path / "one.jsonl", entries[:2], "lines")
    write(tmp_path / "two.json", entries[2:], "gcloud")
    code, out, _ = run_cli("--action=errors", f"--logs_file={tmp_path}", *WORKLOAD, "--order=desc")
    assert code == 0
    assert [line.split(": ", 1)[1] for line in out.splitlines()] == [
        "Check failed: a",
        "Check failed: b",
        "déjà vu: Check failed: ü",
    ]


def test_json_output_is_the_entries_exactly_as_read(tmp_path: Path) -> None:
    entries = _entries()
    path = write(tmp_path / "a.json", entries, "gcloud")
    code, out, _ = run_cli("--action=errors", f"--logs_file={path}", *WORKLOAD, "--format=json")
    assert code == 0
    assert [json.loads(line) for line in out.splitlines()] == [entries[2], entries[1], entries[0]]


@pytest.mark.parametrize("engine", ["logging", "analytics"])
def test_an_export_of_several_projects_is_read_for_the_project_given(
    tmp_path: Path, engine: str
) -> None:
    """`gcloud logging read --project` reads that project's logs only: a same-named JobSet of
    another project in the same export (an organization's sink) is not its crash, whichever
    engine replays it."""
    ours = container_entry("Check failed: ours", timestamp="2026-10-22T11:30:00Z")
    theirs = container_entry("Check failed: theirs", timestamp="2026-10-22T11:20:00Z")
    theirs["logName"] = "projects/pw-other/logs/stderr"
    theirs["resource"]["labels"]["project_id"] = "pw-other"
    path = write(tmp_path / "a.json", [ours, theirs], "lines")
    code, out, _ = run_cli(
        "--action=errors",
        f"--logs_file={path}",
        *WORKLOAD,
        "--project=pw-demo",
        f"--engine={engine}",
        *(("--analytics_dataset=pw-demo.logs",) if engine == "analytics" else ()),
        "--format=json",
    )
    assert code == 0
    assert [json.loads(line)["textPayload"] for line in out.splitlines()] == ["Check failed: ours"]


def test_entries_of_several_projects_or_clusters_read_as_one_are_said_to_be(
    tmp_path: Path,
) -> None:
    """Without --project and --cluster_name nothing keeps one project's or cluster's logs:
    a same-named JobSet elsewhere in the export is read with the workload, and a note says
    so, with the flag that keeps one."""
    ours = container_entry("Check failed: ours", timestamp="2026-10-22T11:30:00Z")
    theirs = container_entry("Check failed: theirs", timestamp="2026-10-22T11:20:00Z")
    theirs["logName"] = "projects/pw-other/logs/stderr"
    theirs["resource"]["labels"].update(project_id="pw-other", cluster_name="other-cluster")
    path = write(tmp_path / "a.json", [ours, theirs], "lines")
    args = ("--action=errors", f"--logs_file={path}", *WORKLOAD)
    code, out, err = run_cli(*args)
    assert (code, len(out.splitlines())) == (0, 2)
    assert (
        "note: the entries read come from 2 projects (pw-demo, pw-other), read here as one; "
        "to read one alone, pass --project"
    ) in err.splitlines()
    assert (
        "note: the entries read come from 2 clusters (other-cluster, pw-cluster), read here "
        "as one; to read one alone, pass --cluster_name"
    ) in err.splitlines()
    code, out, err = run_cli(*args, "--project=pw-demo")
    assert (code, len(out.splitlines())) == (0, 1)
    assert "note: the entries read come from" not in err


def test_entries_of_another_project_left_out_are_said_to_be(tmp_path: Path) -> None:
    """The other project's crash is left out, and a note names that project: a --project the
    user mistyped for a project of the export must not read as a quiet workload."""
    ours = container_entry("Check failed: ours", timestamp="2026-10-22T11:30:00Z")
    theirs = container_entry("Check failed: theirs", timestamp="2026-10-22T11:20:00Z")
    theirs["logName"] = "projects/pw-other/logs/stderr"
    path = write(tmp_path / "a.json", [ours, theirs], "lines")
    code, out, err = run_cli(
        "--action=errors", f"--logs_file={path}", *WORKLOAD, "--project=pw-demo"
    )
    assert code == 0, err
    assert "ours" in out and "theirs" not in out
    assert "note: entries of other projects (pw-other) matched and were left out" in err


@pytest.mark.parametrize("action", ["errors", "triage"])
def test_a_project_the_export_does_not_hold_reads_it_whole_and_says_so(
    tmp_path: Path, action: str
) -> None:
    """--project naming no project of the export (mistyped, or given for the printed commands
    only) would leave nothing: the export is read whole, and a note says to check it."""
    entry = container_entry("Check failed: ours", timestamp="2026-10-22T11:30:00Z")
    path = write(tmp_path / "a.json", [entry], "lines")
    code, out, err = run_cli(
        f"--action={action}", f"--logs_file={path}", *WORKLOAD, "--project=pw-typo"
    )
    assert code == 0, err
    assert "Check failed: ours" in out
    (note,) = [line for line in err.splitlines() if "pw-typo" in line]
    assert note.startswith("note: no entry of project pw-typo matched; the export's entries")
    assert "are of pw-demo, and were read: check --project" in note


def test_an_entry_with_no_log_name_is_kept_whatever_the_project(tmp_path: Path) -> None:
    """A hand-made export's entry without a logName cannot say its project: it is read."""
    entry = container_entry("Check failed: untold", timestamp="2026-10-22T11:30:00Z")
    del entry["logName"]
    path = write(tmp_path / "a.json", [entry], "lines")
    args = ("--action=errors", f"--logs_file={path}", *WORKLOAD, "--format=json")
    code, out, _ = run_cli(*args, "--project=pw-demo")
    assert code == 0
    assert [json.loads(line) for line in out.splitlines()] == [entry]


def test_limit_cuts_and_says_so(tmp_path: Path) -> None:
    path = write(tmp_path / "a.jsonl", _entries(), "lines")
    code, out, err = run_cli("--action=errors", f"--logs_file={path}", *WORKLOAD, "--limit=1")
    assert code == 0
    assert len(out.splitlines()) == 1
    assert "note: --limit=1 cut the output" in err


def test_first_per_pod_keeps_first_and_last(tmp_path: Path) -> None:
    entries = [
        container_entry(
            f"Check failed: {i}",
            pod=f"llama-train-worker-0-{i % 2}-abcde",
            timestamp=f"2026-10-22T11:30:0{i}Z",
        )
        for i in range(6)
    ]
    path = write(tmp_path / "a.jsonl", entries, "lines")
    code, out, _ = run_cli("--action=errors", f"--logs_file={path}", *WORKLOAD, "--first_per_pod=1")
    assert code == 0
    assert out.splitlines() == [
        "== default/llama-train-worker-0-0-abcde/pathways-worker: 2 of 3 matching lines ==",
        "2026-10-22T11:30:00Z ERROR default/llama-train-worker-0-0-abcde/pathways-worker: "
        "Check failed: 0",
        "2026-10-22T11:30:04Z ERROR default/llama-train-worker-0-0-abcde/pathways-worker: "
        "Check failed: 4",
        "== default/llama-train-worker-0-1-abcde/pathways-worker: 2 of 3 matching lines ==",
        "2026-10-22T11:30:01Z ERROR default/llama-train-worker-0-1-abcde/pathways-worker: "
        "Check failed: 1",
        "2026-10-22T11:30:05Z ERROR default/llama-train-worker-0-1-abcde/pathways-worker: "
        "Check failed: 5",
    ]


@pytest.mark.parametrize(
    ("order", "missing"),
    [
        ("asc", "later pods may be missing"),
        (
            "desc",
            "pods whose lines all came earlier (in a hang, the first to go quiet) may be missing",
        ),
    ],
)
def test_a_fetch_limit_cut_says_which_pods_grouping_may_miss(
    tmp_path: Path, order: str, missing: str
) -> None:
    """Newest first, the lines the fetch limit drops are the oldest: the pod that stopped
    logging first, which the latest line of every pod is asked for to find, is the one lost."""
    entries = [
        container_entry(
            "Check failed: quiet",
            pod="llama-train-worker-0-0-abcde",
            timestamp="2026-10-22T11:30:00Z",
        ),
        *(
            container_entry(
                f"Check failed: {i}",
                pod="llama-train-worker-0-1-abcde",
                timestamp=f"2026-10-22T11:31:0{i}Z",
            )
            for i in range(3)
        ),
    ]
    path = write(tmp_path / "a.jsonl", entries, "lines")
    code, out, err = run_cli(
        "--action=errors",
        f"--logs_file={path}",
        *WORKLOAD,
        "--first_per_pod=1",
        f"--order={order}",
        "--fetch_limit=2",
    )
    assert code == 0
    assert ("worker-0-0" in out) == (order == "asc")
    assert (
        f"note: --fetch_limit=2 was hit before grouping; {missing}: narrow the window or "
        "raise --fetch_limit"
    ) in err


def test_a_fetch_limit_cut_gives_each_groups_count_as_a_lower_bound(tmp_path: Path) -> None:
    """Five lines of one pod match; with --fetch_limit=3 three were read: the heading says
    at least 3, never that 3 matched (its last line shown is the last read, not its last)."""
    entries = [
        container_entry(f"Check failed: {i}", timestamp=f"2026-10-22T11:30:0{i}Z") for i in range(5)
    ]
    path = write(tmp_path / "a.jsonl", entries, "lines")
    args = ("--action=errors", f"--logs_file={path}", *WORKLOAD, "--first_per_pod=1")
    code, out, _ = run_cli(*args, "--fetch_limit=3")
    assert code == 0
    assert out.splitlines()[0] == (
        "== default/llama-train-worker-0-0-abcde/pathways-worker: 2 of at least 3 matching lines =="
    )
    code, out, _ = run_cli(*args, "--fetch_limit=5")
    assert out.splitlines()[0].endswith(": 2 of 5 matching lines ==")


def test_empty_result_says_so_with_hints(tmp_path: Path) -> None:
    path = write(tmp_path / "a.jsonl", _entries()[3:4], "lines")
    code, out, err = run_cli("--action=errors", f"--logs_file={path}", *WORKLOAD)
    assert (code, out) == (0, "")
    assert "run --action=node-ooms and --action=pod-events" in err


@pytest.mark.parametrize(
    ("action", "widens"),
    [
        ("workers", True),
        ("pod-events", False),
        ("node-ooms", False),
        ("interruptions", False),
        ("query", False),
    ],
)
def test_an_empty_answer_suggests_a_severity_floor_only_where_one_narrowed_it(
    tmp_path: Path, action: str, widens: bool
) -> None:
    """--min_severity=WARNING widens an action whose floor is ERROR; an action that reads
    every entry of its kind whatever its severity has no floor to lower, and there the flag
    only narrows: it is not what to try next."""
    path = write(tmp_path / "a.jsonl", _entries()[3:4], "lines")
    flags = {
        "node-ooms": ("--node_names=gke-pw-cluster-tpu-np-1-8a1b2c3d-x9k2",),
        "interruptions": ("--node_names=gke-pw-cluster-tpu-np-1-8a1b2c3d-x9k2",),
        "query": ('--filter=textPayload:"nothing like this"',),
    }.get(action, ())
    code, out, err = run_cli(f"--action={action}", f"--logs_file={path}", *WORKLOAD, *flags)
    assert (code, out) == (0, "")
    hint = err.splitlines()[-1]
    assert hint.startswith("if --action=preflight has not passed for this target and window")
    assert ("widen with --min_severity=WARNING" in hint) == widens


@pytest.mark.parametrize("text", ["[]", "", "\n\n"])
def test_an_export_without_entries_has_no_window_to_give(tmp_path: Path, text: str) -> None:
    """Its bounds would be the epoch and tomorrow: said as what they are instead."""
    path = tmp_path / "empty.json"
    path.write_text(text)
    args = (f"--logs_file={path}", "--jobset_name=llama-train")
    code, out, err = run_cli("--action=errors", *args)
    assert (code, out) == (0, "")
    said = "the export, which holds no entry with a usable timestamp"
    lines = err.splitlines()
    if not text:
        assert lines.pop(0) == f"warning: {path} is empty (0 bytes)"
    assert lines[:2] == [f"window: {said}", f"no entries matched in {said}"]
    code, out, _ = run_cli("--action=triage", *args)
    assert code == 0
    assert out.splitlines()[1] == f"Window: {said}"
    assert "1970" not in out
    code, out, _ = run_cli("--action=triage", "--format=json", *args)
    assert json.loads(out)["window"]["note"] == said


def test_no_window_flags_offline_means_the_export_span(tmp_path: Path) -> None:
    path = write(tmp_path / "a.jsonl", _entries(), "lines")
    code, _, err = run_cli("--action=errors", f"--logs_file={path}", "--jobset_name=llama-train")
    assert code == 0
    assert (
        err.splitlines()[0]
        == "window: 2026-10-22T11:20:00Z .. 2026-10-22T11:30:00.123456789Z (10m)"
    )


def replay_everything(path: Path) -> tuple[int, str]:
    """Every entry of an export through --action=query; the exit code and stderr."""
    code, _, err = run_cli(
        "--action=query",
        "--filter=insertId:*",
        f"--logs_file={path}",
        "--start_time=2026-10-22T11:00:00Z",
    )
    return code, err


CORRUPT = [
    (
        "cut.json",
        b'[\n  {\n    "insertId": "a"\n  },\n  {\n    "insertId": "b"\n',
        6,
        "the JSON array is not closed",
    ),
    (
        "line.jsonl",
        b'{"insertId": "a"}\n{"insertId": "b", "textPayload": "x\n',
        2,
        "this line is not one complete JSON object",
    ),
    ("text.json", b"hello\n", 1, "not a JSON export"),
    ("bad.jsonl", b'{"insertId": "a"}\n{"insertId": }\n', 2, "not valid JSON"),
]


@pytest.mark.parametrize(("name", "data", "line", "what"), CORRUPT)
def test_corrupt_exports_exit_5_naming_file_and_line(
    tmp_path: Path, name: str, data: bytes, line: int, what: str
) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    code, err = replay_everything(path)
    assert code == 5
    assert err.splitlines()[-1].startswith(f"error: {path}:{line}: {what}")
    assert err.splitlines()[-1].endswith("any output printed before this message is incomplete")


@pytest.mark.parametrize(("name", "data", "line", "what"), CORRUPT[:3])
def test_framing_is_checked_even_when_the_fast_path_skips(
    tmp_path: Path, name: str, data: bytes, line: int, what: str
) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    never = Fetch(Query("never", 'textPayload:"no line has this"'), 10)
    with pytest.raises(InputFileError, match=f"^{path}:{line}: {what}"):
        FileSource([str(path)]).run([never])


def test_a_gzip_stream_with_a_bad_deflate_block_exits_5(tmp_path: Path) -> None:
    """The decompressor's own error (not zlib's: ISA-L's) is a damaged export too."""
    data = bytearray(gzip.compress(b'{"insertId": "a"}\n' * 1000))
    data[12] ^= 0xFF  # inside the first deflate block, after the 10-byte header
    path = tmp_path / "a.jsonl.gz"
    path.write_bytes(bytes(data))
    code, err = replay_everything(path)
    assert code == 5
    assert "gzip stream is damaged or truncated (Error -1 Invalid deflate block" in err


def test_truncated_gzip_exits_5(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl.gz"
    path.write_bytes(gzip.compress(b'{"insertId": "a"}\n' * 1000)[:-20])
    code, err = replay_everything(path)
    assert code == 5
    assert "gzip stream is damaged or truncated" in err


@pytest.mark.parametrize("members", [1, 2])
def test_data_after_a_whole_gzip_stream_is_named_as_such(tmp_path: Path, members: int) -> None:
    """It was "damaged or truncated (Compressed file ended before the end-of-stream
    marker...)", though nothing was cut short."""
    whole = gzip.compress(b'{"insertId": "a"}\n' * 1000) * members
    path = tmp_path / "a.jsonl.gz"
    path.write_bytes(whole + b"garbage\n")
    code, err = replay_everything(path)
    assert code == 5
    assert f"{path}: data after the end of the gzip stream (at byte {len(whole)} of" in err


def test_fetches_anticipated_are_answered_in_the_pass_before_they_are_asked(
    tmp_path: Path,
) -> None:
    path = write(tmp_path / "a.jsonl", _entries(), "lines")
    crashes = Fetch(Query("crashes", 'textPayload:"Check failed"'), 2)
    quiet = Fetch(Query("quiet", 'severity="INFO"'), 10, name="quiet")
    other = Fetch(Query("other", 'textPayload:"vu"'), 10)
    source = FileSource([str(path)])
    source.run([crashes], anticipated=[quiet])
    (answer,) = source.run([dataclasses.replace(quiet, name="asked again")])
    assert source.passes == 1
    (fresh,) = FileSource([str(path)]).run([quiet])
    assert answer.entries == fresh.entries and answer.fetch.name == "asked again"
    source.run([other])
    assert source.passes == 2


def test_triage_reads_the_export_once_when_its_probes_are_all_it_asks_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first wave sees no events and no node logs; whether the logs hold any at all is
    asked next, and was answered in the first pass."""
    head = "llama-train-pathways-head-0-0-hhhhh"
    started = [
        container_entry("started", pod=head, container=name, severity="INFO")
        for name in ("jax-tpu", "pathways-proxy", "pathways-rm")
    ]
    path = write(tmp_path / "a.jsonl", _entries() + started, "lines")
    passes = []
    original = FileSource.run

    def counted(self: FileSource, *args: Any, **kwargs: Any) -> Any:
        found = original(self, *args, **kwargs)
        passes.append(self.passes)
        return found

    monkeypatch.setattr(FileSource, "run", counted)
    code, out, err = run_cli("--action=triage", "--format=json", f"--logs_file={path}", *WORKLOAD)
    assert code == 0, err
    asked = [check["purpose"] for check in json.loads(out)["checks"]]
    assert any("Kubernetes events of the namespace in the logs at all" in p for p in asked)
    assert len(passes) >= 2 and passes[-1] == 1


def test_missing_file_exits_5(tmp_path: Path) -> None:
    code, _, err = run_cli("--action=errors", "--jobset_name=x", f"--logs_file={tmp_path}/nope")
    assert code == 5
    assert (
        err.splitlines()[-1] == f"error: {tmp_path}/nope: no such file or folder; check --logs_file"
    )


def test_one_pass_answers_every_fetch(tmp_path: Path) -> None:
    path = write(tmp_path / "a.jsonl", _entries(), "lines")
    source = FileSource([str(path)])
    results = source.run(
        [
            Fetch(Query("a", 'textPayload:"Check failed"'), 2),
            Fetch(Query("b", 'severity="INFO"'), 10),
        ]
    )
    assert source.passes == 1
    assert [len(r.entries) for r in results] == [2, 1]
    assert results[0].truncated and not results[1].truncated
