"""Every action in the registry builds valid, bounded, workload-scoped filters."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pathways_workload import runner, terms
from pathways_workload.actions import tally
from pathways_workload.actions.node_level import NODE_DISCOVERY
from pathways_workload.lql import compile_filter
from pathways_workload.plan import Results
from pathways_workload.query import Options, Request
from pathways_workload.registry import ACTIONS
from pathways_workload.target import Target, Workload
from pathways_workload.terms import (
    PROXY_CONTAINERS,
    RM_CONTAINERS,
    SIDECAR_CONTAINERS,
    USER_CONTAINERS,
    WORKER_CONTAINERS,
)
from pathways_workload.timestamps import parse_timestamp_ns
from pathways_workload.window import Window
from tests.helpers import (
    CLUSTER,
    LOCATION,
    PROJECT,
    audit_event,
    container_entry,
    queries_of,
    run_cli,
    scheduled_event,
    serial_line,
)
from tests.test_cli_hardening import INCIDENT

WINDOW = Window(
    parse_timestamp_ns("2026-10-22T11:10:00Z"), parse_timestamp_ns("2026-10-22T12:10:00Z")
)
TARGET = Target(PROJECT, CLUSTER, LOCATION, "default", (Workload("jobset", "llama-train"),))
NODES = ("gke-pw-cluster-tpu-np-1-8a1b2c3d-x9k2",)
ALL_CONTAINERS = (
    USER_CONTAINERS + PROXY_CONTAINERS + RM_CONTAINERS + WORKER_CONTAINERS + SIDECAR_CONTAINERS
)
CONTAINER_ACTIONS = (
    "errors",
    "elastic",
    "user-workload",
    "proxy",
    "pathways-rm",
    "workers",
    "colocated-python-sidecar",
)


def request(**options: object) -> Request:
    opts = Options(filter_text='textPayload:"x"', **options)  # type: ignore[arg-type]
    return Request(TARGET, WINDOW, opts, NODES)


@pytest.mark.parametrize("name", sorted(ACTIONS))
def test_every_filter_parses_and_is_bounded(name: str) -> None:
    queries = queries_of(ACTIONS[name], request())
    assert queries
    for query in queries:
        compile_filter(query.filter)
        lines = query.filter.splitlines()
        assert 'timestamp>="2026-10-22T11:10:00Z"' in lines
        assert 'timestamp<="2026-10-22T12:10:00Z"' in lines


@pytest.mark.parametrize("name", sorted(ACTIONS))
def test_window_excludes_entries_outside(name: str) -> None:
    entry = container_entry(
        "Check failed: boom", severity="CRITICAL", timestamp="2026-10-22T12:10:00.000000001Z"
    )
    assert not any(
        compile_filter(q.filter).matches(entry) for q in queries_of(ACTIONS[name], request())
    )


@pytest.mark.parametrize("name", CONTAINER_ACTIONS)
@pytest.mark.parametrize("container", ALL_CONTAINERS)
def test_container_actions_never_return_the_unrelated_jobset(name: str, container: str) -> None:
    """`llama-train-eval` starts with the workload's name but is another JobSet."""
    unrelated = container_entry(
        "Check failed: boom",
        jobset="llama-train-eval",
        pod="llama-train-eval-worker-0-0-zzzzz",
        container=container,
        severity="CRITICAL",
    )
    for query in queries_of(ACTIONS[name], request()):
        assert not compile_filter(query.filter).matches(unrelated)


@pytest.mark.parametrize("container", ALL_CONTAINERS)
def test_crash_sweep_sees_every_container(container: str) -> None:
    entry = container_entry("Check failed: x.ok()", container=container, severity="ERROR")
    (query,) = queries_of(ACTIONS["errors"], request())
    assert compile_filter(query.filter).matches(entry)


def test_crash_sweep_ignores_plain_error_severity() -> None:
    """GKE marks every stderr line ERROR; the sweep needs a signature or a fatal severity."""
    (query,) = queries_of(ACTIONS["errors"], request())
    compiled = compile_filter(query.filter)
    assert not compiled.matches(
        container_entry(
            "WARNING: All log messages before "
            "absl::InitializeLog() is called are written "
            "to STDERR",
            severity="ERROR",
        )
    )
    assert compiled.matches(container_entry("anything at all", severity="CRITICAL"))


def test_terms_match_messages_not_pod_names() -> None:
    (query,) = queries_of(ACTIONS["errors"], request())
    entry = container_entry("started fine", pod="llama-train-worker-0-0-oomkilled", severity="INFO")
    assert not compile_filter(query.filter).matches(entry)


def test_extra_terms_widen_the_search() -> None:
    (query,) = queries_of(ACTIONS["workers"], request(extra_terms=("my own marker",)))
    entry = container_entry("here is MY OWN MARKER", severity="INFO")
    assert compile_filter(query.filter).matches(entry)


def test_discovery_queries_parse() -> None:
    for fetch in NODE_DISCOVERY.build(request(), Results()):
        compile_filter(fetch.query.filter)


@pytest.mark.parametrize("name", sorted(set(ACTIONS) - {"preflight"}))
def test_print_mode_is_valid_shell_that_round_trips(name: str) -> None:
    code, out, err = run_cli(
        f"--action={name}",
        f"--project={PROJECT}",
        f"--cluster_name={CLUSTER}",
        f"--location={LOCATION}",
        "--jobset_name=llama-train",
        "--issue_time=2026-10-22T11:40:00Z",
        '--filter=textPayload:"it\'s"' if name == "query" else "--namespace=default",
    )
    assert code == 0, err
    subprocess.run(["bash", "-n"], input=out, text=True, check=True)
    every = [block.splitlines() for block in out.strip().split("\n\n")]
    # Node queries chained to node discovery are loops; tests/test_print_chain.py runs them.
    chained = [b for b in every if b[1].startswith(("NODES=$(", "printf "))]
    assert bool(chained) == (name in ("node-ooms", "interruptions", "neighbors"))
    # A stage built from earlier answers (traceback follow-ups, whether the workload completed
    # before SIGTERM lines) is a comment saying what to run.
    notes = [b for b in every if all(line.startswith("#") for line in b)]
    sweeps = ("errors", "user-workload", "proxy", "pathways-rm", "workers")
    assert bool(notes) == (name in (*sweeps, "colocated-python-sidecar", "triage"))
    blocks = [b for b in every if b not in chained and b not in notes]
    assert all(b[0].startswith("# ") and b[-1].startswith("# Logs Explorer: ") for b in blocks)
    commands = ["\n".join(block[1:-1]) for block in blocks]
    assert commands
    for command in commands:
        words = shlex.split(command)
        assert words[:4] == [
            "CLOUDSDK_METRICS_ENVIRONMENT=pathways-workload/0.1.0 (skill:pathways-workload)",
            "gcloud",
            "logging",
            "read",
        ]
        compile_filter(words[4])
        assert words[5] == f"--project={PROJECT}"
        assert words[6] in ("--order=asc", "--order=desc")
        assert words[7].startswith("--limit=") and int(words[7][8:]) > 0
        assert words[8:] == ["--format=json"]


@pytest.mark.parametrize("name", sorted(ACTIONS))
def test_each_action_reports_the_kind_the_registry_says(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--format=html` and the columns Log Analytics selects are decided from the registry's
    `report`, before anything runs: it must be what the presenter returns."""
    written = []
    monkeypatch.setattr(runner, "write_report", lambda report, *_, **__: written.append(report))
    code, _, err = run_cli(
        f"--action={name}",
        f"--logs_file={INCIDENT}",
        '--filter=textPayload:"OOM"' if name == "query" else "--jobset_name=gemma-train",
    )
    assert code in (0, 1), err
    (report,) = written
    assert type(report) is ACTIONS[name].report


@pytest.mark.parametrize("name", sorted(ACTIONS))
def test_the_registry_says_which_actions_the_narrowing_flags_cannot_narrow(name: str) -> None:
    """An action whose queries --extra_terms and --min_severity leave as they are refuses
    them (exit 2 naming the flag); the others are changed by both."""
    action = ACTIONS[name]
    plain = [q.filter for q in queries_of(action, request())]
    termed = [q.filter for q in queries_of(action, request(extra_terms=("zzqq",)))]
    floored = [q.filter for q in queries_of(action, request(min_severity="WARNING"))]
    assert (termed == plain) == (floored == plain) == (action.reads_whole is not None)
    if action.reads_whole:
        needs = "--filter=severity>=ERROR" if name == "query" else "--jobset_name=x"
        for flag in ("--extra_terms=a", "--extra_term=a", "--min_severity=WARNING"):
            code, out, err = run_cli(f"--action={name}", f"--project={PROJECT}", needs, flag)
            assert (code, out) == (2, "")
            assert err.splitlines()[-1].startswith(f"error: {flag.split('=')[0]} does not narrow")


@pytest.mark.parametrize("name", ["errors", "user-workload", "triage"])
def test_json_print_mode_gives_the_follow_up_note_on_stderr(name: str) -> None:
    """A stage built from earlier answers is a note in text; with JSON records on stdout it
    goes to stderr, rather than nowhere."""
    args = (f"--action={name}", f"--project={PROJECT}", "--jobset_name=llama-train")
    code, out, err = run_cli(*args, "--issue_time=2026-10-22T11:40:00Z", "--format=json")
    assert code == 0, err
    assert all(json.loads(line) for line in out.splitlines())
    assert "for the first `Traceback (most recent call last):` line of each container" in err


def _replay(
    tmp_path: Path, entries: list[dict[str, Any]], action: str, *flags: str
) -> tuple[int, str, str]:
    """Run an action of the llama-train JobSet over an export of `entries`."""
    path = tmp_path / "export.json"
    path.write_text(json.dumps(entries))
    return run_cli(f"--logs_file={path}", "--jobset_name=llama-train", f"--action={action}", *flags)


def test_the_sidecar_action_reads_the_workers_whatever_the_sidecar_is_called(
    tmp_path: Path,
) -> None:
    """--container_names names the sidecar; the workers waiting for it keep their name (their
    query was narrowed to the sidecar's name, so their lines were lost)."""
    waiting = terms.SIDECAR_WAITING_TERMS[0]
    entries = [
        container_entry("Segmentation fault", container="my-sidecar"),
        container_entry(f"{waiting} (retrying)", severity="INFO", timestamp="2026-10-22T11:30:01Z"),
    ]
    code, out, err = _replay(
        tmp_path, entries, "colocated-python-sidecar", "--container_names=my-sidecar"
    )
    assert code == 0, err
    assert "Segmentation fault" in out
    assert waiting in out


def _traceback_and_crashes() -> list[dict[str, Any]]:
    """A client with two tracebacks (header ERROR, exception INFO) and four workers' crashes:
    six lines match `errors`, and the first exception rides along after its header."""
    head = {"pod": "llama-train-pathways-head-0-0-abcde", "container": "jax-tpu"}
    entries = [
        container_entry(
            "Traceback (most recent call last):", **head, timestamp="2026-10-22T11:06:00Z"
        ),
        container_entry(
            "ValueError: bad thing happened",
            **head,
            severity="INFO",
            timestamp="2026-10-22T11:06:00.3Z",
        ),
        container_entry(
            "Traceback (most recent call last):", **head, timestamp="2026-10-22T11:07:00Z"
        ),
    ]
    entries += [
        container_entry(
            f"Check failed: x{index}",
            pod=f"llama-train-worker-0-{index}-abcde",
            timestamp=f"2026-10-22T11:08:0{index}Z",
        )
        for index in range(4)
    ]
    return entries


def test_a_line_shown_with_its_traceback_takes_no_place_under_the_limits(
    tmp_path: Path,
) -> None:
    """The exception shown after its header counted against --fetch_limit (a pod that was
    fetched was dropped, and the note said the limit was hit) and against --limit's count
    of hidden lines (3 said where 4 were hidden)."""
    entries = _traceback_and_crashes()
    code, out, err = _replay(tmp_path, entries, "errors", "--first_per_pod=1", "--fetch_limit=6")
    assert code == 0, err
    assert all(f"Check failed: x{index}" in out for index in range(4))
    assert "--fetch_limit=6 was hit" not in err
    code, out, err = _replay(tmp_path, entries, "errors", "--limit=3")
    assert code == 0, err
    assert "ValueError: bad thing happened" in out
    assert "--limit=3 cut the output: 4 more matching lines are not shown" in err


def test_node_discovery_reads_every_scheduled_event_and_says_when_it_could_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A restarted JobSet of 300 hosts has 1,200 Scheduled events: discovery read the first
    1,000 (--fetch_limit) and said nothing, so the nodes the last attempt moved to were
    not the workload's and their host error was missed. It reads as far as the other
    report reads, and says when even that was not all."""
    entries = []
    for attempt in range(4):
        for host in range(300):
            moved = attempt == 3 and host >= 290  # late in the last attempt
            node = f"gke-pw-cluster-{'spare' if moved else 'tpu-np'}-{host:04d}"
            stamp = f"2026-10-22T11:{10 + attempt * 5:02d}:{host % 60:02d}Z"
            pod = f"llama-train-worker-0-{host}-a{attempt}"
            entries.append(scheduled_event(pod, node, timestamp=stamp))
    spare = "gke-pw-cluster-spare-0299"
    entries.append(audit_event("compute.instances.hostError", spare, "2026-10-22T11:40:00Z"))
    code, out, err = _replay(tmp_path, entries, "interruptions")
    assert code == 0, err
    assert "compute.instances.hostError" in out
    assert "may be incomplete" not in err
    monkeypatch.setattr(tally, "REPORT_PAGES", 0)  # read only --fetch_limit lines
    code, out, err = _replay(tmp_path, entries, "interruptions")
    assert code == 0, err
    assert (
        "note: the workload's nodes may be incomplete: discovery read 1,000 scheduled and "
        "the logs held more" in err
    )


@pytest.mark.parametrize("action", ["neighbors", "interruptions"])
def test_a_node_action_without_nodes_still_reports_with_its_window(action: str) -> None:
    """With no node found it printed nothing on stdout (no JSON object for neighbors) and no
    window line; it reports what there is, after saying why nothing (for interruptions,
    nothing but the cluster's node pool operations) was asked."""
    args = (f"--logs_file={INCIDENT}", "--jobset_name=nothere", f"--action={action}")
    code, out, err = run_cli(*args, "--format=json")
    assert code == 0, err
    assert "no nodes found for the workload in the window" in err
    assert ("nothing to query without the workload's nodes" in err) == (action == "neighbors")
    assert "window: " in err
    if action == "neighbors":
        report = json.loads(out)
        assert (report["nodes"], report["containers"], report["complete"]) == ([], [], False)


def test_neighbors_lists_a_container_on_each_node_it_logged_on(tmp_path: Path) -> None:
    """A pod recreated under its own name (a StatefulSet's) on another node was one row, on
    the first node only, with the lines of both."""
    first, second = "gke-pw-cluster-tpu-np-1-aaaa", "gke-pw-cluster-tpu-np-1-bbbb"
    entries = [
        container_entry("Check failed: x", node=first, timestamp="2026-10-22T11:10:00Z"),
        container_entry("Check failed: y", node=second, timestamp="2026-10-22T11:20:00Z"),
        container_entry("Check failed: z", node=second, timestamp="2026-10-22T11:21:00Z"),
    ]
    code, out, err = _replay(tmp_path, entries, "neighbors", "--format=json")
    assert code == 0, err
    rows = [(row["node"], row["lines"]) for row in json.loads(out)["containers"]]
    assert rows == [(first, 1), (second, 2)]


NODE = "gke-pw-cluster-tpu-np-1-8a1b2c3d-x9k2"


@pytest.mark.parametrize(
    ("action", "found", "entry"),
    [
        # Kernels before the 'Memory cgroup out of memory:' prefix, and before that the line
        # that named the victim first (node-problem-detector's kernel-monitor matches both).
        *(
            ("node-ooms", line, serial_line(line, NODE, "2026-10-22T11:29:59Z"))
            for line in (
                "[11686.043647] Killed process 2603 (pathways-worker) total-vm:1498536kB, "
                "anon-rss:721784kB, file-rss:4228kB",
                "[11686.043641] Out of memory: Kill process 2603 (pathways-worker) score 761 or "
                "sacrifice child",
            )
        ),
        # GKE's interruption metric counts these system events as "Other" interruptions.
        *(
            ("interruptions", method, audit_event(method, NODE, "2026-10-22T11:29:00Z"))
            for method in (
                "compute.instances.stoppedDueToPdDoubleServe",
                "compute.instances.kmsKeyError",
            )
        ),
    ],
)
def test_a_node_action_finds_what_the_kernel_and_gce_say_on_the_workload_s_node(
    tmp_path: Path, action: str, found: str, entry: dict[str, Any]
) -> None:
    entries = [container_entry("Check failed: x", node=NODE), entry]
    code, out, err = _replay(tmp_path, entries, action)
    assert code == 0, err
    assert found in out


@pytest.mark.parametrize(
    "line",
    [
        "Newly available but inactive slices {1}",
        "Waiting for 2 slices. Poll interval: 10, Timeout: 600",
        "Started a checkpoint and a new slice is available. Waiting for current checkpoint to "
        "finish before interrupting.",
    ],
)
def test_elastic_shows_a_slice_coming_back(tmp_path: Path, line: str) -> None:
    """pathwaysutils and MaxText say so in these words (the term was a guessed wording)."""
    client = {"pod": "llama-train-pathways-head-0-0-abcde", "container": "jax-tpu"}
    entries = [container_entry(line, **client, severity="INFO")]
    code, out, err = _replay(tmp_path, entries, "elastic")
    assert code == 0, err
    assert line in out


def test_a_node_name_a_log_line_gives_cannot_break_the_query(tmp_path: Path) -> None:
    """A Scheduled message ending `to gke-x";rm` went into the interruptions filter as a
    node: a syntax error at a line of the tool's own filter (exit 2). What cannot be a node's
    name is left out, as print mode's guard leaves it out."""
    node = "gke-pw-cluster-tpu-np-1-8a1b2c3d-x9k2"
    entries = [
        container_entry("Check failed: x", node=node),
        scheduled_event("llama-train-worker-0-1-abcde", 'gke-x";rm'),
        audit_event("compute.instances.hostError", node, "2026-10-22T11:29:00Z"),
    ]
    code, out, err = _replay(tmp_path, entries, "interruptions")
    assert code == 0, err
    assert "compute.instances.hostError" in out
    assert 'gke-x";rm' not in err


def test_neighbors_names_the_nodes_nothing_logged_on(tmp_path: Path) -> None:
    """A node --node_names names that logged nothing was counted among the nodes the
    containers logged on, and not named."""
    node = "gke-pw-cluster-tpu-np-1-8a1b2c3d-x9k2"
    entries = [container_entry("Check failed: x", node=node)]
    nodes = f"--node_names={node},gke-pw-cluster-tpu-np-1-gone"
    code, out, err = _replay(tmp_path, entries, "neighbors", nodes, "--format=json")
    assert code == 0, err
    assert json.loads(out)["silent_nodes"] == ["gke-pw-cluster-tpu-np-1-gone"]
    code, out, err = _replay(tmp_path, entries, "neighbors", nodes)
    assert code == 0, err
    assert out.splitlines()[0].startswith("1 containers logged on 1 of 2 nodes")
    assert "- nothing logged in the window on: gke-pw-cluster-tpu-np-1-gone" in out


def _two_seconds_apart(i: int) -> str:
    return f"2026-10-22T11:{2 * i // 60:02d}:{2 * i % 60:02d}Z"


def test_neighbors_does_not_call_a_node_its_cut_read_never_reached_silent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The read stopped at 1,000 lines before the second node's only line: the node was
    listed as one nothing logged on. Unread is not silent: the report says how many nodes
    no line was read from."""
    busy, late = "gke-pw-cluster-tpu-np-1-8a1b2c3d-x9k2", "gke-pw-cluster-tpu-np-1-8a1b2c3d-late"
    entries = [
        container_entry(f"step {i}", node=busy, timestamp=_two_seconds_apart(i))
        for i in range(1200)
    ]
    entries.append(container_entry("step", node=late, timestamp="2026-10-22T11:50:00Z"))
    monkeypatch.setattr(tally, "REPORT_PAGES", 0)  # read one page of lines
    args = ("neighbors", f"--node_names={busy},{late}")
    code, out, err = _replay(tmp_path, entries, *args, "--format=json")
    assert code == 0, err
    report = json.loads(out)
    assert (report["complete"], report["silent_nodes"]) == (False, [])
    code, out, err = _replay(tmp_path, entries, *args)
    assert code == 0, err
    assert out.splitlines()[0].startswith("1 containers logged on 1 of 2 nodes")
    assert "- no line read from 1 nodes (the read was cut: they may have logged)" in out
    assert "nothing logged in the window on" not in out


def test_neighbors_takes_any_container_name(tmp_path: Path) -> None:
    """Rows were keyed by a joined text split again on a newline: a name holding one
    exited 70."""
    node = "gke-pw-cluster-tpu-np-1-8a1b2c3d-x9k2"
    entries = [container_entry("x", node=node), container_entry("y", node=node, container="a\nb")]
    code, out, err = _replay(
        tmp_path, entries, "neighbors", f"--node_names={node}", "--format=json"
    )
    assert code == 0, err
    assert len(json.loads(out)["containers"]) == 2
