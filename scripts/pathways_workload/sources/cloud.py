"""Cloud Logging as a source: `entries.list` through google-cloud-logging's HTTP/JSON connection.

The pages are read raw through the client's connection, so every entry keeps
the API's JSON shape (nanoseconds, receiveTimestamp, split, ...), which the
client's entry objects would lose. Each fetch asks for `pageSize` =
min(limit, 1000) and follows `nextPageToken` until its limit is met or the
token ends (the server may send shorter pages than asked; that is normal).
Each page request is retried on 429, 5xx and connection errors with backoff
(not when a proxy blocks it: a certificate the client does not trust, a tunnel
refused), resuming from its page token; all requests of a source draw from one
budget well under the project's 60 requests per minute. A fetch given an allowance
(a budgeted run's hard cap, shared by a stage) sends no request past it, retries
included: the read ends truncated and `cut`, or, when the allowance ends a page's
retries, fails as if they ran out. A read that does not
end is stopped with CloudLoggingError: a token sent twice, too many partial-scan
(empty) pages in a row, pages in a row that bring only entries already read,
or more pages than any honest read of the limit needs. An entry a page
repeats (same log, insertId and time) is kept once, as within one page, so a
limit counts distinct entries.
Responses that are not what the API sends are CloudLoggingError too, among them
entries out of the order asked. An entry the fetch's filter does not match as the offline
engine reads it (unless the filter calls a function only Cloud Logging evaluates) is left
out, as a replay of the same entries leaves it out, with a warning: a stray from a proxy or
a wrong endpoint, or a reading of the query that differs from the API's, must neither be
taken for evidence nor stop the run. The
access token is fetched before the first query, within the same deadline as a
request, so a failing token endpoint is told apart from bad credentials.
Independent fetches run concurrently.
google.cloud is imported only when a query runs.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import datetime
import email.utils
import math
import os
import re
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from pathways_workload import USAGE_TOKENS
from pathways_workload.errors import CloudLoggingError, ToolError, UsageError
from pathways_workload.filters import compile_checked
from pathways_workload.lql import CompiledFilter
from pathways_workload.shaping import identity
from pathways_workload.sources import credentials
from pathways_workload.sources.base import Entry, Fetch, Result, entry_time_ns
from pathways_workload.sources.retry import Backoff, GaveUp, RequestBudget, retrying

MAX_PAGE_SIZE = 1000
MAX_EMPTY_PAGES = 10
# Pages in a row that bring only entries already read: the server is paging in a loop.
MAX_STALE_PAGES = 3
MAX_PAGES = 100
WORKERS = 8  # triage sends seven queries in one wave
REQUEST_TIMEOUT = 60.0  # between two reads of a response (requests' own timeout)
# A whole response, however it trickles in: past this the request is abandoned and retried.
REQUEST_DEADLINE = 180.0
STOP_POLL = 0.05  # how often a request in flight looks whether another fetch failed
QUOTA_ADVICE = (
    "the project's read quota (entries.list requests per minute) is used up: wait a minute "
    "and rerun, narrow the window (--duration) so fewer pages are needed, or raise the "
    "'Read requests per minute' quota of logging.googleapis.com"
)
OUTAGE_ADVICE = (
    "wait a minute and rerun, or narrow the window (--duration) or the workload flags "
    "so the query has less to scan"
)
NARROW_ADVICE = "narrow the window (--duration) or the workload flags"
SPENT_NOTE = ", and the run's request budget allows no more"
_JSON_TYPES = {bool: "boolean", int: "number", float: "number", str: "string", list: "array"}


# A connection that was never made (refused, no route, no such host, no answer), as
# requests says it.
_NO_CONNECTION = re.compile(
    r"Failed to establish a new connection|NameResolutionError|ConnectTimeoutError"
)
_ERRNO = re.compile(r"\[Errno -?\d+\] ([^'\")\]]+)")
_CAUSED_BY = re.compile(r"\(Caused by (.*)\)$")
_QUOTED = re.compile(r"'([^']*)'|\"([^\"]*)\"")
# A response cut short, as urllib3 says it: "Connection broken: ConnectionResetError(104,
# 'Connection reset by peer')", or "Connection broken: IncompleteRead(9 bytes read, ...)".
_BROKEN = re.compile(r"Connection broken: (?:\w+\(-?\d+, '([^']*)'\)|(\w+\([^()]*\)))")
_DURATION = re.compile(r"\d+(\.\d+)?s")  # a google.protobuf.Duration in JSON: "30s", "1.5s"
_HTML_TITLE = re.compile(r"<html\b.*?<title>([^<]*)</title>", re.IGNORECASE)
# The request field a 400 is about, as its message (or a BadRequest field violation) names it.
_REQUEST_FIELD = re.compile(
    r"\b(filter|resource[ _]?names?|page[ _]?size|order[ _]?by|page[ _]?token)\b", re.IGNORECASE
)
# The request fields the tool sets itself, by what a user would call them.
_TOOL_FIELDS = {"pagesize": "page size", "orderby": "order", "pagetoken": "page token"}
# Blocked by a proxy, as requests says it: a certificate the client does not trust (the
# proxy inspects TLS), with OpenSSL's reason, or a tunnel refused (407: it wants a login).
_UNTRUSTED = re.compile(r"CERTIFICATE_VERIFY_FAILED\] ([^(]+)")
_TUNNEL_REFUSED = re.compile(r"Tunnel connection failed: (4\d\d[^'\")]*)")


class TooSlow(Exception):
    """A response that did not arrive whole within the request deadline (it trickled in)."""


class _Stopped(Exception):
    """Another fetch of the same run failed; this one stops before its next request, or
    leaves the one in flight."""


class _Spent(Exception):
    """The stage's request allowance is spent: the read stops before its next request."""


def _within(
    seconds: float, call: Callable[[], object], stop: threading.Event | None = None
) -> object:
    """`call()`'s result, or TooSlow when it takes longer than `seconds`: requests times out
    between reads only, so a server sending a byte now and then would hold a read forever.
    The call runs in a daemon thread, left behind when it overruns or `stop` is set."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = call()
        except Exception as error:  # handed over to the caller's thread
            outcome["error"] = error

    worker = threading.Thread(target=run, name="pathways-request", daemon=True)
    worker.start()
    end = time.monotonic() + seconds
    while worker.is_alive() and (left := end - time.monotonic()) > 0:
        if stop is not None and stop.is_set():
            raise _Stopped
        worker.join(min(STOP_POLL, left))
    if worker.is_alive():
        raise TooSlow(f"no whole answer within {seconds:g}s")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


@dataclasses.dataclass(frozen=True)
class _Api:
    """What a run needs from the lazily imported client libraries."""

    new_client: Callable[[], Any]
    credentials: Any
    transient: tuple[type[Exception], ...]
    call_error: type[Exception]
    auth_error: type[Exception]
    transport_error: type[Exception]
    request_error: type[Exception]


@dataclasses.dataclass
class _Scan:
    """The pages of one fetch read so far."""

    fetch: Fetch
    project: str
    entries: list[Entry] = dataclasses.field(default_factory=list)
    token: str | None = None
    sent: set[str] = dataclasses.field(default_factory=set)
    pages: int = 0
    requests: int = 0
    empty_pages: int = 0  # the last pages that were empty, in a row
    stale_pages: int = 0  # the last pages whose entries were all seen before, in a row
    seen: set[tuple[str, str, str]] = dataclasses.field(default_factory=set)
    cut: bool = False  # the stage's request allowance ran out before the read was done
    asked: CompiledFilter | None = dataclasses.field(init=False)
    last: Entry | None = None  # the last entry read, to check the order by
    strays: list[Entry] = dataclasses.field(default_factory=list)  # entries left out

    def __post_init__(self) -> None:
        self.asked = _answer_check(self.fetch.query.filter)

    @property
    def purpose(self) -> str:
        return self.fetch.query.purpose

    @property
    def page_size(self) -> int:
        return min(self.fetch.limit, MAX_PAGE_SIZE)

    def page_cap(self, max_pages: int) -> int:
        """Most pages this read may take: `max_pages`, or twice what the limit needs."""
        return max(max_pages, 2 * math.ceil(self.fetch.limit / MAX_PAGE_SIZE))

    def body(self) -> dict[str, Any]:
        """The request body; every page but the first adds the previous page's token."""
        body: dict[str, Any] = {
            "resourceNames": [f"projects/{self.project}"],
            "filter": self.fetch.query.filter,
            "orderBy": f"timestamp {self.fetch.order}",
            "pageSize": self.page_size,
        }
        if self.token:
            body["pageToken"] = self.token
        return body

    def add(self, page: object) -> None:
        """Take one response; an empty-string nextPageToken ends the read like a missing one."""
        entries, token = _read_page(page, self.purpose)
        if self.token:
            self.sent.add(self.token)
        self.pages += 1
        if token in self.sent:
            raise CloudLoggingError(
                f'Cloud Logging sent the same page token twice for "{self.purpose}" (after '
                f"page {self.pages}): it is paging in a loop; {OUTAGE_ADVICE}"
            )
        self.token = token
        self.empty_pages = 0 if entries else self.empty_pages + 1
        known = len(self.entries)
        for entry in entries:
            key = identity(entry)
            if key not in self.seen:
                self.seen.add(key)
                if self._check(entry):
                    self.entries.append(entry)
        stale = entries and len(self.entries) == known
        self.stale_pages = self.stale_pages + 1 if stale else 0
        if self.stale_pages >= MAX_STALE_PAGES:
            raise CloudLoggingError(
                f"Cloud Logging sent pages {self.pages - self.stale_pages + 1} to {self.pages} "
                f'of "{self.purpose}" with no entry the earlier pages had not: it is paging in '
                f"a loop; {OUTAGE_ADVICE}"
            )

    def _check(self, entry: Entry) -> bool:
        """Whether a new entry is one the query matches (else it is kept aside in `strays`);
        CloudLoggingError for one out of the order asked, which the API never sends."""
        if self.asked is not None and not self.asked.matches(entry):
            self.strays.append(entry)
            return False
        if self.last is not None and _out_of_order(self.last, entry, self.fetch.order):
            raise _unexpected(
                self.purpose,
                f"entries out of the order asked, timestamp {self.fetch.order}: "
                f"{self.last.get('timestamp')}, then {entry.get('timestamp')}",
            )
        self.last = entry
        return True

    def stray_warning(self) -> str | None:
        """The warning for the entries left out as not matching the query, if any."""
        if not self.strays:
            return None
        first = self.strays[0]
        return (
            f'warning: Cloud Logging answered "{self.purpose}" with {len(self.strays)} '
            f"entries its query does not match as this tool reads it (the first: insertId "
            f"{first.get('insertId')} at {first.get('timestamp')}); left out, as a replay of "
            "them would leave them out"
        )

    def more_needed(self) -> bool:
        if self.pages == 0:
            return True
        if self.token is None or len(self.entries) >= self.fetch.limit:
            return False
        # A budget cuts a read short once it has something: partial-scan (empty) pages
        # before its first entry are paged through (bounded by MAX_EMPTY_PAGES and by the
        # stage's allowance, which stops the read before its next request).
        if self.fetch.max_requests and self.requests >= self.fetch.max_requests and self.entries:
            return False
        return self.fetch.until is None or not self.fetch.until(self.entries)

    def result(self) -> Result:
        limit = self.fetch.limit
        truncated = self.cut or len(self.entries) > limit or self.token is not None
        kept = self.entries[:limit]
        answered = self.fetch.until is not None and self.fetch.until(kept)
        return Result(self.fetch, kept, truncated, self.requests, answered, cut=self.cut)


def _answer_check(text: str) -> CompiledFilter | None:
    """The filter compiled to check each entry of the answer by; None when the offline engine
    cannot evaluate it (a function only Cloud Logging evaluates, such as sample())."""
    try:
        return compile_checked(text)
    except UsageError:
        return None


def _out_of_order(before: Entry, after: Entry, order: str) -> bool:
    """Whether `after` cannot follow `before` in an answer ordered by timestamp `order`."""
    earlier, later = entry_time_ns(before), entry_time_ns(after)
    return later < earlier if order == "asc" else later > earlier


def _read_page(page: object, purpose: str) -> tuple[list[Entry], str | None]:
    """The entries and next token of a response, or CloudLoggingError if it is not a page."""
    if not isinstance(page, dict):
        raise _unexpected(purpose, "not a JSON object")
    if "error" in page:  # a gateway's error with a 200 status: not an empty page
        error = page["error"]
        said = error.get("message", error) if isinstance(error, dict) else error
        detail = credentials.one_line(str(said))[:200]
        raise _unexpected(purpose, f"a 200 answer holding an error: {detail}")
    entries = page.get("entries", [])
    if not isinstance(entries, list):
        raise _unexpected(purpose, "its entries are not a list")
    for entry in entries:
        if not isinstance(entry, dict):
            kind = _JSON_TYPES.get(type(entry), "null")
            raise _unexpected(purpose, f"an entry is a {kind}, not an object")
    token = page.get("nextPageToken")
    if token is not None and not isinstance(token, str):
        raise _unexpected(purpose, "its nextPageToken is not a string")
    return entries, token or None


def _no_page(scan: _Scan, error: Exception) -> CloudLoggingError:
    """A request that brought no page: blocked by a proxy, or not the API's answer."""
    body = getattr(error, "doc", None)  # a JSONDecodeError keeps the text it could not read
    if isinstance(body, str):
        detail = f"not JSON: {_page_title(body) or repr(credentials.one_line(body)[:80])}"
    else:
        detail = f"{type(error).__name__}: {credentials.one_line(str(error))[:120]}"
    return _blocked(_api_endpoint(), error) or _unexpected(scan.purpose, detail)


def _blocked(where: str, error: Exception) -> CloudLoggingError | None:
    """The error for a request to `where` a proxy blocked (no retry helps), else None."""
    text = str(error)
    if untrusted := _UNTRUSTED.search(text):
        return CloudLoggingError(
            f"the TLS certificate of {where} is not trusted ({untrusted.group(1).strip()}): "
            "if a proxy inspects TLS, set REQUESTS_CA_BUNDLE to a file with its CA "
            "certificate; check the proxy settings (HTTPS_PROXY), then rerun"
        )
    if refused := _TUNNEL_REFUSED.search(text):
        return CloudLoggingError(
            f"the proxy refused to connect to {where} ({refused.group(1).strip()}): put its "
            "user and password in HTTPS_PROXY (http://USER:PASSWORD@HOST:PORT), or have it "
            "allow that host, then rerun"
        )
    return None


def _api_endpoint() -> str:
    """Where the queries go: the endpoint override, else Cloud Logging's own host."""
    return credentials.endpoint() or "logging.googleapis.com"


def _unexpected(purpose: str, detail: str) -> CloudLoggingError:
    """A response the API would not send: a proxy, a wrong endpoint, or a broken server."""
    override = os.environ.get(credentials.ENDPOINT_ENV, "").strip()
    advice = f"check {credentials.ENDPOINT_ENV}={override}, or " if override else ""
    return CloudLoggingError(
        f'unexpected response from Cloud Logging to "{purpose}" ({detail}); '
        f"{advice}wait a minute and rerun"
    )


class CloudSource:
    """Runs fetches against Cloud Logging; timings, budget and pool size are injectable."""

    def __init__(
        self,
        project: str,
        err: TextIO,
        *,
        backoff: Backoff | None = None,
        budget: RequestBudget | None = None,
        workers: int = WORKERS,
        max_empty_pages: int = MAX_EMPTY_PAGES,
        max_pages: int = MAX_PAGES,
        timeout: float = REQUEST_TIMEOUT,
        request_deadline: float = REQUEST_DEADLINE,
    ) -> None:
        self.project = project
        self.err = err
        self.backoff = backoff or Backoff()
        self.budget = budget or RequestBudget()
        self.workers = workers
        self.max_empty_pages = max_empty_pages
        self.max_pages = max_pages
        self.timeout = timeout
        self.deadline = request_deadline
        self._api: _Api | None = None
        self._lock = threading.Lock()
        self._waits_told = False

    def run(self, fetches: Sequence[Fetch], anticipated: Sequence[Fetch] = ()) -> list[Result]:
        """Run the fetches concurrently; the first failure stops the others and is raised.

        Nothing is asked ahead (`anticipated`): each fetch costs requests. When the request
        allowance stopped every read before any entry, nothing was learnt: CloudLoggingError.
        """
        if not fetches:
            return []
        results = self._read_all(self._connect(), fetches)
        if all(result.cut and not result.entries for result in results):
            raise _spent_unanswered(results)
        return results

    def _read_all(self, api: _Api, fetches: Sequence[Fetch]) -> list[Result]:
        """Read every fetch, concurrently; the first failure stops the others and is raised."""
        stop = threading.Event()
        if len(fetches) == 1:
            return [self._read(api, fetches[0], stop)]
        workers = min(self.workers, len(fetches))
        with concurrent.futures.ThreadPoolExecutor(workers, "cloud-logging") as pool:
            futures = [pool.submit(self._read, api, fetch, stop) for fetch in fetches]
            try:
                concurrent.futures.wait(futures, return_when=concurrent.futures.FIRST_EXCEPTION)
                for future in futures:
                    error = future.exception() if future.done() else None
                    if error is not None and not isinstance(error, _Stopped):
                        raise error
                return [future.result() for future in futures]
            finally:
                stop.set()

    def _connect(self) -> _Api:
        """Import the client libraries, load credentials and get a token, once per source."""
        if self._api is None:
            api = _load_api(self.project)
            self._first_token(api)
            self._api = api
        return self._api

    def _first_token(self, api: _Api) -> None:
        """Fetch the access token within the request deadline, retrying while its endpoint
        cannot be reached or does not answer whole in time."""
        endpoint = credentials.token_endpoint(api.credentials)

        def report(error: Exception, wait: float, number: int) -> None:
            self._say(
                f"cannot reach the token endpoint {endpoint} ({_cause(error)}; attempt "
                f"{number}); retrying in {wait:.1f}s"
            )

        try:
            retrying(
                lambda: _within(
                    self.deadline, lambda: credentials.fetch_token(api.credentials, self.project)
                ),
                lambda e: isinstance(e, (api.transport_error, TooSlow)) and not _blocked("", e),
                self.backoff,
                report,
                time.sleep,
            )
        except api.transport_error as error:  # not retried: blocked by a proxy
            raise _blocked(endpoint, error) or error from None
        except GaveUp as gave_up:
            raise CloudLoggingError(
                f"cannot reach the token endpoint {endpoint} after {gave_up.attempts} "
                f"attempts ({_cause(gave_up.error)}): check the network, wait a minute and rerun"
            ) from None

    def _read(self, api: _Api, fetch: Fetch, stop: threading.Event) -> Result:
        """Read only the pages the fetch's limit needs, within the paging bounds."""
        scan = _Scan(fetch, self.project)
        client = api.new_client()
        while scan.more_needed():
            self._check_bounds(scan)
            try:
                scan.add(self._page(api, client, scan, stop))
            except _Spent:
                scan.cut = True
                break
            if self.err.isatty():
                self._say(
                    f'"{scan.purpose}": page {scan.pages}, {len(scan.entries)} entries so far'
                )
        if (warning := scan.stray_warning()) is not None:
            self._say(warning)
        return scan.result()

    def _check_bounds(self, scan: _Scan) -> None:
        """Stop a read that keeps answering partial-scan pages, or pages on past any honest read."""
        if scan.empty_pages >= self.max_empty_pages:
            raise _unfinished(scan)
        if scan.pages >= scan.page_cap(self.max_pages):
            raise CloudLoggingError(
                f'the query "{scan.purpose}" stopped after {scan.pages} pages '
                f"({len(scan.entries)} entries) and Cloud Logging still had more: "
                f"{NARROW_ADVICE}, or lower --limit, then rerun"
            )

    def _page(self, api: _Api, client: Any, scan: _Scan, stop: threading.Event) -> object:
        """One page, retried (from the same page token) on transient failures."""
        body = scan.body()
        page = scan.pages + 1
        failures: list[Exception] = []

        def attempt() -> object:
            self._await_budget(stop)
            if scan.fetch.allowance is not None and not scan.fetch.allowance.take():
                raise _Spent
            scan.requests += 1
            return _within(
                self.deadline,
                lambda: client._connection.api_request(
                    method="POST", path="/entries:list", data=body, timeout=self.timeout
                ),
                stop,
            )

        def report(error: Exception, wait: float, number: int) -> None:
            failures.append(error)
            self._say(
                f'Cloud Logging answered {_status(error)} to "{scan.purpose}" '
                f"(page {page}, attempt {number}); retrying in {wait:.1f}s"
            )

        def transient(error: Exception) -> bool:
            return isinstance(error, api.transient) and not _blocked("", error)

        started = time.monotonic()
        try:
            return retrying(
                attempt, transient, self.backoff, report, stop.wait, advised=_advised_wait
            )
        except _Spent:
            if not failures:
                raise
            spent = GaveUp(failures[-1], len(failures), time.monotonic() - started)
            raise _gave_up(scan, spent, SPENT_NOTE) from None
        except GaveUp as gave_up:
            raise _gave_up(scan, gave_up) from None
        except api.auth_error as error:
            raise credentials.token_failed(api.credentials, self.project, error) from None
        except api.call_error as error:
            raise _failed(self.project, scan, error) from None
        except (api.request_error, ValueError) as error:
            raise _no_page(scan, error) from None
        except RecursionError:
            raise _unexpected(scan.purpose, "an entry is nested too deeply") from None

    def _await_budget(self, stop: threading.Event) -> None:
        if stop.is_set():
            raise _Stopped
        wait = self.budget.reserve()
        if wait >= 1:
            self._tell_wait(wait)
        if wait and stop.wait(wait):
            raise _Stopped

    def _tell_wait(self, wait: float) -> None:
        """Say a wait for the request budget: each one on a terminal; off one (a log, an agent
        reading stderr) the first only, so that a long run is not taken for a hung one."""
        line = (
            f"waiting {wait:.1f}s for the request budget "
            f"({self.budget.per_minute:g} requests per minute)"
        )
        if self.err.isatty():
            self._say(line)
            return
        with self._lock:
            told, self._waits_told = self._waits_told, True
        if not told:
            self._say(line + "; the requests after this one wait too, unreported")

    def _say(self, line: str) -> None:
        with self._lock:
            self.err.write(line + "\n")
            self.err.flush()


def _load_api(project: str) -> _Api:
    """Import google-cloud-logging and build clients on its HTTP/JSON transport."""
    try:
        import requests
        from google.api_core import exceptions
        from google.api_core.client_info import ClientInfo
        from google.auth.exceptions import GoogleAuthError, TransportError
        from google.cloud import logging
    except ImportError as error:
        raise UsageError(
            f"--execute needs google-cloud-logging ({error}); install the skill with "
            "`pip install <skill folder>`, or use --logs_file or the printed commands"
        ) from None
    found = credentials.load(project)
    endpoint = credentials.endpoint()
    info = ClientInfo(user_agent=USAGE_TOKENS)  # type: ignore[no-untyped-call]

    def new_client() -> Any:
        return logging.Client(  # type: ignore[no-untyped-call]
            project=project,
            credentials=found,
            _use_grpc=False,
            client_info=info,
            client_options={"api_endpoint": endpoint} if endpoint else None,
        )

    transient = (
        exceptions.TooManyRequests,
        exceptions.InternalServerError,
        exceptions.BadGateway,
        exceptions.ServiceUnavailable,
        exceptions.GatewayTimeout,
        requests.exceptions.ConnectionError,
        requests.exceptions.Timeout,
        requests.exceptions.ChunkedEncodingError,
        TransportError,
        TooSlow,
    )
    return _Api(
        new_client,
        found,
        transient,
        exceptions.GoogleAPICallError,
        GoogleAuthError,
        TransportError,
        requests.exceptions.RequestException,
    )


def _unfinished(scan: _Scan) -> CloudLoggingError:
    """Cloud Logging kept answering partial-scan pages (no entries, a token): stop, say so."""
    what = (
        f'the query "{scan.purpose}": Cloud Logging had not finished scanning after '
        f"{scan.pages} pages"
    )
    advice = f"{NARROW_ADVICE}, then rerun"
    if not scan.entries:
        return CloudLoggingError(f"{what} and found nothing yet; {advice}")
    return CloudLoggingError(
        f"{what} (the last {scan.empty_pages} empty); the {len(scan.entries)} entries found "
        f"so far are incomplete: {advice}"
    )


def _spent_unanswered(results: Sequence[Result]) -> CloudLoggingError:
    """The run's request budget ran out before any of these reads got an entry: Cloud
    Logging sent only partial-scan (empty) pages, so nothing is known."""
    sent = sum(result.requests for result in results)
    return CloudLoggingError(
        f"Cloud Logging had not finished scanning for any of the {len(results)} queries "
        f'("{results[0].fetch.query.purpose}" first) when the run\'s request budget ran out '
        f"after {sent} requests: it sent only partial-scan (empty) pages; {NARROW_ADVICE}, "
        "then rerun"
    )


def _error_body(error: Exception) -> dict[str, Any]:
    """The `error` object of an API error's JSON body ({} when there is none)."""
    response = getattr(error, "response", None)
    try:
        body = response.json()["error"]  # type: ignore[union-attr]
    except (AttributeError, KeyError, TypeError, ValueError):
        return {}
    return body if isinstance(body, dict) else {}


def _server_message(error: Exception) -> str:
    """The server's own message from an API error's JSON body, else the exception text (for
    an HTML error page, its title)."""
    body = _error_body(error)
    message = body["message"] if "message" in body else getattr(error, "message", None) or error
    text = credentials.one_line(str(message))
    return _page_title(text) or text


def _page_title(text: str) -> str | None:
    """`an HTML page titled '...'` when the text is an HTML page with a title."""
    title = _HTML_TITLE.search(text)
    return f"an HTML page titled {title.group(1).strip()!r}" if title else None


def _advised_wait(error: Exception) -> float:
    """The seconds an API error asks the client to wait before retrying (0: it does not
    say): its Retry-After header (seconds or an HTTP date), else the retryDelay of a
    google.rpc.RetryInfo in its JSON body."""
    response = getattr(error, "response", None)
    headers = getattr(response, "headers", None)
    said = headers.get("Retry-After") if headers is not None else None
    if isinstance(said, str) and said.strip():
        return _retry_after(said.strip())
    details = _error_body(error).get("details")
    for detail in details if isinstance(details, list) else ():
        delay = detail.get("retryDelay") if isinstance(detail, dict) else None
        if isinstance(delay, str) and _DURATION.fullmatch(delay):
            return float(delay[:-1])
    return 0.0


def _retry_after(value: str) -> float:
    """Retry-After's seconds: a number of them, or an HTTP date (0 when neither)."""
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return 0.0
    if when.tzinfo is None:
        return 0.0
    return max(0.0, (when - datetime.datetime.now(datetime.timezone.utc)).total_seconds())


def _reasons(error: Exception) -> set[str]:
    """The ErrorInfo reasons of an API error's JSON body (`SERVICE_DISABLED`, ...)."""
    details = _error_body(error).get("details")
    if not isinstance(details, list):
        return set()
    return {str(d["reason"]) for d in details if isinstance(d, dict) and "reason" in d}


def _status(error: Exception) -> str:
    """`429 RESOURCE_EXHAUSTED`, `503`, or the kind of connection failure and its cause."""
    code = getattr(error, "code", None)
    if isinstance(code, int):
        return f"{code} {_error_body(error).get('status') or ''}".strip()
    return f"{type(error).__name__} ({_failure(error)[:120]})"


def _failure(error: Exception) -> str:
    """A connection failure's text on one line; for requests' "<pool>: Max retries exceeded
    with url: <url> (Caused by <error>)", the texts the cause quotes; for a response cut
    short, what broke it."""
    text = credentials.one_line(str(error))
    if broken := _BROKEN.search(text):
        return f"connection broken: {broken.group(1) or broken.group(2)}"
    caused = _CAUSED_BY.search(text)
    if not caused:
        return text
    return ", ".join(a or b for a, b in _QUOTED.findall(caused.group(1))) or caused.group(1)


def _cause(error: Exception) -> str:
    """The kind of failure a library error wraps (google-auth wraps the requests error)."""
    inner = error.args[0] if error.args and isinstance(error.args[0], Exception) else error
    return type(inner).__name__


def _gave_up(scan: _Scan, gave_up: GaveUp, note: str = "") -> CloudLoggingError:
    """The error for a page whose retries ended (`note`: why, when not the backoff's deadline)."""
    error = gave_up.error
    if not isinstance(getattr(error, "code", None), int) and _NO_CONNECTION.search(str(error)):
        return _unreachable(scan, gave_up)
    said = _server_message(error) if isinstance(getattr(error, "code", None), int) else ""
    advice = QUOTA_ADVICE if getattr(error, "code", None) == 429 else OUTAGE_ADVICE
    return CloudLoggingError(
        f'the query "{scan.purpose}" failed after {gave_up.attempts} attempts '
        f"in {gave_up.elapsed:.0f}s ({_status(error)}{': ' + said if said else ''}){note}; "
        f"{advice}"
    )


def _unreachable(scan: _Scan, gave_up: GaveUp) -> CloudLoggingError:
    """No connection was made at all: the network's fault (or the endpoint's), not a load."""
    text = str(gave_up.error)
    errno = _ERRNO.search(text)
    cause = errno.group(1).strip() if errno else type(gave_up.error).__name__
    where = _api_endpoint()
    override = f", and {credentials.ENDPOINT_ENV}" if credentials.endpoint() else ""
    return CloudLoggingError(
        f'the query "{scan.purpose}" could not connect to Cloud Logging at {where} after '
        f"{gave_up.attempts} attempts in {gave_up.elapsed:.0f}s ({cause}): check the "
        f"network, the proxy settings (HTTPS_PROXY){override}, then rerun"
    )


def _refused_field(error: Exception, said: str) -> str | None:
    """The request field a 400 names (`filter`, `resourcenames`, `pagesize`, ...), from a
    BadRequest field violation, else the earliest one its message names."""
    details = _error_body(error).get("details")
    violations = [
        str(violation.get("field", ""))
        for detail in (details if isinstance(details, list) else [])
        if isinstance(detail, dict)
        for violation in detail.get("fieldViolations") or []
        if isinstance(violation, dict)
    ]
    found = next(filter(None, map(_REQUEST_FIELD.search, [*violations, said])), None)
    if found is None:
        return None
    field = re.sub(r"[ _]", "", found.group(1).lower())
    return "resourcenames" if field.startswith("resourcename") else field


def _bad_request(project: str, scan: _Scan, error: Exception) -> ToolError:
    """A 400 on the first page, reported as what it refused: the filter, the project's
    resource name, a field the tool sets, or a request it does not say what is wrong with."""
    said = _server_message(error)
    field = _refused_field(error, said)
    if field == "filter":
        return UsageError(f'Cloud Logging rejected the filter of "{scan.purpose}": {said}')
    if field == "resourcenames":
        return UsageError(
            f'Cloud Logging refused the resource name projects/{project} of "{scan.purpose}" '
            f"({said}): check --project"
        )
    if field in _TOOL_FIELDS:
        return CloudLoggingError(
            f'Cloud Logging refused the {_TOOL_FIELDS[field]} the tool sent with "{scan.purpose}"'
            f" ({said}), not the filter: please report this"
        )
    return UsageError(
        f'Cloud Logging refused the request of "{scan.purpose}" as invalid ({said}) without '
        "naming what: check --project and the target flags"
    )


def _failed(project: str, scan: _Scan, error: Exception) -> ToolError:
    """Map an HTTP error that is not retried: 400 bad filter, 401/403 access, the rest."""
    code = getattr(error, "code", None)
    if code == 400 and scan.pages:  # its filter was taken: the page token was not
        return CloudLoggingError(
            f'Cloud Logging refused page {scan.pages + 1} of "{scan.purpose}" after taking '
            f"its filter ({_server_message(error)}): the page token expired or was refused; "
            "rerun"
        )
    if code == 400:
        return _bad_request(project, scan, error)
    refusal = credentials.refused(project, _reasons(error), _server_message(error))
    if code == 403 and refusal:
        return refusal
    if code in (401, 403):
        return credentials.denied(project, code, _server_message(error))
    override = credentials.endpoint()
    endpoint = f" and {credentials.ENDPOINT_ENV}={override}" if override else ""
    return CloudLoggingError(
        f'Cloud Logging failed on "{scan.purpose}" ({_status(error)}: '
        f"{_server_message(error)}); check --project{endpoint}"
    )
