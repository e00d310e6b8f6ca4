"""One query, three ways: the printed gcloud command, --execute, and --logs_file.

The real `gcloud logging read` (as print mode prints it) and the tool's cloud
source both talk to the fake Cloud Logging server; offline replay reads the
same export. All three must return the same entries in the same order, field
for field, nanoseconds kept. gcloud is slow to start (about a second), so the
suite runs it only for the few queries below (seven invocations).
"""

from __future__ import annotations

import concurrent.futures
import io
import json
import os
import shlex
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pathways_workload.arguments import build_parser, options_from
from pathways_workload.query import Query
from pathways_workload.shaping import shape
from pathways_workload.sources.base import Fetch, Result
from pathways_workload.sources.cloud import CloudSource
from tests.fake_logging import PROJECT, WORKER_NODES, FakeLogging, point_at, sample_incident
from tests.helpers import run_cli

GCLOUD = shutil.which("gcloud")
pytestmark = pytest.mark.skipif(GCLOUD is None, reason="gcloud is not installed on this machine")

TARGET = (
    f"--project={PROJECT}",
    "--cluster_name=pw-cluster",
    "--location=us-east5",
    "--jobset_name=llama-train",
    "--start_time=2026-10-22T11:00:00Z",
    "--duration=1h",
)
CASES = {
    "errors": ("--action=errors",),
    "pod-events": ("--action=pod-events",),
    "node-ooms": ("--action=node-ooms", f"--node_names={WORKER_NODES[0]}"),
    "user-workload": ("--action=user-workload", "--min_severity=DEFAULT"),
    "workers": ("--action=workers", "--min_severity=INFO", "--first_per_pod=1"),
    "query-desc": ("--action=query", "--filter=severity>=WARNING", "--order=desc", "--limit=4"),
}
CLOSED_PORT = "127.0.0.1:9"


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The incident as gcloud would export it: a JSON array, keys sorted."""
    path = tmp_path_factory.mktemp("export") / "incident.json"
    text = json.dumps(sample_incident(), indent=2, sort_keys=True, ensure_ascii=False)
    path.write_text(text + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def fake(export: Path) -> Iterator[FakeLogging]:
    with FakeLogging.from_file(export) as server:
        yield server


def gcloud_env(fake: FakeLogging, config: Path) -> dict[str, str]:
    """A throwaway gcloud: no credentials, no metadata server, nothing beyond loopback."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLOUDSDK_", "GOOGLE_"))}
    env.update(
        CLOUDSDK_CONFIG=str(config),
        CLOUDSDK_API_ENDPOINT_OVERRIDES_LOGGING=fake.url,
        CLOUDSDK_AUTH_DISABLE_CREDENTIALS="true",
        CLOUDSDK_CORE_CHECK_GCE_METADATA="false",
        CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK="true",
        CLOUDSDK_CORE_DISABLE_PROMPTS="1",
        CLOUDSDK_CORE_DISABLE_USAGE_REPORTING="true",
        NO_GCE_CHECK="True",
        GCE_METADATA_HOST=CLOSED_PORT,
        GCE_METADATA_IP=CLOSED_PORT,
        HTTP_PROXY=f"http://{CLOSED_PORT}",
        HTTPS_PROXY=f"http://{CLOSED_PORT}",
        NO_PROXY="127.0.0.1,localhost",
    )
    return env


def run_gcloud(command: str, env: dict[str, str]) -> tuple[list[dict[str, Any]], float]:
    """Run one printed command with bash; its JSON output and how long it took."""
    start = time.monotonic()
    done = subprocess.run(
        ["bash", "-c", command], env=env, capture_output=True, text=True, timeout=120
    )
    elapsed = time.monotonic() - start
    assert done.returncode == 0, f"gcloud failed: {done.stderr}"
    return json.loads(done.stdout), elapsed


def json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def flag(command: str, name: str) -> str:
    """The value of `--name=VALUE` in a printed command."""
    return next(w.split("=", 1)[1] for w in shlex.split(command) if w.startswith(f"--{name}="))


@pytest.mark.parametrize("case", list(CASES))
def test_gcloud_execute_and_replay_return_the_same_entries(
    case: str, fake: FakeLogging, export: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = [*TARGET, *CASES[case], "--format=json"]
    code, printed, err = run_cli(*args)
    assert code == 0, err
    commands = json_lines(printed)
    env = gcloud_env(fake, tmp_path / "gcloud-config")
    with concurrent.futures.ThreadPoolExecutor(len(commands)) as pool:
        ran = list(pool.map(lambda c: run_gcloud(c["command"], env), commands))
    print(f"{case}: gcloud took " + ", ".join(f"{seconds:.2f}s" for _, seconds in ran))
    point_at(monkeypatch, fake)

    fetches = [
        Fetch(
            Query(c["purpose"], c["filter"]),
            int(flag(c["command"], "limit")),
            flag(c["command"], "order"),
        )
        for c in commands
    ]
    direct = CloudSource(PROJECT, io.StringIO()).run(fetches)
    assert [r.entries for r in direct] == [entries for entries, _ in ran]

    code, executed, err = run_cli(*args, "--execute")
    assert code == 0, err
    code, replayed, err = run_cli(*args, f"--logs_file={export}")
    assert code == 0, err
    results = [Result(f, entries) for f, (entries, _) in zip(fetches, ran)]
    expected = shape(results, options_from(build_parser().parse_args(args))).entries
    assert expected, "the case should find something"
    ids = [e["insertId"] for e in expected]
    assert [e["insertId"] for e in json_lines(executed)] == ids
    assert [e["insertId"] for e in json_lines(replayed)] == ids
    assert json_lines(executed) == expected
    assert json_lines(replayed) == expected


def test_the_export_keeps_nanoseconds_and_receive_timestamps() -> None:
    """The contract above is only as strong as its export: check it has what could be lost."""
    entries = sample_incident()
    assert any(len(e["timestamp"]) == len("2026-10-22T11:05:00.123456789Z") for e in entries)
    assert all("receiveTimestamp" in e for e in entries)
    assert any(e["jsonPayload"].get("eventTime", "") is None for e in entries if "jsonPayload" in e)
