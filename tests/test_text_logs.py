"""Plain-text container logs (`kubectl logs` transcripts) replayed like exports.

Transcripts are written from recorded incidents by tests/transcripts.py, as
kubectl prints them; what the tool must find in them is what was planted in
the incident (its `.expected.json`) and what its export holds.
"""

from __future__ import annotations

import gzip
import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from pathways_workload.cli import main
from pathways_workload.sources.files import FileSource
from pathways_workload.sources.text_logs import TextLogOptions, TextLogs
from pathways_workload.target import Target, parse_workload
from pathways_workload.timestamps import parse_timestamp_ns
from pathways_workload.window import Window
from tests import transcripts
from tests.helpers import run_cli
from tests.test_fast_path import _fetches as fast_path_fetches
from tests.test_incidents import INCIDENTS, expected

# Incidents whose cause is in container logs, and the JobSet each one is about.
CONTAINER_CAUSES = {
    "user-code-import-error": "gemma-ft",
    "lost-connection-to-peer": "llama-train",
    "missing-proxy-backend": "qwen-sft",
    "compilation-service-crash": "mixtral-train",
}
HEAD = ("gemma-ft-pathways-head-0-0-n2548", "jax-tpu")
WORKER = ("llama-train-worker-1-2-75wk5", "pathways-worker")
TEXT_FIELDS = {"insertId", "resource", "timestamp", "severity", "textPayload", "labels"}
# 2026-10-23T00:00:00Z: before the corpus's November incidents (the tests' clock is after all).
EARLIER_CLOCK_NS = 1792713600 * 10**9


def export(name: str) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = json.loads((INCIDENTS / f"{name}.json").read_text())
    return entries


def lines_of(name: str, pod: str, container: str) -> list[dict[str, Any]]:
    return transcripts.container_entries(export(name))[(pod, container)]


def json_entries(*argv: str) -> list[dict[str, Any]]:
    code, out, err = run_cli(*argv, "--format=json", "--limit=5000")
    assert code == 0, err
    return [json.loads(line) for line in out.splitlines()]


def root_cause(*argv: str) -> dict[str, Any]:
    code, out, err = run_cli(*argv, "--action=triage", "--format=json")
    assert code == 0, err
    cause: dict[str, Any] = json.loads(out)["root_cause"]
    return cause


def same_cause(found: dict[str, Any], name: str) -> None:
    """The planted root cause: pod, container, time (as an instant), message, scenario."""
    planted = expected(name)["root_cause"]
    assert (found["pod"], found["container"]) == (planted["pod"], planted["container"])
    assert parse_timestamp_ns(found["timestamp"]) == parse_timestamp_ns(planted["timestamp"])
    assert planted["message_contains"] in found["message"]
    assert found["scenario"] == planted["scenario"]


def write(path: Path, text: str | bytes) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, str):
        path.write_text(text)
    else:
        path.write_bytes(text)
    return str(path)


# --------------------------------------------------------------------------- whole incidents


@pytest.mark.parametrize("name", sorted(CONTAINER_CAUSES))
def test_triage_of_a_kubectl_dump_names_the_export_root_cause(tmp_path: Path, name: str) -> None:
    jobset = CONTAINER_CAUSES[name]
    dump = write(tmp_path / "dump.log", transcripts.prefixed(export(name)))
    from_dump = root_cause(f"--jobset_name={jobset}", f"--logs_file={dump}")
    from_export = root_cause(f"--jobset_name={jobset}", f"--logs_file={INCIDENTS / name}.json")
    same_cause(from_dump, name)
    same_cause(from_export, name)
    assert parse_timestamp_ns(from_dump["timestamp"]) == parse_timestamp_ns(
        from_export["timestamp"]
    )
    assert from_dump["message"] == from_export["message"]


def test_the_jobset_controllers_transcript_is_read_in_its_namespace(tmp_path: Path) -> None:
    """`kubectl logs -n jobset-system deploy/jobset-controller-manager --prefix --timestamps`
    beside the workload's: the controller's pod is in jobset-system (kubernetes-sigs/jobset's
    config/default), where triage reads it, so its error is the root cause, as in the export."""
    name, jobset = "jobset-name-too-long", "llama3-70b-pretrain-v6e-2x4-bf16-fsdp-sweep-lr3e4-wu2k"
    dump = write(tmp_path / "dump.log", transcripts.prefixed(export(name)))
    same_cause(root_cause(f"--jobset_name={jobset}", f"--logs_file={dump}"), name)


def test_a_finished_runs_transcript_reads_the_clients_clean_exit_as_its_completion(
    tmp_path: Path,
) -> None:
    """A transcript holds no events, so no AllJobsCompleted: xpk's `EXIT_CODE=0` after the
    user's command is what says the run finished, and the SIGTERMs after it are its teardown
    (the first of them was the root cause)."""
    dump = write(tmp_path / "dump.log", transcripts.prefixed(export("finished-run")))
    planted = expected("finished-run")["target"]
    window = (f"--start_time={planted['start_time']}", f"--end_time={planted['end_time']}")
    code, out, err = run_cli(
        "--jobset_name=gemma-sft",
        f"--logs_file={dump}",
        *window,
        "--action=triage",
        "--format=json",
    )
    assert code == 0, err
    report = json.loads(out)
    assert report["root_cause"] is None
    assert report["completed"]["message"] == "EXIT_CODE=0"
    assert report["completed"]["pod"] == "gemma-sft-pathways-head-0-0-nzwfn"
    assert report["failing_hosts"] == []


def test_kubectls_own_error_lines_among_prefixed_lines_are_left_out(tmp_path: Path) -> None:
    """`kubectl logs -f --ignore-errors` writes a stream's error as `error: ...` among the
    prefixed lines (kubectl's logs.go, parallelConsumeRequest), and `2>&1` adds its
    `Error from server (REASON): ...` (cmd/util/helpers.go): they are kubectl's, not a
    container's, so they are left out with a note instead of refusing the transcript."""
    name = "lost-connection-to-peer"
    lines = transcripts.prefixed(export(name)).splitlines(keepends=True)
    own = [
        'Error from server (BadRequest): previous terminated container "pathways-worker" in '
        'pod "llama-train-worker-1-2-6s25r" not found\n',
        'error: container "pathways-worker" in pod "llama-train-worker-1-2-6s25r" is waiting '
        "to start: ContainerCreating\n",
    ]
    dump = write(tmp_path / "dump.log", "".join([own[0], *lines[:300], own[1], *lines[300:]]))
    args = ["--jobset_name=llama-train", f"--logs_file={dump}", "--action=triage"]
    code, out, err = run_cli(*args, "--format=json")
    assert code == 0, err
    same_cause(json.loads(out)["root_cause"], name)
    assert err.count(f"note: 2 lines of {dump} are kubectl's own errors") == 1
    assert "(the first, line 1: Error from server (BadRequest): previous terminated" in err


def test_kubectls_own_errors_before_the_first_log_line_do_not_hide_the_logs(
    tmp_path: Path,
) -> None:
    """`kubectl logs -f --ignore-errors` over many pods still being created starts with an
    error line for each: sniffing looks past them for the first lines of logs."""
    name = "lost-connection-to-peer"
    waiting = [
        f'error: container "pathways-worker" in pod "llama-train-worker-1-{i}-abcde" is waiting '
        "to start: ContainerCreating\n"
        for i in range(12)
    ]
    dump = write(tmp_path / "dump.log", "".join(waiting) + transcripts.prefixed(export(name)))
    same_cause(root_cause("--jobset_name=llama-train", f"--logs_file={dump}"), name)


def test_the_analytics_engine_reads_a_dump_too(tmp_path: Path) -> None:
    """Offline SQL runs on DuckDB, whose timestamps keep microseconds."""
    name = "user-code-import-error"
    dump = write(tmp_path / "dump.log", transcripts.prefixed(export(name)))
    found = root_cause("--jobset_name=gemma-ft", f"--logs_file={dump}", "--engine=analytics")
    planted = expected(name)["root_cause"]
    assert (found["pod"], found["container"]) == (planted["pod"], planted["container"])
    assert planted["message_contains"] in found["message"]
    assert found["scenario"] == planted["scenario"]
    gap = parse_timestamp_ns(found["timestamp"]) - parse_timestamp_ns(planted["timestamp"])
    assert -1000 < gap <= 0


def test_a_folder_of_pod_container_logs_is_read_by_place(tmp_path: Path) -> None:
    name = "user-code-import-error"
    for (pod, container), lines in transcripts.container_entries(export(name)).items():
        write(tmp_path / "dump" / pod / f"{container}.log", transcripts.single(lines, True))
    same_cause(root_cause("--jobset_name=gemma-ft", f"--logs_file={tmp_path / 'dump'}"), name)


def test_the_jobset_flag_selects_only_its_own_pods(tmp_path: Path) -> None:
    """The dump also holds gemma-ft-eval's pods, whose names start with `gemma-ft-`."""
    dump = write(tmp_path / "dump.log", transcripts.prefixed(export("user-code-import-error")))
    entries = json_entries(
        "--jobset_name=gemma-ft", f"--logs_file={dump}", "--action=errors", "--min_severity=DEFAULT"
    )
    pods = {entry["resource"]["labels"]["pod_name"] for entry in entries}
    assert pods == set(expected("user-code-import-error")["workload_pods"])


def test_a_dump_piped_to_standard_input_is_read_like_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`kubectl logs ... | debug_workload.py --logs_file=-`; triage reads it again (follow-ups)."""
    name = "user-code-import-error"
    text = transcripts.prefixed(export(name))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    same_cause(root_cause("--jobset_name=gemma-ft", "--logs_file=-"), name)


def test_a_gzipped_dump_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    name = "user-code-import-error"
    data = gzip.compress(b"\xef\xbb\xbf" + transcripts.prefixed(export(name)).encode())
    dump = write(tmp_path / "dump.log.gz", data)
    same_cause(root_cause("--jobset_name=gemma-ft", f"--logs_file={dump}"), name)


# --------------------------------------------------------------------------- one container


def test_one_container_with_timestamps_reads_as_its_export(tmp_path: Path) -> None:
    lines = lines_of("user-code-import-error", *HEAD)
    log = write(tmp_path / "head.log", transcripts.single(lines, timestamps=True))
    entries = json_entries(
        f"--logs_file={log}",
        f"--pod_prefix={HEAD[0]}",
        f"--container_names={HEAD[1]}",
        "--action=user-workload",
        "--min_severity=DEFAULT",
    )
    assert [e["textPayload"] for e in entries] == [e["textPayload"] for e in lines]
    assert [parse_timestamp_ns(e["timestamp"]) for e in entries] == [
        parse_timestamp_ns(e["timestamp"]) for e in lines
    ]
    assert {
        (e["resource"]["labels"]["pod_name"], e["resource"]["labels"]["container_name"])
        for e in entries
    } == {HEAD}


def test_one_container_without_timestamps_takes_times_from_glog_headers(tmp_path: Path) -> None:
    lines = lines_of("user-code-import-error", *HEAD)
    glog_times = [parse_timestamp_ns(e["timestamp"]) for e in lines if "sourceLocation" in e]
    wanted, last = [], glog_times[0]
    for line in lines:
        last = parse_timestamp_ns(line["timestamp"]) if "sourceLocation" in line else last
        wanted.append(last)
    planted = expected("user-code-import-error")["target"]
    log = write(tmp_path / "head.log", transcripts.single(lines, timestamps=False))
    entries = json_entries(
        f"--logs_file={log}",
        f"--pod_prefix={HEAD[0]}",
        f"--container_names={HEAD[1]}",
        f"--start_time={planted['start_time']}",
        f"--end_time={planted['end_time']}",
        "--action=user-workload",
        "--min_severity=DEFAULT",
    )
    assert [e["textPayload"] for e in entries] == [e["textPayload"] for e in lines]
    assert [parse_timestamp_ns(e["timestamp"]) for e in entries] == wanted
    assert [e["insertId"] for e in entries] == sorted(e["insertId"] for e in entries)


def _run_at(clock_ns: int, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err, clock=lambda: clock_ns)
    return code, out.getvalue(), err.getvalue()


def test_a_glog_only_transcript_says_which_year_it_assumed(tmp_path: Path) -> None:
    lines = [e for e in lines_of("lost-connection-to-peer", *WORKER) if "sourceLocation" in e]
    log = write(tmp_path / "worker.log", transcripts.single(lines, timestamps=False))
    argv = [
        f"--logs_file={log}",
        f"--pod_prefix={WORKER[0]}",
        f"--container_names={WORKER[1]}",
        "--action=workers",
        "--min_severity=DEFAULT",
        "--format=json",
    ]
    code, out, err = run_cli(*argv)
    assert code == 0, err
    assert "glog headers carry no year; read as 2026" in err
    found = [json.loads(line) for line in out.splitlines()]
    assert [parse_timestamp_ns(e["timestamp"]) for e in found] == [
        parse_timestamp_ns(e["timestamp"]) for e in lines
    ]
    assert [e["severity"] for e in found] == [e["severity"] for e in lines]
    # November 2026 lies ahead of a clock in October 2026: the year before is assumed.
    code, out, err = _run_at(EARLIER_CLOCK_NS, *argv)
    assert code == 0, err
    assert "read as 2025" in err
    assert all(json.loads(line)["timestamp"].startswith("2025-11-") for line in out.splitlines())


def test_a_29_february_of_a_year_without_one_does_not_stretch_the_span(tmp_path: Path) -> None:
    """Read today, 28 February and 1 March take one year; a 29 February that neither this
    year nor the last has is a bad header, placed after its neighbour, not years back."""
    log = write(
        tmp_path / "worker.log",
        "I0228 23:59:58.000000 1 a.cc:1] one\n"
        "I0229 00:00:01.000000 1 a.cc:1] two\n"
        "I0301 00:00:02.000000 1 a.cc:1] three\n",
    )
    code, out, err = run_cli(
        f"--logs_file={log}",
        f"--pod_prefix={WORKER[0]}",
        f"--container_names={WORKER[1]}",
        "--action=workers",
        "--min_severity=DEFAULT",
        "--format=json",
    )
    assert code == 0, err
    found = [json.loads(line) for line in out.splitlines()]
    assert [e["textPayload"].split("] ")[-1] for e in found] == ["one", "two", "three"]
    assert len({e["timestamp"][:4] for e in found}) == 1
    assert err.count("glog headers carry no year") == 1


def test_window_flags_give_glog_headers_their_year(tmp_path: Path) -> None:
    lines = [e for e in lines_of("lost-connection-to-peer", *WORKER) if "sourceLocation" in e]
    log = write(tmp_path / "worker.log", transcripts.single(lines, timestamps=False))
    code, out, err = run_cli(
        f"--logs_file={log}",
        f"--pod_prefix={WORKER[0]}",
        f"--container_names={WORKER[1]}",
        "--issue_time=2026-11-20T04:50:00Z",
        "--action=workers",
        "--format=json",
    )
    assert code == 0, err
    assert "no year" not in err
    assert "Check failed: !chip_halted" in out


# --------------------------------------------------------------------------- inference


STREAMS = """\
[pod/rl-actor-0-abcde/main] 2026-08-09T08:38:16.360809123Z first line of main
[pod/rl-actor-0-abcde/sidecar] no time yet, waits for the sidecar's first time
[pod/rl-actor-0-abcde/main] no time: keeps main's previous time
[pod/rl-actor-0-abcde/sidecar] W0809 08:38:20.000001 7 sidecar.cc:9] first sidecar time
[pod/rl-actor-0-abcde/main] E0809 08:38:17.500000    1234 main.cc:77] Check failed: x
[pod/rl-actor-0-abcde/main] F0809 08:38:17.600000 1234 main.cc:78] fatal
[pod/rl-actor-0-abcde/main] I0809 08:38:17.700000 1234 main.cc:79] info
"""


def _container_lines(log: Path) -> list[dict[str, Any]]:
    """Every container line of a transcript of 2026-08-09 08:00 to 09:00, as entries."""
    return json_entries(
        f"--logs_file={log}",
        "--start_time=2026-08-09T08:00:00Z",
        "--end_time=2026-08-09T09:00:00Z",
        "--action=query",
        "--filter=resource.type=k8s_container",
    )


def test_times_severities_and_order_of_prefixed_lines(tmp_path: Path) -> None:
    log = write(tmp_path / "streams.log", STREAMS)
    entries = _container_lines(log)
    got = [
        (e["resource"]["labels"]["container_name"], e["timestamp"], e["severity"], e["textPayload"])
        for e in entries
    ]
    assert got == [
        ("main", "2026-08-09T08:38:16.360809123Z", "DEFAULT", "first line of main"),
        (
            "main",
            "2026-08-09T08:38:16.360809123Z",
            "DEFAULT",
            "no time: keeps main's previous time",
        ),
        ("main", "2026-08-09T08:38:17.5Z", "ERROR", "Check failed: x"),
        ("main", "2026-08-09T08:38:17.6Z", "CRITICAL", "fatal"),
        ("main", "2026-08-09T08:38:17.7Z", "INFO", "info"),
        (
            "sidecar",
            "2026-08-09T08:38:20.000001Z",
            "DEFAULT",
            "no time yet, waits for the sidecar's first time",
        ),
        ("sidecar", "2026-08-09T08:38:20.000001Z", "WARNING", "first sidecar time"),
    ]
    fatal = entries[3]
    assert set(fatal) == TEXT_FIELDS - {"labels"} | {"sourceLocation"}
    assert fatal["sourceLocation"] == {"file": "main.cc", "line": "78"}
    assert fatal["resource"] == {
        "type": "k8s_container",
        "labels": {
            "namespace_name": "default",
            "pod_name": "rl-actor-0-abcde",
            "container_name": "main",
        },
    }
    assert set(entries[0]) == TEXT_FIELDS - {"labels"}  # no workload flag, no launcher's name


def test_terminal_colour_codes_are_kept(tmp_path: Path) -> None:
    log = write(tmp_path / "colour.log", "2026-08-09T08:38:16Z \x1b[31mCheck failed: red\x1b[0m\n")
    flags = ["--pod_prefix=p", "--container_names=c", "--action=errors"]
    entries = json_entries(f"--logs_file={log}", *flags)
    assert [e["textPayload"] for e in entries] == ["\x1b[31mCheck failed: red\x1b[0m"]


def test_target_flags_fill_the_resource_and_name_the_workload(tmp_path: Path) -> None:
    log = write(tmp_path / "streams.log", STREAMS)
    entries = json_entries(
        f"--logs_file={log}",
        "--project=pw-demo",
        "--cluster_name=pw-cluster",
        "--location=us-east5",
        "--namespace=rl",
        "--job_name=rl-actor",
        "--action=errors",
    )
    assert [e["textPayload"] for e in entries] == ["Check failed: x", "fatal"]
    assert entries[0]["resource"]["labels"] == {
        "project_id": "pw-demo",
        "location": "us-east5",
        "cluster_name": "pw-cluster",
        "namespace_name": "rl",
        "pod_name": "rl-actor-0-abcde",
        "container_name": "main",
    }
    assert entries[0]["labels"]["k8s-pod/batch_kubernetes_io/job-name"] == "rl-actor"
    assert entries[0]["labels"]["k8s-pod/batch_kubernetes_io/job-completion-index"] == "0"


# --------------------------------------------------------------------------- refusals


def refused(*argv: str) -> str:
    code, _, err = run_cli(*argv, "--action=pods")
    assert code == 5, err
    assert len(err.splitlines()) == 1, err
    return err


def test_garbage_text_exits_5_naming_file_and_line(tmp_path: Path) -> None:
    log = write(tmp_path / "notes.txt", "\n\nthe job died, see below\nno idea why\n")
    assert refused(f"--logs_file={log}").startswith(
        f"error: {log}:3: not a JSON export ('[' or '{{') or container logs"
    )


def test_a_line_without_the_prefix_of_the_others_is_refused(tmp_path: Path) -> None:
    text = STREAMS.splitlines(keepends=True)
    log = write(tmp_path / "mixed.log", "".join(text[:2]) + "Check failed: whose line is this\n")
    assert refused(f"--logs_file={log}").startswith(
        f"error: {log}:3: this line has no [pod/NAME/CONTAINER] prefix, unlike line 1"
    )


def test_invalid_utf8_is_refused_naming_the_line(tmp_path: Path) -> None:
    log = write(tmp_path / "bad.log", STREAMS.encode().splitlines()[0] + b"\n[pod/a/b] \xff\xfe\n")
    assert f"error: {log}:2: not UTF-8 text (byte 0xff)" in refused(f"--logs_file={log}")


def test_unprefixed_logs_need_a_pod_and_one_container(tmp_path: Path) -> None:
    log = write(tmp_path / "one.log", "2026-08-09T08:38:16Z hello\n")
    message = refused(f"--logs_file={log}")
    assert message.startswith(f"error: {log}:1: container logs with no [pod/NAME/CONTAINER] prefix")
    assert "--pod_prefix=POD and --container_names=CONTAINER" in message
    refused(f"--logs_file={log}", "--pod_prefix=p", "--container_names=a,b")


def test_logs_without_any_time_are_refused(tmp_path: Path) -> None:
    log = write(tmp_path / "plain.log", "starting\nI was here\n")
    message = refused(
        f"--logs_file={log}", "--logs_format=kubectl", "--pod_prefix=p", "--container_names=c"
    )
    assert message.startswith(f"error: {log}:1: no line carries a time")


def test_logs_format_overrides_the_sniffing(tmp_path: Path) -> None:
    late = (
        "".join(f"plain line {n}\n" for n in range(12)) + "2026-08-09T08:38:16Z Check failed: y\n"
    )
    log = write(tmp_path / "late.log", late)
    flags = [f"--logs_file={log}", "--pod_prefix=p", "--container_names=c"]
    assert refused(*flags).startswith(f"error: {log}:1: not a JSON export")
    entries = json_entries(*flags, "--logs_format=kubectl", "--action=errors")
    assert [e["textPayload"] for e in entries] == ["Check failed: y"]
    dump = write(tmp_path / "dump.log", STREAMS)
    assert refused(f"--logs_file={dump}", "--logs_format=export").startswith(f"error: {dump}:")


def test_logs_format_needs_logs_file() -> None:
    code, _, err = run_cli("--logs_format=kubectl", "--jobset_name=x", "--action=errors")
    assert (code, err.splitlines()[-1]) == (2, "error: --logs_format goes with --logs_file")


# --------------------------------------------------------------------------- fast path


@pytest.mark.parametrize("name", sorted(CONTAINER_CAUSES))
def test_the_fast_path_changes_nothing_on_text_logs(tmp_path: Path, name: str) -> None:
    planted = expected(name)
    target = Target(workloads=tuple(parse_workload(w) for w in planted["target"]["workload"]))
    window = Window(
        parse_timestamp_ns(planted["target"]["start_time"]),
        parse_timestamp_ns(planted["target"]["end_time"]),
    )
    fetches = fast_path_fetches(target, window, tuple(planted["workload_nodes"]))
    dump = write(tmp_path / "dump.log", transcripts.prefixed(export(name)))
    folder = tmp_path / "folder"
    for (pod, container), lines in transcripts.container_entries(export(name)).items():
        glog = any("sourceLocation" in line for line in lines)  # times from the headers
        write(folder / pod / f"{container}.log", transcripts.single(lines, timestamps=not glog))
    for paths in ([dump], [str(folder)]):
        options = TextLogOptions(workloads=target.workloads, window=window, folders=tuple(paths))
        answers = [
            [
                (r.entries, r.truncated)
                for r in FileSource(paths, fast, text=TextLogs(options)).run(fetches)
            ]
            for fast in (True, False)
        ]
        assert answers[0] == answers[1]
        assert any(entries for entries, _ in answers[0])


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("2026-08-09t08:38:16.5z", "2026-08-09T08:38:16.5Z"),
        ("2026-08-09T08:38:16.1234567891234Z", "2026-08-09T08:38:16.123456789Z"),
        ("2026-08-09T10:38:16+02:00", "2026-08-09T08:38:16Z"),
    ],
)
def test_every_rfc3339_spelling_of_a_line_s_time_is_read(
    tmp_path: Path, written: str, read: str
) -> None:
    """As in JSON exports: lowercase letters, a fraction past nanoseconds, an offset."""
    log = write(tmp_path / "one.log", f"[pod/rl-actor-0-abcde/main] {written} Check failed: x\n")
    entries = _container_lines(log)
    assert [(e["timestamp"], e["textPayload"]) for e in entries] == [(read, "Check failed: x")]


def test_lines_without_a_time_of_their_own_are_said_to_be_placed_by_guess(
    tmp_path: Path,
) -> None:
    """Their order against other containers' lines decides which error came first: the run
    says, once, that it was guessed."""
    log = write(
        tmp_path / "one.log",
        "[pod/rl-actor-0-abcde/main] 2026-08-09T08:38:16Z first\n"
        "[pod/rl-actor-0-abcde/main] no time here\n"
        "[pod/rl-actor-0-abcde/main] nor here\n",
    )
    code, _, err = run_cli(
        f"--logs_file={log}",
        "--start_time=2026-08-09T08:00:00Z",
        "--duration=1h",
        "--action=query",
        "--filter=resource.type=k8s_container",
    )
    assert code == 0, err
    notes = [line for line in err.splitlines() if "carry no time of their own" in line]
    assert len(notes) == 1 and notes[0].startswith("note: 2 lines of ")
    timed = write(tmp_path / "timed.log", "[pod/rl-actor-0-abcde/main] 2026-08-09T08:38:16Z x\n")
    code, _, err = run_cli(
        f"--logs_file={timed}",
        "--start_time=2026-08-09T08:00:00Z",
        "--duration=1h",
        "--action=query",
        "--filter=resource.type=k8s_container",
    )
    assert "carry no time" not in err


def test_a_line_that_is_one_json_object_is_a_structured_entry(tmp_path: Path) -> None:
    """As GKE's agent stores it: the object in jsonPayload, its severity the entry's."""
    log = write(
        tmp_path / "one.log",
        '[pod/rl-actor-0-abcde/main] 2026-08-09T08:38:16Z {"severity": "ERROR", '
        '"message": "Check failed: boom", "step": 7}\n'
        "[pod/rl-actor-0-abcde/main] 2026-08-09T08:38:17Z {not json}\n",
    )
    entries = json_entries(
        f"--logs_file={log}",
        "--start_time=2026-08-09T08:00:00Z",
        "--end_time=2026-08-09T09:00:00Z",
        "--action=query",
        "--filter=resource.type=k8s_container",
    )
    assert [e.get("jsonPayload") or e.get("textPayload") for e in entries] == [
        {"message": "Check failed: boom", "step": 7},
        "{not json}",
    ]
    assert [e["severity"] for e in entries] == ["ERROR", "DEFAULT"]


def test_a_json_line_is_read_as_exports_are_and_refused_as_they_are(tmp_path: Path) -> None:
    """An integer of 5,000 digits keeps its text (the line was kept as text and its CRITICAL
    lost); an object nested too deeply, or with an unpaired surrogate escape, exits 5 naming
    the line, as in an export (both were internal errors, exit 70)."""
    prefix = "[pod/rl-actor-0-abcde/main] 2026-08-09T08:38:16Z "
    digits = "9" * 5000
    log = write(
        tmp_path / "big.log",
        f'{prefix}{{"severity": "CRITICAL", "message": "boom", "n": {digits}}}\n',
    )
    window = ("--start_time=2026-08-09T08:00:00Z", "--end_time=2026-08-09T09:00:00Z")
    query = (f"--logs_file={log}", *window, "--action=query", "--filter=severity>=CRITICAL")
    code, out, err = run_cli(*query)
    assert code == 0, err
    assert "CRITICAL rl-actor-0-abcde/main: boom" in out.replace("default/", "")
    code, out, err = run_cli(*query, "--format=json")
    assert code == 0, err
    assert f'"n":{digits}' in out  # as an export's number, its text kept
    for name, body, what in (
        ("deep.log", '{"message": "x", "d": ' + "[" * 5000 + "]" * 5000 + "}", "nested too deeply"),
        ("lone.log", '{"message": "x \\ud800"}', "surrogate"),
    ):
        log = write(tmp_path / name, f"{prefix}hello\n{prefix}{body}\n")
        message = refused(f"--logs_file={log}")
        assert message.startswith(f"error: {log}:2: ")
        assert what in message


def test_header_and_prefix_variants_are_read(tmp_path: Path) -> None:
    """gRPC core's glog header with nanoseconds (real-world-log-lines, scenario 13), a zap
    line's own time followed by a tab (its level the line's severity), and a prefix whose
    trailing space was trimmed off an empty line (read, not refused)."""
    log = write(
        tmp_path / "variants.log",
        "[pod/rl-actor-0-abcde/main] E0809 08:38:25.331103432   11752 chttp2_server.cc:1059] "
        "UNKNOWN:No address added\n"
        "[pod/rl-actor-0-abcde/main] 2026-08-09T08:38:30Z\tERROR\tadmission\tfinding leader\n"
        "[pod/rl-actor-0-abcde/main]\n"
        "[pod/rl-actor-0-abcde/main] 2026-08-09T08:38:31Z done\n",
    )
    got = [(e["timestamp"], e["severity"], e.get("textPayload")) for e in _container_lines(log)]
    assert got == [
        ("2026-08-09T08:38:25.331103432Z", "ERROR", "UNKNOWN:No address added"),
        ("2026-08-09T08:38:30Z", "ERROR", "ERROR\tadmission\tfinding leader"),
        ("2026-08-09T08:38:31Z", "DEFAULT", "done"),  # the empty line is no entry
    ]


def test_a_zap_line_recorded_with_timestamps_keeps_its_level(tmp_path: Path) -> None:
    """With --timestamps the kubelet's time comes before the zap console line's own time: its
    level after that time and a tab is still the line's severity (a CRI line keeps its
    stream's, as GKE's agent gives it)."""
    log = write(
        tmp_path / "zap.log",
        "[pod/rl-actor-0-abcde/main] 2026-08-09T08:38:30.000000001Z "
        "2026-08-09T08:38:30.000Z\tERROR\tcontroller-runtime\tReconciler error\n"
        "[pod/rl-actor-0-abcde/main] 2026-08-09T08:38:31.000000001Z "
        "2026-08-09T08:38:31.000Z\tINFO\tjobset-controller\treconciling jobset\n",
    )
    got = [(e["severity"], e["textPayload"][:24]) for e in _container_lines(Path(log))]
    assert got == [("ERROR", "2026-08-09T08:38:30.000Z"), ("INFO", "2026-08-09T08:38:31.000Z")]


def test_a_dump_beside_its_gzipped_copy_counts_once(tmp_path: Path) -> None:
    text = "[pod/rl-actor-0-abcde/main] 2026-08-09T08:38:16Z Check failed: x\n"
    log = write(tmp_path / "dump.log", text)
    write(tmp_path / "dump.log.gz", gzip.compress(text.encode()))
    flags = ("--pod_prefix=rl-actor", "--action=errors", "--start_time=2026-08-09T08:00:00Z")
    assert len(json_entries(f"--logs_file={log}", *flags)) == 1
    assert len(json_entries(f"--logs_file={log}", f"--logs_file={log}.gz", *flags)) == 1


def test_a_dump_given_twice_under_other_names_counts_once(tmp_path: Path) -> None:
    """A copy (another name, another folder, a path through `..`) holds the same lines; a
    line repeated within the dump, and another dump of other lines, still count."""
    text = (
        "[pod/rl-actor-0-abcde/main] 2026-08-09T08:38:16Z Check failed: x\n"
        "[pod/rl-actor-0-abcde/main] 2026-08-09T08:38:16Z Check failed: x\n"
        "[pod/rl-actor-0-abcde/main] 2026-08-09T08:38:17Z RESOURCE_EXHAUSTED: HBM\n"
    )
    log = write(tmp_path / "dump.log", text)
    (tmp_path / "copy").mkdir()
    copy = write(tmp_path / "copy" / "again.log", text)
    other = write(tmp_path / "other.log", text.replace("HBM", "host memory"))
    flags = ("--pod_prefix=rl-actor", "--action=errors", "--start_time=2026-08-09T08:00:00Z")
    once = json_entries(f"--logs_file={log}", *flags)
    assert len(once) == 3
    for twice in (copy, tmp_path / "copy" / ".." / "dump.log"):
        assert json_entries(f"--logs_file={log}", f"--logs_file={twice}", *flags) == once
    assert len(json_entries(f"--logs_file={log}", f"--logs_file={other}", *flags)) == 4


def test_a_file_without_any_mark_says_to_record_times(tmp_path: Path) -> None:
    log = write(tmp_path / "client.log", "completed step: 0, loss: 2.9\ncompleted step: 1\n")
    message = refused(f"--logs_file={log}", "--pod_prefix=p", "--container_names=c")
    assert "record them with kubectl logs --timestamps" in message


UID = "0f3e9a4b-1111-2222-3333-444455556666"


def _node_logs(root: Path) -> Path:
    """A node's /var/log/pods: CRI lines (time, stream, F or P), a worker's halted chip split
    in two parts by the runtime, and its peer losing it 60 ms later."""
    pods = root / "var" / "log" / "pods"
    crashed = pods / f"default_llama-train-worker-1-1-gg4hh_{UID}" / "pathways-worker" / "0.log"
    peer = pods / f"default_llama-train-worker-0-0-aa1bb_{UID}" / "pathways-worker" / "0.log"
    write(
        crashed,
        "2026-08-09T08:38:03.100000000Z stdout F I0809 08:38:03.100000 1 server.cc:1] serving\n"
        "2026-08-09T08:38:05.100000000Z stderr P F0809 08:38:05.100000 1 chip.cc:88] Check "
        "failed: !chip_\n"
        "2026-08-09T08:38:05.100000000Z stderr F halted TPU chip 2 halted\n"
        "2026-08-09T08:38:05.102000000Z stderr F *** SIGABRT received by PID 1 ***\n",
    )
    write(
        peer,
        "2026-08-09T08:38:05.160000000Z stderr F DEADLINE_EXCEEDED: lost connection to peer\n"
        '2026-08-09T08:38:06.000000000Z stdout F {"severity": "INFO", "message": "bye"}\n',
    )
    return pods


def test_a_nodes_pod_log_folders_are_read_as_the_kubelet_writes_them(tmp_path: Path) -> None:
    pods = _node_logs(tmp_path)
    entries = _container_lines(pods)
    got = [(e["resource"]["labels"]["pod_name"], e["timestamp"], e["severity"]) for e in entries]
    assert got == [
        ("llama-train-worker-1-1-gg4hh", "2026-08-09T08:38:03.1Z", "INFO"),
        ("llama-train-worker-1-1-gg4hh", "2026-08-09T08:38:05.1Z", "CRITICAL"),
        ("llama-train-worker-1-1-gg4hh", "2026-08-09T08:38:05.102Z", "ERROR"),
        ("llama-train-worker-0-0-aa1bb", "2026-08-09T08:38:05.16Z", "ERROR"),
        ("llama-train-worker-0-0-aa1bb", "2026-08-09T08:38:06Z", "INFO"),
    ]
    assert entries[1]["textPayload"] == "Check failed: !chip_halted TPU chip 2 halted"
    assert entries[4]["jsonPayload"] == {"message": "bye"}
    assert {e["resource"]["labels"]["container_name"] for e in entries} == {"pathways-worker"}
    found = root_cause(
        f"--logs_file={pods}", "--jobset_name=llama-train", "--start_time=2026-08-09T08:00:00Z"
    )
    assert found["pod"] == "llama-train-worker-1-1-gg4hh"
    assert found["message"].startswith("Check failed: !chip_halted")


def test_a_nodes_container_links_name_pod_and_container(tmp_path: Path) -> None:
    link = (
        tmp_path
        / "var"
        / "log"
        / "containers"
        / (f"llama-train-worker-0-0-aa1bb_default_pathways-worker-{'ab' * 32}.log")
    )
    write(link, "2026-08-09T08:38:05.160000000Z stderr F Check failed: x\n")
    (entry,) = _container_lines(link)
    assert entry["resource"]["labels"]["pod_name"] == "llama-train-worker-0-0-aa1bb"
    assert entry["resource"]["labels"]["container_name"] == "pathways-worker"
    assert (entry["severity"], entry["textPayload"]) == ("ERROR", "Check failed: x")


def test_a_line_with_a_guessed_time_never_beats_a_line_with_its_own(tmp_path: Path) -> None:
    """A client's SIGTERM line without a header takes the client's previous time, a minute
    before a worker's timed crash: the crash is the root cause, and a guessed line is one only
    when nothing has a time of its own (then it says so)."""
    head = "[pod/llama-train-pathways-head-0-0-h7k2p/jax-tpu]"
    worker = "[pod/llama-train-worker-1-1-gg4hh/pathways-worker]"
    log = write(
        tmp_path / "dump.log",
        f"{head} I0809 08:37:00.500000 1 main.py:10] starting\n"
        f"{head} *** SIGTERM received by PID 1 ***\n"
        f"{worker} F0809 08:38:05.100000 1 chip.cc:88] Check failed: !chip_halted\n",
    )
    window = ("--start_time=2026-08-09T08:00:00Z", "--end_time=2026-08-09T09:00:00Z")
    found = root_cause(f"--logs_file={log}", "--jobset_name=llama-train", *window)
    assert found["message"] == "Check failed: !chip_halted"
    assert found["time_guessed"] is False
    entries = _container_lines(log)
    assert [e.get("labels", {}).get("debug-workload/time") for e in entries] == [
        None,
        "guessed",
        None,
    ]
    alone = write(tmp_path / "alone.log", "".join(Path(log).read_text().splitlines(True)[:2]))
    found = root_cause(f"--logs_file={alone}", "--jobset_name=llama-train", *window)
    assert found["message"].startswith("*** SIGTERM") and found["time_guessed"] is True


def test_node_logs_join_parts_per_stream_read_rotated_files_and_their_namespace(
    tmp_path: Path,
) -> None:
    """A stdout line between a stderr line's parts is its own line; a file the kubelet rotated
    (`0.log.YYYYMMDD-hhmmss`) is the same container's; the path's namespace is the entry's."""
    folder = tmp_path / "pods" / f"ml_llama-train-worker-1-0-abcde_{UID}" / "pathways-worker"
    write(
        folder / "0.log",
        "2026-08-09T08:38:05.000000000Z stderr P Check failed: buffer <= limit (first part...\n"
        "2026-08-09T08:38:05.000100000Z stdout F heartbeat 42\n"
        "2026-08-09T08:38:05.000200000Z stderr F ...rest)\n",
    )
    write(folder / "0.log.20260809-083700", "2026-08-09T08:37:00Z stderr F Check failed: rotated\n")
    entries = _container_lines(tmp_path / "pods")
    got = [
        (e["resource"]["labels"]["namespace_name"], e["severity"], e["textPayload"])
        for e in entries
    ]
    assert got == [
        ("ml", "ERROR", "Check failed: rotated"),
        ("ml", "ERROR", "Check failed: buffer <= limit (first part......rest)"),
        ("ml", "INFO", "heartbeat 42"),
    ]


def test_a_line_split_across_a_rotation_is_joined(tmp_path: Path) -> None:
    """The kubelet may rotate a container's log between the parts of a line the runtime split:
    the rotated file (`0.log.YYYYMMDD-hhmmss`, maybe gzipped) is read first, and its last
    parts join the live file's first, as one line; parts no later file continues stay a line."""
    folder = tmp_path / "pods" / f"default_llama-train-worker-1-0-abcde_{UID}" / "pathways-worker"
    write(
        folder / "0.log.20260809-083700.gz",
        gzip.compress(
            b"2026-08-09T08:37:59.000000000Z stdout F I0809 08:37:59.000000 1 s.cc:1] serving\n"
            b"2026-08-09T08:38:05.000000000Z stderr P F0809 08:38:05.000000 1 chip.cc:88] Check \n"
        ),
    )
    write(
        folder / "0.log",
        "2026-08-09T08:38:05.000000000Z stderr F failed: !chip_halted TPU chip 2 halted\n"
        "2026-08-09T08:38:06.000000000Z stderr P cut short by the copy\n",
    )
    got = [(e["severity"], e["textPayload"]) for e in _container_lines(tmp_path / "pods")]
    assert got == [
        ("INFO", "serving"),
        ("CRITICAL", "Check failed: !chip_halted TPU chip 2 halted"),
        ("ERROR", "cut short by the copy"),
    ]
