"""Parity: the analytics engine offline returns what the query-language engine returns.

For every corpus incident, every filter that every entry action prints is
asked both ways: by the file source (the query-language engine) and as one
SQL query on DuckDB. The entries must be the same, in the same order up to
ties within a microsecond (BigQuery keeps microseconds and breaks ties by
insert_id). The SQL group key must be `describe.where` of every entry.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from pathways_workload.analytics import queries
from pathways_workload.analytics.offline import OfflineStore
from pathways_workload.analytics.source import AnalyticsSource
from pathways_workload.describe import where
from pathways_workload.query import Query
from pathways_workload.registry import ACTIONS
from pathways_workload.shaping import group_first
from pathways_workload.sources.base import Entry, Fetch, entry_time_ns
from pathways_workload.sources.files import FileSource
from tests.helpers import run_cli
from tests.test_incidents import INCIDENTS, NAMES, expected, target_args

REPORTS = {"preflight", "neighbors", "triage", "versions", "pods", "query"}
ENTRY_ACTIONS = [name for name in ACTIONS if name not in REPORTS]
LIMIT = 5000


def printed_filters(name: str) -> list[tuple[str, str]]:
    """(action, filter) for every query the entry actions print for an incident."""
    args = [arg for arg in target_args(name) if not arg.startswith("--logs_file")]
    nodes = expected(name).get("workload_nodes", [])[:2]
    found = []
    for action in ENTRY_ACTIONS:
        extra = [f"--node_names={','.join(nodes)}"] if nodes else []
        code, out, err = run_cli(*args, f"--action={action}", "--format=json", *extra)
        assert code == 0, err
        found += [(action, json.loads(line)["filter"]) for line in out.splitlines()]
    return found


def microsecond_key(entry: Entry) -> tuple[int, str]:
    """BigQuery's order: the timestamp in microseconds, then insert_id."""
    return entry_time_ns(entry) // 1000, entry["insertId"]


def microsecond_order(entries: list[Entry]) -> list[str]:
    """insertIds in BigQuery's order."""
    return [entry["insertId"] for entry in sorted(entries, key=microsecond_key)]


@pytest.fixture(scope="module", params=NAMES)
def incident(request: pytest.FixtureRequest) -> Iterator[tuple[str, OfflineStore]]:
    with OfflineStore([str(INCIDENTS / f"{request.param}.json")]) as store:
        yield request.param, store


def test_every_entry_action_returns_the_same_entries(incident: tuple[str, Any]) -> None:
    name, store = incident
    filters = printed_filters(name)
    fetches = [Fetch(Query(action, text), LIMIT) for action, text in filters]
    wanted = FileSource([str(INCIDENTS / f"{name}.json")]).run(fetches)
    source = AnalyticsSource(store.rows, queries.View("`pw-demo.logs._Default`", "pw-demo"))
    got = source.run(fetches)
    assert source.queries_run == 1
    assert any(result.entries for result in wanted)
    for (action, _), want, have in zip(filters, wanted, got):
        assert [e["insertId"] for e in have.entries] == microsecond_order(want.entries), action
        assert have.truncated == want.truncated


def test_first_lines_per_pod_match_the_executor(incident: tuple[str, Any]) -> None:
    """--first_per_pod: the SQL's groups are the executor's, node-level entries included."""
    name, store = incident
    filters = printed_filters(name)
    source = AnalyticsSource(store.rows, queries.View("`pw-demo.logs._Default`", "pw-demo"))
    questions = [
        queries.Question(text, 1000, shape=queries.FIRST_PER_GROUP, keep=2) for _, text in filters
    ]
    answers = source.answer(questions)
    wanted = FileSource([str(INCIDENTS / f"{name}.json")]).run(
        [Fetch(Query(a, text), 1000) for a, text in filters]
    )
    for want, answer in zip(wanted, answers):
        fetched = sorted(want.entries, key=microsecond_key)
        groups = group_first(fetched, 2, {})
        assert [e["insertId"] for g in groups for e in g.entries] == [
            e["insertId"]
            for e in sorted(answer.entries, key=lambda e: [g.where for g in groups].index(where(e)))
        ]
        assert answer.group_totals == {g.where: g.total for g in groups}
