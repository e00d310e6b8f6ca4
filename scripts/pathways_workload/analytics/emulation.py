"""BigQuery search functions emulated in DuckDB, for the offline engine only.

Defined as DuckDB macros (JSONPath `$..*` lists every nested value), so they
need nothing but DuckDB:

- `bq_casefold(text)`: `NORMALIZE_AND_CASEFOLD(text, NFKC)`, as the query
  language folds strings (`lql.values.fold`): ASCII text lower-cased in
  DuckDB, any other through Python.
- `bq_json_matches(json_value, pattern)`: BigQuery's `CONTAINS_SUBSTR` over
  JSON (or a whole row, as JSON): true when a scalar value (not a key),
  written as text and folded, matches the pattern of the escaped,
  lower-cased terms (`transpile` builds it).
- `bq_json_type`, `bq_lax_float64`, `bq_lax_bool`: BigQuery's `JSON_TYPE`
  (`string`, `number`, ...), `LAX_FLOAT64` and `LAX_BOOL` of a JSON value
  (the comparisons call them on scalars whose type they checked).
- `bq_search_json(json_value, query)`: `SEARCH` over the string values: every
  token of the query is a token of some string, cut at the LOG_ANALYZER
  delimiters (`lql.analyzer` has the list). Backtick phrases count their
  tokens but not their adjacency.

The Net functions `ip_ranges` uses are Python functions (DuckDB runs them
through numpy): `bq_net_safe_ip_from_string`, `bq_net_ip_from_string` and
`bq_net_ip_trunc`, each as BigQuery documents it, addresses read by Python's
`ipaddress`.

Whether BigQuery normalises, tokenizes and reads addresses exactly like this
is what only real BigQuery can settle; the README says so.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from pathways_workload.analytics.extra import require
from pathways_workload.lql import analyzer, values

NET_PREFIX = "bq_net_"


def _literal(text: str) -> str:
    """A DuckDB string literal (quotes doubled; backslashes are plain characters)."""
    return "'" + text.replace("'", "''") + "'"


CASEFOLD = "bq_casefold"
# BigQuery's JSON_TYPE (its names for the kinds), LAX_FLOAT64 and LAX_BOOL of a JSON value.
JSON_TYPE, LAX_FLOAT64, LAX_BOOL = "bq_json_type", "bq_lax_float64", "bq_lax_bool"
_FOLD_UNICODE = "bq_fold_unicode"
_ENCODED = _literal("(?i)" + analyzer.ENCODED_DELIMITERS.pattern)
_DELIMITERS = _literal(analyzer.DELIMITERS.pattern)
_TOKENS = (
    f"list_filter(regexp_split_to_array(regexp_replace({CASEFOLD}(text), "
    f"{_ENCODED}, ' ', 'g'), {_DELIMITERS}), lambda token: token <> '')"
)
_SCALAR_VALUES = (
    "CASE WHEN json_type(json_value) IN ('OBJECT', 'ARRAY') THEN list_filter("
    "json_extract(json_value, '$..*'), lambda item: json_type(item) NOT IN "
    "('OBJECT', 'ARRAY', 'NULL')) WHEN json_type(json_value) = 'NULL' THEN [] "
    "ELSE [json_value] END"
)
MACROS = (
    # ASCII text folds as DuckDB lower-cases it; the rest goes to Python (`values.fold`).
    f"CREATE MACRO {CASEFOLD}(text) AS CASE WHEN regexp_matches(text, '[^\\x00-\\x7f]') "
    f"THEN {_FOLD_UNICODE}(text) ELSE lower(text) END",
    f"CREATE MACRO bq_json_scalars(json_value) AS {_SCALAR_VALUES}",
    f"CREATE MACRO {JSON_TYPE}(json_value) AS CASE json_type(json_value) "
    "WHEN 'VARCHAR' THEN 'string' WHEN 'BOOLEAN' THEN 'boolean' WHEN 'NULL' THEN 'null' "
    "WHEN 'OBJECT' THEN 'object' WHEN 'ARRAY' THEN 'array' ELSE 'number' END",
    f"CREATE MACRO {LAX_FLOAT64}(json_value) AS TRY_CAST(json_value AS DOUBLE)",
    f"CREATE MACRO {LAX_BOOL}(json_value) AS TRY_CAST(json_value AS BOOLEAN)",
    "CREATE MACRO bq_json_matches(json_value, pattern) AS coalesce(list_bool_or("
    "list_transform(bq_json_scalars(json_value), lambda item: "
    f"regexp_matches({CASEFOLD}(item ->> '$'), pattern))), false)",
    f"CREATE MACRO bq_tokens(text) AS {_TOKENS}",
    "CREATE MACRO bq_search_json(json_value, query) AS list_has_all(coalesce(flatten("
    "list_transform(list_filter(bq_json_scalars(json_value), lambda item: "
    "json_type(item) = 'VARCHAR'), lambda item: bq_tokens(item ->> '$'))), []), "
    "bq_tokens(replace(query, '`', ' ')))",
)


def safe_ip_from_string(text: str | None) -> bytes | None:
    """NET.SAFE_IP_FROM_STRING: an address (no range) in network byte order, else None."""
    if text is None:
        return None
    try:
        return ipaddress.ip_address(text).packed
    except ValueError:
        return None


def ip_from_string(text: str | None) -> bytes | None:
    """NET.IP_FROM_STRING: as the safe form, but an invalid address is an error."""
    packed = safe_ip_from_string(text)
    if packed is None and text is not None:
        raise ValueError(f"NET.IP_FROM_STRING: {text!r} is not an IP address")
    return packed


def ip_trunc(address: bytes | None, prefix: int | None) -> bytes | None:
    """NET.IP_TRUNC: the address with every bit after the first `prefix` cleared."""
    if address is None or prefix is None:
        return None
    bits = len(address) * 8
    if len(address) not in (4, 16) or not 0 <= prefix <= bits:
        raise ValueError(f"NET.IP_TRUNC: prefix {prefix} for a {len(address)}-byte address")
    kept = int.from_bytes(address, "big") >> (bits - prefix) << (bits - prefix)
    return kept.to_bytes(len(address), "big")


def register(connection: Any) -> None:
    """Define the macros, the Unicode fold and the Net functions on a DuckDB connection."""
    types = require("duckdb.sqltypes")
    special = require("duckdb.func").SPECIAL
    connection.create_function(
        _FOLD_UNICODE, values.fold, [types.VARCHAR], types.VARCHAR, null_handling=special
    )
    for statement in MACROS:
        connection.execute(statement)
    for name, function, parameters, result in (
        ("safe_ip_from_string", safe_ip_from_string, [types.VARCHAR], types.BLOB),
        ("ip_from_string", ip_from_string, [types.VARCHAR], types.BLOB),
        ("ip_trunc", ip_trunc, [types.BLOB, types.BIGINT], types.BLOB),
    ):
        connection.create_function(
            NET_PREFIX + name, function, parameters, result, null_handling=special
        )
