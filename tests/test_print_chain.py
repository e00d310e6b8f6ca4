"""Print mode's chained commands run as printed: the shell the tool prints for node queries,
run by bash with the real gcloud against the fake Logging API, finds what --execute finds."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pathways_workload.arguments import build_parser, options_from
from pathways_workload.query import Query
from pathways_workload.shaping import shape
from pathways_workload.sources.base import Fetch, Result
from tests.fake_logging import PROJECT, WORKER_NODES, FakeLogging, point_at, sample_incident
from tests.helpers import audit_event, node_event, run_cli
from tests.test_cloud_contract import TARGET, flag, gcloud_env, json_lines

GCLOUD = shutil.which("gcloud")
NODE_ACTIONS = ("node-ooms", "interruptions", "neighbors")


def _gcloud_missing() -> None:
    if GCLOUD is None:
        message = "gcloud is not installed on this machine"
        if __import__("os").environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)


def _arrays(text: str) -> list[dict[str, Any]]:
    """Every entry of the JSON arrays a loop of gcloud commands printed one after another."""
    decoder, entries, position = json.JSONDecoder(), [], 0
    while position < len(text):
        if text[position].isspace():
            position += 1
            continue
        value, position = decoder.raw_decode(text, position)
        entries += value
    return entries


def _run_shell(script: str, env: dict[str, str]) -> list[dict[str, Any]]:
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return _arrays(done.stdout)


@pytest.fixture(scope="module")
def fake() -> Any:
    """The sample incident, plus a preemption and a NotReady node, so every query finds some."""
    interruptions = [
        audit_event("compute.instances.preempted", WORKER_NODES[1], "2026-10-22T11:20:00.5Z"),
        node_event("NodeNotReady", "Node is not ready", WORKER_NODES[1], "2026-10-22T11:20:31Z"),
    ]
    with FakeLogging(sample_incident() + interruptions) as server:
        yield server


@pytest.mark.parametrize("action", NODE_ACTIONS)
def test_printed_shell_is_valid_and_names_no_placeholder(action: str) -> None:
    code, out, err = run_cli(*TARGET, f"--action={action}")
    assert code == 0, err
    subprocess.run(["bash", "-n"], input=out, text=True, check=True)
    assert "NODES=$(" in out
    assert "NODES-FROM-THE-DISCOVERY-QUERY-ABOVE" not in out


@pytest.mark.parametrize("action", ("node-ooms", "interruptions"))
def test_printed_shell_finds_what_execute_finds(
    action: str, fake: FakeLogging, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _gcloud_missing()
    args = [*TARGET, f"--action={action}", "--format=json"]
    code, printed, err = run_cli(*args)
    assert code == 0, err
    records = json_lines(printed)[2:]  # after the two discovery queries
    env = gcloud_env(fake, tmp_path / "gcloud-config")
    results = [
        Result(
            Fetch(
                Query(r["purpose"], r["filter"]),
                int(flag(r["command"], "limit")),
                flag(r["command"], "order"),
            ),
            _run_shell(r["shell"], env),
        )
        for r in records
    ]
    expected = shape(results, options_from(build_parser().parse_args(args))).entries
    assert expected, "the case should find something"
    point_at(monkeypatch, fake)
    code, executed, err = run_cli(*args, "--execute")
    assert code == 0, err
    assert [e["insertId"] for e in json_lines(executed)] == [e["insertId"] for e in expected]
    assert PROJECT in printed


def test_every_printed_record_has_a_runnable_shell_form() -> None:
    code, printed, err = run_cli(*TARGET, "--action=interruptions", "--format=json")
    assert code == 0, err
    records = json_lines(printed)
    assert all(r["shell"] for r in records)
    independent = [r for r in records if "NODES_FROM_DISCOVERY" not in r["filter"]]
    assert all(r["shell"] == r["command"] for r in independent)
    chained = [r for r in records if r not in independent]
    assert chained and all(r["shell"].startswith("NODES=$(") for r in chained)


def test_grouping_in_print_mode_is_said_to_happen_only_when_run() -> None:
    code, out, err = run_cli(*TARGET, "--action=workers", "--first_per_pod=2")
    assert code == 0, err
    assert out.startswith("# note: --first_per_pod groups lines by pod and container only when")
    code, out, err = run_cli(*TARGET, "--action=workers", "--first_per_pod=2", "--format=json")
    assert code == 0, err
    assert "only when this tool runs the queries" in err
    assert all(record["purpose"] for record in json_lines(out))


def test_long_node_lists_are_split_so_each_filter_fits() -> None:
    nodes = ",".join(f"gke-pw-cluster-tpu-np-{i:04d}-8a1b2c3d-x9k2" for i in range(1024))
    code, out, err = run_cli(
        *TARGET, "--action=neighbors", f"--node_names={nodes}", "--format=json"
    )
    assert code == 0, err
    filters = [record["filter"] for record in json_lines(out)]
    assert len(filters) > 1
    assert all(len(text) <= 20_000 for text in filters)
    named = "".join(filters)
    assert all(f'"gke-pw-cluster-tpu-np-{i:04d}-8a1b2c3d-x9k2"' in named for i in range(1024))


@pytest.mark.parametrize("action", ["interruptions", "node-ooms"])
@pytest.mark.parametrize("size", [6000, 6310, 6370, 6400])
def test_a_chained_filter_fits_with_the_longest_node_name_or_is_refused(
    action: str, size: int
) -> None:
    """Printed loops fill each node query with discovered names; with a long term, one name
    of 63 characters (escaped for a regex at worst) must still fit, else exit 2 up front."""
    code, out, err = run_cli(
        *TARGET, f"--action={action}", f"--extra_term={'x' * size}", "--format=json"
    )
    if code == 2:
        assert out == ""
        assert err.splitlines()[-1].startswith("error: --extra_terms/--extra_term: with these")
        return
    assert code == 0, err
    longest = "a-" * 31 + "z"
    for record in json_lines(out):
        text = record["filter"]
        text = text.replace('"NODES_FROM_DISCOVERY"', f'"{longest}"')
        text = text.replace("(NODES_FROM_DISCOVERY)", "(" + longest.replace("-", "\\\\-") + ")")
        assert len(text) <= 20_000, record["purpose"]


@pytest.mark.parametrize("action", NODE_ACTIONS)
def test_a_chained_command_passes_a_term_written_as_its_bytes_as_meant(
    action: str, tmp_path: Path
) -> None:
    """A term with a character printed as its bytes puts the filter in `$'...'`; the loop
    reopened it in plain quotes after the node names, so bash passed `\\xe2\\x80\\xae` as
    text and the term's quote ended the filter (a syntax error, or shell text unquoted)."""
    code, out, err = run_cli(
        *TARGET, f"--action={action}", "--extra_term=it's \u202eback", "--format=json"
    )
    assert code == 0, err
    record = next(
        r
        for r in json_lines(out)
        if "NODES_FROM_DISCOVERY" in r["filter"] and "back" in r["filter"]
    )
    stand_in = tmp_path / "gcloud"
    stand_in.write_text(
        '#!/bin/bash\ncase "$7" in\n  "--format=value("*) echo gke-a-0a1b2c3d-x9k2 ;;\n'
        '  *) printf "%s" "$3" > "$(dirname "$0")/filter" ;;\nesac\n'
    )
    stand_in.chmod(0o755)
    env = {**os.environ, "PATH": f"{tmp_path}:{os.environ['PATH']}"}
    subprocess.run(["bash", "-euo", "pipefail", "-c", record["shell"]], env=env, check=True)
    wanted = (
        record["filter"]
        .replace('"NODES_FROM_DISCOVERY"', '("gke-a-0a1b2c3d-x9k2")')
        .replace("(NODES_FROM_DISCOVERY)", "(gke\\-a\\-0a1b2c3d\\-x9k2)")
    )
    assert (tmp_path / "filter").read_text(encoding="utf-8") == wanted
