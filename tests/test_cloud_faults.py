"""--execute when Cloud Logging misbehaves: quota, outages, resets, permissions, partial scans,
capped or looping pages, responses that are not what the API sends, and a failing token endpoint.

Each test runs the command line against the fake server with a fault injected
and checks the exit code and the exact lines a user sees. Backoff waits are
shortened (and made deterministic) by handing CloudSource fast timings.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import re
import socket
import time
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pathways_workload.errors import UsageError
from pathways_workload.query import Query
from pathways_workload.sources import cloud
from pathways_workload.sources.base import Fetch
from pathways_workload.sources.retry import Backoff, RequestBudget
from tests.fake_logging import (
    BAD_GZIP,
    BROKEN,
    ERROR_IN_200,
    FAKE_ACCESS_TOKEN,
    FRONT_END_502,
    NOT_OBJECTS,
    REDIRECT_LOOP,
    RESET,
    SCOPE_INSUFFICIENT,
    SERVICE_DISABLED,
    SIGN_IN_PAGE,
    TOO_DEEP,
    USER_PROJECT_DENIED,
    USER_PROJECT_MESSAGE,
    VPC_SC_DENIED,
    VPC_SC_MESSAGE,
    ApiError,
    FakeLogging,
    point_at,
    refusing_proxy,
    service_account_key,
)
from tests.helpers import PROJECT, container_entry, run_cli
from tests.html_report import structure
from tests.test_incidents import INCIDENTS, target_args

WINDOW = ("--start_time=2026-10-22T11:00:00Z", "--duration=1h")
ERRORS = (f"--project={PROJECT}", "--jobset_name=llama-train", "--action=errors", *WINDOW)
SWEEP = '"crash and fatal-error sweep over every container of the workload"'
LONG = (f"--project={PROJECT}", "--action=query", "--filter=severity>=ERROR", *WINDOW)
LONG_READ = 2500
CLOSED_PORT = "127.0.0.1:9"
QUOTA = (
    "Quota exceeded for quota metric 'Read requests' and limit 'Read requests per minute' "
    "of service 'logging.googleapis.com' for consumer 'project_number:123456789012'."
)


def crash_lines(count: int) -> list[dict[str, Any]]:
    """`count` crash lines of the workload, one per millisecond (plus nanoseconds)."""
    return [
        container_entry(
            f"Check failed: shard {i}",
            timestamp=f"2026-10-22T11:30:{i // 1000:02d}.{i % 1000:03d}000007Z",
        )
        for i in range(count)
    ]


def fast_source(monkeypatch: pytest.MonkeyPatch, deadline: float = 5.0, **kwargs: Any) -> None:
    """Waits of 0.1s, 0.2s, 0.4s, 0.4s... (no jitter), and no request budget in the way."""
    backoff = Backoff(initial=0.1, multiplier=2, maximum=0.4, deadline=deadline, uniform=max)
    source = functools.partial(
        cloud.CloudSource,
        backoff=backoff,
        budget=RequestBudget(per_minute=60000, burst=1000),
        **kwargs,
    )
    monkeypatch.setattr(cloud, "CloudSource", source)


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLogging]:
    with FakeLogging(crash_lines(LONG_READ + 500)) as server:
        point_at(monkeypatch, server)
        fast_source(monkeypatch)
        yield server


def replayed(tmp_path: Path, entries: list[dict[str, Any]], *args: str) -> str:
    """What offline replay of the same entries prints (the expected output)."""
    path = tmp_path / "export.json"
    path.write_text(json.dumps(entries), encoding="utf-8")
    code, out, err = run_cli(*args, f"--logs_file={path}")
    assert code == 0, err
    return out


def retry_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("Cloud Logging answered")]


def test_429_twice_then_success(fake: FakeLogging, tmp_path: Path) -> None:
    fake.fail(429, times=2)
    code, out, err = run_cli(*ERRORS, "--limit=5", "--execute")
    assert code == 0, err
    assert retry_lines(err) == [
        f"Cloud Logging answered 429 RESOURCE_EXHAUSTED to {SWEEP} (page 1, attempt 1); "
        "retrying in 0.1s",
        f"Cloud Logging answered 429 RESOURCE_EXHAUSTED to {SWEEP} (page 1, attempt 2); "
        "retrying in 0.2s",
    ]
    assert out == replayed(tmp_path, fake.entries, *ERRORS, "--limit=5")
    assert fake.list_requests == 3


def test_429_on_the_third_page_resumes_from_that_page(fake: FakeLogging, tmp_path: Path) -> None:
    fake.fail(429, times=1, after=2)
    args = (*LONG, f"--limit={LONG_READ}", "--format=json")
    code, out, err = run_cli(*args, "--execute")
    assert code == 0, err
    assert len(retry_lines(err)) == 1
    assert "(page 3, attempt 1)" in retry_lines(err)[0]
    tokens = [body.get("pageToken") for body in fake.bodies]
    assert tokens[0] is None and tokens[1] != tokens[2] and tokens[2] == tokens[3]
    assert [body["pageSize"] for body in fake.bodies] == [1000] * 4
    ids = [json.loads(line)["insertId"] for line in out.splitlines()]
    assert len(ids) == len(set(ids)) == LONG_READ
    assert out == replayed(tmp_path, fake.entries, *args)


@pytest.mark.parametrize("status", [429, 503])
def test_a_retry_after_header_sets_the_wait(fake: FakeLogging, status: int) -> None:
    """Retry-After on a 429 or 503 was ignored: the retry went after the backoff's 0.1s."""
    fake.retry_after = "1"
    fake.fail(status, times=1)
    code, out, err = run_cli(*ERRORS, "--limit=5", "--execute")
    assert code == 0, err
    (line,) = retry_lines(err)
    assert line.endswith("(page 1, attempt 1); retrying in 1.0s")
    assert len(out.splitlines()) == 5


def test_503_once_is_retried(fake: FakeLogging) -> None:
    fake.fail(503, times=1)
    code, out, err = run_cli(*ERRORS, "--limit=5", "--execute")
    assert code == 0, err
    assert retry_lines(err) == [
        f"Cloud Logging answered 503 UNAVAILABLE to {SWEEP} (page 1, attempt 1); retrying in 0.1s"
    ]
    assert len(out.splitlines()) == 5


def test_a_connection_reset_is_retried(fake: FakeLogging) -> None:
    fake.fail(RESET, times=1)
    code, out, err = run_cli(*ERRORS, "--limit=5", "--execute")
    assert code == 0, err
    (line,) = retry_lines(err)
    assert line.startswith("Cloud Logging answered ConnectionError (") and "attempt 1" in line
    assert len(out.splitlines()) == 5


def test_a_connection_broken_mid_page_names_its_cause(
    fake: FakeLogging, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The body stopped halfway with a reset: every retry line and the error showed the
    exception's tuple, cut at 120 characters inside a quote: "(ChunkedEncodingError
    (("Connection broken: ConnectionResetError(104, 'Connection reset by peer')",
    ConnectionResetError(104, 'Connection reset)"."""
    fast_source(monkeypatch, deadline=0.5)
    fake.fail(BROKEN, times=None)
    code, out, err = run_cli(*ERRORS, "--execute")
    assert (code, out) == (4, "")
    cause = "ChunkedEncodingError (connection broken: Connection reset by peer)"
    assert retry_lines(err)[0] == (
        f"Cloud Logging answered {cause} to {SWEEP} (page 1, attempt 1); retrying in 0.1s"
    )
    assert f"({cause}); wait a minute and rerun" in err.splitlines()[-1]


def test_403_names_the_role_and_the_project(fake: FakeLogging) -> None:
    """Google answers 403, never 404, for a project that does not exist (AIP-211): a typo in
    --project was told to grant a role on it."""
    fake.fail(403, times=None)
    code, out, err = run_cli(*ERRORS, "--execute")
    assert code == 3
    assert out == ""
    assert err.splitlines()[-1] == (
        f"error: no permission to read the logs of project {PROJECT}, or it does not exist "
        f"(The caller does not have permission): check --project={PROJECT}, then grant "
        "roles/logging.viewer on it (private logs such as data access audit logs need "
        "roles/logging.privateLogViewer)"
    )
    assert fake.list_requests == 1


def test_a_disabled_api_says_to_enable_it_not_to_grant_a_role(fake: FakeLogging) -> None:
    """No role fixes a 403 whose ErrorInfo reason is SERVICE_DISABLED."""
    fake.fail(SERVICE_DISABLED, times=None)
    code, out, err = run_cli(*ERRORS, "--execute")
    assert code == 3
    assert out == ""
    last = err.splitlines()[-1]
    assert last.startswith(f"error: the Cloud Logging API is not enabled in project {PROJECT} (")
    assert last.endswith(
        f"enable it with gcloud services enable logging.googleapis.com --project={PROJECT}, "
        "wait a few minutes, and rerun"
    )
    assert "roles/" not in last


def test_a_token_without_the_scope_says_no_role_fixes_it(fake: FakeLogging) -> None:
    """A Compute Engine VM's default scopes do not read logs; the advice was to grant a role."""
    fake.fail(SCOPE_INSUFFICIENT, times=None)
    code, out, err = run_cli(*ERRORS, "--execute")
    assert (code, out) == (3, "")
    assert err.splitlines()[-1] == (
        "error: the access token lacks a scope that reads logs (Request had insufficient "
        "authentication scopes.), and no role fixes that: on a Compute Engine VM, give it "
        "the cloud-platform or logging.read access scope, or run `gcloud auth "
        "application-default login`, or set GOOGLE_APPLICATION_CREDENTIALS to a "
        "service-account key file"
    )


def test_a_quota_project_the_account_may_not_use(fake: FakeLogging) -> None:
    """The credentials name a quota project (gcloud's set-quota-project) the account may not
    use: the advice was a role on the project of the logs, which does not help."""
    fake.fail(USER_PROJECT_DENIED, times=None)
    code, out, err = run_cli(*ERRORS, "--execute")
    assert (code, out) == (3, "")
    assert err.splitlines()[-1] == (
        f"error: the account may not use the quota project its credentials name "
        f"({USER_PROJECT_MESSAGE}): grant it roles/serviceusage.serviceUsageConsumer there, "
        "or name another with `gcloud auth application-default set-quota-project PROJECT`"
    )


def test_a_vpc_service_controls_perimeter_says_no_role_fixes_it(fake: FakeLogging) -> None:
    """A perimeter refused a request from outside it (ErrorInfo reason
    SECURITY_POLICY_VIOLATED): the advice was to check --project and grant
    roles/logging.viewer, which does not help."""
    fake.fail(VPC_SC_DENIED, times=None)
    code, out, err = run_cli(*ERRORS, "--execute")
    assert (code, out) == (3, "")
    assert err.splitlines()[-1] == (
        f"error: a VPC Service Controls perimeter refused the request ({VPC_SC_MESSAGE}), and "
        "no role fixes that: run from a network or VM inside the perimeter, or ask its "
        "administrator for an access level or ingress rule that lets you call "
        "logging.googleapis.com (give them the identifier)"
    )
    assert fake.list_requests == 1


def test_401_with_credentials_disabled_says_to_enable_them(fake: FakeLogging) -> None:
    fake.fail(401, times=None)
    code, _, err = run_cli(*ERRORS, "--execute")
    assert code == 3
    assert err.splitlines()[-1] == (
        "error: Cloud Logging asked for credentials but CLOUDSDK_AUTH_DISABLE_CREDENTIALS is "
        "set; unset it and run `gcloud auth application-default login`, or set "
        "GOOGLE_APPLICATION_CREDENTIALS to a service-account key file"
    )


def _only_gcloud_credentials(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """Credentials only where gcloud writes them (`folder`, empty unless the test writes
    them): no key file, no metadata server."""
    monkeypatch.delenv("CLOUDSDK_AUTH_DISABLE_CREDENTIALS")
    monkeypatch.delenv("GOOGLE_APPLICATION_CREDENTIALS", raising=False)
    monkeypatch.setenv("CLOUDSDK_CONFIG", str(folder))
    monkeypatch.setenv("NO_GCE_CHECK", "True")
    monkeypatch.setenv("GCE_METADATA_HOST", "127.0.0.1:9")
    monkeypatch.setenv("GCE_METADATA_IP", "127.0.0.1:9")


def test_no_credentials_at_all(
    fake: FakeLogging, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _only_gcloud_credentials(monkeypatch, tmp_path)
    code, out, err = run_cli(*ERRORS, "--execute")
    assert code == 3
    assert out == ""
    assert err.splitlines()[-1] == (
        "error: no Application Default Credentials found: run `gcloud auth application-default "
        "login`, or set GOOGLE_APPLICATION_CREDENTIALS to a service-account key file (the "
        f"account needs roles/logging.viewer on project {PROJECT})"
    )
    assert fake.list_requests == 0


def test_a_corrupt_gcloud_credentials_file_is_named_not_missing(
    fake: FakeLogging, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """gcloud's Application Default Credentials file exists but is not JSON (a write cut
    short): the error names it, where it said no credentials were found."""
    _only_gcloud_credentials(monkeypatch, tmp_path)
    adc = tmp_path / "application_default_credentials.json"
    adc.write_text('{"type": "authorized_user", "client_id": "')
    code, out, err = run_cli(*ERRORS, "--execute")
    assert code == 3
    assert out == ""
    last = err.splitlines()[-1]
    assert last.startswith(f"error: cannot load the Application Default Credentials in {adc} (")
    assert "not a valid json file" in last
    assert last.endswith("run `gcloud auth application-default login` to write them again")
    assert fake.list_requests == 0


def test_an_unreadable_key_file_is_named(
    fake: FakeLogging, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CLOUDSDK_AUTH_DISABLE_CREDENTIALS")
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(tmp_path / "missing.json"))
    code, _, err = run_cli(*ERRORS, "--execute")
    assert code == 3
    assert err.splitlines()[-1].startswith(
        f"error: cannot load the credentials in GOOGLE_APPLICATION_CREDENTIALS={tmp_path}"
    )
    assert err.splitlines()[-1].endswith(
        "point it at a valid service-account key file, or unset it and run "
        "`gcloud auth application-default login`"
    )


def test_persistent_429_names_the_query_and_what_to_try(
    fake: FakeLogging, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast_source(monkeypatch, deadline=0.5)
    fake.fail(429, times=None)
    code, out, err = run_cli(*ERRORS, "--execute")
    assert code == 4
    assert out == ""
    assert len(retry_lines(err)) == 2
    assert err.splitlines()[-1] == (
        f"error: the query {SWEEP} failed after 3 attempts in 0s (429 RESOURCE_EXHAUSTED: "
        f"{QUOTA}); the project's read quota (entries.list requests per minute) is used up: "
        "wait a minute and rerun, narrow the window (--duration) so fewer pages are needed, "
        "or raise the 'Read requests per minute' quota of logging.googleapis.com"
    )
    assert fake.list_requests == 3


def test_an_html_error_page_is_named_by_its_title(
    fake: FakeLogging, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The error line held the whole page, style sheet and all (1,300 characters)."""
    fast_source(monkeypatch, deadline=0.5)
    fake.fail(FRONT_END_502, times=None)
    code, out, err = run_cli(*ERRORS, "--execute")
    assert (code, out) == (4, "")
    assert err.splitlines()[-1] == (
        f"error: the query {SWEEP} failed after 3 attempts in 0s (502: an HTML page titled "
        "'Error 502 (Server Error)!!1'); wait a minute and rerun, or narrow the window "
        "(--duration) or the workload flags so the query has less to scan"
    )


def test_a_slow_server_still_answers(fake: FakeLogging, tmp_path: Path) -> None:
    fake.latency = 0.3
    code, out, err = run_cli(*ERRORS, "--limit=5", "--execute")
    assert code == 0, err
    assert retry_lines(err) == []
    assert out == replayed(tmp_path, fake.entries, *ERRORS, "--limit=5")


def test_a_server_slower_than_the_timeout_is_retried_then_reported(
    fake: FakeLogging, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast_source(monkeypatch, deadline=0.5, timeout=0.1)
    fake.latency = 0.3
    code, _, err = run_cli(*ERRORS, "--execute")
    assert code == 4
    assert all("ReadTimeout" in line for line in retry_lines(err))
    assert re.match(f"error: the query {SWEEP} failed after [0-9]+ attempts", err.splitlines()[-1])
    assert err.splitlines()[-1].endswith(
        "wait a minute and rerun, or narrow the window (--duration) or the workload flags so "
        "the query has less to scan"
    )


def test_partial_scan_pages_mean_keep_paging(fake: FakeLogging, tmp_path: Path) -> None:
    fake.partial_pages = 3
    code, out, err = run_cli(*ERRORS, "--limit=5", "--execute")
    assert code == 0, err
    assert out == replayed(tmp_path, fake.entries, *ERRORS, "--limit=5")
    assert fake.list_requests == 4
    assert "no entries matched" not in err


def test_an_endless_partial_scan_stops_and_says_so(fake: FakeLogging) -> None:
    fake.partial_pages = 1000
    code, out, err = run_cli(*ERRORS, "--execute")
    assert code == 4
    assert out == ""
    assert err.splitlines()[-1] == (
        f"error: the query {SWEEP}: Cloud Logging had not finished scanning after 10 pages and "
        "found nothing yet; narrow the window (--duration) or the workload flags, then rerun"
    )
    assert fake.list_requests == 10


def test_an_empty_next_page_token_ends_the_read(
    fake: FakeLogging, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake.entries = crash_lines(3)
    fake.empty_last_token = True
    code, out, err = run_cli(*ERRORS, "--execute")
    assert code == 0, err
    assert len(out.splitlines()) == 3
    assert fake.list_requests == 1
    assert fake.bodies[0].get("pageToken") is None


def test_a_filter_the_server_rejects_is_a_usage_error(fake: FakeLogging) -> None:
    """The runner checks filters first; a server that still says 400 gets its message shown."""
    source = cloud.CloudSource(PROJECT, io.StringIO())
    with pytest.raises(UsageError) as raised:
        source.run([Fetch(Query("your filter", "severity>="), 10)])
    assert str(raised.value) == (
        'Cloud Logging rejected the filter of "your filter": '
        "expected a value after '>=' at column 9, but the filter ends"
    )


@pytest.mark.parametrize(
    ("message", "code", "said"),
    [
        (
            "Invalid resource name: projects/pw-demo",
            2,
            f"error: Cloud Logging refused the resource name projects/{PROJECT} of {SWEEP} "
            "(Invalid resource name: projects/pw-demo): check --project",
        ),
        (
            "pageSize: must be between 0 and 1000, got 1000",
            4,
            f"error: Cloud Logging refused the page size the tool sent with {SWEEP} (pageSize: "
            "must be between 0 and 1000, got 1000), not the filter: please report this",
        ),
        (
            "Invalid order_by: timestamp asc",
            4,
            f"error: Cloud Logging refused the order the tool sent with {SWEEP} (Invalid "
            "order_by: timestamp asc), not the filter: please report this",
        ),
        (
            "Request contains an invalid argument.",
            2,
            f"error: Cloud Logging refused the request of {SWEEP} as invalid (Request contains "
            "an invalid argument.) without naming what: check --project and the target flags",
        ),
        (
            "Unparseable filter: syntax error at line 1, column 9",
            2,
            f"error: Cloud Logging rejected the filter of {SWEEP}: Unparseable filter: syntax "
            "error at line 1, column 9",
        ),
    ],
)
def test_a_bad_request_is_reported_as_what_the_server_refused(
    fake: FakeLogging, monkeypatch: pytest.MonkeyPatch, message: str, code: int, said: str
) -> None:
    """A 400 that is not about the filter (the resource name, page size, order) is not
    reported as a filter error."""

    def refuse(self: FakeLogging, body: dict[str, Any]) -> dict[str, Any]:
        raise ApiError(400, message)

    monkeypatch.setattr(FakeLogging, "answer", refuse)
    got, out, err = run_cli(*ERRORS, "--execute")
    assert (got, out) == (code, "")
    assert err.splitlines()[-1] == said


def notes(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("note:")]


def test_a_server_that_caps_the_page_size_is_read_to_the_end(
    fake: FakeLogging, tmp_path: Path
) -> None:
    """Short pages that carry a nextPageToken are normal paging, not an unfinished scan."""
    fake.entries = crash_lines(981)
    fake.page_cap = 50
    args = (*LONG, "--limit=1000", "--format=json")
    code, out, err = run_cli(*args, "--execute")
    assert code == 0, err
    assert len(out.splitlines()) == 981
    assert out == replayed(tmp_path, fake.entries, *args)
    assert fake.list_requests == 20
    assert notes(err) == []
    assert "warning" not in err


def test_a_capped_page_size_with_a_limit_cut_still_says_the_limit_cut_it(
    fake: FakeLogging,
) -> None:
    fake.page_cap = 50
    code, out, err = run_cli(*ERRORS, "--limit=120", "--execute")
    assert code == 0, err
    assert len(out.splitlines()) == 120
    assert fake.list_requests == 3
    assert notes(err) == [
        "note: --limit=120 cut the output: more matching lines are not shown; to see the latest "
        "first use --order=desc, for each pod's first and last line --first_per_pod=1, or raise "
        "--limit or narrow the window"
    ]


def test_pages_that_bring_nothing_new_are_a_paging_loop(fake: FakeLogging) -> None:
    """A fresh token on every page, and the same entries again: it went on for 100 pages
    (minutes at the request budget's pace) and was called a query too big to finish."""
    fake.stuck = True
    code, out, err = run_cli(*LONG, f"--limit={LONG_READ}", "--execute")
    assert code == 4
    assert out == ""
    assert err.splitlines()[-1] == (
        'error: Cloud Logging sent pages 2 to 4 of "your filter" with no entry the earlier '
        "pages had not: it is paging in a loop; wait a minute and rerun, or narrow the window "
        "(--duration) or the workload flags so the query has less to scan"
    )
    assert fake.list_requests == 4


def test_a_repeated_page_token_is_a_paging_loop(fake: FakeLogging) -> None:
    fake.repeat_tokens = True
    code, out, err = run_cli(*LONG, f"--limit={LONG_READ}", "--execute")
    assert code == 4
    assert out == ""
    assert err.splitlines()[-1] == (
        'error: Cloud Logging sent the same page token twice for "your filter" (after page '
        "2): it is paging in a loop; wait a minute and rerun, or narrow the window "
        "(--duration) or the workload flags so the query has less to scan"
    )
    assert fake.list_requests == 2


def test_a_read_stops_at_the_page_cap(fake: FakeLogging) -> None:
    """3,000 entries at 10 a page would take 300 requests: stop at 100 and say so."""
    fake.page_cap = 10
    code, out, err = run_cli(*LONG, "--limit=3000", "--execute")
    assert code == 4
    assert out == ""
    assert err.splitlines()[-1] == (
        'error: the query "your filter" stopped after 100 pages (1000 entries) and Cloud '
        "Logging still had more: narrow the window (--duration) or the workload flags, or "
        "lower --limit, then rerun"
    )
    assert fake.list_requests == 100


def test_entries_that_are_not_objects(fake: FakeLogging) -> None:
    fake.fail(NOT_OBJECTS)
    code, out, err = run_cli(*ERRORS, "--execute")
    assert code == 4
    assert out == ""
    assert err.splitlines()[-1:] == [
        f"error: unexpected response from Cloud Logging to {SWEEP} (an entry is a number, not "
        "an object); check CLOUDSDK_API_ENDPOINT_OVERRIDES_LOGGING="
        f"{fake.url}, or wait a minute and rerun"
    ]


@pytest.mark.parametrize(
    ("stray", "where"),
    [
        ({"timestamp": "2020-01-01T00:00:00Z"}, "at 2020-01-01T00:00:00Z"),
        ({"namespace": "team-data"}, "at 2026-10-22T11:30:00.123456789Z"),
    ],
)
def test_an_entry_the_query_does_not_match_is_not_the_apis_answer(
    fake: FakeLogging, stray: dict[str, str], where: str
) -> None:
    """An entry from outside the window, or from another namespace: the sweep showed it as
    the workload's earliest crash, and triage named it the root cause. It is left out, as a
    replay leaves it out, and a warning says so (the run goes on: a reading of the query
    that differs from the API's must not stop it)."""
    entry = container_entry("Check failed: not asked for", **stray)
    fake.strays = [entry]
    code, out, err = run_cli(*ERRORS, "--execute")
    assert code == 0, err
    assert "not asked for" not in out and "Check failed" in out
    (warning,) = [line for line in err.splitlines() if line.startswith("warning: ")]
    assert warning == (
        f"warning: Cloud Logging answered {SWEEP} with 1 entries its query does not match "
        f"as this tool reads it (the first: insertId {entry['insertId']} {where}); left out, "
        "as a replay of them would leave them out"
    )


def test_entries_out_of_the_order_asked_are_not_the_apis_answer(fake: FakeLogging) -> None:
    """The latest five crash lines were shown as the earliest five, with exit 0."""
    fake.reversed_order = True
    code, out, err = run_cli(*ERRORS, "--limit=5", "--execute")
    assert (code, out) == (4, "")
    assert err.splitlines()[-1] == (
        f"error: unexpected response from Cloud Logging to {SWEEP} (entries out of the order "
        "asked, timestamp asc: 2026-10-22T11:30:02.999000007Z, then "
        "2026-10-22T11:30:02.998000007Z); check "
        f"CLOUDSDK_API_ENDPOINT_OVERRIDES_LOGGING={fake.url}, or wait a minute and rerun"
    )


def test_an_error_answered_with_200_is_not_an_empty_page(fake: FakeLogging) -> None:
    """A 200 whose body was an API error read as a page without entries: exit 0, and
    "no entries matched" for a query that never ran."""
    fake.fail(ERROR_IN_200)
    code, out, err = run_cli(*ERRORS, "--execute")
    assert (code, out) == (4, "")
    assert "no entries matched" not in err
    assert err.splitlines()[-1] == (
        f"error: unexpected response from Cloud Logging to {SWEEP} (a 200 answer holding an "
        "error: The caller does not have permission); check "
        f"CLOUDSDK_API_ENDPOINT_OVERRIDES_LOGGING={fake.url}, or wait a minute and rerun"
    )


def test_an_entry_nested_too_deeply_is_an_unexpected_response(fake: FakeLogging) -> None:
    """Decoding it overflowed the stack: an internal error (exit 70), "please report"."""
    fake.fail(TOO_DEEP)
    code, out, err = run_cli(*ERRORS, "--execute")
    assert (code, out) == (4, "")
    assert err.splitlines()[-1] == (
        f"error: unexpected response from Cloud Logging to {SWEEP} (an entry is nested too "
        f"deeply); check CLOUDSDK_API_ENDPOINT_OVERRIDES_LOGGING={fake.url}, or wait a minute "
        "and rerun"
    )


def test_a_sign_in_page_is_named_by_its_title(fake: FakeLogging) -> None:
    """A captive portal's page was "JSONDecodeError: Expecting value: line 1 column 1"."""
    fake.fail(SIGN_IN_PAGE)
    code, out, err = run_cli(*ERRORS, "--execute")
    assert (code, out) == (4, "")
    assert err.splitlines()[-1] == (
        f"error: unexpected response from Cloud Logging to {SWEEP} (not JSON: an HTML page "
        "titled 'Sign in to the network'); check "
        f"CLOUDSDK_API_ENDPOINT_OVERRIDES_LOGGING={fake.url}, or wait a minute and rerun"
    )


def test_a_redirect_loop(fake: FakeLogging) -> None:
    fake.fail(REDIRECT_LOOP)
    code, out, err = run_cli(*ERRORS, "--execute")
    assert code == 4
    assert out == ""
    assert err.splitlines()[-1] == (
        f"error: unexpected response from Cloud Logging to {SWEEP} (TooManyRedirects: "
        "Exceeded 30 redirects.); check CLOUDSDK_API_ENDPOINT_OVERRIDES_LOGGING="
        f"{fake.url}, or wait a minute and rerun"
    )


def test_a_body_that_is_not_the_gzip_it_claims(fake: FakeLogging) -> None:
    fake.fail(BAD_GZIP)
    code, out, err = run_cli(*ERRORS, "--execute")
    assert code == 4
    assert out == ""
    (last,) = err.splitlines()[-1:]
    assert last.startswith(
        f"error: unexpected response from Cloud Logging to {SWEEP} (ContentDecodingError: "
    )
    assert last.endswith(
        f"check CLOUDSDK_API_ENDPOINT_OVERRIDES_LOGGING={fake.url}, or wait a minute and rerun"
    )


@pytest.fixture
def key_file(fake: FakeLogging, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Credentials from a service-account key whose token endpoint is the fake's."""
    path = service_account_key(tmp_path / "key.json", fake.token_uri)
    monkeypatch.delenv("CLOUDSDK_AUTH_DISABLE_CREDENTIALS")
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(path))
    no_waiting = types.SimpleNamespace(sleep=lambda seconds: None)
    monkeypatch.setattr("google.auth._exponential_backoff.time", no_waiting)
    return path


def test_a_key_files_token_is_fetched_once_and_sent(fake: FakeLogging, key_file: Path) -> None:
    code, out, err = run_cli(*ERRORS, "--limit=5", "--execute")
    assert code == 0, err
    assert len(out.splitlines()) == 5
    assert fake.token_requests == 1
    assert fake.authorizations == [f"Bearer {FAKE_ACCESS_TOKEN}"]


def test_a_token_endpoint_answering_html(fake: FakeLogging, key_file: Path) -> None:
    fake.token_reply = (200, "text/html", "<html><body>Sign in</body></html>")
    code, out, err = run_cli(*ERRORS, "--execute")
    assert code == 4
    assert out == ""
    assert err.splitlines()[-1] == (
        f"error: the token endpoint {fake.url}token sent something that is not an access "
        "token; wait a minute and rerun, and check the "
        "token_uri of the credentials in use"
    )
    assert fake.list_requests == 0


def test_a_token_endpoint_failing_is_an_outage_not_bad_credentials(
    fake: FakeLogging, key_file: Path
) -> None:
    fake.token_reply = (500, "application/json", json.dumps({"error": "internal_failure"}))
    code, out, err = run_cli(*ERRORS, "--execute")
    assert code == 4
    assert out == ""
    assert err.splitlines()[-1] == (
        f"error: the token endpoint {fake.url}token failed (internal_failure: None); wait "
        "a minute and rerun"
    )
    assert fake.token_requests == 3  # google-auth's own retries
    assert fake.list_requests == 0


def test_a_failing_metadata_server_is_an_outage_not_bad_credentials(
    fake: FakeLogging, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a VM or in a GKE pod the token comes from the metadata server: its 503 (after
    google-auth's own retries) said to log in again, exit 3."""
    from google.auth import compute_engine
    from google.auth.compute_engine import _metadata

    monkeypatch.delenv("CLOUDSDK_AUTH_DISABLE_CREDENTIALS")
    monkeypatch.setattr(_metadata, "_GCE_METADATA_HOST", fake.metadata_host)
    on_a_vm = compute_engine.Credentials()  # type: ignore[no-untyped-call]
    monkeypatch.setattr("google.auth.default", lambda scopes: (on_a_vm, None))
    no_waiting = types.SimpleNamespace(sleep=lambda seconds: None)
    monkeypatch.setattr("google.auth._exponential_backoff.time", no_waiting)
    fake.token_reply = (503, "text/plain", "Service Unavailable")
    code, out, err = run_cli(*ERRORS, "--execute")
    assert (code, out) == (4, "")
    last = err.splitlines()[-1]
    assert last.startswith("error: the token endpoint of the credentials in use failed (")
    assert f"http://{fake.metadata_host}/computeMetadata/v1/" in last
    assert last.endswith("; wait a minute and rerun")
    assert fake.list_requests == 0


def test_a_token_endpoint_refusing_the_key_is_a_credentials_error(
    fake: FakeLogging, key_file: Path
) -> None:
    """The advice was to run `gcloud auth application-default login` (whose credentials
    google-auth ignores while GOOGLE_APPLICATION_CREDENTIALS is set) or to set the variable
    to a key file, which it already named: it names the key file and says to replace it."""
    refusal = {"error": "invalid_grant", "error_description": "Invalid JWT Signature."}
    fake.token_reply = (400, "application/json", json.dumps(refusal))
    code, out, err = run_cli(*ERRORS, "--execute")
    assert code == 3
    assert out == ""
    assert err.splitlines()[-1] == (
        f"error: the credentials in GOOGLE_APPLICATION_CREDENTIALS={key_file} could not be "
        "refreshed (invalid_grant: Invalid JWT Signature.): they may be deleted, disabled "
        "or revoked: point it at a valid service-account key file, or unset it and run "
        f"`gcloud auth application-default login`; the account needs roles/logging.viewer "
        f"on project {PROJECT}"
    )
    assert fake.token_requests == 1


def test_an_unreachable_token_endpoint_is_retried_then_reported(
    fake: FakeLogging, key_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast_source(monkeypatch, deadline=0.5)
    service_account_key(key_file, f"http://{CLOSED_PORT}/token")
    code, out, err = run_cli(*ERRORS, "--execute")
    assert code == 4
    assert out == ""
    endpoint = f"http://{CLOSED_PORT}/token"
    assert [line for line in err.splitlines() if line.startswith("cannot reach")] == [
        f"cannot reach the token endpoint {endpoint} (ConnectionError; attempt 1); "
        "retrying in 0.1s",
        f"cannot reach the token endpoint {endpoint} (ConnectionError; attempt 2); "
        "retrying in 0.2s",
    ]
    assert err.splitlines()[-1] == (
        f"error: cannot reach the token endpoint {endpoint} after 3 attempts "
        "(ConnectionError): check the network, wait a minute and rerun"
    )
    assert fake.list_requests == 0


@pytest.mark.parametrize("token_uri", ["oauth2.googleapis.com/token", "http://", "ftp://x/t"])
def test_a_token_uri_that_is_no_url_is_a_credentials_error(
    fake: FakeLogging, key_file: Path, monkeypatch: pytest.MonkeyPatch, token_uri: str
) -> None:
    fast_source(monkeypatch, deadline=0.5)
    service_account_key(key_file, token_uri)
    code, out, err = run_cli(*ERRORS, "--execute")
    assert code == 3
    assert out == ""
    assert not [line for line in err.splitlines() if line.startswith("cannot reach")]
    (last,) = err.splitlines()[-1:]
    assert last.startswith(f"error: the credentials' token endpoint {token_uri!r} is not a URL")
    assert last.endswith(f"fix the token_uri of {key_file}, or download a new key")
    assert fake.list_requests == 0


def test_a_token_that_trickles_in_is_abandoned_at_the_deadline(
    fake: FakeLogging, key_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The token request had no deadline of its own: an endpoint sending a byte now and
    then held the tool for as long as it liked before the first query."""
    fast_source(monkeypatch, deadline=0.5, request_deadline=0.2)
    fake.trickle = 0.3
    code, out, err = run_cli(*ERRORS, "--execute")
    assert (code, out) == (4, "")
    assert err.splitlines()[-1] == (
        f"error: cannot reach the token endpoint {fake.token_uri} after 2 attempts (TooSlow): "
        "check the network, wait a minute and rerun"
    )
    assert fake.list_requests == 0


UNTRUSTED = (
    "is not trusted (certificate verify failed: self",
    "): if a proxy inspects TLS, set REQUESTS_CA_BUNDLE to a file with its CA certificate; "
    "check the proxy settings (HTTPS_PROXY), then rerun",
)


def test_an_untrusted_certificate_is_not_retried_and_names_the_ca_bundle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A proxy that inspects TLS presents a certificate the client does not trust: that was
    retried for a minute and a half, then called an outage (narrow the window, rerun)."""
    server = FakeLogging(crash_lines(3))
    bundle = server.use_tls(tmp_path)
    with server:
        point_at(monkeypatch, server)
        fast_source(monkeypatch)
        code, out, err = run_cli(*ERRORS, "--execute")
        assert (code, out) == (4, "")
        assert retry_lines(err) == []
        last = err.splitlines()[-1]
        assert last.startswith(f"error: the TLS certificate of {server.url.rstrip('/')} ")
        assert UNTRUSTED[0] in last and last.endswith(UNTRUSTED[1])
        monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(bundle))
        code, out, err = run_cli(*ERRORS, "--execute")
    assert code == 0, err
    assert len(out.splitlines()) == 3


def test_an_untrusted_certificate_at_the_token_endpoint(
    fake: FakeLogging, key_file: Path, tmp_path: Path
) -> None:
    """The token is the first request, so that is where such a proxy shows first."""
    token_server = FakeLogging([])
    token_server.use_tls(tmp_path)
    with token_server:
        service_account_key(key_file, token_server.token_uri)
        code, out, err = run_cli(*ERRORS, "--execute")
    assert (code, out) == (4, "")
    assert not [line for line in err.splitlines() if line.startswith("cannot reach")]
    last = err.splitlines()[-1]
    assert last.startswith(f"error: the TLS certificate of {token_server.token_uri} ")
    assert UNTRUSTED[0] in last and last.endswith(UNTRUSTED[1])
    assert fake.list_requests == 0


PROXY_LOGIN = (
    "(407 Proxy Authentication Required): put its user and password in HTTPS_PROXY "
    "(http://USER:PASSWORD@HOST:PORT), or have it allow that host, then rerun"
)


def behind(monkeypatch: pytest.MonkeyPatch, proxy: str) -> None:
    """Send HTTPS requests through `proxy`, whatever the machine's own settings say."""
    monkeypatch.setenv("HTTPS_PROXY", proxy)
    for name in ("https_proxy", "NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)


def test_a_proxy_that_wants_a_login_is_not_retried(
    fake: FakeLogging, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A proxy answering 407 to the tunnel was retried for a minute and a half, then called
    an outage (narrow the window, rerun), its reason cut off."""
    endpoint = fake.url.replace("http://", "https://")
    monkeypatch.setenv("CLOUDSDK_API_ENDPOINT_OVERRIDES_LOGGING", endpoint)
    with refusing_proxy() as proxy:
        behind(monkeypatch, proxy)
        code, out, err = run_cli(*ERRORS, "--execute")
    assert (code, out) == (4, "")
    assert retry_lines(err) == []
    assert err.splitlines()[-1] == (
        f"error: the proxy refused to connect to {endpoint.rstrip('/')} {PROXY_LOGIN}"
    )
    assert fake.list_requests == 0


def test_a_proxy_that_wants_a_login_for_the_token(
    fake: FakeLogging, key_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    token_uri = fake.token_uri.replace("http://", "https://")
    service_account_key(key_file, token_uri)
    with refusing_proxy() as proxy:
        behind(monkeypatch, proxy)
        code, out, err = run_cli(*ERRORS, "--execute")
    assert (code, out) == (4, "")
    assert not [line for line in err.splitlines() if line.startswith("cannot reach")]
    assert (
        err.splitlines()[-1] == f"error: the proxy refused to connect to {token_uri} {PROXY_LOGIN}"
    )
    assert fake.token_requests == 0


def test_an_endpoint_override_without_its_scheme_is_a_usage_error(
    fake: FakeLogging, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`HOST:PORT/` for the override: the client took the host for a path and every request
    failed, exit 4 with "wait a minute and rerun", for a setting to correct."""
    bare = fake.url.removeprefix("http://").rstrip("/")
    monkeypatch.setenv("CLOUDSDK_API_ENDPOINT_OVERRIDES_LOGGING", bare + "/")
    code, out, err = run_cli(*ERRORS, "--execute")
    assert (code, out) == (2, "")
    assert err.splitlines()[-1] == (
        f"error: CLOUDSDK_API_ENDPOINT_OVERRIDES_LOGGING={bare}/ has no scheme: write it as "
        "gcloud does, with https:// (or http:// for a local server), e.g. "
        "https://logging.googleapis.com/"
    )


def test_a_connection_failure_names_its_cause(
    fake: FakeLogging, monkeypatch: pytest.MonkeyPatch
) -> None:
    """requests puts the pool, host and URL before the cause: cut at 120 characters, every
    retry line and the error said "(HTTPSConnectionPool(host=..., port=...): Max retries
    exceeded with url: /v2/entries:list?prettyPrint=false (Ca)"."""
    fast_source(monkeypatch, deadline=0.5)
    monkeypatch.setenv("CLOUDSDK_API_ENDPOINT_OVERRIDES_LOGGING", fake.url.replace("http", "https"))
    with refusing_proxy("502 Bad Gateway") as proxy:
        behind(monkeypatch, proxy)
        code, out, err = run_cli(*ERRORS, "--execute")
    assert (code, out) == (4, "")
    cause = "ProxyError (Unable to connect to proxy, Tunnel connection failed: 502 Bad Gateway)"
    assert retry_lines(err)[0] == (
        f"Cloud Logging answered {cause} to {SWEEP} (page 1, attempt 1); retrying in 0.1s"
    )
    assert f"({cause});" in err.splitlines()[-1]


def test_a_key_file_variable_naming_a_folder(
    fake: FakeLogging, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CLOUDSDK_AUTH_DISABLE_CREDENTIALS")
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(tmp_path))
    code, out, err = run_cli(*ERRORS, "--execute")
    assert code == 3
    assert out == ""
    assert err.splitlines()[-1] == (
        f"error: cannot read GOOGLE_APPLICATION_CREDENTIALS={tmp_path} (Is a directory): "
        "point it at a service-account key file, or unset it and run "
        "`gcloud auth application-default login`"
    )
    assert fake.list_requests == 0


@pytest.mark.parametrize("text", ["[]", "42", "null"])
def test_a_key_file_holding_json_that_is_not_an_object(
    fake: FakeLogging, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    """A log export (a JSON array) named as the key file was an internal error (exit 70)."""
    path = tmp_path / "export.json"
    path.write_text(text, encoding="utf-8")
    monkeypatch.delenv("CLOUDSDK_AUTH_DISABLE_CREDENTIALS")
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(path))
    code, out, err = run_cli(*ERRORS, "--execute")
    assert (code, out) == (3, "")
    assert err.splitlines()[-1] == (
        f"error: cannot load the credentials in GOOGLE_APPLICATION_CREDENTIALS={path} (the "
        "file holds JSON that is not an object): point it at a valid service-account key "
        "file, or unset it and run `gcloud auth application-default login`"
    )
    assert fake.list_requests == 0


@pytest.mark.parametrize("partial", [1, 2])
def test_triage_pages_through_partial_scan_pages(
    monkeypatch: pytest.MonkeyPatch, partial: int
) -> None:
    """A fetch whose request budget is one page took the first, empty, partial-scan page as
    its answer: the sweep was empty and "truncated", and triage exited 70. Partial pages
    are paged through, and triage answers as it does without them."""
    incident = INCIDENTS / "host-oom-worker.json"
    args = (*target_args("host-oom-worker")[1:], "--action=triage")
    reports = []
    for pages in (0, partial):
        with FakeLogging(json.loads(incident.read_text())) as server:
            point_at(monkeypatch, server)
            fast_source(monkeypatch)
            server.partial_pages = pages
            code, out, err = run_cli(*args, "--format=json", "--execute")
            assert code == 0, err
            reports.append(json.loads(out))
    clean, partly = reports
    assert partly["root_cause"] == clean["root_cause"]
    assert partly["coverage"] == clean["coverage"]
    assert [check["count"] for check in partly["checks"]] == [
        check["count"] for check in clean["checks"]
    ]


def test_an_endpoint_that_refuses_connections_is_named_with_its_cause(
    fake: FakeLogging, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No connection is a network fault: the endpoint and the refusal are named (the cause
    was cut at 120 characters, and the advice was to narrow the query)."""
    monkeypatch.setenv("CLOUDSDK_API_ENDPOINT_OVERRIDES_LOGGING", f"http://{CLOSED_PORT}/")
    code, out, err = run_cli(*ERRORS, "--execute")
    assert code == 4
    assert out == ""
    last = err.splitlines()[-1]
    assert last.startswith(
        f"error: the query {SWEEP} could not connect to Cloud Logging at http://{CLOSED_PORT} "
    )
    assert "(Connection refused)" in last
    assert last.endswith(
        "check the network, the proxy settings (HTTPS_PROXY), and "
        "CLOUDSDK_API_ENDPOINT_OVERRIDES_LOGGING, then rerun"
    )
    assert "narrow" not in last


@contextlib.contextmanager
def unanswered_port() -> Iterator[int]:
    """A port whose listener never accepts and whose queue is full: a connection to it times
    out, as one to an address a firewall drops does."""
    with contextlib.ExitStack() as stack:
        listener = stack.enter_context(socket.socket())
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        port = listener.getsockname()[1]
        for _ in range(3):
            waiting = stack.enter_context(socket.socket())
            waiting.setblocking(False)
            waiting.connect_ex(("127.0.0.1", port))
        time.sleep(0.1)
        yield port


def test_a_connection_that_times_out_is_a_network_fault(
    fake: FakeLogging, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A firewall that drops the packets (a private cluster without a way to Google's APIs)
    was called an outage: narrow the window so the query has less to scan."""
    fast_source(monkeypatch, deadline=0.5, timeout=0.2)
    with unanswered_port() as port:
        monkeypatch.setenv("CLOUDSDK_API_ENDPOINT_OVERRIDES_LOGGING", f"http://127.0.0.1:{port}/")
        code, out, err = run_cli(*ERRORS, "--execute")
    assert (code, out) == (4, "")
    last = err.splitlines()[-1]
    assert last.startswith(
        f"error: the query {SWEEP} could not connect to Cloud Logging at http://127.0.0.1:{port} "
    )
    assert "(ConnectTimeout)" in last
    assert "narrow" not in last


def test_a_404_names_the_project_and_the_endpoint_in_use(fake: FakeLogging) -> None:
    """Named as set: the variable was named whether it was set or not."""
    fake.fail(404, times=None)
    code, out, err = run_cli(*ERRORS, "--execute")
    assert (code, out) == (4, "")
    assert err.splitlines()[-1].endswith(
        f"check --project and CLOUDSDK_API_ENDPOINT_OVERRIDES_LOGGING={fake.url.rstrip('/')}"
    )


def test_a_response_that_trickles_in_is_abandoned_at_the_deadline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """requests times out between two reads only: a server sending a byte every few seconds
    held the tool for minutes, then it said nothing matched. Each request has a deadline
    for its whole answer; past it the request is retried, then reported (exit 4)."""
    with FakeLogging([]) as server:
        point_at(monkeypatch, server)
        fast_source(monkeypatch, deadline=0.5, timeout=5.0, request_deadline=0.2)
        server.trickle = 0.3  # the second byte of the empty page comes 0.3 s after the first
        code, out, err = run_cli(*ERRORS, "--execute")
    assert (code, out) == (4, "")
    assert retry_lines(err) and all("TooSlow" in line for line in retry_lines(err))
    assert re.match(f"error: the query {SWEEP} failed after [0-9]+ attempts", err.splitlines()[-1])


# Triage's first wave of two-failures: one request per check.
FIRST_WAVE = 8


def _first_wave_then(monkeypatch: pytest.MonkeyPatch, status: int) -> tuple[str, int, str, str]:
    """Triage of two-failures as JSON, once as the fake answers it, then with every request
    after the first wave answered `status`: the first run's report, and the second run's
    exit code, stdout and stderr."""
    incident = INCIDENTS / "two-failures.json"
    args = (*target_args("two-failures")[1:], "--action=triage", "--format=json")
    with FakeLogging(json.loads(incident.read_text())) as server:
        point_at(monkeypatch, server)
        fast_source(monkeypatch, deadline=1.0)
        code, clean, err = run_cli(*args, "--execute")
        assert code == 0, err
        server.fail(status, times=None, after=FIRST_WAVE)
        return (clean, *run_cli(*args, "--execute"))


def test_a_later_stage_failing_keeps_the_first_stages_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Cloud Logging answered 503 to every request after triage's first wave: the run exited
    4 and printed nothing, though the first wave had found the root cause. The report of
    what was found is printed, and the error names the query that failed and says the report
    is incomplete (still exit 4)."""
    clean, code, out, err = _first_wave_then(monkeypatch, 503)
    first_wave = json.loads(clean)["checks"][:FIRST_WAVE]
    assert code == 4
    (last,) = [line for line in err.splitlines() if line.startswith("error:")]
    assert "failed after" in last and "(503 UNAVAILABLE" in last
    assert last.endswith(
        "; the report holds only what the checks before that query found, and is incomplete"
    )
    report = json.loads(out)
    assert report["root_cause"] == json.loads(clean)["root_cause"]
    assert report["checks"] == first_wave


def test_a_later_stage_refused_keeps_the_first_stages_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Cloud Logging answered 403 to every request after triage's first wave: the run exited
    3 and printed nothing, where a 503 there keeps the report of what the first wave found.
    A refusal keeps it too, says it is incomplete, and still exits 3."""
    clean, code, out, err = _first_wave_then(monkeypatch, 403)
    assert code == 3
    said = err.splitlines()[-1].removeprefix("error: ")
    assert said.startswith("no permission to read the logs of project pw-demo")
    assert said.endswith(
        "; the report holds only what the checks before that query found, and is incomplete"
    )
    report = json.loads(out)
    assert report["root_cause"] == json.loads(clean)["root_cause"]
    assert report["incomplete"] == said


def _later_stage_failing(
    monkeypatch: pytest.MonkeyPatch, output_format: str, output: Path
) -> tuple[int, str, str]:
    """Triage of two-failures in the given format to `output`, every request after the first
    wave (one request per check) answered 503."""
    incident = INCIDENTS / "two-failures.json"
    args = (*target_args("two-failures")[1:], "--action=triage", f"--format={output_format}")
    with FakeLogging(json.loads(incident.read_text())) as server:
        point_at(monkeypatch, server)
        fast_source(monkeypatch, deadline=1.0)
        server.fail(503, times=None, after=FIRST_WAVE)
        return run_cli(*args, f"--output={output}", "--execute")


def test_a_later_stage_failing_says_so_on_the_page(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The HTML page of what the first wave found was written (exit 4) and read as a whole
    report: only stderr said it was incomplete. The page says so too."""
    page = tmp_path / "triage.html"
    code, out, err = _later_stage_failing(monkeypatch, "html", page)
    assert (code, out) == (4, "")
    said = err.splitlines()[-1].removeprefix("error: ")
    assert said.endswith("and is incomplete")
    assert f"warning: {said}" in structure(page.read_text(encoding="utf-8")).text


@pytest.mark.parametrize("output_format", ["json", "text"])
def test_a_later_stage_failing_says_so_in_the_report(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, output_format: str
) -> None:
    """The JSON report of what the first wave found read as a whole one (its checks list
    only the queries that answered, nothing marks it cut), as did the text: only stderr
    and the exit code said it was incomplete. The report says so too."""
    report = tmp_path / f"triage.{output_format}"
    code, out, err = _later_stage_failing(monkeypatch, output_format, report)
    assert (code, out) == (4, "")
    said = err.splitlines()[-1].removeprefix("error: ")
    assert said.endswith("and is incomplete")
    written = report.read_text(encoding="utf-8")
    if output_format == "json":
        assert json.loads(written)["incomplete"] == said
    else:
        assert f"**Incomplete:** {said}" in written.splitlines()[:4]


def test_preflight_does_not_call_a_log_kind_missing_when_its_probe_failed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Cloud Logging failed on preflight's coverage probes after its access checks passed:
    the report kept from the access checks said the logs held no Kubernetes events, no node
    logs and no serial console, though nothing had looked. Those kinds are not known."""
    incident = INCIDENTS / "two-failures.json"
    args = (*target_args("two-failures")[1:], "--action=preflight", "--format=json")
    with FakeLogging(json.loads(incident.read_text())) as server:
        point_at(monkeypatch, server)
        fast_source(monkeypatch, deadline=1.0)
        code, _, err = run_cli(*args, "--execute")
        assert code == 0, err
        access_checks = server.list_requests - 4  # then the head lines and three probes
        server.fail(503, times=None, after=access_checks)
        code, out, err = run_cli(*args, "--execute")
    assert code == 4
    assert err.splitlines()[-1].endswith("and is incomplete")
    report = json.loads(out)
    assert report["status"] == "PASS"
    gaps = report["coverage"]["gaps"]
    assert not [gap for gap in gaps if gap.startswith("no ")]
    for kind in ("Kubernetes events", "node logs", "serial console"):
        assert f"{kind}: not known whether the logs hold any: its check did not finish" in " ".join(
            gaps
        )


def test_triage_whose_budget_ends_an_endless_partial_scan_says_nothing_is_known(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Cloud Logging answered only partial-scan (empty) pages: the request budget stopped
    every read of triage's first wave before any entry, and the report said "the window
    holds none of the workload's lines" (exit 0). Nothing was learnt: exit 4, saying why."""
    incident = INCIDENTS / "two-failures.json"
    args = (*target_args("two-failures")[1:], "--action=triage")
    with FakeLogging(json.loads(incident.read_text())) as server:
        point_at(monkeypatch, server)
        fast_source(monkeypatch)
        server.partial_pages = 1000
        code, out, err = run_cli(*args, "--execute")
        assert server.list_requests <= 25
    assert (code, out) == (4, "")
    assert err.splitlines()[-1] == (
        'error: Cloud Logging had not finished scanning for any of the 8 queries ("crash, '
        "fatal and stall lines of every workload container\" first) when the run's request "
        f"budget ran out after {server.list_requests} requests: it sent only partial-scan "
        "(empty) pages; narrow the window (--duration) or the workload flags, then rerun"
    )


def test_a_later_stage_failing_still_writes_the_output_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The error said the report held what the first wave found, but --output discarded the
    file it was being written to, as it does for a failed run."""
    path = tmp_path / "triage.json"
    code, out, err = _later_stage_failing(monkeypatch, "json", path)
    assert (code, out) == (4, "")
    assert f"report written to {path}" in err.splitlines()
    assert err.splitlines()[-1].endswith("and is incomplete")
    assert len(json.loads(path.read_text())["checks"]) == 8


@pytest.mark.parametrize("output_format", ["text", "html"])
def test_triage_whose_latest_lines_did_not_finish_does_not_call_the_window_empty(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, output_format: str
) -> None:
    """Cloud Logging sent only partial-scan pages to the latest-lines query until the request
    budget ran out, while the other checks read the workload's start-up lines and events: the
    report said "the window holds none of the workload's lines" and sent the user to check
    the window and the workload flags. It says the check did not finish instead."""
    real_answer = FakeLogging.answer

    def scanning_latest(self: FakeLogging, body: dict[str, Any]) -> dict[str, Any]:
        if body.get("orderBy") == "timestamp desc":
            return {"nextPageToken": f"still-scanning-{self.list_requests}"}
        return real_answer(self, body)

    monkeypatch.setattr(FakeLogging, "answer", scanning_latest)
    page = tmp_path / f"triage.{output_format}"
    args = (*target_args("healthy-run")[1:], "--action=triage", f"--format={output_format}")
    with FakeLogging(json.loads((INCIDENTS / "healthy-run.json").read_text())) as server:
        point_at(monkeypatch, server)
        fast_source(monkeypatch, max_empty_pages=1000)
        code, out, err = run_cli(*args, f"--output={page}", "--execute")
    assert (code, out) == (0, ""), err
    written = page.read_text(encoding="utf-8")
    shown = " ".join(structure(written).text) if output_format == "html" else written
    said = " ".join(shown.split())
    assert "the window holds none of the workload's lines" not in said
    assert "No verdict: the latest lines of the workload were not all read" in said
