"""Offline Log Analytics: recorded exports loaded into DuckDB with the log view's layout.

The project's export readers give the records (every format and framing
check of `--logs_file` applies); they are copied as JSON Lines into a work
folder and DuckDB reads them into one table, `log_view`, shaped as
`columns.VIEW_COLUMNS` says: snake_case, `labels`, `resource.labels` and
`json_payload` as JSON, microsecond TIMESTAMPs, `proto_payload.audit_log`
typed. The table lives in a database file in the work folder, and
`memory_limit` caps DuckDB's memory (by default DuckDB's own cap, 80% of the
machine's): past it, DuckDB spills to that folder, so exports larger than
memory load and query. A query that cannot spill enough (window functions over
very many matching lines) exits 2 asking for a narrower window.

Text container logs among the files are read as the files source reads them
(`TextLogs`). Queries are the BigQuery SQL the tool prints, transpiled (`transpile`).
"""

from __future__ import annotations

import contextlib
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pathways_workload.analytics import columns, emulation, transpile
from pathways_workload.analytics.extra import require
from pathways_workload.errors import InputFileError, UsageError
from pathways_workload.exact_json import output_line
from pathways_workload.lql import fields
from pathways_workload.lql.values import SEVERITY_NAMES
from pathways_workload.sources.export_reader import every_record
from pathways_workload.sources.framing import escaped_key
from pathways_workload.sources.inputs import ExportFile, export_files
from pathways_workload.sources.records import Record
from pathways_workload.sources.text_logs import TextLogs
from pathways_workload.timestamps import format_timestamp_ns, parse_timestamp_ns

# Cloud Logging entries are at most 256 KiB (audit entries 512 KiB).
MAX_OBJECT_BYTES = 4 << 20
_TIME_KEYS = ("timestamp", "receiveTimestamp")
# A key named like a time the view reads (top-level or not: a payload's own "timestamp" only
# costs a parse) whose value is not in Cloud Logging's form, or is a leap second.
_ODD_TIME = re.compile(
    rb'"(?:timestamp|receiveTimestamp)"[ \t]*:[ \t]*'
    rb'"(?!\d{4}-\d\d-\d\dT\d\d:\d\d:[0-5]\d(?:\.\d{1,9})?Z")'
)
# Long OR chains of search terms nest deeply once parsed.
MAX_EXPRESSION_DEPTH = 100_000
# How the export's top-level keys are read (everything nested stays JSON).
RAW_TYPES = {
    "timestamp": "VARCHAR",
    "receiveTimestamp": "VARCHAR",
    "logName": "VARCHAR",
    "insertId": "VARCHAR",
    "severity": "VARCHAR",
    "textPayload": "VARCHAR",
    "trace": "VARCHAR",
    "spanId": "VARCHAR",
}
_SCALAR_CASTS = {
    fields.INTEGER: "BIGINT",
    fields.BOOLEAN: "BOOLEAN",
    fields.TIMESTAMP: "TIMESTAMPTZ",
}


class OfflineStore:
    """A DuckDB database holding recorded exports as a log view; use as a context manager."""

    def __init__(
        self,
        paths: list[str],
        memory_limit: str | None = None,
        text: TextLogs | None = None,
        exports: list[ExportFile] | None = None,
    ) -> None:
        """`exports`: the paths' exports as already opened (a stream read once is copied
        aside then: opening it again would find it empty)."""
        self._paths = paths
        self._exports = exports
        self._memory_limit = memory_limit
        self._text = text or TextLogs()
        self._folder: Path | None = None
        self._connection: Any = None
        self.rows_loaded = 0

    def __enter__(self) -> OfflineStore:
        duckdb = require("duckdb")
        self._folder = Path(tempfile.mkdtemp(prefix="pathways-analytics-"))
        try:
            self._open(duckdb, self._folder)
            self._load(duckdb)
        except BaseException:
            self.__exit__()  # a refused export leaves no copy of its logs behind
            raise
        return self

    def _open(self, duckdb: Any, folder: Path) -> None:
        config = {
            "temp_directory": str(folder / "spill"),
            "preserve_insertion_order": False,
            "threads": 1,
        }
        if self._memory_limit:
            config["memory_limit"] = self._memory_limit
        self._connection = duckdb.connect(str(folder / "logs.duckdb"), config=config)
        # DuckDB draws its progress bar on stdout, into the tool's output, when a query is slow.
        self._connection.execute("SET enable_progress_bar = false")
        self._connection.execute("SET TimeZone = 'UTC'")
        self._connection.execute(f"SET max_expression_depth TO {MAX_EXPRESSION_DEPTH}")
        emulation.register(self._connection)

    def __exit__(self, *exc: object) -> None:
        if self._connection is not None:
            self._connection.close()
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)

    def rows(self, bigquery_sql: str) -> list[dict[str, Any]]:
        """Run BigQuery SQL (transpiled) and return its rows as dicts.

        Raises:
            UsageError: DuckDB ran out of memory (a narrower window needs less).
        """
        try:
            cursor = self._connection.execute(transpile.to_duckdb(bigquery_sql))
            names = [description[0] for description in cursor.description]
            return [dict(zip(names, row)) for row in cursor.fetchall()]
        except require("duckdb").OutOfMemoryException:
            raise self._out_of_memory() from None

    def _out_of_memory(self) -> UsageError:
        limit = self._memory_limit or "its default, 80% of this machine's memory"
        return UsageError(
            f"DuckDB ran out of memory replaying {', '.join(self._paths)} (its limit is "
            f"{limit}): narrow the window (--duration, --start_time), or run the queries on "
            "BigQuery (--execute)"
        )

    def _load(self, duckdb: Any) -> None:
        assert self._folder is not None
        lines = self._folder / "entries.jsonl"
        exports = self._exports if self._exports is not None else export_files(self._paths)
        records = _copy_records(exports, self._text, lines)
        try:
            self._create_table(duckdb, lines)
        except duckdb.OutOfMemoryException:
            raise self._out_of_memory() from None
        except duckdb.Error as error:
            refused = _first_bad_record(exports, self._text, error)
            # Every record reads, yet DuckDB refused one: a key given twice, which JSON
            # parsers (and the default engine) read as its last value. Load them as read.
            _copy_records(exports, self._text, lines, parsed=True)
            try:
                self._create_table(duckdb, lines)
            except duckdb.Error:
                raise refused from None
        self.rows_loaded = records

    def _create_table(self, duckdb: Any, lines: Path) -> None:
        """The view's table from the JSON Lines copy of the records.

        Raises:
            UsageError: DuckDB ran out of memory.
        """
        select = ",\n  ".join(f"{_load_expression(f)} AS {f.name}" for f in columns.VIEW_COLUMNS)
        raw_columns = {key: RAW_TYPES.get(key, "JSON") for key in _raw_keys()}
        try:
            self._connection.execute(
                f"CREATE TABLE {transpile.LOCAL_TABLE} AS SELECT\n  {select}\n"
                "FROM read_json(?, format = 'newline_delimited', columns = ?, "
                f"maximum_object_size = {MAX_OBJECT_BYTES})",
                [str(lines), raw_columns],
            )
        except duckdb.OutOfMemoryException:
            raise self._out_of_memory() from None


def _raw_keys() -> list[str]:
    return [field.key for field in columns.VIEW_COLUMNS if field.key != "logId"]


def _copy_records(
    exports: list[ExportFile], text: TextLogs, target: Path, parsed: bool = False
) -> int:
    """Write every record of the exports to one JSON Lines file (`parsed`: each as the
    default engine reads it); returns the count."""
    count = 0
    with target.open("wb") as out:
        for record in _records(exports, text):
            line = _loadable(record, parsed)
            out.write(line.replace(b"\r", b" ").replace(b"\n", b" ") + b"\n")
            count += 1
    return count


def _loadable(record: Record, parsed: bool = False) -> bytes:
    """A record's text for DuckDB: as read, unless `parsed` or it may hold a time written in
    a form DuckDB does not read (`t` and `z`, a leap second, a comma, an escaped key), which
    the default engine reads: then as that engine reads it, times written as Cloud Logging
    writes them."""
    raw = record.raw
    if not parsed and _ODD_TIME.search(raw) is None and not escaped_key(raw):
        return raw
    entry = dict(record.entry())
    for key in _TIME_KEYS:
        value = entry.get(key)
        if isinstance(value, str):
            with contextlib.suppress(ValueError):
                entry[key] = format_timestamp_ns(parse_timestamp_ns(value))
    return output_line(entry).encode()


def _records(exports: list[ExportFile], text: TextLogs) -> Iterator[Record]:
    for export in exports:
        yield from every_record(export, text=text)


def _first_bad_record(
    exports: list[ExportFile], text: TextLogs, error: Exception
) -> InputFileError:
    """The reader's own error for the first record that does not parse, else DuckDB's message."""
    for record in _records(exports, text):
        record.entry()
    message = " ".join(str(error).split())
    names = ", ".join(export.name for export in exports)
    return InputFileError(f"{names}: the export could not be loaded ({message})")


def _load_expression(field: columns.Field) -> str:
    """DuckDB SQL turning the export's camelCase JSON into one column of the view."""
    quoted = f'"{field.key}"'
    if field.key == "logId":
        return "NULLIF(url_decode(regexp_extract(\"logName\", '/logs/(.*)$', 1)), '')"
    if field.key == "protoPayload":
        audit = _record_expression(columns.AUDIT_LOG, quoted)
        kind = f"{quoted} ->> '$.\"@type\"'"
        return (
            f"CASE WHEN {kind} = '{columns.AUDIT_LOG_TYPE}' "
            f"THEN struct_pack(audit_log := {audit}) END"
        )
    if field.kind == columns.RECORD:
        return _record_expression(field, quoted)
    if field.kind == columns.JSON:
        return quoted
    if field.kind == fields.SEVERITY:  # a name, or the enum's number (proto3 JSON)
        named = " ".join(f"WHEN '{level}' THEN '{name}'" for level, name in SEVERITY_NAMES.items())
        return f"CASE upper({quoted}) {named} ELSE upper({quoted}) END"
    if field.key in RAW_TYPES:
        cast = _SCALAR_CASTS.get(field.kind)
        return f"TRY_CAST({quoted} AS {cast})" if cast else quoted
    return _scalar_from_json(field, f"{quoted} ->> '$'")


def _record_expression(record: columns.Field, source: str) -> str:
    """A STRUCT built from a JSON object, NULL when the object is absent."""
    members = []
    for child in record.children:
        path = f"'$.\"{child.key}\"'"
        if child.kind == columns.RECORD:
            value = _record_expression(child, f"({source} -> {path})")
        elif child.kind == columns.JSON:
            value = f"{source} -> {path}"
        else:
            value = _scalar_from_json(child, f"{source} ->> {path}")
        members.append(f"{child.name} := {value}")
    return f"CASE WHEN {source} IS NOT NULL THEN struct_pack({', '.join(members)}) END"


def _scalar_from_json(field: columns.Field, text: str) -> str:
    cast = _SCALAR_CASTS.get(field.kind)
    return f"TRY_CAST({text} AS {cast})" if cast else text
