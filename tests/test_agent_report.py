"""What an agent reads: coverage of the evidence, a report that fits on a screen, labels that
come from the cause, and notes that say how to see what a cut left out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import container_entry, run_cli
from tests.test_incidents import INCIDENTS, NAMES, expected, target_args, triage_of

SCREEN_LINES = 100


def _without(name: str, tmp_path: Path, drop: Any) -> list[str]:
    """The incident's arguments, replaying an export without the entries `drop` picks."""
    entries = json.loads((INCIDENTS / f"{name}.json").read_text())
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps([entry for entry in entries if not drop(entry)]))
    return [f"--logs_file={path}", *target_args(name, by_issue_time=True)[1:]]


def _events_or_proxy(entry: dict[str, Any]) -> bool:
    resource = entry["resource"]
    return entry["logName"].endswith("/logs/events") or (
        resource["labels"].get("container_name") == "pathways-proxy"
    )


def test_missing_events_and_proxy_logs_are_flagged_by_triage_and_preflight(
    tmp_path: Path,
) -> None:
    args = _without("host-oom-worker", tmp_path, _events_or_proxy)
    code, out, err = run_cli(*args, "--action=triage", "--format=json")
    assert code == 0, err
    gaps = json.loads(out)["coverage"]["gaps"]
    assert any(gap.startswith("the proxy logged nothing in the window") for gap in gaps)
    assert any(gap.startswith("no Kubernetes events of the namespace") for gap in gaps)
    code, out, err = run_cli(*args, "--action=preflight")
    assert code == 0, err
    assert "PASS" in out
    assert "- GAP: the proxy logged nothing in the window" in out
    assert "- GAP: no Kubernetes events of the namespace" in out


@pytest.mark.parametrize("name", NAMES)
def test_the_text_report_fits_on_a_screen(name: str) -> None:
    code, out, err = run_cli(*target_args(name, by_issue_time=True), "--action=triage")
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) <= SCREEN_LINES
    checks = lines[lines.index(next(line for line in lines if line.startswith("## Checks"))) :]
    assert not any("gcloud logging read" in line for line in checks)


def test_verbose_and_commands_out_give_the_commands(tmp_path: Path) -> None:
    args = target_args("two-failures", by_issue_time=True)
    code, out, err = run_cli(*args, "--action=triage", "--verbose")
    assert code == 0, err
    assert out.count("gcloud logging read") >= 7
    path = tmp_path / "commands.sh"
    code, out, err = run_cli(*args, "--action=triage", f"--commands_out={path}")
    assert code == 0, err
    written = path.read_text()
    assert written.count("gcloud logging read") == out.split("## Checks run (")[1].count("\n- ")
    assert "gcloud logging read" not in out


def _export(tmp_path: Path, entries: list[dict[str, Any]]) -> str:
    path = tmp_path / "export.json"
    path.write_text(json.dumps(entries))
    return f"--logs_file={path}"


def test_the_label_comes_from_the_cause_never_from_the_peers(tmp_path: Path) -> None:
    """A worker's error with no known signature, then its peers losing it: no label, not 8."""
    cause = container_entry(
        "Check failed: allocation_size <= max_allocation_size (3 vs. 2) per-chip budget",
        pod="llama-train-worker-1-0-aaaaa",
        severity="CRITICAL",
        timestamp="2026-10-22T11:30:00.000Z",
    )
    peers = [
        container_entry(
            "DEADLINE_EXCEEDED: lost connection to peer at http://machine/gke-x/events",
            pod=f"llama-train-worker-0-{index}-bbbbb",
            timestamp=f"2026-10-22T11:30:00.{40 + index:03d}Z",
        )
        for index in range(3)
    ]
    code, out, err = run_cli(
        _export(tmp_path, [cause, *peers]),
        "--jobset_name=llama-train",
        "--action=triage",
        "--format=json",
    )
    assert code == 0, err
    report = json.loads(out)
    assert report["root_cause"]["pod"] == "llama-train-worker-1-0-aaaaa"
    assert report["root_cause"]["scenario"] is None
    assert report["next"]


def test_a_cut_says_how_many_lines_were_left_out_and_how_to_see_the_end(tmp_path: Path) -> None:
    lines = [
        container_entry(
            f"completed step: {step}",
            container="jax-tpu",
            severity="ERROR",
            timestamp=f"2026-10-22T11:{step:02d}:00Z",
        )
        for step in range(10, 20)
    ]
    code, out, err = run_cli(
        _export(tmp_path, lines),
        "--jobset_name=llama-train",
        "--action=user-workload",
        "--limit=4",
        "--fetch_limit=1000",
    )
    assert code == 0, err
    assert len(out.splitlines()) == 4
    assert (
        "note: --limit=4 cut the output: 6 more matching lines are not shown; to see the latest "
        "first use --order=desc, for each pod's first and last line --first_per_pod=1"
    ) in err


def test_a_window_without_the_workload_s_lines_gives_no_verdict() -> None:
    """Not "no error and no hang found": the window or the flags are wrong."""
    export = Path(__file__).parent / "fixtures" / "incidents" / "lost-connection-to-peer.json"
    code, out, err = run_cli(
        f"--logs_file={export}",
        "--project=pw-demo",
        "--workload=jobset:llama-train",
        "--start_time=2026-11-20T01:00:00Z",
        "--end_time=2026-11-20T02:00:00Z",
        "--action=triage",
    )
    assert code == 0, err
    assert "No verdict: the window holds none of the workload's lines" in out
    assert "No error and no hang found" not in out
    assert "no Kubernetes events of the namespace in the window" in out


def test_a_traceback_logged_as_one_entry_is_shown_to_its_chained_cause() -> None:
    """The client's traceback is one entry: its exception and the exception it was raised
    from (the missing checkpoint) are in the text report, not cut to its first 200 characters."""
    planted = expected("elastic-restore-failure")
    code, out, err = run_cli(
        *target_args("elastic-restore-failure", by_issue_time=True), "--action=triage"
    )
    assert code == 0, err
    evidence = out[out.index("Evidence:") : out.index("## ", out.index("Evidence:"))]
    assert "No checkpoint metadata found" in evidence
    assert planted["failures"][-1]["message_contains"] in evidence
    assert len(out.splitlines()) <= SCREEN_LINES


def test_a_long_one_line_error_is_shown_whole_in_the_evidence(tmp_path: Path) -> None:
    """The client's failure to reach the proxy is one line of about 280 characters whose
    telling part (why the connection failed) comes last (the troubleshooting page's line);
    cut at 200 characters, the text report lost it."""
    line = (
        "RuntimeError: Unable to initialize backend 'proxy': UNAVAILABLE: Unable to establish "
        "connection to ifrt_proxy server, please check provided address "
        "'example-workload-proxy-0-0.example-workload.default.svc.example-cluster-domain.:38676'"
        "; detailed error: DNS resolution failed (set JAX_PLATFORMS='' to automatically choose "
        "an available backend)"
    )
    entry = container_entry(line, pod="llama-train-pathways-head-0-0-abcde", container="jax-tpu")
    path = tmp_path / "client.json"
    path.write_text(json.dumps([entry]))
    code, out, err = run_cli(f"--logs_file={path}", "--jobset_name=llama-train", "--action=triage")
    assert code == 0, err
    evidence = out[out.index("Evidence:") :]
    assert "DNS resolution failed" in evidence
    assert "automatically choose an available backend)" in evidence


def test_the_last_lines_are_latest_first_by_instant(tmp_path: Path) -> None:
    """A whole-second time (`…:33Z`, as protobuf writes zero nanoseconds) sorted after
    `…:33.7Z` as text, so "latest first" listed the earlier line first."""
    entries = []
    for minute in range(59):
        entries.append(
            container_entry(
                f"completed step: {minute}",
                pod="llama-train-pathways-head-0-0-abcde",
                container="jax-tpu",
                severity="INFO",
                timestamp=f"2026-10-22T11:{minute:02d}:33Z",
            )
        )
        entries.append(
            container_entry(
                f"Executed program {minute}",
                severity="INFO",
                timestamp=f"2026-10-22T11:{minute:02d}:33.7Z",
            )
        )
    path = tmp_path / "healthy.json"
    path.write_text(json.dumps(entries))
    code, out, err = run_cli(f"--logs_file={path}", "--jobset_name=llama-train", "--action=triage")
    assert code == 0, err
    listed = [line for line in out.splitlines() if line.startswith("- 2026-10-22T11:58:33")]
    assert [line.split()[1] for line in listed] == [
        "2026-10-22T11:58:33.7Z",
        "2026-10-22T11:58:33Z",
    ]


def test_a_custom_named_client_is_pointed_at_not_only_called_missing(tmp_path: Path) -> None:
    """The client container is named `trainer`: the coverage said the client logged nothing
    and stopped there; it names the containers of no known role."""
    entries = [
        container_entry(
            "Traceback (most recent call last):",
            pod="llama-train-pathways-head-0-0-abcde",
            container="trainer",
        ),
        container_entry("Check failed: boom"),
    ]
    path = tmp_path / "custom.json"
    path.write_text(json.dumps(entries))
    args = (f"--logs_file={path}", "--jobset_name=llama-train", "--action=triage")
    code, out, err = run_cli(*args, "--format=json")
    assert code == 0, err
    gap = next(g for g in json.loads(out)["coverage"]["gaps"] if g.startswith("the client "))
    assert gap.endswith(
        "; containers of other names logged (trainer): if one is the client, its lines are "
        "there (--action=user-workload and the others take --container_names)"
    )


def test_triage_reads_every_container_whatever_container_names_says() -> None:
    """--container_names narrowed every container query of triage: the root cause lost its
    host, no host failed, and every component was a false gap. Triage reads every container
    (the flag still names an unprefixed text log's container)."""
    args = (*target_args("host-oom-worker"), "--action=triage", "--format=json")
    code, out, err = run_cli(*args)
    assert code == 0, err
    whole = json.loads(out)
    code, out, err = run_cli(*args, "--container_names=trainer")
    assert code == 0, err
    narrowed = json.loads(out)
    for key in ("root_cause", "failing_hosts", "coverage"):
        assert narrowed[key] == whole[key], key


def test_next_steps_for_a_workload_that_never_logged_say_why_it_did_not_start() -> None:
    """Its pods never started (the JobSet's name is too long): `next` named the
    per-container actions, which have nothing to read; SKILL.md sends such a workload to
    its events and the cluster's summary."""
    args = (*target_args("jobset-name-too-long"), "--action=triage", "--format=json")
    code, out, err = run_cli(*args)
    assert code == 0, err
    report = json.loads(out)
    assert report["next"] == ["--action=pod-events", "--action=summary", "--action=preflight"]
    code, out, err = run_cli(*target_args("host-oom-worker"), "--action=triage", "--format=json")
    assert code == 0, err
    assert "--action=summary" not in json.loads(out)["next"]


def test_next_is_an_empty_list_when_a_known_failure_explains_the_cause() -> None:
    """Like every other field of the report, `next` is always there: a program reading
    `report["next"]` gets no steps, not a missing key, when the cause is a known failure."""
    code, out, err = run_cli(*target_args("host-oom-worker"), "--action=triage", "--format=json")
    assert code == 0, err
    report = json.loads(out)
    assert report["root_cause"]["scenario"] == 2
    assert report["next"] == []


def test_a_tpu_host_that_logged_nothing_is_a_gap_though_others_restarted(tmp_path: Path) -> None:
    """Hosts are counted by slice and index, not by pod: after a restart each host has two
    pods, which hid a host whose pods logged nothing."""
    args = _without("lost-connection-to-peer", tmp_path, lambda e: "-worker-0-1-" in json.dumps(e))
    code, out, err = run_cli(*args, "--action=triage", "--format=json")
    assert code == 0, err
    gap = "5 of the 6 TPU hosts the labels say exist logged; silent (slice/host): 0/1"
    workers = next(
        c for c in json.loads(out)["coverage"]["components"] if c["component"] == "workers"
    )
    assert workers["pods"] == 10 and workers["gap"] == gap
    code, out, err = run_cli(*args, "--action=triage")
    assert f"- GAP: {gap}\n" in out
    whole = [f"--logs_file={INCIDENTS / 'lost-connection-to-peer.json'}", *args[1:]]
    code, out, err = run_cli(*whole, "--action=triage", "--format=json")
    assert json.loads(out)["coverage"]["gaps"] == []


def _triaged_renamed(
    tmp_path: Path, incident: str, container: str, name: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Triage's JSON reports of a bundled incident as recorded and with a container renamed."""
    source = INCIDENTS / f"{incident}.json"
    renamed = tmp_path / "renamed.json"
    renamed.write_text(source.read_text().replace(f'"{container}"', f'"{name}"'))
    args = target_args(incident)[1:]
    reports = []
    for path in (source, renamed):
        code, out, err = run_cli(f"--logs_file={path}", *args, "--action=triage", "--format=json")
        assert code == 0, err
        reports.append(json.loads(out))
    return reports[0], reports[1]


def test_a_renamed_worker_container_still_makes_its_pods_tpu_hosts(tmp_path: Path) -> None:
    """A worker container named `tpu-worker` runs in the JobSet's `worker` pods: the hosts,
    the lead and the workers' coverage are what they are with `pathways-worker`."""
    original, report = _triaged_renamed(
        tmp_path, "lost-connection-to-peer", "pathways-worker", "tpu-worker"
    )
    assert report["failing_hosts"] and report["failing_hosts"] == original["failing_hosts"]
    assert report["lead_host"] == original["lead_host"]
    assert report["root_cause"]["host"] == original["root_cause"]["host"] == "1/2"
    assert report["coverage"]["gaps"] == original["coverage"]["gaps"] == []


def test_a_renamed_client_container_still_shows_when_training_stopped(tmp_path: Path) -> None:
    """The JAX client in a container named `trainer` on the head pod: its progress lines
    tell when training stopped, so a silent hang has its root cause and the client's
    coverage no gap, as with `jax-tpu`."""
    original, report = _triaged_renamed(tmp_path, "silent-hang", "jax-tpu", "trainer")
    assert original["root_cause"]["pod"] == expected("silent-hang")["root_cause"]["pod"]
    assert report["root_cause"] == original["root_cause"]
    assert report["failing_hosts"] == original["failing_hosts"]
    client = next(c for c in report["coverage"]["components"] if c["component"] == "client")
    assert client["lines_read"] > 0 and client["gap"] is None


def test_an_unmatched_cause_no_container_logged_points_at_the_action_that_reads_it() -> None:
    """A cause that matches no known failure but was logged by no container (the JobSet
    controller) was followed by `read its container around it`, a container that does not
    exist; the note names the action that reads such lines. A Compute Engine host error is
    no unmatched line: it is the interruption that stops containers (scenario 4)."""
    args = [a for a in target_args("elastic-restore-failure") if not a.endswith("Z")]
    code, out, err = run_cli(*args, "--action=triage")
    assert code == 0, err
    root = out.split("Evidence:")[0]
    assert "compute.instances.hostError" in root and "Known failure 4 (sigterm)" in root
    assert "read its container around it" not in out
    planted = expected("jobset-name-too-long")
    code, out, err = run_cli(*target_args("jobset-name-too-long"), "--action=triage")
    assert code == 0, err
    assert planted["root_cause"]["message_contains"] in out
    assert "the JobSet controller's log: `--action=summary` around it" in out


def test_a_leaderworkerset_group_is_not_called_a_restart_attempt() -> None:
    """The failures of a LeaderWorkerSet are split by group, and `restart_attempt` holds
    `group N`; the text report printed `(restart attempt group 1)`."""
    code, out, err = run_cli(*target_args("gcs-lifecycle-prefix-limit"), "--action=triage")
    assert code == 0, err
    assert "restart attempt group" not in out
    assert "(LeaderWorkerSet group 1) default/jetstream-pw-1/pathways-rm" in out


def test_a_headless_jobset_s_missing_client_may_run_elsewhere() -> None:
    """A headless Pathways JobSet has no client container (the client connects from its own
    Job or from outside the cluster): the client's gap said only that its logs were missing
    or that it never started, sending the reader after the logging agent."""
    code, out, err = run_cli(
        *target_args("alts-handshake-failure"), "--action=triage", "--format=json"
    )
    assert code == 0, err
    components = json.loads(out)["coverage"]["components"]
    client = next(c for c in components if c["component"] == "client")
    assert client["lines_read"] == 0
    assert "--workload=job:NAME" in client["gap"]


def test_a_client_job_s_missing_pathways_servers_may_run_in_a_headless_jobset() -> None:
    """A client Job given alone logs, and the proxy, RM and workers of the headless JobSet it
    works against do not: their gaps said only that their logs were missing, sending the
    reader after the logging agent instead of to the JobSet."""
    args = [a for a in target_args("client-job-finished") if not a.startswith("--workload")]
    code, out, err = run_cli(*args, "--job_name=eval-actor", "--action=triage", "--format=json")
    assert code == 0, err
    rows = {c["component"]: c for c in json.loads(out)["coverage"]["components"]}
    assert rows["client"]["lines_read"] and rows["client"]["gap"] is None
    for name in ("proxy", "resource manager", "workers"):
        assert "--workload=jobset:NAME" in rows[name]["gap"]


def test_next_steps_start_with_the_action_of_the_root_causes_container() -> None:
    """The proxy's own `Check failed` is the root cause and no known failure names it:
    `next` led with the workers' action, sending the reader to the wrong container first;
    it leads with the proxy's, the others after it."""
    code, out, err = run_cli(
        *target_args("proxy-connection-terminated"), "--action=triage", "--format=json"
    )
    assert code == 0, err
    report = json.loads(out)
    assert report["root_cause"]["container"] == "pathways-proxy"
    assert report["root_cause"]["scenario"] is None
    assert report["next"][0] == "--action=proxy --min_severity=WARNING"
    assert "--action=workers --min_severity=WARNING" in report["next"][1:]


def test_several_failures_say_which_is_the_root_cause_and_how_to_pick_another() -> None:
    """Without --issue_time the root cause is the window's first failure (restart attempt
    0's crash), while the failure that ended the run came later; the list of failures named
    neither which one the root cause was nor how to ask about another."""
    code, out, err = run_cli(*target_args("two-failures"), "--action=triage")
    assert code == 0, err
    section = out.split("failures in the window")[1].split("\n## ")[0].splitlines()
    first, later = expected("two-failures")["failures"]
    marked = [line for line in section if "(the root cause)" in line]
    assert len(marked) == 1 and first["timestamp"] in marked[0]
    assert any("--issue_time" in line for line in section)
    code, out, err = run_cli(*target_args("two-failures", True), "--action=triage")
    assert code == 0, err
    section = out.split("failures in the window")[1].split("\n## ")[0]
    marked = [line for line in section.splitlines() if "(the root cause)" in line]
    assert len(marked) == 1 and later["timestamp"] in marked[0]


def test_summary_leaves_out_other_jobsets_routine_controller_lines() -> None:
    """The JobSet controller writes every line to stderr, which GKE marks ERROR, so an
    ERROR floor took in its routine `reconciling jobset` lines about every other JobSet of
    the cluster: they came first and filled --limit, hiding the error about this one."""
    args = target_args("jobset-name-too-long")
    code, out, err = run_cli(*args, "--action=summary", "--limit=5")
    assert code == 0, err
    assert "reconciling jobset" not in out
    assert "must be no more than 63 characters" in out.splitlines()[0]


@pytest.mark.parametrize("widen", [(), ("--min_severity=WARNING",), ("--extra_terms=quota",)])
def test_widening_summary_keeps_the_workloads_events(widen: tuple[str, ...]) -> None:
    """Lowering summary's floor or adding terms (what its empty answer and SKILL.md advise)
    widened its controller lines but narrowed its JobSet and Job events: Kueue's INFO
    `Stopped` event, the preemption that suspended the JobSet, was lost."""
    code, out, err = run_cli(*target_args("kueue-preemption"), "--action=summary", *widen)
    assert code == 0, err
    assert "Stopped: Preempted to accommodate a workload" in out
    assert "SuspendedJobs: jobset is suspended (JobSet/mixtral-pt)" in out


def test_triage_finds_the_controller_error_behind_other_jobsets_routine_lines(
    tmp_path: Path,
) -> None:
    """A busy controller logs `reconciling jobset` (at ERROR: stderr) for every JobSet of the
    cluster; triage read its first 1000 lines in the window whatever JobSet they named, so
    with more of them before the error about the workload, the error was never read and the
    root cause fell to a later event."""
    name = "jobset-name-too-long"
    entries = json.loads((INCIDENTS / f"{name}.json").read_text())
    routine = next(e for e in entries if "reconciling jobset" in e.get("textPayload", ""))
    for index in range(1200):
        when = f"2026-11-26T16:{index // 100:02d}:{index % 60:02d}.{index:06d}Z"
        text = routine["textPayload"].replace('"llama3-70b-pretrain"', f'"other-{index}"')
        entries.append(
            {**routine, "insertId": f"busy-{index}", "timestamp": when, "textPayload": text}
        )
    root = triage_of(name, tmp_path, entries)["root_cause"]
    assert root["timestamp"] == expected(name)["root_cause"]["timestamp"]


def test_a_cluster_events_root_cause_names_no_unknown_node() -> None:
    """Kueue's Stopped event is about the JobSet, not a node: the root cause line read
    `(node ?, cluster-event)`, as if a node were missing from the evidence."""
    code, out, err = run_cli(*target_args("kueue-preemption"), "--action=triage")
    assert code == 0, err
    root = next(line for line in out.splitlines() if line.startswith("- **"))
    assert "cluster/pw-cluster (cluster-event)" in root and "node ?" not in root
