"""The cloud source: what it asks for, how many requests it makes, and how it shares them.

Also the lazily imported client (print mode and offline replay never import
google.cloud), the endpoint and credential variables, backoff and the request
budget, progress lines, and preflight end to end against the fake server.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pathways_workload import USAGE_TOKENS
from pathways_workload.errors import AccessError, CloudLoggingError
from pathways_workload.query import Query
from pathways_workload.sources import credentials
from pathways_workload.sources.base import Fetch, sort_key
from pathways_workload.sources.cloud import CloudSource
from pathways_workload.sources.retry import Backoff, GaveUp, RequestBudget, retrying
from tests.fake_logging import FakeLogging, point_at, sample_incident
from tests.helpers import PROJECT, run_cli

ROOT = Path(__file__).resolve().parent.parent
MANY = 3000
EVERYTHING = 'timestamp>="2026-10-22T00:00:00Z"'
WORKLOAD = (f"--project={PROJECT}", "--jobset_name=llama-train", "--action=preflight")
WINDOW = ("--start_time=2026-10-22T11:00:00Z", "--duration=1h")
PREFLIGHT = (*WORKLOAD, *WINDOW)


def numbered(count: int) -> list[dict[str, Any]]:
    """`count` minimal entries, one per microsecond."""
    return [
        {
            "insertId": f"n{i:05d}",
            "logName": f"projects/{PROJECT}/logs/stdout",
            "resource": {"type": "k8s_container", "labels": {}},
            "textPayload": f"line {i}",
            "timestamp": f"2026-10-22T11:00:00.{i:06d}001Z",
        }
        for i in range(count)
    ]


class Terminal(io.StringIO):
    """A stderr that says it is a terminal, to see the progress lines."""

    def isatty(self) -> bool:
        return True


class CountingBudget(RequestBudget):
    """A budget that never waits and counts what it hands out."""

    def __init__(self) -> None:
        super().__init__(per_minute=60000, burst=1000)
        self.taken = 0

    def reserve(self) -> float:
        self.taken += 1
        return 0.0


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLogging]:
    with FakeLogging(numbered(MANY)) as server:
        point_at(monkeypatch, server)
        yield server


def source(**kwargs: Any) -> CloudSource:
    fast = Backoff(initial=0.01, maximum=0.02, deadline=2, uniform=max)
    return CloudSource(PROJECT, kwargs.pop("err", io.StringIO()), backoff=fast, **kwargs)


def fetch(limit: int, order: str = "asc", text: str = EVERYTHING) -> Fetch:
    return Fetch(Query(f"everything, {limit} {order}", text), limit, order)


@pytest.mark.parametrize(
    ("limit", "requests", "page_size", "truncated"),
    [(5, 1, 5, True), (1000, 1, 1000, True), (2500, 3, 1000, True), (MANY, 3, 1000, False)],
)
def test_one_request_per_thousand_entries_needed(
    fake: FakeLogging, limit: int, requests: int, page_size: int, truncated: bool
) -> None:
    (result,) = source().run([fetch(limit)])
    assert result.requests == fake.list_requests == requests
    assert [body["pageSize"] for body in fake.bodies] == [page_size] * requests
    assert result.truncated is truncated
    assert [e["insertId"] for e in result.entries] == [f"n{i:05d}" for i in range(limit)]


def test_the_request_body_and_user_agent(fake: FakeLogging) -> None:
    (result,) = source().run([fetch(3, "desc")])
    assert fake.bodies == [
        {
            "resourceNames": [f"projects/{PROJECT}"],
            "filter": EVERYTHING,
            "orderBy": "timestamp desc",
            "pageSize": 3,
        }
    ]
    assert [e["insertId"] for e in result.entries] == ["n02999", "n02998", "n02997"]
    assert fake.user_agents[0].startswith(USAGE_TOKENS + " ")


def test_entries_arrive_exactly_as_the_api_sent_them(monkeypatch: pytest.MonkeyPatch) -> None:
    entries = sample_incident()
    with FakeLogging(entries) as server:
        point_at(monkeypatch, server)
        (result,) = source().run([fetch(100)])
    assert result.entries == sorted(entries, key=sort_key)


def test_independent_fetches_run_at_once_and_each_gets_its_result(fake: FakeLogging) -> None:
    fake.latency = 0.2
    fetches = [fetch(1), fetch(2, "desc"), fetch(3)]
    results = source().run(fetches)
    assert [r.fetch for r in results] == fetches
    assert [len(r.entries) for r in results] == [1, 2, 3]
    assert fake.max_in_flight == 3


def test_every_request_draws_from_the_budget_retries_included(fake: FakeLogging) -> None:
    fake.fail(503, times=2)
    budget = CountingBudget()
    results = source(budget=budget).run([fetch(2500), fetch(1)])
    assert budget.taken == fake.list_requests == 6
    assert sum(r.requests for r in results) == 6


def test_the_first_failure_stops_the_other_fetches(fake: FakeLogging) -> None:
    """Three reads of three pages; one is refused at once, the others stop at a page boundary."""
    fake.latency = 0.2
    fake.fail(403, times=1)
    with pytest.raises(AccessError):
        source().run([fetch(2500), fetch(2500, "desc"), fetch(2600)])
    assert fake.list_requests <= 5


def test_the_first_failure_does_not_wait_for_slow_requests(fake: FakeLogging) -> None:
    """It was raised only once every request in flight had its answer: as long as the
    slowest took, up to the request deadline of three minutes."""
    fake.latency = 3.0
    fake.fail(403, times=1)
    start = time.monotonic()
    with pytest.raises(AccessError):
        source().run([fetch(5), fetch(5, "desc"), fetch(6)])
    assert time.monotonic() - start < 1.5
    assert fake.list_requests <= 3


def test_partial_scan_pages_between_pages_of_entries_are_followed(fake: FakeLogging) -> None:
    fake.partial_pages = 1
    (result,) = source().run([fetch(MANY)])
    assert (len(result.entries), result.truncated, result.requests) == (MANY, False, 6)
    assert [e["insertId"] for e in result.entries] == [f"n{i:05d}" for i in range(MANY)]


def test_partial_scan_pages_count_only_in_a_row(fake: FakeLogging) -> None:
    """Two empty pages before each page of entries: the read makes progress, and ends."""
    fake.partial_pages = 2
    (result,) = source(max_empty_pages=3).run([fetch(MANY)])
    assert (len(result.entries), result.truncated, result.requests) == (MANY, False, 9)


def test_too_many_partial_scan_pages_in_a_row_stop_the_read(fake: FakeLogging) -> None:
    """Three empty pages in a row end the read; the entries found are not a result."""
    fake.partial_pages = 3
    with pytest.raises(CloudLoggingError) as raised:
        source(max_empty_pages=3).run([fetch(MANY)])
    assert str(raised.value) == (
        'the query "everything, 3000 asc": Cloud Logging had not finished scanning after '
        "3 pages and found nothing yet; narrow the window (--duration) or the workload "
        "flags, then rerun"
    )
    assert fake.list_requests == 3


def test_an_entry_a_page_repeats_counts_once(fake: FakeLogging) -> None:
    """Pages overlap by five entries: the limit is met with distinct entries."""
    fake.overlap = 5
    (result,) = source().run([fetch(2500)])
    assert [e["insertId"] for e in result.entries] == [f"n{i:05d}" for i in range(2500)]


def test_a_refused_later_page_is_a_failure_not_a_bad_filter(fake: FakeLogging) -> None:
    """Page 2 answered 400 after page 1 took the filter: its token, exit 4."""
    fake.fail(400, times=None, after=1)
    with pytest.raises(CloudLoggingError, match="refused page 2 of") as raised:
        source().run([fetch(2500)])
    assert raised.value.exit_code == 4


def test_short_pages_with_a_token_are_followed_however_many(fake: FakeLogging) -> None:
    fake.page_cap = 100
    (result,) = source(max_empty_pages=1, budget=CountingBudget()).run([fetch(2500)])
    assert (len(result.entries), result.truncated, result.requests) == (2500, True, 25)


def test_the_page_cap_grows_with_a_limit_that_needs_more_pages(fake: FakeLogging) -> None:
    """A limit of 3,000 needs 3 full pages; a cap of 2 pages still lets it read twice that."""
    (result,) = source(max_pages=2).run([fetch(MANY)])
    assert (len(result.entries), result.requests) == (MANY, 3)
    fake.page_cap = 300
    with pytest.raises(CloudLoggingError, match=r"stopped after 6 pages \(1800 entries\)"):
        source(max_pages=2).run([fetch(MANY)])


def test_the_fake_forgets_its_matches_when_its_entries_change(fake: FakeLogging) -> None:
    (first,) = source().run([fetch(5)])
    fake.entries = numbered(3)[::-1]
    (second,) = source().run([fetch(5)])
    assert [e["insertId"] for e in first.entries] == [f"n{i:05d}" for i in range(5)]
    assert [e["insertId"] for e in second.entries] == ["n00000", "n00001", "n00002"]


def test_progress_lines_only_on_a_terminal(fake: FakeLogging) -> None:
    terminal = Terminal()
    source(err=terminal).run([fetch(2500)])
    assert terminal.getvalue().splitlines() == [
        '"everything, 2500 asc": page 1, 1000 entries so far',
        '"everything, 2500 asc": page 2, 2000 entries so far',
        '"everything, 2500 asc": page 3, 3000 entries so far',
    ]
    quiet = io.StringIO()
    source(err=quiet).run([fetch(2500)])
    assert quiet.getvalue() == ""


def test_no_fetches_make_no_requests(fake: FakeLogging) -> None:
    assert source().run([]) == []
    assert fake.list_requests == 0


def test_the_endpoint_loses_gclouds_trailing_slash(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(credentials.ENDPOINT_ENV, "http://127.0.0.1:8080/")
    assert credentials.endpoint() == "http://127.0.0.1:8080"
    monkeypatch.setenv(credentials.ENDPOINT_ENV, "")
    assert credentials.endpoint() is None


@pytest.mark.parametrize(("value", "disabled"), [("true", True), ("1", True), ("False", False)])
def test_credentials_disabled_as_gcloud_reads_it(
    monkeypatch: pytest.MonkeyPatch, value: str, disabled: bool
) -> None:
    monkeypatch.setenv(credentials.DISABLE_ENV, value)
    assert credentials.disabled() is disabled


def test_backoff_grows_to_its_maximum_with_jitter_below_each_step() -> None:
    assert [Backoff(1, 2, 8, uniform=max).wait(n) for n in range(1, 6)] == [1, 2, 4, 8, 8]
    assert [Backoff(1, 2, 8, uniform=min).wait(n) for n in range(1, 4)] == [0.5, 1, 2]


def test_retrying_gives_up_at_the_deadline_and_passes_other_errors_through() -> None:
    now = [0.0]
    sleeps: list[float] = []

    def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        now[0] += seconds

    def busy() -> None:
        raise TimeoutError("busy")

    backoff = Backoff(initial=1, multiplier=2, maximum=4, deadline=8, uniform=max)
    with pytest.raises(GaveUp) as gave_up:
        retrying(busy, lambda e: isinstance(e, TimeoutError), backoff, print, sleep, lambda: now[0])
    assert sleeps == [1, 2, 4]
    assert (gave_up.value.attempts, gave_up.value.elapsed) == (4, 7)
    with pytest.raises(KeyError):
        retrying(lambda: {}["x"], lambda e: False, backoff, print, sleep, lambda: now[0])


def test_retrying_waits_as_long_as_the_server_asks_within_a_bound() -> None:
    """A wait the server asks for (Retry-After) was ignored for the backoff's own; it is
    honoured, up to `longest_advised`, and still within the deadline."""
    now = [0.0]
    sleeps: list[float] = []

    def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        now[0] += seconds

    def busy() -> None:
        raise TimeoutError("busy")

    asked = iter([3.0, 3600.0, 0.0, 0.0])
    backoff = Backoff(initial=1, maximum=4, deadline=30, uniform=max, longest_advised=20)
    with pytest.raises(GaveUp):
        retrying(
            busy,
            lambda e: isinstance(e, TimeoutError),
            backoff,
            print,
            sleep,
            lambda: now[0],
            advised=lambda _: next(asked),
        )
    assert sleeps == [3, 20, 4]


class SlowBudget(RequestBudget):
    """A budget that makes its first two requests wait one second each."""

    def __init__(self) -> None:
        super().__init__()
        self.waits = [1.0, 1.0]

    def reserve(self) -> float:
        return self.waits.pop(0) if self.waits else 0.0


@pytest.mark.parametrize(("err", "told"), [(io.StringIO, 1), (Terminal, 2)])
def test_waits_for_the_budget_are_said_once_off_a_terminal(
    fake: FakeLogging, err: type[io.StringIO], told: int
) -> None:
    stream = err()
    source(err=stream, budget=SlowBudget()).run([fetch(2500)])
    waits = [line for line in stream.getvalue().splitlines() if "request budget" in line]
    assert len(waits) == told
    assert waits[0].startswith("waiting 1.0s for the request budget (15 requests per minute)")


def test_the_budget_allows_a_burst_then_a_steady_rate() -> None:
    now = [0.0]
    budget = RequestBudget(per_minute=60, burst=3, clock=lambda: now[0])
    assert [budget.reserve() for _ in range(5)] == [0, 0, 0, 1, 2]
    now[0] = 60
    assert [budget.reserve() for _ in range(4)] == [0, 0, 0, 1]


def test_the_default_budget_stays_well_under_the_quota() -> None:
    now = [0.0]
    budget = RequestBudget(clock=lambda: now[0])
    waits = [budget.reserve() for _ in range(60)]
    assert sum(1 for wait in waits if wait < 60) <= 40


def imported_after(*argv: str) -> bool:
    """Whether running the command line imported google.cloud (in a fresh interpreter)."""
    code = (
        "import sys; sys.path[:0] = ['scripts', '.']\n"
        "from tests.helpers import run_cli\n"
        f"run_cli(*{argv!r})\n"
        "print(any(m.startswith('google.cloud') for m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return done.stdout.strip() == "True"


def test_print_mode_and_offline_replay_do_not_import_the_client(tmp_path: Path) -> None:
    export = tmp_path / "export.json"
    export.write_text(json.dumps(sample_incident()), encoding="utf-8")
    args = (f"--project={PROJECT}", "--jobset_name=llama-train", "--action=errors")
    assert not imported_after(*args)
    assert not imported_after(*args, f"--logs_file={export}", "--execute")


def preflight_fake(monkeypatch: pytest.MonkeyPatch, entries: list[dict[str, Any]]) -> FakeLogging:
    server = FakeLogging(entries)
    point_at(monkeypatch, server)
    return server


def test_preflight_passes_against_the_cloud(monkeypatch: pytest.MonkeyPatch) -> None:
    with preflight_fake(monkeypatch, sample_incident()) as server:
        code, out, err = run_cli(*PREFLIGHT)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[:2] == [
        "log access: OK (14 container lines in the cluster)",
        "PASS: the workload logged 12 lines from 4 containers in the window",
    ]
    assert lines[4].split() == [
        "jax-tpu",
        "1",
        "5",
        "2026-10-22T11:02:00.25Z",
        "2026-10-22T11:30:06Z",
    ]
    # Access and the workload's lines; the head's first lines and one entry of each log kind
    # (events, node logs, serial console) for the coverage report.
    assert server.list_requests == 6
    assert sorted(body["pageSize"] for body in server.bodies) == [1, 1, 1, 1000, 1000, 1000]


def test_preflight_fails_when_the_workload_logged_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    with preflight_fake(monkeypatch, sample_incident()):
        code, out, err = run_cli(*WORKLOAD, "--start_time=2026-10-22T10:00:00Z", "--duration=30m")
        assert code == 1
        assert out.splitlines()[1] == (
            "FAIL: no container of the cluster logged anything in the window: check --project, "
            "--cluster_name, --location and the window"
        )
        code, out, err = run_cli(
            f"--project={PROJECT}", "--workload=jobset:llama-other", "--action=preflight", *WINDOW
        )
    assert code == 1
    assert out.splitlines()[1].startswith("FAIL: the workload logged nothing in the window")
    assert err.splitlines()[-1].startswith("error: preflight FAIL: the workload logged nothing")


def test_preflight_without_permission_prints_its_queries_and_the_fix(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with preflight_fake(monkeypatch, sample_incident()) as server:
        server.fail(403, times=None)
        code, out, err = run_cli(*PREFLIGHT)
    assert code == 3
    assert out.count("gcloud logging read") == 2
    assert "# can we read this project's container logs in the window" in out
    assert err.splitlines()[-1].startswith(
        f"error: no permission to read the logs of project {PROJECT}"
    )


def test_preflight_without_credentials_prints_its_queries_and_the_fix(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with preflight_fake(monkeypatch, sample_incident()) as server:
        monkeypatch.delenv(credentials.DISABLE_ENV)
        monkeypatch.delenv(credentials.KEY_FILE_ENV, raising=False)
        monkeypatch.setenv("CLOUDSDK_CONFIG", str(tmp_path))
        code, out, err = run_cli(*PREFLIGHT)
    assert code == 3
    assert out.count("gcloud logging read") == 2
    assert "`gcloud auth application-default login`" in err.splitlines()[-1]
    assert server.list_requests == 0
