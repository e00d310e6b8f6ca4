"""A loopback fake of the BigQuery REST calls the client and the `bq` CLI make.

`jobs.query` (POST .../queries), `jobs.getQueryResults` (GET .../queries/ID),
`jobs.insert` (POST .../jobs, dry run or not), `jobs.get` (GET .../jobs/ID)
and `tabledata.list` of a job's results; for the `bq` CLI, also the discovery
document it asks for (`discovery`, the copy bq ships, served with this root).
Received SQL runs on DuckDB through the tool's own transpiler (an
`OfflineStore` over a recorded export), so a query that works here has
gone through the same text a BigQuery job gets.
Results come back in pages of `page_rows` rows, so clients must page.
Faults (HTTP status plus BigQuery's error body) can be injected, and the
dry run reports `bytes_processed`.
"""

from __future__ import annotations

import dataclasses
import http.server
import itertools
import json
import re
import threading
import urllib.parse
from collections.abc import Callable
from typing import Any

from pathways_workload.analytics.offline import OfflineStore

_JOB_IDS = itertools.count(1)
# GoogleSQL string literals, quoted either way, with backslash escapes.
_STRINGS = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")
_BASE = re.compile(r"^/(?:bigquery/v2/)?projects/([^/]+)/(.*)$")
_REASONS = {403: "accessDenied", 404: "notFound", 429: "rateLimitExceeded", 503: "backendError"}


@dataclasses.dataclass
class Fault:
    """Fail the next `times` requests with this status and message."""

    status: int
    message: str
    times: int
    reason: str | None = None  # the error's reason, when not the status's usual one
    body: bytes | None = None  # sent as is (with the status), instead of an error


@dataclasses.dataclass
class Job:
    """A finished query: its reference, configuration, schema and rows."""

    job_id: str
    project: str
    location: str
    configuration: dict[str, Any]
    schema: dict[str, Any]
    types: list[Any]
    values: list[tuple[Any, ...]]


class FakeBigQuery:
    """The server; a context manager. `tables`: the views it knows (PROJECT.DATASET.VIEW)."""

    def __init__(self, store: OfflineStore, tables: tuple[str, ...], location: str) -> None:
        self.store = store
        self.tables = tables
        self.location = location
        self.page_rows = 50
        self.token_loops = False  # every page after the first points at the second again
        self.bytes_processed = 123_456_789
        self.requests: list[tuple[str, str, dict[str, Any]]] = []
        self.user_agents: list[str] = []
        self.faults: list[Fault] = []
        self.jobs: dict[str, Job] = {}
        self.discovery: dict[str, Any] | None = None  # served to the `bq` CLI
        self._lock = threading.Lock()
        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.fake = self  # type: ignore[attr-defined]
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,))
        self._thread.daemon = True

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> FakeBigQuery:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def fail(
        self,
        status: int,
        message: str,
        times: int = 1,
        reason: str | None = None,
        body: bytes | None = None,
    ) -> None:
        with self._lock:
            self.faults.append(Fault(status, message, times, reason, body))

    def take_fault(self) -> Fault | None:
        with self._lock:
            if not self.faults:
                return None
            fault = self.faults[0]
            fault.times -= 1
            if fault.times <= 0:
                self.faults.pop(0)
            return fault

    def run(self, project: str, sql: str, location: str, configuration: dict[str, Any]) -> Job:
        """Run a query as a finished job; raise _Refused as BigQuery would."""
        code = _STRINGS.sub("''", sql)  # a backtick inside a string names no table
        missing = [t for t in re.findall(r"`([^`]+)`", code) if t not in self.tables]
        if missing or location.lower() != self.location.lower():
            table = (missing or [self.tables[0]])[0]
            raise _Refused(404, f"Not found: Table {table} was not found in location {location}")
        parameters = configuration.get("query", {}).get("queryParameters") or []
        names, types, values = self._execute(_with_parameters(sql, parameters))
        schema = {"fields": [_field(name, kind) for name, kind in zip(names, types)]}
        job = Job(f"job_{next(_JOB_IDS)}", project, location, configuration, schema, types, values)
        self.jobs[job.job_id] = job
        return job

    def _execute(self, sql: str) -> tuple[list[str], list[Any], list[tuple[Any, ...]]]:
        from pathways_workload.analytics import transpile

        with self._lock:
            cursor = self.store._connection.execute(transpile.to_duckdb(sql))
            described = cursor.description
            values = cursor.fetchall()
        return [d[0] for d in described], [d[1] for d in described], values


def _with_parameters(sql: str, parameters: list[dict[str, Any]]) -> str:
    """The SQL with each named ARRAY<STRING> or STRING parameter written as a literal."""
    from pathways_workload.analytics.sql import string

    for parameter in parameters:
        value = parameter["parameterValue"]
        if parameter["parameterType"]["type"] == "ARRAY":
            items = [string(item["value"]) for item in value.get("arrayValues") or []]
            literal = f"ARRAY<STRING>[{', '.join(items)}]"
        else:
            literal = string(value["value"])
        sql = re.sub(rf"@{re.escape(parameter['name'])}\b", literal, sql)
    return sql


class _Refused(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _field(name: str, kind: Any) -> dict[str, Any]:
    """A BigQuery schema field for a DuckDB result type."""
    text = str(kind)
    if text.startswith("STRUCT"):
        return {
            "name": name,
            "type": "RECORD",
            "mode": "NULLABLE",
            "fields": [_field(child, child_kind) for child, child_kind in kind.children],
        }
    for prefix, bigquery_type in (
        ("TIMESTAMP", "TIMESTAMP"),
        ("JSON", "JSON"),
        ("BIGINT", "INTEGER"),
        ("INTEGER", "INTEGER"),
        ("HUGEINT", "INTEGER"),
        ("BOOLEAN", "BOOLEAN"),
        ("DOUBLE", "FLOAT"),
    ):
        if text.startswith(prefix):
            return {"name": name, "type": bigquery_type, "mode": "NULLABLE"}
    return {"name": name, "type": "STRING", "mode": "NULLABLE"}


def _cell(kind: Any, value: Any, micros: bool) -> Any:
    """One value in the REST row format (`{"f": [{"v": ...}]}`, scalars as strings).

    TIMESTAMPs are microseconds when the client asked (`useInt64Timestamp`),
    else seconds as a float, BigQuery's older format (which `bq` reads).
    """
    if value is None:
        return None
    text = str(kind)
    if text.startswith("STRUCT"):
        return {"f": [{"v": _cell(k, value.get(n), micros)} for n, k in kind.children]}
    if text.startswith("TIMESTAMP"):
        count = int(value.timestamp()) * 1_000_000 + value.microsecond
        return str(count) if micros else f"{count / 1_000_000:.6f}"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _rows(job: Job, start: int, end: int, micros: bool) -> list[dict[str, Any]]:
    return [
        {"f": [{"v": _cell(kind, value, micros)} for kind, value in zip(job.types, row)]}
        for row in job.values[start:end]
    ]


class _Handler(http.server.BaseHTTPRequestHandler):
    server: Any

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def do_GET(self) -> None:
        self._serve("GET", {})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        self._serve("POST", body)

    def _serve(self, method: str, body: dict[str, Any]) -> None:
        fake: FakeBigQuery = self.server.fake
        parsed = urllib.parse.urlparse(self.path)
        query = dict(urllib.parse.parse_qsl(parsed.query))
        fake.requests.append((method, parsed.path, body))
        fake.user_agents.append(self.headers.get("User-Agent", ""))
        if parsed.path.startswith("/$discovery/") and fake.discovery is not None:
            return self._send(200, {**fake.discovery, "rootUrl": fake.url + "/"})
        fault = fake.take_fault()
        if fault is not None and fault.body is not None:
            return self._send_bytes(fault.status, fault.body, "text/html")
        if fault is not None:
            return self._error(fault.status, fault.message, fault.reason)
        match = _BASE.match(parsed.path)
        route = _ROUTES.get((method, _route_name(match.group(2)))) if match else None
        if match is None or route is None:
            return self._error(404, f"Not found: {method} {parsed.path}")
        try:
            self._send(200, route(fake, match.group(1), match.group(2), body, query))
        except _Refused as refused:
            self._error(refused.status, refused.message)

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        self._send_bytes(status, json.dumps(payload).encode(), "application/json; charset=UTF-8")

    def _send_bytes(self, status: int, data: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, message: str, reason: str | None = None) -> None:
        reason = reason or _REASONS.get(status, "invalid")
        error = {
            "code": status,
            "message": message,
            "errors": [{"reason": reason, "message": message}],
        }
        self._send(status, {"error": error})


def _route_name(rest: str) -> str:
    parts = rest.split("/")
    if parts[0] == "datasets":
        return "tabledata" if parts[-1] == "data" else "table"
    return parts[0] + ("/id" if len(parts) > 1 else "")


def _reference(job: Job) -> dict[str, Any]:
    return {"projectId": job.project, "jobId": job.job_id, "location": job.location}


def _page(
    job: Job, query: dict[str, str], page_rows: int, token_loops: bool = False
) -> dict[str, Any]:
    start = int(query.get("pageToken") or query.get("startIndex") or 0)
    size = min(page_rows, int(query.get("maxResults") or page_rows))
    micros = query.get("formatOptions.useInt64Timestamp", "").lower() == "true"
    page: dict[str, Any] = {
        "rows": _rows(job, start, start + size, micros),
        "totalRows": str(len(job.values)),
    }
    if start + size < len(job.values):
        page["pageToken"] = str(page_rows if token_loops else start + size)
    return page


def _jobs_query(
    fake: FakeBigQuery, project: str, rest: str, body: dict[str, Any], query: dict[str, str]
) -> dict[str, Any]:
    location = body.get("location", "")
    job = fake.run(project, body["query"], location, {"query": body})
    return {
        "kind": "bigquery#queryResponse",
        "jobReference": _reference(job),
        "jobComplete": True,
        "schema": job.schema,
        "totalBytesProcessed": str(fake.bytes_processed),
        **_page(job, _first_page(body, fake.page_rows), fake.page_rows, fake.token_loops),
    }


def _first_page(body: dict[str, Any], page_rows: int) -> dict[str, str]:
    micros = body.get("formatOptions", {}).get("useInt64Timestamp", False)
    return {
        "maxResults": str(body.get("maxResults") or page_rows),
        "formatOptions.useInt64Timestamp": str(bool(micros)).lower(),
    }


def _get_query_results(
    fake: FakeBigQuery, project: str, rest: str, body: dict[str, Any], query: dict[str, str]
) -> dict[str, Any]:
    job = fake.jobs[rest.split("/")[1]]
    return {
        "kind": "bigquery#getQueryResultsResponse",
        "jobReference": _reference(job),
        "jobComplete": True,
        "schema": job.schema,
        **_page(job, query, fake.page_rows, fake.token_loops),
    }


def _job_resource(fake: FakeBigQuery, job: Job, dry_run: bool) -> dict[str, Any]:
    statistics = {"totalBytesProcessed": str(fake.bytes_processed)}
    resource: dict[str, Any] = {
        "kind": "bigquery#job",
        "id": f"{job.project}:{job.location}.{job.job_id}",
        "jobReference": _reference(job),
        "configuration": job.configuration,
        "status": {"state": "DONE"},
        "statistics": {**statistics, "query": {**statistics, "statementType": "SELECT"}},
    }
    if not dry_run:
        table = {"projectId": job.project, "datasetId": "_results", "tableId": job.job_id}
        resource["configuration"]["query"]["destinationTable"] = table
    return resource


def _jobs_insert(
    fake: FakeBigQuery, project: str, rest: str, body: dict[str, Any], query: dict[str, str]
) -> dict[str, Any]:
    configuration = body.get("configuration", {})
    reference = body.get("jobReference", {})
    location = reference.get("location") or ""
    dry_run = bool(configuration.get("dryRun"))
    sql = configuration.get("query", {}).get("query", "")
    job = fake.run(project, sql, location, configuration)
    if reference.get("jobId"):
        fake.jobs.pop(job.job_id)
        job.job_id = reference["jobId"]
        fake.jobs[job.job_id] = job
    return _job_resource(fake, job, dry_run)


def _jobs_get(
    fake: FakeBigQuery, project: str, rest: str, body: dict[str, Any], query: dict[str, str]
) -> dict[str, Any]:
    job = fake.jobs[rest.split("/")[1]]
    return _job_resource(fake, job, dry_run=False)


def _tabledata(
    fake: FakeBigQuery, project: str, rest: str, body: dict[str, Any], query: dict[str, str]
) -> dict[str, Any]:
    job = fake.jobs[rest.split("/")[3]]
    return {"kind": "bigquery#tableDataList", **_page(job, query, fake.page_rows, fake.token_loops)}


def _table(
    fake: FakeBigQuery, project: str, rest: str, body: dict[str, Any], query: dict[str, str]
) -> dict[str, Any]:
    job = fake.jobs[rest.split("/")[3]]
    return {"kind": "bigquery#table", "schema": job.schema, "numRows": str(len(job.values))}


Route = Callable[[FakeBigQuery, str, str, dict[str, Any], dict[str, str]], dict[str, Any]]
_ROUTES: dict[tuple[str, str], Route] = {
    ("POST", "queries"): _jobs_query,
    ("GET", "queries/id"): _get_query_results,
    ("POST", "jobs"): _jobs_insert,
    ("GET", "jobs/id"): _jobs_get,
    ("GET", "tabledata"): _tabledata,
    ("GET", "table"): _table,
}
