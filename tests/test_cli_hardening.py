"""Bad flags, odd outputs and missing packages end with one line and the contract's exit code."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pathways_workload.lql import compile_filter
from tests.helpers import container_entry, run_cli

ROOT = Path(__file__).resolve().parent.parent
BASE = ("--project=pw-demo", "--jobset_name=x")
INCIDENT = ROOT / "tests" / "fixtures" / "incidents" / "host-oom-worker.json"
TOOL = (sys.executable, "scripts/debug_workload.py", f"--logs_file={INCIDENT}")
TRIAGE = ("--jobset_name=gemma-train", "--action=triage")
EVERY_LINE = ("--action=query", "--filter=severity>=DEFAULT", "--limit=5000", "--format=json")
OUTSIDE = (
    "error: the window reaches outside the years 0001 to 9999; check --start_time, "
    "--end_time, --duration and --issue_time"
)


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (("--duration=999999999999d",), OUTSIDE),
        (("--end_time=0001-01-01T00:30:00Z",), OUTSIDE),
        (("--issue_time=9999-12-31T23:50:00Z",), OUTSIDE),
        (
            ("--issue_time=2026-10-22T11:40:00+25:00",),
            "error: --issue_time=2026-10-22T11:40:00+25:00: not an RFC 3339 time; "
            "use e.g. 2026-10-22T11:10:00Z",
        ),
        (
            ("--start_time=2026-10-22T11:40:00+05:99",),
            "error: --start_time=2026-10-22T11:40:00+05:99: not an RFC 3339 time; "
            "use e.g. 2026-10-22T11:10:00Z",
        ),
        (("--duration=",), "error: --duration= is empty: give it a value, or leave the flag out"),
        (
            ("--jobset_name=y",),
            "error: --jobset_name was given more than once; for several workloads use "
            "--workload=jobset:A --workload=jobset:B",
        ),
        (
            ("--exec",),
            "error: unrecognized arguments: --exec (see --help)",
        ),
        (
            ("--limit=5", "--limit=6"),
            "error: --limit was given more than once; give it once",
        ),
    ],
)
def test_bad_window_and_flag_surprises_exit_2(argv: tuple[str, ...], line: str) -> None:
    code, out, err = run_cli("--action=errors", *BASE, *argv)
    assert (code, out) == (2, "")
    assert err.splitlines()[-1] == line


@pytest.mark.parametrize(
    "flag",
    [
        "--namespace",
        "--cluster_name",
        "--location",
        "--node_names",
        "--container_names",
        "--extra_terms",
        "--extra_term",
        "--workload",
        "--analytics_view",
        "--billing_project",
        "--logs_file",
        "--output",
        "--commands_out",
        "--start_time",
    ],
)
@pytest.mark.parametrize("value", ["", " "])
def test_a_flag_given_an_empty_value_exits_2_naming_it(flag: str, value: str) -> None:
    """`--namespace=$NS` with NS unset must not quietly search the default namespace."""
    code, out, err = run_cli("--action=errors", *BASE, f"{flag}={value}")
    assert (code, out) == (2, "")
    assert err.splitlines()[-1] == (
        f"error: {flag}= is empty: give it a value, or leave the flag out"
    )


@pytest.mark.parametrize(
    ("flag", "line"),
    [
        ("--namespace", "error: --namespace='--': not a valid name"),
        ("--cluster_name", "error: --cluster_name='--': not a valid name"),
        ("--pod_prefix", "error: --pod_prefix='--': not a valid name"),
        ("--start_time", "error: --start_time=--: not an RFC 3339 time"),
        ("--limit", "error: argument --limit: '--' is not a whole number"),
    ],
)
def test_a_flag_given_the_value_double_dash_checks_it(flag: str, line: str) -> None:
    """`--namespace=--` is the value `--`, not the end of options: dropped, it left the flag
    an empty list that no check saw (the default namespace searched, or a crash)."""
    code, out, err = run_cli("--action=errors", "--project=pw-demo", "--job_name=x", f"{flag}=--")
    assert (code, out) == (2, "")
    assert err.splitlines()[-1].startswith(line)


@pytest.mark.parametrize(
    ("argv", "flag", "shown"),
    [
        (("--extra_term", "-x"), "--extra_term", "--extra_term/--extra-term"),
        (("--extra-terms", "-x,y"), "--extra_terms", "--extra_terms/--extra-terms"),
        (("--duration",), "--duration", "--duration"),
    ],
)
def test_a_flag_without_its_value_says_how_to_give_one_starting_with_a_dash(
    argv: tuple[str, ...], flag: str, shown: str
) -> None:
    """`--extra_term -x` reads `-x` as another flag; "expected one argument" did not say how
    to search for `-x`."""
    code, out, err = run_cli("--action=errors", *BASE, *argv)
    assert (code, out) == (2, "")
    assert err == (
        f"error: argument {shown}: expected one argument; give it a value (one that starts "
        f"with '-' as {flag}=-VALUE) (see --help)\n"
    )


@pytest.mark.parametrize(
    ("flag", "shown"),
    [
        ("--output", "--output"),
        ("--commands_out", "--commands_out/--commands-out"),
        ("--logs_file", "--logs_file/--logs-file"),
    ],
)
def test_a_path_with_a_nul_byte_is_refused(flag: str, shown: str) -> None:
    """Only a caller of main() can pass one; opening it raised ValueError (exit 70)."""
    code, out, err = run_cli(*TRIAGE, f"--logs_file={INCIDENT}", f"{flag}=report\0.txt")
    assert (code, out) == (2, "")
    assert err == (
        f"error: argument {shown}: 'report\\x00.txt' holds a NUL byte, which no path can "
        "(see --help)\n"
    )


@pytest.mark.parametrize("flag", ["--extra_term", "--extra_terms"])
def test_a_search_term_that_is_a_double_dash_is_searched(flag: str) -> None:
    code, out, err = run_cli("--action=errors", *BASE, f"{flag}=--", "--format=json")
    assert code == 0, err
    assert 'OR "--")' in json.loads(out.splitlines()[0])["filter"]


@pytest.mark.parametrize(
    ("argv", "start"),
    [
        (("--action=errors", "--commands_out=out.txt"), "error: --commands_out shows the commands"),
        (("--action=pods", "--verbose"), "error: --verbose shows the commands"),
        (("--action=versions", "--verbose"), "error: --verbose shows the commands"),
        (("--action=triage", "--commands_out=-"), "error: --commands_out=-: give a file"),
    ],
)
def test_flags_about_a_report_s_checks_need_such_a_report(
    argv: tuple[str, ...], start: str
) -> None:
    """Silently ignored, or written to a file named `-`, they would mislead."""
    code, out, err = run_cli("--jobset_name=gemma-train", f"--logs_file={INCIDENT}", *argv)
    assert (code, out) == (2, "")
    assert err.splitlines()[-1].startswith(start)
    assert not (ROOT / "-").exists() and not (ROOT / "out.txt").exists()


def test_flags_about_checks_in_print_mode_say_the_commands_are_printed() -> None:
    code, out, err = run_cli("--action=triage", *BASE, "--verbose")
    assert (code, out) == (2, "")
    assert "add --execute or --logs_file=PATH" in err.splitlines()[-1]


def test_a_bad_workload_name_is_quoted_as_given() -> None:
    code, out, err = run_cli("--action=errors", "--project=pw-demo", "--workload=jobset:a:b")
    assert (code, out) == (2, "")
    assert err.splitlines()[-1].startswith("error: --workload='jobset:a:b': not a valid name")


def test_a_full_disk_is_one_line_and_exit_74() -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [*TOOL, "--jobset_name=gemma-train", "--action=errors", "--limit=2000"],
            cwd=ROOT,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
        )
    assert done.returncode == 74
    assert done.stderr.splitlines()[-1] == (
        "error: cannot write the output (No space left on device); nothing more was written"
    )


@pytest.mark.parametrize("flag", ["--help", "--version"])
def test_help_on_a_full_disk_or_a_closed_output_is_exit_74(flag: str) -> None:
    """argparse ignores a failure to write its help; the tool does not."""
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [*TOOL, flag], cwd=ROOT, stdout=full, stderr=subprocess.PIPE, text=True
        )
    assert done.returncode == 74
    assert done.stderr == (
        "error: cannot write the output (No space left on device); nothing more was written\n"
    )
    closed = subprocess.run(
        [*TOOL, flag],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: os.close(1),
    )
    assert closed.returncode == 74
    assert closed.stderr == "error: cannot write the output: standard output is closed\n"


@pytest.mark.parametrize("fmt", ["text", "json"])
@pytest.mark.parametrize("action", ["errors", "pods", "preflight"])
def test_an_output_device_that_is_full_is_one_line_and_exit_74(action: str, fmt: str) -> None:
    """--output=/dev/full (not a regular file: written in place): the failure to write is
    the output error, not an internal one, however small the report."""
    code, out, err = run_cli(
        "--jobset_name=gemma-train",
        f"--action={action}",
        f"--format={fmt}",
        f"--logs_file={INCIDENT}",
        "--output=/dev/full",
    )
    assert (code, out) == (74, "")
    assert err.splitlines()[-1] == (
        "error: cannot write the output (No space left on device); nothing more was written"
    )


def test_a_reader_that_stops_early_is_not_an_error() -> None:
    tool = subprocess.Popen(
        [*TOOL, "--jobset_name=gemma-train", *EVERY_LINE],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert tool.stdout is not None and tool.stderr is not None
    tool.stdout.readline()
    tool.stdout.close()  # far more than a pipe's buffer is still to come
    stderr = tool.stderr.read().decode()
    assert tool.wait() == 0
    assert "Traceback" not in stderr and "Exception ignored" not in stderr


def test_missing_packages_are_one_line_with_the_install_command() -> None:
    """-S leaves site-packages out: the packages the tool needs are not importable."""
    done = subprocess.run(
        [sys.executable, "-S", "scripts/debug_workload.py", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith("error: missing Python packages (google-re2, isal, tabulate);")
    assert "python3 -m venv .venv && .venv/bin/pip install" in line


_INTERRUPTED_WHILE_LOADING = """
import builtins, os, runpy, signal, sys

real_import = builtins.__import__


def interrupting_import(name, *args, **kwargs):
    if name == "pathways_workload.cli":
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C while Python loads the tool
    return real_import(name, *args, **kwargs)


builtins.__import__ = interrupting_import
sys.path.insert(0, "scripts")
sys.argv = ["scripts/debug_workload.py", "--help"]
runpy.run_path("scripts/debug_workload.py", run_name="__main__")
"""


def test_ctrl_c_while_the_tool_loads_is_one_line_and_exit_130() -> None:
    """A Ctrl-C in the first fraction of a second, before `main` runs, printed a traceback."""
    done = subprocess.run(
        [sys.executable, "-c", _INTERRUPTED_WHILE_LOADING], cwd=ROOT, capture_output=True, text=True
    )
    assert (done.returncode, done.stdout, done.stderr) == (130, "", "interrupted\n")


def test_the_install_command_works_from_another_working_directory(tmp_path: Path) -> None:
    """Run as `python3 /path/to/scripts/debug_workload.py` from elsewhere, the message said to
    run `.venv/bin/python3 scripts/debug_workload.py`, a path that is not there."""
    done = subprocess.run(
        [sys.executable, "-S", str(ROOT / "scripts" / "debug_workload.py"), "--help"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert (done.returncode, done.stdout) == (2, "")
    (line,) = done.stderr.splitlines()
    assert f"install the skill first: cd {shlex.quote(str(ROOT))} && python3 -m venv" in line


def test_extra_term_keeps_its_commas() -> None:
    code, out, err = run_cli(
        "--action=errors", *BASE, "--extra_term=checkpoint 12,000 failed", "--format=json"
    )
    assert code == 0, err
    assert '\\"checkpoint 12,000 failed\\"' in out
    code, out, err = run_cli("--action=errors", *BASE, "--extra_terms=a b,c d", "--format=json")
    assert code == 0, err
    assert '\\"a b\\"' in out and '\\"c d\\"' in out


def test_elastic_reads_the_client_proxy_and_rm_only() -> None:
    code, out, err = run_cli("--action=elastic", *BASE, "--issue_time=2026-10-22T11:40:00Z")
    assert code == 0, err
    assert 'resource.labels.container_name=("jax-tpu"' in out
    assert '"pathways-proxy" OR "pathways-rm")' in out
    assert "pathways-worker" not in out


def test_query_honours_the_workload_flags() -> None:
    """Another JobSet's lines and events are not the workload's."""
    code, out, err = run_cli(
        "--action=query",
        "--project=pw-demo",
        "--pod_prefix=llama-train-worker",
        "--filter=severity>=ERROR",
        "--issue_time=2026-10-22T11:40:00Z",
        "--format=json",
    )
    assert code == 0, err
    (record,) = [json.loads(line) for line in out.splitlines()]
    compiled = compile_filter(record["filter"])
    ours = container_entry("boom", pod="llama-train-worker-0-0-abcde")
    theirs = container_entry("boom", pod="other-worker-0-0-abcde", jobset="other")
    assert compiled.matches(ours) and not compiled.matches(theirs)


def test_query_without_target_flags_is_only_the_filter_and_window() -> None:
    code, out, err = run_cli(
        "--action=query",
        "--project=pw-demo",
        '--filter=resource.type="k8s_node"',
        "--issue_time=2026-10-22T11:40:00Z",
        "--format=json",
    )
    assert code == 0, err
    (record,) = [json.loads(line) for line in out.splitlines()]
    assert "namespace_name" not in record["filter"]
    assert "k8s_container" not in record["filter"]


def test_a_later_stage_s_bad_filter_stops_print_mode_before_any_output() -> None:
    """The node queries printed after node discovery are too long with this term: nothing
    of the discovery is printed first."""
    term = "x" * 6400
    code, out, err = run_cli("--action=node-ooms", *BASE, f"--extra_term={term}", "--format=json")
    assert (code, out) == (2, "")
    assert err.splitlines()[-1].startswith("error: --extra_terms/--extra_term: with these terms")


@pytest.mark.parametrize(
    ("argv", "start"),
    [
        (("--action=query", "--filter=severity>=ERROR"), "error: the target flags make"),
        (("--action=pod-events",), "error: --workload: with 60 workloads a query has"),
    ],
)
def test_too_many_workloads_for_one_filter_blame_the_workloads(
    argv: tuple[str, ...], start: str
) -> None:
    workloads = [f"--workload=jobset:run-{i:03d}" for i in range(60)]
    code, out, err = run_cli("--project=pw-demo", *workloads, *argv)
    assert (code, out) == (2, "")
    assert err.splitlines()[-1].startswith(start)
    assert "name fewer workloads" in err.splitlines()[-1]


@pytest.mark.parametrize("action", ["triage", "pods", "preflight", "versions", "neighbors"])
@pytest.mark.parametrize(
    ("flag", "start"),
    [
        ("--first_per_pod=1", "error: --first_per_pod groups the lines"),
        ("--limit=1", "error: --limit cuts the lines"),
        ("--order=desc", "error: --order orders the lines"),
        ("--order=asc", "error: --order orders the lines"),
    ],
)
def test_shaping_printed_lines_is_refused_by_report_actions(
    action: str, flag: str, start: str
) -> None:
    """A report prints no lines to group, cut or order: the flag would be silently ignored
    (`pods --limit=1` listed every pod)."""
    code, out, err = run_cli(f"--action={action}", *BASE, flag)
    assert (code, out) == (2, "")
    assert err.splitlines()[-1].startswith(start)
    assert "--fetch_limit bounds what its reads fetch" in err.splitlines()[-1]


IDLE_FETCH_LIMIT = (
    "note: --fetch_limit bounds the lines fetched before --first_per_pod groups them; without "
    "--first_per_pod, --action={} fetches at most --limit lines, so --fetch_limit changes "
    "nothing here"
)


@pytest.mark.parametrize("source", [(), (f"--logs_file={INCIDENT}",)])
@pytest.mark.parametrize("action", ["errors", "user-workload", "pod-events"])
def test_a_fetch_limit_without_grouping_is_said_to_change_nothing(
    action: str, source: tuple[str, ...]
) -> None:
    """Without --first_per_pod an entry action fetches --limit lines: --fetch_limit=5 was
    silently ignored (every line still printed, the printed commands unchanged)."""
    code, out, err = run_cli(f"--action={action}", *BASE, "--fetch_limit=5", *source)
    assert code == 0, err
    assert IDLE_FETCH_LIMIT.format(action) in err.splitlines()
    code, out, err = run_cli(f"--action={action}", *BASE, "--fetch_limit=5", "--first_per_pod=1")
    assert code == 0, err
    assert "--fetch_limit changes nothing" not in err and "--limit=5 " in out
    for other in ("node-ooms", "pods"):  # discovery and reports read up to it
        code, out, err = run_cli(f"--action={other}", *BASE, "--fetch_limit=30000")
        assert code == 0 and "--fetch_limit changes nothing" not in err, err


def test_a_fetch_limit_under_node_discovery_s_floor_is_said_to_change_nothing() -> None:
    """Node discovery reads 25,000 lines whatever a lower --fetch_limit says."""
    code, out, err = run_cli("--action=node-ooms", *BASE, "--fetch_limit=5")
    assert code == 0, err
    assert (
        "note: --fetch_limit bounds the lines fetched before --first_per_pod groups them; "
        "without --first_per_pod, --action=node-ooms fetches at most --limit lines, and its "
        "node discovery reads up to 25,000 lines unless --fetch_limit is higher, so "
        "--fetch_limit changes nothing here"
    ) in err.splitlines()
    assert "--limit=25000" in out


@pytest.mark.parametrize("action", ["triage", "versions"])
@pytest.mark.parametrize("source", [(), ("--execute",)])
def test_container_names_for_an_action_that_reads_every_container_is_refused(
    action: str, source: tuple[str, ...]
) -> None:
    """Triage and versions read every container by role: --container_names=trainer printed
    (or ran) the same queries as without it, exit 0, and said nothing."""
    code, out, err = run_cli(f"--action={action}", *BASE, "--container_names=trainer", *source)
    assert (code, out) == (2, ""), err
    assert err == (
        f"error: --container_names: --action={action} reads every container of the workload "
        "by role; the flag only names the container of text logs given with --logs_file: "
        "leave it out\n"
    )


def test_container_names_replaying_triage_says_what_it_names() -> None:
    """Replaying a JSON export, triage took --container_names=trainer, read every container
    anyway and said nothing."""
    code, _, err = run_cli(*TOOL[2:], *TRIAGE, "--container_names=trainer")
    assert code == 0, err
    assert (
        "note: --action=triage reads every container of the workload by role: "
        "--container_names only names the container of text logs that name none (no "
        "[pod/NAME/CONTAINER] prefix, no POD/CONTAINER.log path)"
    ) in err.splitlines()


def test_container_names_with_query_says_to_put_the_container_in_the_filter() -> None:
    """The refusal said query reads no container lines, "its events or nodes belong to pods":
    untrue of a filter that selects container lines, and no help to write one."""
    argv = ("--action=query", "--filter=severity>=ERROR", "--container_names=trainer")
    code, out, err = run_cli(*argv, "--project=pw-demo")
    assert (code, out) == (2, "")
    assert err == (
        "error: --container_names: --action=query reads what --filter selects: put "
        'resource.labels.container_name="trainer" in --filter instead\n'
    )


@pytest.mark.parametrize("flag", ["jobset_name", "pod_prefix", "node_names"])
def test_a_name_too_long_for_kubernetes_says_so(flag: str) -> None:
    """A 254-character name of valid characters was refused as "not a valid name; use
    lowercase letters, digits, '-' and '.'", which it already was."""
    name = "a" * 254
    code, out, err = run_cli("--project=pw-demo", "--action=node-ooms", f"--{flag}={name}")
    assert (code, out) == (2, "")
    assert err == f"error: --{flag}='{name}': 254 characters; a Kubernetes name has at most 253\n"


def test_entry_actions_default_to_two_hundred_lines_earliest_first() -> None:
    """Leaving --limit and --order out still means 200 lines, earliest first."""
    code, out, _ = run_cli("--action=errors", *BASE)
    assert code == 0
    assert "--limit=200" in out and "--order=asc" in out


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (
            ("--action=node-ooms", "--extra_terms=NODES_FROM_DISCOVERY"),
            "error: --extra_terms='NODES_FROM_DISCOVERY': NODES_FROM_DISCOVERY stands for the "
            "discovered nodes in printed commands; search for another string",
        ),
        (
            ("--action=neighbors", "--extra_term=x nodes_from_discovery"),
            "error: --extra_term='x nodes_from_discovery': NODES_FROM_DISCOVERY stands for the "
            "discovered nodes in printed commands; search for another string",
        ),
        (
            ("--action=node-ooms", "--node_names=,"),
            "error: --node_names=',' names nothing: give the nodes comma-separated: "
            "--node_names=A,B",
        ),
        (
            ("--action=errors", "--node_names=gke-node-a"),
            "error: --node_names names the nodes these actions read: node-ooms, interruptions, "
            "neighbors; --action=errors reads no node's logs",
        ),
        (
            ("--action=pod-events", "--container_names=pathways-worker"),
            "error: --container_names selects container lines; --action=pod-events reads none "
            "(its events or nodes belong to pods, not containers): leave it out",
        ),
        (
            ("--action=workers", "--container_names= , "),
            "error: --container_names=' , ' names nothing: give the containers "
            "comma-separated: --container_names=A,B",
        ),
        (
            ("--action=errors", "--extra_terms=,"),
            "error: --extra_terms=',' names nothing: give the terms comma-separated: "
            "--extra_terms=A,B",
        ),
        (
            ("--action=errors", "--limit=9223372036854775808"),
            "error: argument --limit: '9223372036854775808' must be at most "
            "9223372036854775807 (see --help)",
        ),
        (
            ("--action=errors", f"--duration={'1' * 4301}s"),
            f"error: --duration={'1' * 4301}s: not a duration; use e.g. 30m, 1h, 1h30m or 90s",
        ),
        (
            ("--action=errors", "--issue_time=2026-10-22T11:40:00Z\nsecond line"),
            "error: --issue_time='2026-10-22T11:40:00Z\\nsecond line': not an RFC 3339 time; "
            "use e.g. 2026-10-22T11:10:00Z",
        ),
    ],
)
def test_values_that_would_mislead_print_mode_are_refused(argv: tuple[str, ...], line: str) -> None:
    """Print mode, in one line each: a term holding the nodes' placeholder (it would become
    the node names in the pasted command), a list naming nothing (it would mean "all"), a
    limit gcloud refuses, and window values too long or spanning lines."""
    code, out, err = run_cli(*BASE, *argv)
    assert (code, out) == (2, "")
    assert err.splitlines()[-1] == line
    assert "\n" not in err.split("error: ", 1)[1].rstrip("\n")


@pytest.mark.parametrize(
    "value",
    [
        "--start_time=2026-10-22T25:10:00.5Z",
        "--start_time=2026-10-22T11:99:00.5Z",
        "--start_time=2026/10/22T11:10:00.5Z",
        "--start_time=2026-10-22T11-10-00.5Z",
        "--issue_time=2026-11-17T13:87:00.0Z",
        "--start_time=\u0662\u0660\u0662\u0666-10-22T11:10:00Z",
        "--duration=\u0661h",
        "--start_time=2026-03-10T-1:00:00.5Z",
        "--start_time=2026-03-10T11:-5:00.5Z",
        "--start_time=2026-03-10T11:00:-9.5Z",
        "--start_time=2026-+3-10T11:00:00.5Z",
        "--start_time=2026- 3-10T+1:00:00.5Z",
        "--start_time=2026-10-22T11:10:00.Z",
    ],
)
def test_impossible_times_are_refused_with_a_fraction_too(value: str) -> None:
    """The shape Cloud Logging writes (with a fraction) is read quickly, and as strictly:
    no hour 25, no other separators, ASCII digits only, no sign or blank in a field (int()
    took `-1` for an hour)."""
    code, out, err = run_cli("--action=errors", *BASE, value)
    assert (code, out) == (2, ""), err
    assert err.startswith(f"error: {value.split('=')[0]}=")


@pytest.mark.parametrize(
    "argv",
    [
        ("--start_time=2026-10-22", "--end_time=2026-10-22"),
        ("--end_time=2026-10-22",),
        ("--issue_time=2026-10-22",),
        ("--start_time= 2026-10-22 ",),
    ],
)
def test_a_date_without_a_time_of_day_is_refused(argv: tuple[str, ...]) -> None:
    """A date alone was read as its midnight UTC: `--start_time=D --end_time=D` searched a
    window of 0 ns, and `--end_time=D` the hour before the day began, both exit 0 with
    nothing found; `2026-10-22Z` was refused, so the plain date is too, with the fix."""
    code, out, err = run_cli("--action=errors", *BASE, *argv)
    assert (code, out) == (2, "")
    flag, value = argv[0].split("=")
    assert err == (
        f"error: {flag}={value}: a date without a time of day; give the time too, "
        f"e.g. {value.strip()}T00:00:00Z\n"
    )


def _tool(*argv: str, env: dict[str, str] | None = None, **streams: Any) -> Any:
    return subprocess.run(
        [*TOOL, "--jobset_name=gemma-train", *argv],
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        timeout=120,
        **streams,
    )


def test_the_report_is_written_when_standard_error_is_closed_or_unread() -> None:
    """Notes are lost with their stream; the report and the exit code are not."""
    expected = _tool("--action=errors", capture_output=True)
    assert expected.returncode == 0 and expected.stdout
    read_end, write_end = os.pipe()
    os.close(read_end)  # nobody reads standard error
    unread = _tool("--action=errors", stdout=subprocess.PIPE, stderr=write_end)
    os.close(write_end)
    closed = subprocess.run(
        f"{shlex.join([*TOOL, '--jobset_name=gemma-train', '--action=errors'])} 2>&-",
        shell=True,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        timeout=120,
    )
    for run in (unread, closed):
        assert (run.returncode, run.stdout) == (0, expected.stdout)


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_locale_that_is_not_utf8_still_gets_the_whole_report_in_utf8(fmt: str) -> None:
    ascii_locale = {"LC_ALL": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0"}
    args = ("--action=triage", f"--format={fmt}")
    expected = _tool(*args, capture_output=True)
    for env in (ascii_locale, {"PYTHONIOENCODING": "latin-1"}):
        run = _tool(*args, env=env, capture_output=True)
        assert (run.returncode, run.stdout) == (0, expected.stdout), run.stderr
        text = run.stdout.decode("utf-8")
        assert "…" in text if fmt == "text" else json.loads(text)["root_cause"]


def test_output_through_a_symbolic_link_writes_the_file_it_points_to(tmp_path: Path) -> None:
    real = tmp_path / "real.txt"
    real.write_text("old\n")
    link = tmp_path / "link.txt"
    link.symlink_to("real.txt")
    code, out, err = run_cli(
        "--action=errors",
        f"--logs_file={INCIDENT}",
        "--jobset_name=gemma-train",
        f"--output={link}",
    )
    assert (code, out) == (0, ""), err
    assert link.is_symlink() and link.resolve() == real
    assert real.read_text().startswith("2026-11-17T") and real.read_text() != "old\n"


@pytest.mark.parametrize("flag", ["--output", "--commands_out"])
@pytest.mark.parametrize("written", ["export.json", "link.json", "report.txt"])
def test_a_report_is_never_written_over_the_export_it_reads(
    tmp_path: Path, flag: str, written: str
) -> None:
    """The export itself, a link to it, or a file in the folder --logs_file reads (the next
    replay would read the report): refused before anything runs, the export intact."""
    folder = tmp_path / "exports"
    folder.mkdir()
    export = folder / "export.json"
    export.write_bytes(INCIDENT.read_bytes())
    (folder / "link.json").symlink_to(export)
    source = folder if written == "report.txt" else export
    code, out, err = run_cli(*TRIAGE, f"--logs_file={source}", f"{flag}={folder / written}")
    assert (code, out) == (2, "")
    assert err.splitlines() == [err.splitlines()[-1]]  # nothing ran
    assert err.startswith(f"error: {flag}={folder / written}: --logs_file={source} reads ")
    assert export.read_bytes() == INCIDENT.read_bytes()
    assert sorted(p.name for p in folder.iterdir()) == ["export.json", "link.json"]


@pytest.mark.parametrize(
    ("flag", "code"), [("--output", 74), ("--commands_out", 74), ("--logs_file", 5)]
)
def test_a_relative_path_in_a_deleted_working_directory_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flag: str, code: int
) -> None:
    """Resolving a relative path needs the working directory: once it was deleted (a shell
    left in a removed build folder), `--output=report.txt` exited 70, "internal error:
    FileNotFoundError"."""
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    argv = [*TRIAGE, f"--logs_file={INCIDENT}", f"{flag}=report.txt"]
    if flag == "--logs_file":
        argv.remove(f"--logs_file={INCIDENT}")
    assert run_cli(*argv) == (
        code,
        "",
        f"error: {flag}=report.txt: a relative path, but the working directory no longer "
        "exists; cd to a folder that exists, or give the absolute path\n",
    )


def _lock_folder(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make `folder` unsearchable as its mode 000 would for a user other than root (the suite
    may run as root, whom modes do not stop): stat() and open() below it are denied."""
    real_stat, real_open = os.stat, os.open

    def denied(path: Any) -> None:
        if isinstance(path, (str, Path)) and Path(path).parent == folder:
            raise PermissionError(13, "Permission denied", str(path))

    def stat(path: Any, *args: Any, **kwargs: Any) -> Any:
        denied(path)
        return real_stat(path, *args, **kwargs)

    def open_(path: Any, *args: Any, **kwargs: Any) -> Any:
        denied(path)
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", stat)
    monkeypatch.setattr(os, "open", open_)


@pytest.mark.parametrize(
    ("flag", "code", "line"),
    [
        ("--output", 74, "error: --output={}: cannot write it (Permission denied); choose a"),
        ("--commands_out", 74, "error: --commands_out={}: cannot write it (Permission denied)"),
        ("--logs_file", 5, "error: {}: cannot read it (Permission denied); check the permiss"),
    ],
)
def test_a_path_below_a_folder_that_cannot_be_searched_is_not_an_internal_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flag: str, code: int, line: str
) -> None:
    """Path.exists() and is_dir() raise PermissionError there (only a missing file is
    False): checking the destinations ended "internal error: PermissionError", exit 70."""
    locked = tmp_path / "locked"
    locked.mkdir()
    inside = locked / ("export.json" if flag == "--logs_file" else "report.txt")
    if flag == "--logs_file":
        inside.write_bytes(INCIDENT.read_bytes())
    _lock_folder(locked, monkeypatch)
    given = f"--logs_file={inside}" if flag == "--logs_file" else f"--logs_file={INCIDENT}"
    extra = (f"--output={tmp_path / 'r.txt'}",) if flag == "--logs_file" else (f"{flag}={inside}",)
    got, out, err = run_cli(*TRIAGE, given, *extra)
    assert (got, out) == (code, ""), err
    assert err.splitlines()[-1].startswith(line.format(inside))


@pytest.mark.parametrize("flag", ["--output", "--commands_out"])
def test_a_file_the_user_may_not_write_is_not_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flag: str
) -> None:
    """A read-only file in a folder the user may write was replaced, as renaming over it is
    allowed, and the run exited 0; `>` refuses it, and the contract says exit 74: refused
    before anything runs."""
    kept = tmp_path / "kept.txt"
    kept.write_text("keep me\n")
    kept.chmod(0o444)
    real_access = os.access

    def access(path: Any, mode: int, *args: Any, **kwargs: Any) -> bool:
        # What a user other than root is told (root may write any file).
        if Path(path) == kept and mode & os.W_OK:
            return False
        return real_access(path, mode, *args, **kwargs)

    monkeypatch.setattr(os, "access", access)
    assert run_cli(*TRIAGE, f"--logs_file={INCIDENT}", f"{flag}={kept}") == (
        74,
        "",
        f"error: {flag}={kept}: cannot write it (Permission denied); choose a writable path\n",
    )
    assert kept.read_text() == "keep me\n"


def test_the_note_naming_the_report_file_is_one_line(tmp_path: Path) -> None:
    """A file name with a newline split `report written to ...` over two lines."""
    report = tmp_path / "run\n2.txt"
    code, out, err = run_cli(*TRIAGE, f"--logs_file={INCIDENT}", f"--output={report}")
    assert (code, out) == (0, ""), err
    assert err.splitlines()[-1] == f"report written to {str(report)!r}"
    assert report.read_text().startswith("# Triage")


def test_the_report_and_the_commands_need_two_files(tmp_path: Path) -> None:
    same = tmp_path / "same.txt"
    code, out, err = run_cli(
        *TRIAGE,
        f"--logs_file={INCIDENT}",
        f"--output={same}",
        f"--commands_out={tmp_path / '.' / 'same.txt'}",
    )
    assert (code, out) == (2, "")
    assert err == (
        f"error: --output={same} and --commands_out name the same file: give each its own\n"
    )
    assert not same.exists()


@pytest.mark.parametrize(
    ("where", "reason"), [("", "it is a folder"), ("no/such/x.txt", "its folder does not exist")]
)
def test_an_unwritable_commands_file_is_refused_before_anything_runs(
    tmp_path: Path, where: str, reason: str
) -> None:
    path = tmp_path / where if where else tmp_path
    code, out, err = run_cli(*TRIAGE, f"--logs_file={INCIDENT}", f"--commands_out={path}")
    assert (code, out) == (74, "")
    assert (
        err == f"error: --commands_out={path}: cannot write it ({reason}); choose a writable path\n"
    )


def test_output_to_dev_stdout_on_a_pipe_is_written() -> None:
    """/dev/stdout names the pipe itself, not a file beside which to write a temporary one."""
    done = subprocess.run(
        [*TOOL, "--jobset_name=gemma-train", "--action=errors", "--output=/dev/stdout"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "\n15 entries\n" in done.stderr
    assert "SIGTERM received" in done.stdout.splitlines()[-1]


FUNCTIONS_ONLY_THE_CLOUD_EVALUATES = (
    "sample(insertId, 0.1)",
    "source(projects/pw-demo) severity>=ERROR",
)


@pytest.mark.parametrize("text", FUNCTIONS_ONLY_THE_CLOUD_EVALUATES)
def test_a_function_only_cloud_logging_evaluates_is_printed(text: str) -> None:
    """Valid query language: print mode (and --execute) leave it to Cloud Logging."""
    code, out, err = run_cli("--action=query", "--project=pw-demo", f"--filter={text}")
    assert code == 0, err
    assert f"'(\n{text}\n)\ntimestamp>=" in out


@pytest.mark.parametrize("text", FUNCTIONS_ONLY_THE_CLOUD_EVALUATES)
def test_a_function_only_cloud_logging_evaluates_is_refused_offline(text: str) -> None:
    code, out, err = run_cli("--action=query", f"--logs_file={INCIDENT}", f"--filter={text}")
    assert (code, out) == (2, "")
    first = err.splitlines()[0]
    assert first.startswith("error: --filter: ") and "cannot be evaluated offline" in first
    assert first.endswith("Cloud Logging evaluates it (--execute, or the printed command)")
    assert err.splitlines()[1:] == [text, "^"]


def test_too_many_container_names_for_one_filter_blame_the_flag() -> None:
    names = ",".join(f"container-{i}" for i in range(2000))
    code, out, err = run_cli(*BASE, "--action=errors", f"--container_names={names}")
    assert (code, out) == (2, "")
    line = err.splitlines()[-1]
    assert line.startswith("error: --container_names: with 2000 containers a query has ")
    assert line.endswith(" characters; Cloud Logging accepts at most 20,000: name fewer containers")


def test_one_line_is_one_entry_in_the_notes() -> None:
    code, _, err = run_cli(
        f"--logs_file={INCIDENT}", "--jobset_name=gemma-train", "--action=errors", "--limit=14"
    )
    assert code == 0
    assert "cut the output: 1 more matching line is not shown;" in err
    assert err.endswith("\n14 entries\n")
    code, _, err = run_cli(
        f"--logs_file={INCIDENT}", "--jobset_name=gemma-train", "--action=errors", "--limit=1"
    )
    assert err.endswith("\n1 entry\n")
    code, _, err = run_cli(
        f"--logs_file={INCIDENT}",
        "--jobset_name=gemma-train",
        "--action=node-ooms",
        "--limit=1",
        "--extra_term=a",
    )
    assert code == 0
    assert "cut the output: at least 1 more matching line is not shown;" in err


@pytest.mark.parametrize(
    ("flags", "meant"),
    [
        (("--filter=severity>=ERROR -- note\rOR severity>=DEFAULT",), "-- note\rOR severity"),
        (("--action=errors", "--extra_term=a\x85b"), '"a\x85b"'),
        (("--action=errors", "--extra_term=a\u202eb"), '"a\u202eb"'),
    ],
)
def test_a_printed_command_passes_control_characters_as_meant(
    tmp_path: Path, flags: tuple[str, ...], meant: str
) -> None:
    """The text output shows `\\xNN` for a control character; the printed command quotes it
    so that bash passes the character itself (it passed the four characters `\\x0d`, which
    made the comment run on and the query change)."""
    action = () if flags[0].startswith("--action") else ("--action=query",)
    argv = ("--project=pw-demo", "--start_time=2026-10-22T11:00:00Z", *action, *flags)
    code, records, err = run_cli(*argv, "--jobset_name=gemma-train", "--format=json")
    assert code == 0, err
    wanted = json.loads(records.splitlines()[0])["filter"]
    assert meant in wanted
    code, text, err = run_cli(*argv, "--jobset_name=gemma-train")
    assert code == 0, err
    block = next(block for block in text.split("\n# ") if "gcloud logging read" in block)
    command = block.split("\n", 1)[1]  # after its `# purpose` line
    stand_in = tmp_path / "gcloud"
    stand_in.write_text('#!/bin/bash\nprintf "%s" "$3" > "$(dirname "$0")/filter"\n')
    stand_in.chmod(0o755)
    env = {**os.environ, "PATH": f"{tmp_path}:{os.environ['PATH']}"}
    subprocess.run(["bash", "-c", command], env=env, check=True)
    assert (tmp_path / "filter").read_bytes().decode() == wanted


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (("--action=errors",), "error: printing gcloud commands needs --project=PROJECT_ID"),
        (
            ("--action=triage", "--engine=analytics"),
            "error: printing Log Analytics SQL needs --project=PROJECT_ID (whose logs)",
        ),
        (
            ("--action=pod-events", "--project=pw-demo", "--container_names=pathways-worker"),
            "error: --container_names selects container lines; --action=pod-events reads none "
            "(its events or nodes belong to pods, not containers): leave it out",
        ),
        (
            ("--action=query", "--project=pw-demo", "--filter= "),
            "error: --filter has no condition (it is blank or only comments): give a Logging "
            "query, e.g. --filter='severity>=ERROR'",
        ),
        (
            ("--action=query", "--logs_file=-", "--filter=-- a comment"),
            "error: --filter has no condition (it is blank or only comments): give a Logging "
            "query, e.g. --filter='severity>=ERROR'",
        ),
    ],
)
def test_a_flag_error_found_before_printing_is_the_only_line(
    argv: tuple[str, ...], line: str
) -> None:
    """The window is said once the flags are known to be right (it came before these)."""
    code, out, err = run_cli("--jobset_name=x", *argv)
    assert (code, out, err) == (2, "", line + "\n")


def test_a_commands_file_that_cannot_be_written_whole_keeps_the_earlier_one(
    tmp_path: Path,
) -> None:
    """Like --output, --commands_out lands whole or not at all: a write cut short (here by a
    file size limit) exits 74 and leaves the earlier file as it was, not half a list."""
    resource = pytest.importorskip("resource")
    path = tmp_path / "commands.txt"
    path.write_text("earlier\n", encoding="utf-8")

    def limit_file_size() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    done = subprocess.run(
        [*TOOL, *TRIAGE, f"--commands_out={path}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        preexec_fn=limit_file_size,
        check=False,
    )
    assert done.returncode == 74, done.stderr
    assert path.read_text(encoding="utf-8") == "earlier\n"
    assert [p.name for p in tmp_path.iterdir()] == ["commands.txt"]
