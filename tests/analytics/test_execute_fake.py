"""--execute through the real BigQuery client and the real `bq` CLI, on a loopback fake.

The fake runs the SQL it receives on DuckDB through the tool's transpiler,
so all three paths (client, printed bq command, offline) must agree. Error
answers are the fake's: their wording follows BigQuery's documented error
format, but which texts real BigQuery sends for missing roles is what only
real BigQuery can settle.
"""

from __future__ import annotations

import io
import json
import os
import shlex
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pathways_workload.analytics import queries
from pathways_workload.analytics.bigquery import BigQueryRunner
from pathways_workload.analytics.dataset import Dataset
from pathways_workload.analytics.offline import OfflineStore
from pathways_workload.analytics.printing import bq_command, bq_words
from pathways_workload.analytics.source import AnalyticsSource
from pathways_workload.errors import AccessError, CloudLoggingError, UsageError
from pathways_workload.query import Query
from pathways_workload.sources.base import Fetch
from pathways_workload.sources.retry import Backoff
from tests.fake_bigquery import FakeBigQuery
from tests.test_incidents import INCIDENTS

BQ = shutil.which("bq")
CLOSED_PORT = "127.0.0.1:9"
DATASET = Dataset("pw-demo.pathways_logs", "pw-billing", location="US")
WINDOW = 'timestamp>="2026-11-17T13:00:00Z" timestamp<="2026-11-17T14:00:00Z"'
ERRORS = f'{WINDOW} resource.type="k8s_container" severity>=ERROR'
EVENTS = f'{WINDOW} log_id("events")'


@pytest.fixture(scope="module")
def store() -> Iterator[OfflineStore]:
    with OfflineStore([str(INCIDENTS / "host-oom-worker.json")]) as opened:
        yield opened


@pytest.fixture
def fake(store: OfflineStore, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeBigQuery]:
    monkeypatch.setenv("CLOUDSDK_AUTH_DISABLE_CREDENTIALS", "true")
    with FakeBigQuery(store, ("pw-demo.pathways_logs._Default",), "US") as server:
        server.page_rows = 7
        yield server


def runner(fake: FakeBigQuery, dataset: Dataset = DATASET) -> tuple[BigQueryRunner, io.StringIO]:
    err = io.StringIO()
    quick = Backoff(initial=0.01, maximum=0.02, deadline=0.2, uniform=lambda low, high: low)
    return BigQueryRunner(dataset, err, endpoint=fake.url, backoff=quick, sleep=lambda _: None), err


def fetches() -> list[Fetch]:
    return [
        Fetch(Query("errors", ERRORS), 40),
        Fetch(Query("events", EVENTS), 30, order="desc"),
        Fetch(Query("many errors", ERRORS), 100),
    ]


def answers(run_sql: Any, full: bool = True) -> list[list[str]]:
    source = AnalyticsSource(run_sql, queries.View(DATASET.table(), "pw-demo"), full=full)
    return [[e["insertId"] for e in result.entries] for result in source.run(fetches())]


def test_the_client_returns_what_duckdb_returns(fake: FakeBigQuery, store: OfflineStore) -> None:
    bigquery, err = runner(fake)
    offline = answers(store.rows)
    assert all(offline) and answers(bigquery.rows) == offline
    first = [(method, path.rsplit("/", 1)[-1]) for method, path, _ in fake.requests[:2]]
    assert first == [("POST", "jobs"), ("POST", "queries")]  # the dry run, then the query
    insert = next(body for method, path, body in fake.requests if path.endswith("/jobs"))
    assert insert["configuration"]["dryRun"] is True
    query = next(body for method, path, body in fake.requests if path.endswith("/queries"))
    assert query["maximumBytesBilled"] == str(DATASET.max_bytes_billed)
    assert query["location"] == "US" and query["useLegacySql"] is False
    assert any(
        path.endswith(f"/queries/{query_id}")
        for query_id in fake.jobs
        for _, path, _ in fake.requests
    )
    assert "dry run: the query will process 123.5 MB (123456789 bytes)" in err.getvalue()
    assert all(agent.startswith("pathways-workload/") for agent in fake.user_agents)


def test_backticks_inside_a_string_are_not_a_table(fake: FakeBigQuery, store: OfflineStore) -> None:
    """A SEARCH phrase is backticked inside a string literal; the fake took it for a table
    and answered "Not found", as no real BigQuery would."""
    phrase = f'{ERRORS} SEARCH(textPayload, "`SIGTERM received`")'
    source = AnalyticsSource(
        runner(fake)[0].rows, queries.View(DATASET.table(), "pw-demo"), full=False
    )
    found = source.run([Fetch(Query("phrase", phrase), 50)])[0].entries
    offline = AnalyticsSource(store.rows, queries.View(DATASET.table(), "pw-demo"), full=False)
    assert found and found == offline.run([Fetch(Query("phrase", phrase), 50)])[0].entries


def test_a_query_over_the_byte_cap_stops_after_the_dry_run(fake: FakeBigQuery) -> None:
    capped = Dataset(DATASET.dataset, DATASET.billing_project, "US", max_bytes_billed=1000)
    bigquery, _ = runner(fake, capped)
    with pytest.raises(UsageError, match="--max_bytes_billed=1000"):
        answers(bigquery.rows)
    assert not any(path.endswith("/queries") for _, path, _ in fake.requests)


def test_transient_errors_are_retried(fake: FakeBigQuery) -> None:
    fake.fail(503, "Backend error", times=2)
    bigquery, err = runner(fake)
    assert answers(bigquery.rows)[0]
    assert err.getvalue().count("retrying") == 2


def test_persistent_failure_exits_4(fake: FakeBigQuery) -> None:
    fake.fail(503, "Backend error", times=1000)
    bigquery, _ = runner(fake)
    with pytest.raises(CloudLoggingError) as raised:
        answers(bigquery.rows)
    assert raised.value.exit_code == 4


@pytest.mark.parametrize(
    ("reason", "message"),
    [
        ("rateLimitExceeded", "Exceeded rate limits: too many concurrent queries for this project"),
        ("quotaExceeded", "Quota exceeded: Your project exceeded quota for free query bytes"),
    ],
)
def test_a_403_for_a_rate_or_quota_is_retried_then_exits_4(
    fake: FakeBigQuery, reason: str, message: str
) -> None:
    """BigQuery answers 403 for rates and quotas too: not a missing role."""
    fake.fail(403, message, times=1, reason=reason)
    bigquery, err = runner(fake)
    assert answers(bigquery.rows)[0]
    assert err.getvalue().count("retrying") == 1
    fake.fail(403, message, times=1000, reason=reason)
    with pytest.raises(CloudLoggingError, match="kept failing") as raised:
        answers(bigquery.rows)
    assert raised.value.exit_code == 4


def test_pages_that_loop_exit_4(fake: FakeBigQuery) -> None:
    """A page token that comes back would page for ever."""
    fake.token_loops = True
    bigquery, _ = runner(fake)
    with pytest.raises(CloudLoggingError, match="pages ran in a loop") as raised:
        answers(bigquery.rows)
    assert raised.value.exit_code == 4


def test_an_answer_that_is_not_the_api_s_exits_4(fake: FakeBigQuery) -> None:
    """A proxy's login page, with status 200."""
    fake.fail(200, "", times=1000, body=b"<html>sign in to the proxy</html>")
    bigquery, _ = runner(fake)
    with pytest.raises(CloudLoggingError, match="not what its API returns") as raised:
        answers(bigquery.rows)
    assert raised.value.exit_code == 4


@pytest.mark.parametrize(
    ("status", "message"),
    [
        (
            403,
            "Access Denied: Table pw-demo:pathways_logs._Default: User does not have "
            "permission to query table pw-demo:pathways_logs._Default, "
            "or perhaps it does not exist.",
        ),
        (404, "Not found: Dataset pw-demo:pathways_logs was not found in location US"),
    ],
)
def test_role_errors_only_real_bigquery_can_settle(
    fake: FakeBigQuery, status: int, message: str
) -> None:
    """Denied or missing: exit 3 naming both roles and both set-up commands."""
    fake.fail(status, message)
    bigquery, _ = runner(fake)
    with pytest.raises(AccessError) as raised:
        answers(bigquery.rows)
    text = str(raised.value)
    assert raised.value.exit_code == 3
    assert "roles/bigquery.dataViewer" in text and "roles/bigquery.jobUser" in text
    assert "gcloud logging buckets update _Default --location=global --enable-analytics" in text
    assert "gcloud logging links create pathways_logs --bucket=_Default" in text


def test_a_view_in_another_location_is_an_access_error(fake: FakeBigQuery) -> None:
    elsewhere = Dataset(DATASET.dataset, DATASET.billing_project, "EU")
    bigquery, _ = runner(fake, elsewhere)
    with pytest.raises(AccessError, match="--analytics_location=EU"):
        answers(bigquery.rows)


def bq_env(fake: FakeBigQuery, home: Path) -> dict[str, str]:
    """A throwaway bq: an unused token (the fake checks none), nothing beyond loopback."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLOUDSDK_", "GOOGLE_"))}
    env.update(
        HOME=str(home),
        CLOUDSDK_CONFIG=str(home / "gcloud"),
        CLOUDSDK_CORE_CHECK_GCE_METADATA="false",
        CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK="true",
        CLOUDSDK_CORE_DISABLE_PROMPTS="1",
        NO_GCE_CHECK="True",
        GCE_METADATA_HOST=CLOSED_PORT,
        GCE_METADATA_IP=CLOSED_PORT,
        HTTP_PROXY=f"http://{CLOSED_PORT}",
        HTTPS_PROXY=f"http://{CLOSED_PORT}",
        NO_PROXY="127.0.0.1,localhost",
    )
    return env


def test_the_printed_bq_command_returns_the_same_rows(
    fake: FakeBigQuery, store: OfflineStore, tmp_path: Path
) -> None:
    if BQ is None:
        if os.environ.get("CI") == "true":
            pytest.fail("the bq CLI is not installed (CI needs it)")
        pytest.skip("the bq CLI is not installed on this machine")
    shipped = (
        Path(BQ).resolve().parent.parent / "platform" / "bq" / "discovery_next" / "bigquery.json"
    )
    fake.discovery = json.loads(shipped.read_text())
    asked = [queries.Question(f.query.filter, f.limit, f.order) for f in fetches()]
    text = queries.build(asked, queries.View(DATASET.table(), "pw-demo"), full=True)
    command = bq_command(text, bq_words(DATASET, sum(f.limit for f in fetches())))
    words = shlex.split(command)
    assert words[1] == "bq" and words[-1] == text
    local = [f"--api={fake.url}", "--oauth_access_token=unused", "--format=json", "--headless"]
    done = subprocess.run(
        ["bash", "-c", command.replace(" bq ", " bq " + " ".join(local) + " ", 1)],
        env=bq_env(fake, tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    offline = store.rows(text)
    assert [(r["fetch_index"], r["insert_id"]) for r in rows] == [
        (str(r["fetch_index"]), r["insert_id"]) for r in offline
    ]
    insert = next(body for method, path, body in fake.requests if path.endswith("/jobs"))
    assert int(insert["configuration"]["query"]["maximumBytesBilled"]) == DATASET.max_bytes_billed
