"""Fetches asked per source: SQL returns every container's first (or latest) lines, unpaged.

Triage asks its crash sweep and its latest lines so; entries.list can only
page through them, within a request budget, while one SQL query partitions
by pod and container. The answer must hold exactly each container's first N
(or latest N) matches, in the fetch's order, however many that makes in all.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pathways_workload.analytics import offline, queries
from pathways_workload.analytics.offline import OfflineStore
from pathways_workload.analytics.rows import entry_from_row
from pathways_workload.analytics.source import AnalyticsSource
from pathways_workload.describe import source_group
from pathways_workload.query import Query
from pathways_workload.sources.base import Fetch, sort_key
from tests.analytics.test_offline_parity import micro_text
from tests.helpers import container_entry, run_cli
from tests.test_incidents import INCIDENTS, NAMES, target_args
from tests.test_scale import triage_large

WINDOW = 'timestamp>="2026-10-22T11:00:00Z" timestamp<="2026-10-22T12:00:00Z"'
PODS = 150
LINES = 12


def _export(tmp_path: Path) -> tuple[Path, list[dict[str, Any]]]:
    """PODS workers logging LINES crash lines each, interleaved over the hour, and one INFO
    line each that no crash fetch asks for."""
    entries = []
    for pod in range(PODS):
        for line in range(LINES + 1):
            second = line * 240 + pod
            entries.append(
                container_entry(
                    f"Check failed: step {line}" if line < LINES else "all is well",
                    pod=f"llama-train-worker-0-{pod}-abcde",
                    severity="ERROR" if line < LINES else "INFO",
                    timestamp=f"2026-10-22T11:{second // 60:02d}:{second % 60:02d}.5Z",
                )
            )
    path = tmp_path / "export.jsonl"
    path.write_text("".join(json.dumps(entry) + "\n" for entry in entries))
    return path, entries


def _run(path: Path, *fetches: Fetch) -> list[Any]:
    with OfflineStore([str(path)]) as store:
        source = AnalyticsSource(store.rows, queries.View("`p.d._Default`", None), full=True)
        return source.run(fetches)


def _fetch(order: str, per_source: int, limit: int = 1000) -> Fetch:
    return Fetch(Query("crashes", f"{WINDOW} severity>=ERROR"), limit, order, per_source=per_source)


def test_each_container_gives_its_first_lines_past_any_page_limit(tmp_path: Path) -> None:
    path, entries = _export(tmp_path)
    crashes = [e for e in entries if e["severity"] == "ERROR"]
    first, latest, paged = _run(path, _fetch("asc", 10), _fetch("desc", 3), _fetch("asc", 0, 40))

    def kept(order: str, count: int) -> list[str]:
        by_pod: dict[str, list[dict[str, Any]]] = {}
        for entry in sorted(crashes, key=sort_key, reverse=order == "desc"):
            by_pod.setdefault(entry["resource"]["labels"]["pod_name"], []).append(entry)
        chosen = [e for lines in by_pod.values() for e in lines[:count]]
        return [e["insertId"] for e in sorted(chosen, key=sort_key, reverse=order == "desc")]

    assert [e["insertId"] for e in first.entries] == kept("asc", 10)
    assert len(first.entries) == PODS * 10 > first.fetch.limit
    assert (first.truncated, first.answered, first.matched) == (True, True, PODS * LINES)
    assert [e["insertId"] for e in latest.entries] == kept("desc", 3)
    assert len(paged.entries) == 40 and not paged.answered  # an ordinary fetch keeps its limit


def test_a_capped_answer_is_not_complete(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path, _ = _export(tmp_path)
    monkeypatch.setattr(queries, "MOST_SOURCE_ROWS", 100)
    (capped,) = _run(path, _fetch("asc", 10))
    assert len(capped.entries) == 100
    assert (capped.truncated, capped.answered) == (True, False)


def test_triage_of_1024_hosts_takes_four_queries_and_finds_every_failing_host(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The crash lines of 1,024 hosts come back whole in one query, not page by page."""
    sent: list[str] = []
    rows = OfflineStore.rows

    def counted(store: OfflineStore, sql: str) -> list[dict[str, Any]]:
        sent.append(sql)
        return rows(store, sql)

    monkeypatch.setattr(offline.OfflineStore, "rows", counted)
    report, planted = triage_large("cascade-1024", "--engine=analytics")
    assert len(sent) <= 4
    root = report["root_cause"]
    assert (root["pod"], root["host"]) == (planted.root_pod, planted.root_host)
    assert {host["pod"] for host in report["failing_hosts"]} == planted.failing_pods
    assert report["failing_hosts_missing"] is None
    crash_check = report["checks"][0]
    assert crash_check["count"] > 1000 and crash_check["status"] != "truncated"


@pytest.mark.parametrize("name", NAMES)
def test_first_per_pod_groups_as_the_default_engine_does(name: str) -> None:
    """Entry actions, grouped by source in SQL, print what the default engine prints."""
    for action in ("errors", "workers", "pod-events", "node-ooms", "summary"):
        args = [*target_args(name), f"--action={action}", "--first_per_pod=2"]
        default = run_cli(*args)
        analytics = run_cli(*args, "--engine=analytics")
        assert analytics[0] == default[0], (action, analytics[2])
        assert micro_text(analytics[1]) == micro_text(default[1]), action


@pytest.mark.parametrize("engine", ["logging", "analytics"])
def test_first_per_pod_gives_each_jobset_and_job_its_own_group(engine: str) -> None:
    """The JobSet's and its Jobs' events are all the cluster's: as one group, the first and
    last line of `summary --first_per_pod=1` hid Kueue's `Stopped` event, the cause."""
    args = [*target_args("kueue-preemption"), "--action=summary", "--first_per_pod=1"]
    code, out, err = run_cli(*args, f"--engine={engine}")
    assert code == 0, err
    assert "== cluster/pw-cluster/JobSet/mixtral-pt: 2 of 2 matching lines ==" in out
    assert "Stopped: Preempted to accommodate a workload" in out


def test_no_source_key_spans_two_groups() -> None:
    """Rows sharing a key share `describe.source_group`, in every recorded incident."""
    sql = (
        f"SELECT {queries.SOURCE_KEY}, {', '.join(queries._columns(True))} "
        "FROM `p.d._Default` AS log_entry"
    )
    for name in NAMES:
        with OfflineStore([str(INCIDENTS / f"{name}.json")]) as store:
            groups: dict[str, set[str]] = {}
            for row in store.rows(sql):
                groups.setdefault(row["source_key"], set()).add(source_group(entry_from_row(row)))
        assert all(len(found) == 1 for found in groups.values()), name


def test_first_per_pod_in_sql_is_not_cut_by_the_fetch_limit() -> None:
    """entries.list groups what --fetch_limit let through; SQL groups every source."""
    args = [*target_args("host-oom-worker"), "--action=errors", "--first_per_pod=1"]
    code, out, err = run_cli(*args, "--fetch_limit=5")
    assert code == 0 and "was hit before grouping" in err
    code, grouped, err = run_cli(*args, "--fetch_limit=5", "--engine=analytics")
    assert code == 0 and "was hit before grouping" not in err
    code, whole, _ = run_cli(*args)
    assert micro_text(grouped) == micro_text(whole) != micro_text(out)


def test_printed_sql_groups_by_source_and_says_so() -> None:
    code, out, err = run_cli(
        "--project=my-project",
        "--jobset_name=llama-train",
        "--issue_time=2026-10-22T11:40:00Z",
        "--engine=analytics",
        "--analytics_dataset=my-project.pathways_logs",
        "--analytics_location=US",
        "--action=errors",
        "--first_per_pod=3",
    )
    assert code == 0, err
    assert out.startswith("# note: with --first_per_pod the queries below keep each source's")
    assert "source_position <= 3 OR source_position >= source_count - 1" in out
