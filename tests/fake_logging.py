"""A local fake of Cloud Logging's `POST /v2/entries:list`, for the client and for gcloud.

It serves a recorded export on 127.0.0.1 (a free port, in a thread), matching
each request's filter with the project's own engine, and behaves like the API
where the tests can see it: `orderBy` (default ascending), `pageSize` (default
50, at most 1000), opaque page tokens tied to the request they continue,
`resourceNames`, and errors in the API's JSON shape. Tests can inject
failures (429 with the real quota message, 500, 503, 401, 403, connection
resets), a latency per request, partial-scan pages (no entries, a token) and
an empty-string `nextPageToken` on the last page. Unknown paths (gcloud may
probe others) get a 404 and are printed, so they show in the test output.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import hashlib
import http.server
import json
import socket
import struct
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pathways_workload.lql import CompiledFilter, LqlError, compile_filter
from pathways_workload.sources.base import sort_key

LIST_PATH = "/v2/entries:list"
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
RESET = 0


@dataclasses.dataclass
class Fault:
    """Answer `times` list requests (None: all) with `status` (RESET: drop the connection),
    after letting `after` list requests through."""

    status: int
    times: int | None
    after: int


class ApiError(Exception):
    """A request the fake rejects, as the API would."""

    def __init__(self, status: int, message: str | None = None) -> None:
        super().__init__(message or ERRORS[status][1])
        self.status = status


class FakeLogging:
    """The fake server; use as a context manager (or through the `serve` helper)."""

    def __init__(self, entries: list[dict[str, Any]]) -> None:
        self.entries = entries
        self.latency = 0.0
        self.partial_pages = 0
        self.empty_last_token = False
        self.bodies: list[dict[str, Any]] = []
        self.user_agents: list[str] = []
        self.unknown: list[str] = []
        self._faults: list[Fault] = []
        self._compiled: dict[str, CompiledFilter] = {}
        self._lock = threading.Lock()
        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.fake = self  # type: ignore[attr-defined]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @classmethod
    def from_file(cls, path: Path) -> FakeLogging:
        """Serve a gcloud-style JSON array export."""
        return cls(json.loads(path.read_text(encoding="utf-8")))

    @property
    def url(self) -> str:
        """The endpoint, written as gcloud's override variable wants it (trailing slash)."""
        return f"http://127.0.0.1:{self._server.server_address[1]}/"

    @property
    def list_requests(self) -> int:
        return len(self.bodies)

    def fail(self, status: int, times: int | None = 1, after: int = 0) -> None:
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
        """The response to one entries:list body (after faults and latency)."""
        names = body.get("resourceNames")
        if not names or not isinstance(names, list):
            raise ApiError(400, "resourceNames: at least one resource name is required")
        order = body.get("orderBy") or "timestamp asc"
        if order not in ("timestamp asc", "timestamp desc"):
            raise ApiError(400, f"orderBy: unsupported order {order!r}")
        size = body.get("pageSize") or DEFAULT_PAGE_SIZE
        if not isinstance(size, int) or not 0 < size <= MAX_PAGE_SIZE:
            raise ApiError(400, f"pageSize: must be between 0 and {MAX_PAGE_SIZE}, got {size}")
        key = _request_key(body)
        offset, partial = _read_token(body.get("pageToken"), key, self.partial_pages)
        if partial > 0:
            return {"nextPageToken": _token(key, offset, partial - 1)}
        matching = self._matching(str(body.get("filter", "")), names, order)
        page: dict[str, Any] = {}
        if matching[offset : offset + size]:
            page["entries"] = matching[offset : offset + size]
        if offset + size < len(matching):
            page["nextPageToken"] = _token(key, offset + size, 0)
        elif self.empty_last_token:
            page["nextPageToken"] = ""
        return page

    def _matching(self, text: str, names: list[str], order: str) -> list[dict[str, Any]]:
        with self._lock:
            compiled = self._compiled.get(text)
        if compiled is None:
            try:
                compiled = compile_filter(text)
            except LqlError as error:
                raise ApiError(400, " ".join(str(error).split())) from None
            with self._lock:
                self._compiled[text] = compiled
        prefixes = tuple(f"{name}/logs/" for name in names)
        found = [
            entry
            for entry in self.entries
            if str(entry.get("logName", "")).startswith(prefixes) and compiled.matches(entry)
        ]
        return sorted(found, key=sort_key, reverse=order == "timestamp desc")

    def take_fault(self) -> int | None:
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


class _Handler(http.server.BaseHTTPRequestHandler):
    """One HTTP exchange: entries:list, or a logged 404 for anything else."""

    protocol_version = "HTTP/1.1"

    @property
    def fake(self) -> FakeLogging:
        return self.server.fake  # type: ignore[attr-defined, no-any-return]

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if self.path.split("?", 1)[0] != LIST_PATH:
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
        status = self.fake.take_fault()
        time.sleep(self.fake.latency)
        if status == RESET:
            self._reset()
        elif status is not None:
            self._send_error(ApiError(status))
        else:
            try:
                self._send(200, self.fake.answer(body))
            except ApiError as error:
                self._send_error(error)

    def do_GET(self) -> None:
        self._unknown()

    def _unknown(self) -> None:
        line = f"fake_logging: unknown request {self.command} {self.path}"
        print(line)
        self.fake.unknown.append(line)
        self._send_error(ApiError(404))

    def _send_error(self, error: ApiError) -> None:
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
        self._send(error.status, payload)

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=UTF-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _reset(self) -> None:
        """Drop the connection with a TCP reset, as a load balancer might."""
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()
        self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the tests look at `bodies` instead."""


@contextlib.contextmanager
def serve(entries: list[dict[str, Any]]) -> Iterator[FakeLogging]:
    """Run a fake server for the duration of the block."""
    with FakeLogging(entries) as fake:
        yield fake


def point_at(monkeypatch: pytest.MonkeyPatch, fake: FakeLogging) -> None:
    """Send the tool's cloud queries to the fake, without credentials (as gcloud would)."""
    monkeypatch.setenv("CLOUDSDK_API_ENDPOINT_OVERRIDES_LOGGING", fake.url)
    monkeypatch.setenv("CLOUDSDK_AUTH_DISABLE_CREDENTIALS", "true")
