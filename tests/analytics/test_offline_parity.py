"""Parity: `--engine=analytics --logs_file` answers every action as the default engine does.

For every corpus incident, every action runs through the command line twice,
once on the query-language engine and once as SQL on DuckDB (node discovery,
traceback follow-ups and all). Entry actions must return the same entries in
the same order, up to ties within a microsecond (BigQuery keeps microseconds
and breaks ties by insert_id); reports (versions, neighbors, pods, preflight)
must say the same once timestamps are cut to microseconds (times the tool
computes from them, within one microsecond). Triage must find the same: root
cause, failing hosts, nodes and versions; what it read differs, since SQL asks
for every container's first crash lines and latest lines where entries.list
pages. And each stage is one SQL query: triage's answers take at most four.
"""

from __future__ import annotations

import dataclasses
import json
import re
import urllib.parse
from collections.abc import Iterator
from itertools import groupby
from pathlib import Path
from typing import Any

import pytest

from pathways_workload.actions.entry_report import EntryPresenter
from pathways_workload.analytics import engine, queries
from pathways_workload.analytics.offline import OfflineStore
from pathways_workload.analytics.source import AnalyticsSource
from pathways_workload.registry import ACTIONS
from pathways_workload.runner import NO_SPAN
from pathways_workload.sources.base import Entry, entry_time_ns
from pathways_workload.timestamps import parse_timestamp_ns
from tests.helpers import container_entry, run_cli
from tests.test_incidents import INCIDENTS, NAMES, expected, target_args

ENTRY_ACTIONS = [n for n, a in ACTIONS.items() if isinstance(a.present, EntryPresenter)]
REPORT_ACTIONS = [n for n in ACTIONS if n not in ENTRY_ACTIONS]
# What --action=query asks of every incident: the workload's own failures.
QUERY_FILTER = "--filter=severity>=ERROR"
MOST_TRIAGE_QUERIES = 4
_TIMESTAMP = re.compile(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?Z")


def micro_text(text: str) -> str:
    """Every RFC 3339 timestamp in the text cut (or padded) to six fractional digits."""
    return _TIMESTAMP.sub(lambda m: f"{m.group(1)}.{(m.group(2) or '').ljust(6, '0')[:6]}Z", text)


@dataclasses.dataclass(frozen=True)
class Instant:
    """A timestamp of a report, in microseconds; equal to one at most 1 µs away.

    Times the tool computes (when a quiet host's next line was due) come out
    1 µs apart when computed from microseconds instead of nanoseconds.
    """

    micros: int

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Instant) and abs(self.micros - other.micros) <= 1

    def __hash__(self) -> int:
        return 0


def micro_report(text: str) -> Any:
    """A JSON report with its timestamps in microseconds, those inside links too."""

    def cut(value: Any, key: str = "") -> Any:
        if isinstance(value, dict):
            return {k: cut(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [cut(item) for item in value]
        if isinstance(value, str) and _TIMESTAMP.fullmatch(value):
            return Instant(parse_timestamp_ns(value) // 1000)
        if isinstance(value, str):
            return micro_text(urllib.parse.unquote(value) if key == "url" else value)
        return value

    return cut(json.loads(text))


# What triage finds, which both engines must agree on. What it read differs: SQL asks
# for every container's first crash lines and latest lines, where entries.list pages.
TRIAGE_FINDINGS = (
    "root_cause",
    "failing_hosts",
    "origin_hosts",
    "failing_hosts_missing",
    "lead_host",
    "lowest_indexed_host",
    "workload_nodes",
    "versions",
)


def said(text: str, action: str) -> Any:
    """A report as the engines must agree on it: whole, or triage's findings."""
    report = micro_report(text)
    if action != "triage":
        return report
    return {key: report.get(key) for key in TRIAGE_FINDINGS}


def tie_order(entries: list[Entry]) -> list[tuple[int, str]]:
    """(microsecond, insertId) of each entry; within a run of one microsecond, by insertId."""
    keys = [(entry_time_ns(entry) // 1000, str(entry["insertId"])) for entry in entries]
    return [key for _, run in groupby(keys, key=lambda k: k[0]) for key in sorted(run)]


def answers(name: str, action: str, *engine_args: str) -> tuple[int, str]:
    extra = [QUERY_FILTER] if action == "query" else []
    args = [*target_args(name), f"--action={action}", "--format=json", *extra, *engine_args]
    code, out, err = run_cli(*args)
    assert code in (0, 1), err
    return code, out


@pytest.fixture(scope="module", params=NAMES)
def incident(request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    """Every action's JSON answer on both engines, and the SQL each analytics run sent.

    The export is loaded into DuckDB once for all the runs of an incident.
    """
    sent: dict[str, list[str]] = {}

    def loaded(
        paths: list[str], dataset: Any, project: Any, full: bool, stack: Any, *opened: Any
    ) -> Any:
        view = queries.View(dataset.table_or_stand_in(), project)
        sent[current] = (source := AnalyticsSource(store.rows, view, full)).sql_run
        return source

    found: dict[str, Any] = {"name": request.param, "sql": sent}
    export = str(INCIDENTS / f"{request.param}.json")
    with OfflineStore([export]) as store, pytest.MonkeyPatch.context() as patch:
        patch.setattr(engine, "offline_source", loaded)
        for current in ACTIONS:
            found[current] = (
                answers(request.param, current),
                answers(request.param, current, "--engine=analytics"),
            )
    yield found


def test_entry_actions_return_the_same_entries(incident: dict[str, Any]) -> None:
    for action in ENTRY_ACTIONS:
        (code, default), (analytics_code, analytics) = incident[action]
        want = [json.loads(line) for line in default.splitlines()]
        have = [json.loads(line) for line in analytics.splitlines()]
        assert analytics_code == code
        assert tie_order(have) == tie_order(want), action


def test_reports_say_the_same(incident: dict[str, Any]) -> None:
    for action in REPORT_ACTIONS:
        (code, default), (analytics_code, analytics) = incident[action]
        assert analytics_code == code
        if not default.strip():  # nothing to ask (no nodes found): nothing said
            assert not analytics.strip(), action
            continue
        assert said(analytics, action) == said(default, action), action


def test_every_stage_is_one_query_and_triage_takes_at_most_four(incident: dict[str, Any]) -> None:
    for action in ACTIONS:
        stages = len(ACTIONS[action].stages)
        assert 1 <= len(incident["sql"][action]) <= stages, action
    assert len(incident["sql"]["triage"]) <= MOST_TRIAGE_QUERIES


def test_some_incident_answers_each_entry_action() -> None:
    """The comparison above is only as strong as what the actions find on the corpus."""
    empty = set(ENTRY_ACTIONS)
    for name in NAMES:
        for action in list(empty):
            if answers(name, action)[1].strip():
                empty.discard(action)
    assert not empty


def test_node_evidence_before_the_first_line_read_of_its_host_is_that_hosts() -> None:
    """host-oom-worker in a window that begins after its workers started: SQL reads each
    container's first crash lines and latest lines, so the killed worker's earliest line read
    is from its restart, after the kernel's OOM kill on its node. On both engines that kill
    is still its host's first error, and the host leads the failing hosts (it came after
    the hosts that only lost it)."""
    planted = expected("host-oom-worker")
    window = ("--start_time", "--end_time")
    args = [a for a in target_args("host-oom-worker") if not a.startswith(window)]
    args += ["--start_time=2026-11-17T13:15:00Z", "--action=triage", "--format=json"]
    for engine_args in ([], ["--engine=analytics"]):
        code, out, err = run_cli(*args, *engine_args)
        assert code == 0, err
        first = json.loads(out)["failing_hosts"][0]
        assert first["pod"] == planted["failing_hosts"][0]["pod"], engine_args
        assert micro_text(first["first_error_time"]) == micro_text(
            planted["root_cause"]["timestamp"]
        )


def test_an_export_without_timestamps_gives_the_default_engine_s_window(tmp_path: Path) -> None:
    """An export holding no entry with a usable timestamp has no span: the default engine
    says so; Log Analytics gave the hour before now as the export's window, a window the
    flags did not give and the export does not hold."""
    export = tmp_path / "empty.json"
    export.write_text("[]", encoding="utf-8")
    said_by = []
    for engine_args in ([], ["--engine=analytics"]):
        args = [f"--logs_file={export}", "--jobset_name=llama-train", "--action=triage"]
        code, out, err = run_cli(*args, "--format=json", *engine_args)
        assert code == 0, err
        assert err.splitlines()[0] == f"window: {NO_SPAN}"
        said_by.append(json.loads(out)["window"])
    assert said_by[1] == said_by[0]


def test_an_entry_with_a_key_given_twice_is_read_as_the_default_engine_reads_it(
    tmp_path: Path,
) -> None:
    """JSON parsers read a key given twice as its last value, and the default engine did;
    DuckDB refused the whole export (exit 5, naming a copy in a work folder instead of the
    export's line)."""
    entry = json.dumps(container_entry("Check failed: x == y"))
    twice = entry.replace('"textPayload":', '"textPayload": "fine", "textPayload":', 1)
    export = tmp_path / "twice.json"
    export.write_text(f"[{twice}]", encoding="utf-8")
    found = []
    for engine_args in ([], ["--engine=analytics"]):
        args = [f"--logs_file={export}", "--jobset_name=llama-train", "--action=errors"]
        code, out, err = run_cli(*args, "--format=json", *engine_args)
        assert code == 0, err
        found.append([json.loads(line)["textPayload"] for line in out.splitlines()])
    assert found[1] == found[0] == ["Check failed: x == y"]


def test_a_start_inside_a_microsecond_is_said_with_the_start_that_reads_its_line() -> None:
    """BigQuery keeps microseconds, so a start inside one is rounded up to the next: the
    client's last line, logged at the very start given (copied from the default engine's
    output), was left out without a word, and preflight counted one container fewer."""
    last = "2026-11-29T09:25:17.480992032Z"
    args = [
        *(a for a in target_args("client-job-finished") if not a.startswith("--start_time")),
        "--engine=analytics",
        "--action=query",
        '--filter=resource.labels.container_name="main"',
        "--format=json",
    ]
    code, out, err = run_cli(*args, f"--start_time={last}")
    assert code == 0, err
    assert not out
    assert (
        "note: BigQuery keeps microseconds, so the window starts at the next one, "
        "2026-11-29T09:25:17.480993Z: a line logged from 2026-11-29T09:25:17.480992032Z to then "
        "is left out; to read it, give --start_time=2026-11-29T09:25:17.480992Z "
        "--end_time=2026-11-29T10:00:00Z (a line up to 1 µs before the start is then read too)"
    ) in err.splitlines()
    code, out, err = run_cli(*args, "--start_time=2026-11-29T09:25:17.480992Z")
    assert code == 0, err
    assert [json.loads(line)["timestamp"] for line in out.splitlines()] == [micro_text(last)]
    assert "keeps microseconds" not in err


def test_a_filter_start_inside_a_microsecond_is_said_with_the_bound_that_reads_its_line() -> None:
    """A `timestamp>=` of --filter starts the query as --start_time does, at the next
    microsecond: the client's last line, at the very instant the filter named (copied from
    the default engine's output), was left out without a word."""
    last = "2026-11-29T09:25:17.480992032Z"
    args = [*target_args("client-job-finished"), "--engine=analytics", "--action=query"]
    container = 'resource.labels.container_name="main"'
    code, out, err = run_cli(*args, f'--filter={container} timestamp>="{last}"', "--format=json")
    assert code == 0, err
    assert not out
    assert (
        f'note: BigQuery keeps microseconds, so --filter\'s timestamp>="{last}" reads from the '
        "next one, 2026-11-29T09:25:17.480993Z: a line logged from "
        f"{last} to then is left out; to read it, write "
        'timestamp>="2026-11-29T09:25:17.480992Z" (a line up to 1 µs before it is then read too)'
    ) in err.splitlines()
    bound = 'timestamp>="2026-11-29T09:25:17.480992Z"'
    code, out, err = run_cli(*args, f"--filter={container} {bound}", "--format=json")
    assert code == 0, err
    assert [json.loads(line)["timestamp"] for line in out.splitlines()] == [micro_text(last)]
    assert "keeps microseconds" not in err
