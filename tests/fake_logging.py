"""A local fake of Cloud Logging's `POST /v2/entries:list`, for the client and for gcloud.

It serves a recorded export on 127.0.0.1 (a free port, in a thread), matching
each request's filter with the project's own engine, and behaves like the API
where the tests can see it: `orderBy` (default ascending), `pageSize` (default
50, at most 1000, and at most `page_cap` when the server caps it), opaque page
tokens tied to the request they continue, `resourceNames`, and errors in the
API's JSON shape. The matches of each (filter, order, resourceNames) are
computed once and kept until `entries` is replaced, so paging a large export
costs a slice per page, not a filter pass over every entry.

Tests can inject failures (429 with the real quota message, 500, 503, 401, 403, and the 403s whose
ErrorInfo says no role fixes them: an API not enabled, a missing scope, a quota project,
a VPC Service Controls perimeter)
and misbehaviours (connection resets, before a response or halfway through its body, a
redirect loop, a body that claims gzip
but is not, a page whose entries are not objects or are nested too deeply, a 200
whose body is an API error or a sign-in page, the front end's HTML 502 page), a
latency per request (a fault is answered at once), a body sent a byte at a time
(`trickle`), partial-scan pages (no entries but a token; `partial_pages` of them
before every page of entries), a token that never advances (`repeat_tokens`), a
fresh token on every page that serves the first page again (`stuck`), pages that
repeat the previous page's last `overlap` entries, and an empty-string
`nextPageToken` on the last page, and a `retry_after` header on its 429 and 503
answers. It can also answer what the API never would: `strays` (entries put on the first
page of every read, whatever its filter) and entries in the opposite of the order asked
(`reversed_order`). It also serves an OAuth token endpoint
(`/token`, answered with `token_reply`), for credentials whose `token_uri`
points here, and answers a metadata server's requests (`metadata_host`) the same
way. It can serve HTTPS with a self-signed certificate (`use_tls`), as a proxy
that inspects TLS presents one the client does not trust; `refusing_proxy` is a
proxy that refuses every tunnel (407 unless told otherwise). It counts requests
and how many it answered at once. Unknown paths (gcloud may probe others) get a
404 and are printed, so they show in the test output.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import hashlib
import http.server
import json
import socket
import socketserver
import ssl
import struct
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pathways_workload.lql import CompiledFilter, LqlError, compile_filter
from pathways_workload.sources.base import Entry, sort_key
from pathways_workload.timestamps import format_timestamp_ns, parse_timestamp_ns
from tests import logentry
from tests.logentry import DEMO, owner_labels, pod_labels

LIST_PATH = "/v2/entries:list"
TOKEN_PATH = "/token"
METADATA_PATH = "/computeMetadata/"
LOOP_PATH = "/v2/redirected"
DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 1000
QUOTA_MESSAGE = (
    "Quota exceeded for quota metric 'Read requests' and limit 'Read requests per minute' "
    "of service 'logging.googleapis.com' for consumer 'project_number:123456789012'."
)
ERRORS: dict[int, tuple[str, str]] = {
    400: ("INVALID_ARGUMENT", "Request contains an invalid argument."),
    401: (
        "UNAUTHENTICATED",
        "Request had invalid authentication credentials. Expected OAuth 2 access token, "
        "login cookie or other valid authentication credential.",
    ),
    403: ("PERMISSION_DENIED", "The caller does not have permission"),
    404: ("NOT_FOUND", "Requested entity was not found."),
    429: ("RESOURCE_EXHAUSTED", QUOTA_MESSAGE),
    500: ("INTERNAL", "Internal error encountered."),
    503: ("UNAVAILABLE", "The service is currently unavailable."),
}
RESET = "reset"  # drop the connection with a TCP reset
BROKEN = "broken"  # a 200 page whose body stops halfway, then a TCP reset
REDIRECT_LOOP = "redirect-loop"  # 307 to a path that redirects to itself
BAD_GZIP = "bad-gzip"  # a 200 whose body claims gzip encoding but is not
NOT_OBJECTS = "not-objects"  # a 200 page whose entries are numbers, strings and null
ERROR_IN_200 = "error-in-200"  # a 200 whose body is an API error, as a gateway may send it
FRONT_END_502 = "front-end-502"  # Google's front end's own 502: an HTML page, not JSON
FRONT_END_PAGE = (
    "<!DOCTYPE html>\n<html lang=en>\n  <meta charset=utf-8>\n  <meta name=viewport "
    'content="initial-scale=1, minimum-scale=1, width=device-width">\n  <title>Error 502 '
    "(Server Error)!!1</title>\n  <style>\n    *{margin:0;padding:0}html,code{font:15px/22px "
    "arial,sans-serif}html{background:#fff;color:#222;padding:15px}body{margin:7% auto 0;"
    "max-width:390px;min-height:180px;padding:30px 0 15px}* > body{background:url(//www.google"
    ".com/images/errors/robot.png) 100% 5px no-repeat;padding-right:205px}p{margin:11px 0 "
    "22px;overflow:hidden}ins{color:#777;text-decoration:none}\n  </style>\n  <a href=//www."
    "google.com/><span id=logo aria-label=Google></span></a>\n  <p><b>502.</b> <ins>That\u2019s "
    "an error.</ins>\n  <p>The server encountered a temporary error and could not complete "
    "your request.<p>Please try again in 30 seconds.  <ins>That\u2019s all we know.</ins>\n"
)
SIGN_IN_PAGE = "sign-in-page"  # a 200 HTML page, as a captive portal or a proxy answers
TOO_DEEP = "too-deep"  # a 200 page whose entry is nested deeper than any JSON parser reads
SERVICE_DISABLED = "service-disabled"  # a 403 whose ErrorInfo says the API is not enabled
# A 403 whose ErrorInfo says the token lacks a scope (a Compute Engine VM's default scopes).
SCOPE_INSUFFICIENT = "scope-insufficient"
SCOPE_MESSAGE = "Request had insufficient authentication scopes."
# A 403 whose ErrorInfo says the account may not use the quota project its credentials name.
USER_PROJECT_DENIED = "user-project-denied"
USER_PROJECT_MESSAGE = (
    "Caller does not have required permission to use project billing-proj. Grant the caller "
    "the roles/serviceusage.serviceUsageConsumer role, or a custom role with the "
    "serviceusage.services.use permission, by visiting https://console.developers.google.com"
    "/iam-admin/iam/project?project=billing-proj and then retry. Propagation of the new "
    "permission may take a few minutes."
)
# A 403 from a VPC Service Controls perimeter: a PreconditionFailure and an ErrorInfo whose
# reason is SECURITY_POLICY_VIOLATED (cloudquery/cloudquery issue 1062 shows the whole body).
VPC_SC_DENIED = "vpc-sc-denied"
VPC_SC_ID = "eYhDkfYCu-dOCjuj8X4Am9-spkxs0-kX5YnhAJmc3PZ7pmNNfSsqtQ"
VPC_SC_MESSAGE = (
    f"Request is prohibited by organization's policy. vpcServiceControlsUniqueIdentifier: "
    f"{VPC_SC_ID}"
)
# As Google APIs word it (google-gemini/gemini-cli issue 1343 shows the whole body).
DISABLED_MESSAGE = (
    "Cloud Logging API has not been used in project 123456789012 before or it is disabled. "
    "Enable it by visiting https://console.developers.google.com/apis/api/"
    "logging.googleapis.com/overview?project=123456789012 then retry."
)
FAKE_ACCESS_TOKEN = "ya29.fake-access-token"
TOKEN_OK = (
    200,
    "application/json",
    json.dumps({"access_token": FAKE_ACCESS_TOKEN, "expires_in": 3599, "token_type": "Bearer"}),
)


@dataclasses.dataclass
class Fault:
    """Answer `times` list requests (None: all) with `status`, an HTTP error code or one of
    the misbehaviours above, after letting `after` list requests through."""

    status: int | str
    times: int | None
    after: int


class ApiError(Exception):
    """A request the fake rejects, as the API would."""

    def __init__(self, status: int, message: str | None = None) -> None:
        super().__init__(message or ERRORS[status][1])
        self.status = status


class FakeLogging:
    """The fake server; a context manager (test modules wrap it in a fixture)."""

    def __init__(self, entries: list[dict[str, Any]]) -> None:
        self._entries = entries
        self.latency = 0.0
        self.trickle = 0.0  # seconds between two bytes of a response body
        self.page_cap: int | None = None
        self.partial_pages = 0
        self.repeat_tokens = False
        self.stuck = False
        self.overlap = 0  # each page after the first repeats the previous page's last entries
        self.empty_last_token = False
        self.retry_after: str | None = None  # a Retry-After header on 429 and 503 answers
        self.strays: list[dict[str, Any]] = []  # on every first page, whatever the filter
        self.reversed_order = False  # entries in the opposite of the order asked
        self.token_reply: tuple[int, str, str] = TOKEN_OK
        self.token_requests = 0
        self.bodies: list[dict[str, Any]] = []
        self.user_agents: list[str] = []
        self.authorizations: list[str | None] = []
        self.unknown: list[str] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._faults: list[Fault] = []
        self._compiled: dict[str, CompiledFilter] = {}
        self._matches: dict[tuple[str, str, tuple[str, ...]], list[dict[str, Any]]] = {}
        self._lock = threading.Lock()
        self._scheme = "http"
        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.fake = self  # type: ignore[attr-defined]
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.02,), daemon=True
        )

    @classmethod
    def from_file(cls, path: Path) -> FakeLogging:
        """Serve a gcloud-style JSON array export."""
        return cls(json.loads(path.read_text(encoding="utf-8")))

    @property
    def entries(self) -> list[dict[str, Any]]:
        """The served entries; assign a new list to change them (that drops the cached matches)."""
        return self._entries

    @entries.setter
    def entries(self, entries: list[dict[str, Any]]) -> None:
        with self._lock:
            self._entries = entries
            self._matches.clear()

    @property
    def url(self) -> str:
        """The endpoint, written as gcloud's override variable wants it (trailing slash)."""
        return f"{self._scheme}://127.0.0.1:{self._server.server_address[1]}/"

    @property
    def token_uri(self) -> str:
        """The fake's OAuth token endpoint."""
        return self.url + TOKEN_PATH.lstrip("/")

    @property
    def metadata_host(self) -> str:
        """The fake as a Compute Engine metadata server (google-auth's GCE_METADATA_HOST)."""
        return f"127.0.0.1:{self._server.server_address[1]}"

    @property
    def list_requests(self) -> int:
        return len(self.bodies)

    def use_tls(self, directory: Path) -> Path:
        """Serve HTTPS with a fresh self-signed certificate (before entering); returns the
        certificate's file, a CA bundle that trusts it."""
        cert, key = self_signed_certificate(directory)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        self._server.socket = context.wrap_socket(self._server.socket, server_side=True)
        self._scheme = "https"
        return cert

    def fail(self, status: int | str, times: int | None = 1, after: int = 0) -> None:
        """Inject a failure: after `after` more list requests, fail `times` of them."""
        with self._lock:
            self._faults.append(Fault(status, times, self.list_requests + after))

    def __enter__(self) -> FakeLogging:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        """The response to one entries:list body (unless a fault answers it; after the latency)."""
        names = body.get("resourceNames")
        if not names or not isinstance(names, list):
            raise ApiError(400, "resourceNames: at least one resource name is required")
        order = body.get("orderBy") or "timestamp asc"
        if order not in ("timestamp asc", "timestamp desc"):
            raise ApiError(400, f"orderBy: unsupported order {order!r}")
        size = body.get("pageSize") or DEFAULT_PAGE_SIZE
        if not isinstance(size, int) or not 0 < size <= MAX_PAGE_SIZE:
            raise ApiError(400, f"pageSize: must be between 0 and {MAX_PAGE_SIZE}, got {size}")
        size = min(size, self.page_cap or size)
        key = _request_key(body)
        token = body.get("pageToken")
        offset, partial = _read_token(token, key, self.partial_pages)
        if partial > 0:
            return {"nextPageToken": _token(key, offset, partial - 1)}
        if self.reversed_order:
            order = "timestamp asc" if order == "timestamp desc" else "timestamp desc"
        matching = self._matching(str(body.get("filter", "")), names, order)
        page: dict[str, Any] = {}
        first = max(offset - self.overlap, 0)
        served = matching[:size] if self.stuck else matching[first : offset + size]
        if self.strays and not offset:
            served = [*self.strays, *served]
        if served:
            page["entries"] = served
        if self.stuck:
            page["nextPageToken"] = _token(key, offset + size, self.partial_pages)
        elif self.repeat_tokens and token:
            page["nextPageToken"] = token
        elif offset + size < len(matching):
            page["nextPageToken"] = _token(key, offset + size, self.partial_pages)
        elif self.empty_last_token:
            page["nextPageToken"] = ""
        return page

    def _matching(self, text: str, names: list[str], order: str) -> list[dict[str, Any]]:
        """The entries a request matches, in its order; computed once per request shape."""
        key = (text, order, tuple(names))
        with self._lock:
            found, entries = self._matches.get(key), self._entries
        if found is not None:
            return found
        compiled = self._compile(text)
        prefixes = tuple(f"{name}/logs/" for name in names)
        found = _distinct(
            entry
            for entry in entries
            if str(entry.get("logName", "")).startswith(prefixes) and compiled.matches(entry)
        )
        found.sort(key=sort_key, reverse=order == "timestamp desc")
        with self._lock:
            if entries is self._entries:
                self._matches[key] = found
        return found

    def _compile(self, text: str) -> CompiledFilter:
        with self._lock:
            compiled = self._compiled.get(text)
        if compiled is None:
            try:
                compiled = compile_filter(text)
            except LqlError as error:
                raise ApiError(400, " ".join(str(error).split())) from None
            with self._lock:
                self._compiled[text] = compiled
        return compiled

    @contextlib.contextmanager
    def serving(self) -> Iterator[None]:
        """Count the requests being answered at once (`max_in_flight`)."""
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            yield
        finally:
            with self._lock:
                self.in_flight -= 1

    def take_fault(self) -> int | str | None:
        """Count a list request; the status to fail it with, if a fault applies."""
        with self._lock:
            number = self.list_requests - 1
            for fault in self._faults:
                if number >= fault.after and (fault.times is None or fault.times > 0):
                    if fault.times is not None:
                        fault.times -= 1
                    return fault.status
        return None


def _request_key(body: dict[str, Any]) -> str:
    """What a page token is bound to: every request field but the token."""
    rest = {k: v for k, v in body.items() if k != "pageToken"}
    return hashlib.sha256(json.dumps(rest, sort_keys=True).encode()).hexdigest()[:16]


def _token(key: str, offset: int, partial: int) -> str:
    raw = json.dumps({"k": key, "o": offset, "p": partial}).encode()
    return base64.urlsafe_b64encode(raw).decode()


def _read_token(token: object, key: str, partial_pages: int) -> tuple[int, int]:
    """(offset, partial-scan pages still to serve) from a page token; a new read starts at 0."""
    if token in (None, ""):
        return 0, partial_pages
    try:
        data = json.loads(base64.urlsafe_b64decode(str(token)))
        offset, partial, bound = int(data["o"]), int(data["p"]), data["k"]
    except (ValueError, KeyError, TypeError):
        raise ApiError(400, "Invalid page token.") from None
    if bound != key:
        raise ApiError(400, "The page token does not match the request it continues.")
    return offset, partial


def _distinct(entries: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each entry once: copies with the same timestamp and insertId are one entry (the first
    stored), as Cloud Logging returns them."""
    seen: set[tuple[int, str]] = set()
    kept = []
    for entry in entries:
        key = sort_key(entry)
        if key[1] and key in seen:
            continue
        seen.add(key)
        kept.append(entry)
    return kept


def _error_payload(error: ApiError) -> dict[str, Any]:
    """The API's JSON body for an error (a 429 with its quota ErrorInfo)."""
    status_name = ERRORS.get(error.status, ("UNKNOWN", ""))[0]
    payload = {"error": {"code": error.status, "message": str(error), "status": status_name}}
    if error.status == 429:
        payload["error"]["details"] = [
            {
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": "RATE_LIMIT_EXCEEDED",
                "domain": "googleapis.com",
                "metadata": {
                    "quota_metric": "logging.googleapis.com/read_requests",
                    "quota_limit": "ReadRequestsPerMinutePerProject",
                    "quota_limit_value": "60",
                    "service": "logging.googleapis.com",
                    "consumer": "projects/123456789012",
                },
            }
        ]
    return payload


class _Handler(http.server.BaseHTTPRequestHandler):
    """One HTTP exchange: entries:list, or a logged 404 for anything else."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in two writes: no 40 ms stall

    @property
    def fake(self) -> FakeLogging:
        return self.server.fake  # type: ignore[attr-defined, no-any-return]

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        path = self.path.split("?", 1)[0]
        if path == TOKEN_PATH:
            self._token()
            return
        if path == LOOP_PATH:
            self._redirect_loop()
            return
        if path != LIST_PATH:
            self._unknown()
            return
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._send_error(ApiError(400, "Invalid JSON payload received."))
            return
        with self.fake._lock:
            self.fake.bodies.append(body)
            self.fake.user_agents.append(self.headers.get("User-Agent", ""))
            self.fake.authorizations.append(self.headers.get("Authorization"))
        with self.fake.serving():
            self._answer(body)

    def _answer(self, body: dict[str, Any]) -> None:
        status = self.fake.take_fault()
        if isinstance(status, str):
            self._misbehaviours()[status]()
        elif status is not None:
            self._send_error(ApiError(status))
        else:
            time.sleep(self.fake.latency)
            try:
                self._send(200, self.fake.answer(body))
            except ApiError as error:
                self._send_error(error)

    def _misbehaviours(self) -> dict[str, Callable[[], None]]:
        return {
            RESET: self._reset,
            BROKEN: self._broken,
            REDIRECT_LOOP: self._redirect_loop,
            BAD_GZIP: self._bad_gzip,
            NOT_OBJECTS: lambda: self._send(200, {"entries": [42, "not an entry", None]}),
            ERROR_IN_200: lambda: self._send(200, _error_payload(ApiError(403))),
            TOO_DEEP: self._too_deep,
            SIGN_IN_PAGE: lambda: self._send_bytes(
                200,
                "text/html",
                b"<!DOCTYPE html><html><head><title>Sign in to the network</title></head>"
                b"<body><form>...</form></body></html>",
                {},
            ),
            FRONT_END_502: lambda: self._send_bytes(
                502, "text/html; charset=UTF-8", FRONT_END_PAGE.encode(), {}
            ),
            SERVICE_DISABLED: lambda: self._denied("SERVICE_DISABLED", DISABLED_MESSAGE),
            SCOPE_INSUFFICIENT: lambda: self._denied(
                "ACCESS_TOKEN_SCOPE_INSUFFICIENT", SCOPE_MESSAGE
            ),
            USER_PROJECT_DENIED: lambda: self._denied("USER_PROJECT_DENIED", USER_PROJECT_MESSAGE),
            VPC_SC_DENIED: lambda: self._denied(
                "SECURITY_POLICY_VIOLATED",
                VPC_SC_MESSAGE,
                {
                    "@type": "type.googleapis.com/google.rpc.PreconditionFailure",
                    "violations": [{"type": "VPC_SERVICE_CONTROLS", "description": VPC_SC_ID}],
                },
            ),
        }

    def _token(self) -> None:
        """The OAuth token endpoint: whatever `token_reply` says."""
        status, content_type, text = self.fake.token_reply
        with self.fake._lock:
            self.fake.token_requests += 1
        self._send_bytes(status, content_type, text.encode(), {})

    def do_GET(self) -> None:
        if self.path.startswith(METADATA_PATH):
            self._token()
        else:
            self._unknown()

    def _unknown(self) -> None:
        line = f"fake_logging: unknown request {self.command} {self.path}"
        print(line)
        self.fake.unknown.append(line)
        self._send_error(ApiError(404))

    def _send_error(self, error: ApiError) -> None:
        advice = self.fake.retry_after if error.status in (429, 503) else None
        data = json.dumps(_error_payload(error)).encode()
        headers = {"Retry-After": advice} if advice is not None else {}
        self._send_bytes(error.status, "application/json; charset=UTF-8", data, headers)

    def _denied(self, reason: str, message: str, *before: dict[str, Any]) -> None:
        """A 403 with an ErrorInfo that says why (after the details `before`)."""
        info = {
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            "reason": reason,
            "domain": "googleapis.com",
            "metadata": {"service": "logging.googleapis.com", "consumer": "projects/123456789012"},
        }
        error = {"code": 403, "message": message, "status": "PERMISSION_DENIED"}
        self._send(403, {"error": {**error, "details": [*before, info]}})

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self._send_bytes(status, "application/json; charset=UTF-8", data, {})

    def _send_bytes(
        self, status: int, content_type: str, data: bytes, headers: dict[str, str]
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        try:
            if self.fake.trickle:  # a byte at a time, as a stalled proxy may send it
                for byte in data:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    time.sleep(self.fake.trickle)
            else:
                self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up waiting (a timeout test)

    def _redirect_loop(self) -> None:
        """A 307 (the client repeats the POST) to a path that answers the same."""
        self._send_bytes(307, "text/plain", b"", {"Location": LOOP_PATH})

    def _bad_gzip(self) -> None:
        """A 200 that says its body is gzip-compressed when it is not."""
        data = b'{"entries": []} is not gzip'
        self._send_bytes(200, "application/json", data, {"Content-Encoding": "gzip"})

    def _too_deep(self) -> None:
        """A 200 page whose one entry holds arrays nested 100,000 deep."""
        data = b'{"entries": [{"jsonPayload": {"x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}}]}"
        self._send_bytes(200, "application/json", data, {})

    def _broken(self) -> None:
        """Half of a page's body, then a TCP reset: the connection broke mid-response."""
        data = json.dumps({"entries": self.fake.entries[:50]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json; charset=UTF-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data[: len(data) // 2])
        self.wfile.flush()
        self._reset()

    def _reset(self) -> None:
        """Drop the connection with a TCP reset, as a load balancer might."""
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()
        self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the tests look at `bodies` instead."""


PROXY_LOGIN = "407 Proxy Authentication Required"


class _RefusingProxy(socketserver.BaseRequestHandler):
    """An HTTP proxy's answer to a tunnel (CONNECT) it will not open: the server's `status`."""

    def handle(self) -> None:
        self.request.recv(65536)
        status = self.server.status  # type: ignore[attr-defined]
        login = b'Proxy-Authenticate: Basic realm="corp"\r\n' if status == PROXY_LOGIN else b""
        self.request.sendall(
            f"HTTP/1.1 {status}\r\n".encode() + login + b"Content-Length: 0\r\n\r\n"
        )


@contextlib.contextmanager
def refusing_proxy(status: str = PROXY_LOGIN) -> Iterator[str]:
    """An HTTP proxy on loopback that answers every tunnel with `status`; yields its URL."""
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _RefusingProxy)
    server.status = status  # type: ignore[attr-defined]
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def point_at(monkeypatch: pytest.MonkeyPatch, fake: FakeLogging) -> None:
    """Send the tool's cloud queries to the fake, without credentials (as gcloud would)."""
    monkeypatch.setenv("CLOUDSDK_API_ENDPOINT_OVERRIDES_LOGGING", fake.url)
    monkeypatch.setenv("CLOUDSDK_AUTH_DISABLE_CREDENTIALS", "true")


def self_signed_certificate(directory: Path) -> tuple[Path, Path]:
    """Write a certificate for 127.0.0.1 that signs itself, and its key: (cert, key) files."""
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.timezone.utc)
    loopback = x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))])
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(loopback, critical=False)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = directory / "cert.pem", directory / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_file, key_file


def service_account_key(path: Path, token_uri: str) -> Path:
    """Write a service-account key file (a fresh RSA key) that gets its tokens at `token_uri`.

    google-auth honours a service account's `token_uri` (it ignores an authorized
    user's), so token requests stay on loopback: pass the fake's `token_uri`.
    """
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    info = {
        "type": "service_account",
        "project_id": PROJECT,
        "private_key_id": "0123456789abcdef",
        "private_key": pem.decode(),
        "client_email": f"reader@{PROJECT}.iam.gserviceaccount.com",
        "client_id": "104242424242424242424",
        "token_uri": token_uri,
    }
    path.write_text(json.dumps(info), encoding="utf-8")
    return path


# A small recorded incident, in the shapes Cloud Logging produces (see
# research/gke-pathways-log-shapes.md): JobSet `llama-train` dies after a host
# OOM kill on one worker node; JobSet `llama-train-eval` logs on the same node.
PROJECT = DEMO.project
CLUSTER = DEMO.name
WORKER_NODES = ("gke-pw-cluster-tpu-np-1-8a1b2c3d-x9k2", "gke-pw-cluster-tpu-np-1-8a1b2c3d-y7m3")
HEAD_NODE = "gke-pw-cluster-cpu-np-4f5e6d7c-h2j4"
HEAD = "llama-train-pathways-head-0-0-h5t8q"
WORKER_0 = "llama-train-worker-0-0-km2rf"
WORKER_1 = "llama-train-worker-1-0-p9xzb"
EVAL = "llama-train-eval-worker-0-0-qqqqq"
_PODS = {  # pod: (jobset, node, job-completion-index)
    HEAD: ("llama-train", HEAD_NODE, "0"),
    WORKER_0: ("llama-train", WORKER_NODES[0], "0"),
    WORKER_1: ("llama-train", WORKER_NODES[1], "0"),
    EVAL: ("llama-train-eval", WORKER_NODES[0], "0"),
}


def _received(when: str) -> str:
    """receiveTimestamp: a little after the entry's timestamp, to the nanosecond."""
    return format_timestamp_ns(parse_timestamp_ns(when) + 1_203_117_221)


def _line(
    insert_id: str, when: str, pod: str, container: str, severity: str, payload: Any
) -> Entry:
    """A k8s_container line of a JobSet pod; a dict payload is a structured (JSON) line."""
    jobset, node, index = _PODS[pod]
    labels = {
        "batch.kubernetes.io/job-completion-index": index,
        "jobset.sigs.k8s.io/jobset-name": jobset,
        "jobset.sigs.k8s.io/restart-attempt": "0",
    }
    return logentry.container_line(
        payload,
        pod=pod,
        container=container,
        node=node,
        timestamp=when,
        insert_id=insert_id,
        labels={**pod_labels(labels), **owner_labels("JobSet", jobset)},
        stream="stdout" if severity == "INFO" else "stderr",
        severity=severity,
        receive_timestamp=_received(when),
    )


def _event(
    insert_id: str, when: str, resource: Entry, event: Entry, labels: Entry | None = None
) -> Entry:
    """A Kubernetes event as the GKE event exporter writes it (severity from its type)."""
    return logentry.event_entry(
        event,
        resource=resource,
        timestamp=when,
        insert_id=insert_id,
        labels=labels,
        receive_timestamp=_received(when),
    )


def _pod_event(insert_id: str, when: str, pod: str, reason: str, message: str) -> Entry:
    """An event about a pod: it carries the owner labels only."""
    component = "default-scheduler" if reason == "Scheduled" else "kubelet"
    event = logentry.core_event(
        reason,
        message,
        involved=logentry.involved_object("Pod", pod, api_version="v1"),
        source={"component": component},
        type="Normal" if reason == "Scheduled" else "Warning",
        reporting=(component, ""),
        metadata={"name": f"{pod}.18a2b3c4d5e6f708", "namespace": "default"},
        last_timestamp=when,
    )
    jobset = _PODS[pod][0]
    labels = {"jobset.sigs.k8s.io/restart-attempt": "0", **owner_labels("JobSet", jobset)}
    return _event(insert_id, when, logentry.pod_resource(DEMO, "default", pod), event, labels)


def _node_event(insert_id: str, when: str, node: str, reason: str, message: str) -> Entry:
    """A node-problem-detector (OOMKilling) or kubelet (SystemOOM) event about a node."""
    component = "kernel-monitor" if reason == "OOMKilling" else "kubelet"
    event = logentry.core_event(
        reason,
        message,
        involved=logentry.involved_object("Node", node, uid=node),
        source={"component": component, "host": node},
        type="Warning",
        last_timestamp=when,
    )
    return _event(insert_id, when, logentry.node_resource(DEMO, node), event)


def _serial(insert_id: str, when: str, node: str, text: str) -> Entry:
    """A serial-console line of a node's VM (no severity, as exported)."""
    return logentry.serial_line(
        text,
        node=node,
        instance_id="5093846212345678901",
        timestamp=when,
        insert_id=insert_id,
        receive_timestamp=_received(when),
    )


def _jobset_event(insert_id: str, when: str, reason: str, message: str) -> Entry:
    """An event of the JobSet object itself (recorded on k8s_cluster, no labels)."""
    event = logentry.events_api_event(
        reason,
        message,
        involved=logentry.involved_object(
            "JobSet", "llama-train", api_version="jobset.x-k8s.io/v1alpha2", namespace="default"
        ),
        type="Warning",
        reporting=("jobset", "jobset-controller-manager-6d9f8b7c5-abcde"),
        event_time="2026-10-22T11:30:10.412903Z",
        action="Reconciling",
    )
    return _event(insert_id, when, logentry.cluster_resource(DEMO), event)


def _scheduled(insert_id: str, when: str, pod: str) -> Entry:
    return _pod_event(
        insert_id, when, pod, "Scheduled", f"Successfully assigned default/{pod} to {_PODS[pod][1]}"
    )


def sample_incident() -> list[Entry]:
    """The incident's entries, in no particular order (as an export may hold them)."""
    return [
        _scheduled("ev001", "2026-10-22T11:00:02Z", HEAD),
        _scheduled("ev002", "2026-10-22T11:00:02Z", WORKER_0),
        _scheduled("ev003", "2026-10-22T11:00:03Z", WORKER_1),
        _scheduled("ev004", "2026-10-22T11:00:04Z", EVAL),
        _line(
            "c001",
            "2026-10-22T11:01:00.100000001Z",
            HEAD,
            "pathways-rm",
            "INFO",
            "I1022 11:01:00.100000 1 server.cc:88] Build label: pathways-rm-20261001",
        ),
        _line(
            "c002",
            "2026-10-22T11:01:05Z",
            HEAD,
            "pathways-proxy",
            "INFO",
            "I1022 11:01:05.000000 1 proxy.cc:41] IFRT proxy server started on :29000",
        ),
        _line(
            "c003",
            "2026-10-22T11:02:00.25Z",
            HEAD,
            "jax-tpu",
            "INFO",
            {"message": "Detected Pathways-on-Cloud backend", "logger": "jax", "step": 0},
        ),
        _line(
            "c005",
            "2026-10-22T11:05:00.123456789Z",
            WORKER_1,
            "pathways-worker",
            "INFO",
            "I1022 11:05:00.123456 7 worker.cc:12] slice 1 host 0 ready",
        ),
        _line(
            "c004",
            "2026-10-22T11:05:00.123456789Z",
            WORKER_0,
            "pathways-worker",
            "INFO",
            "I1022 11:05:00.123456 7 worker.cc:12] slice 0 host 0 ready",
        ),
        _line(
            "c006",
            "2026-10-22T11:10:00.0000005Z",
            HEAD,
            "jax-tpu",
            "INFO",
            "completed step 100, loss 2.31",
        ),
        _line(
            "c007",
            "2026-10-22T11:20:00.000000700Z",
            HEAD,
            "jax-tpu",
            "INFO",
            "completed step 200, loss 2.05",
        ),
        _line(
            "c008",
            "2026-10-22T11:29:59.999999999Z",
            EVAL,
            "pathways-worker",
            "ERROR",
            "F1022 11:29:59.999999 7 eval.cc:9] Check failed: eval shard missing",
        ),
        _serial(
            "sc001",
            "2026-10-22T11:29:59.871234Z",
            WORKER_NODES[0],
            "[123456.789012] pathways_worker invoked oom-killer: gfp_mask=0xcc0, order=0",
        ),
        _node_event(
            "nd001",
            "2026-10-22T11:30:00Z",
            WORKER_NODES[0],
            "OOMKilling",
            "Memory cgroup out of memory: Killed process 2829418 (pathways_worker) "
            "total-vm:187301232kB, anon-rss:160321044kB, file-rss:77312kB, "
            "shmem-rss:0kB, UID:0 pgtables:318820kB oom_score_adj:-997",
        ),
        _node_event(
            "nd002",
            "2026-10-22T11:30:00Z",
            "gke-pw-cluster-cpu-np-4f5e6d7c-zz11",
            "SystemOOM",
            "System OOM encountered, victim process: stress, pid: 4242",
        ),
        _line(
            "c009",
            "2026-10-22T11:30:00.5Z",
            WORKER_0,
            "pathways-worker",
            "ERROR",
            "F1022 11:30:00.500000 7 worker.cc:301] Check failed: hbm_alloc != nullptr "
            "RESOURCE_EXHAUSTED: out of memory allocating 4.0G\n"
            "*** Check failure stack trace: ***\n    @ 0x55d1 worker::Run()",
        ),
        _line(
            "c010",
            "2026-10-22T11:30:01.000000001Z",
            WORKER_1,
            "pathways-worker",
            "ERROR",
            "E1022 11:30:01.000000 7 megascale.cc:77] Megascale detects a hang but cannot "
            "determine the root cause. Please inspect the full digest below.",
        ),
        _pod_event(
            "ev005",
            "2026-10-22T11:30:02Z",
            WORKER_0,
            "BackOff",
            f"Back-off restarting failed container pathways-worker in pod "
            f"{WORKER_0}_default(c1d2e3f4)",
        ),
        _line(
            "c012",
            "2026-10-22T11:30:05Z",
            HEAD,
            "pathways-proxy",
            "ERROR",
            "E1022 11:30:05.000000 1 proxy.cc:90] Socket closed by the resource manager",
        ),
        _line(
            "c011",
            "2026-10-22T11:30:05Z",
            HEAD,
            "jax-tpu",
            "ERROR",
            'Traceback (most recent call last):\n  File "train.py", line 88, in <module>\n'
            "jax.errors.JaxRuntimeError: INTERNAL: Connection to IFRT proxy server was "
            "terminated",
        ),
        _line(
            "c013",
            "2026-10-22T11:30:06Z",
            HEAD,
            "jax-tpu",
            "CRITICAL",
            {
                "message": "Fatal Python error: Aborted",
                "exit_code": 134,
                "fatal": True,
                "ratio": 0.5,
                "tags": ["jax", "pathways"],
                "context": None,
            },
        ),
        _jobset_event(
            "js001",
            "2026-10-22T11:30:10.981204Z",
            "FailedJobs",
            "jobset failed due to one or more job failures",
        ),
        _line(
            "c014",
            "2026-10-22T11:31:00Z",
            EVAL,
            "pathways-worker",
            "INFO",
            "I1022 11:31:00.000000 7 eval.cc:10] eval still running",
        ),
    ]
