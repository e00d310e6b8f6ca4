"""One action, three ways: the printed `bq` commands, `--execute`, and `--logs_file`, all as SQL.

Print mode's shell runs with the real `bq` CLI against the fake BigQuery
(which runs the SQL on DuckDB through the tool's transpiler); `--execute`
sends the same SQL through google-cloud-bigquery to the same fake; offline
replay runs it on DuckDB directly. Each way must give the same entries; the
export's default engine the same too, up to ties within a microsecond.
Whether real BigQuery accepts every construct is what only a dry run with
real credentials can settle (the README says how to run one).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from pathways_workload.actions.node_level import NODE_LINES, SCHEDULED
from pathways_workload.analytics.bigquery import ENDPOINT_ENV
from pathways_workload.analytics.offline import OfflineStore
from pathways_workload.analytics.rows import entry_from_row
from pathways_workload.arguments import build_parser, options_from
from pathways_workload.query import Query
from pathways_workload.shaping import shape
from pathways_workload.sources.base import Fetch, Result
from tests.analytics.bq_cli import json_arrays, require_bq, run_printed
from tests.analytics.test_offline_parity import said, tie_order
from tests.fake_bigquery import FakeBigQuery
from tests.helpers import run_cli
from tests.test_incidents import INCIDENTS, target_args

OOM, PREEMPTION = "host-oom-worker", "preemption-sigterm"
TABLE = "pw-demo.pathways_logs._Default"
ENGINE = (
    "--engine=analytics",
    "--analytics_dataset=pw-demo.pathways_logs",
    "--analytics_location=US",
    "--billing_project=pw-billing",
)
# Actions whose every stage print mode can run (no traceback follow-ups).
PRINTABLE = {
    "pod-events": (OOM, "--action=pod-events"),
    "node-ooms": (OOM, "--action=node-ooms"),
    "interruptions": (PREEMPTION, "--action=interruptions"),
    "workers": (OOM, "--action=workers", "--min_severity=INFO", "--first_per_pod=1"),
    "query-desc": (
        OOM,
        "--action=query",
        "--filter=severity>=WARNING",
        "--order=desc",
        "--limit=4",
    ),
}
RUN_ONLY = {
    "errors": (OOM, "--action=errors"),
    "triage": (OOM, "--action=triage"),
    "neighbors": (OOM, "--action=neighbors"),
    "versions": (OOM, "--action=versions"),
    "preflight": (OOM, "--action=preflight"),
    "triage-preempted": (PREEMPTION, "--action=triage"),
}
DISCOVERY = {SCHEDULED, NODE_LINES}


def export(incident: str) -> Path:
    return INCIDENTS / f"{incident}.json"


def target(incident: str) -> tuple[str, ...]:
    """The incident's target and window, the engine's flags, no export."""
    kept = [arg for arg in target_args(incident) if not arg.startswith("--logs_file")]
    return (*kept, *ENGINE)


@pytest.fixture(scope="module")
def fakes() -> Iterator[dict[str, FakeBigQuery]]:
    """A fake BigQuery per incident, over the incident's export."""
    with ExitStack() as stack:
        found = {}
        for incident in (OOM, PREEMPTION):
            store = stack.enter_context(OfflineStore([str(export(incident))]))
            found[incident] = stack.enter_context(FakeBigQuery(store, (TABLE,), "US"))
            found[incident].page_rows = 500
        yield found


def pointed(fake: FakeBigQuery, monkeypatch: pytest.MonkeyPatch) -> FakeBigQuery:
    """The tool's BigQuery client sent to the fake, with no credentials."""
    monkeypatch.setenv(ENDPOINT_ENV, fake.url)
    monkeypatch.setenv("CLOUDSDK_AUTH_DISABLE_CREDENTIALS", "true")
    return fake


def cli_json(incident: str, *args: str) -> str:
    code, out, err = run_cli(*target(incident), *args, "--format=json")
    assert code == 0, err
    return out


def lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def printed_answers(
    incident: str, args: tuple[str, ...], fake: FakeBigQuery, home: Path
) -> list[Result]:
    """The results of the printed text's queries run by bash and bq (discovery left out)."""
    code, script, err = run_cli(*target(incident), *args)
    assert code == 0, err
    records = lines(cli_json(incident, *args))
    arrays = json_arrays(run_printed(script, fake, home))
    assert len(arrays) == len(records)
    results = []
    for record, rows in zip(records, arrays):
        for asked in record["fetches"]:
            fetch = Fetch(Query(asked["purpose"], asked["filter"]), asked["limit"], asked["order"])
            found = [r for r in rows if int(r["fetch_index"]) == asked["fetch_index"]]
            if asked["name"] not in DISCOVERY:
                results.append(Result(fetch, [entry_from_row(row) for row in found]))
    return results


@pytest.mark.parametrize("case", list(PRINTABLE))
def test_printed_bq_execute_and_replay_return_the_same_entries(
    case: str, fakes: dict[str, FakeBigQuery], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_bq()
    incident, *args = PRINTABLE[case]
    fake = pointed(fakes[incident], monkeypatch)
    results = printed_answers(incident, tuple(args), fake, tmp_path)
    options = options_from(build_parser().parse_args([*target(incident), *args]))
    expected = [entry["insertId"] for entry in shape(results, options).entries]
    assert expected, "the case should find something"
    executed = cli_json(incident, *args, "--execute")
    replayed = cli_json(incident, *args, f"--logs_file={export(incident)}")
    assert [entry["insertId"] for entry in lines(executed)] == expected
    assert executed == replayed
    default = lines(run_cli(*target_args(incident), *args, "--format=json")[1])
    assert tie_order(lines(replayed)) == tie_order(default)


@pytest.mark.parametrize("case", list(RUN_ONLY))
def test_execute_and_replay_say_the_same(
    case: str, fakes: dict[str, FakeBigQuery], monkeypatch: pytest.MonkeyPatch
) -> None:
    incident, *args = RUN_ONLY[case]
    pointed(fakes[incident], monkeypatch)
    executed = cli_json(incident, *args, "--execute")
    assert executed == cli_json(incident, *args, f"--logs_file={export(incident)}")
    default = run_cli(*target_args(incident), *args, "--format=json")[1]
    action = args[0].removeprefix("--action=")
    if action == "errors":
        assert tie_order(lines(executed)) == tie_order(lines(default))
    else:
        assert said(executed, action) == said(default, action)


def test_execute_dry_runs_each_query_and_caps_its_bytes(
    fakes: dict[str, FakeBigQuery], monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = pointed(fakes[OOM], monkeypatch)
    before = len(fake.requests)
    code, _, err = run_cli(*target(OOM), "--action=node-ooms", "--execute")
    assert code == 0, err
    sent = fake.requests[before:]
    dry = [body for _, path, body in sent if path.endswith("/jobs")]
    run = [body for _, path, body in sent if path.endswith("/queries")]
    assert len(dry) == len(run) == 2  # node discovery, then the node queries
    assert all(body["configuration"]["dryRun"] for body in dry)
    assert all(body["maximumBytesBilled"] == "50000000000" for body in run)
    assert err.count("dry run: the query will process 123.5 MB") == 2


def test_a_cap_of_one_byte_is_a_dry_run_only(
    fakes: dict[str, FakeBigQuery], monkeypatch: pytest.MonkeyPatch
) -> None:
    """As the README says: the first query is dry-run, its bytes printed, nothing billed."""
    fake = pointed(fakes[OOM], monkeypatch)
    before = len(fake.requests)
    code, out, err = run_cli(*target(OOM), "--action=triage", "--execute", "--max_bytes_billed=1")
    assert (code, out) == (2, "")
    assert "dry run: the query will process 123.5 MB (123456789 bytes)" in err
    assert err.splitlines()[-1] == (
        "error: the query would process 123.5 MB, more than --max_bytes_billed=1: narrow the "
        "window (--duration) or raise --max_bytes_billed"
    )
    assert not any(path.endswith("/queries") for _, path, _ in fake.requests[before:])
