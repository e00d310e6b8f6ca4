"""BigQuery search functions emulated in DuckDB, for the offline engine only.

Defined as DuckDB macros (JSONPath `$..*` lists every nested value), so they
need nothing but DuckDB:

- `bq_json_matches(json_value, pattern)`: BigQuery's `CONTAINS_SUBSTR` over
  JSON (or a whole row, as JSON): true when a scalar value (not a key),
  written as text and lower-cased, matches the pattern of the escaped,
  lower-cased terms (`transpile` builds it).
- `bq_search_json(json_value, query)`: `SEARCH` over the string values: every
  token of the query is a token of some string, cut at the LOG_ANALYZER
  delimiters (`lql.analyzer` has the list). Backtick phrases count their
  tokens but not their adjacency.

Whether BigQuery normalises, and tokenizes, exactly like this is what only
real BigQuery can settle; the README says so.
"""

from __future__ import annotations

from typing import Any

from pathways_workload.lql import analyzer


def _literal(text: str) -> str:
    """A DuckDB string literal (quotes doubled; backslashes are plain characters)."""
    return "'" + text.replace("'", "''") + "'"


_ENCODED = _literal("(?i)" + analyzer.ENCODED_DELIMITERS.pattern)
_DELIMITERS = _literal(analyzer.DELIMITERS.pattern)
_TOKENS = (
    "list_filter(regexp_split_to_array(regexp_replace(lower(text), "
    f"{_ENCODED}, ' ', 'g'), {_DELIMITERS}), lambda token: token <> '')"
)
_SCALAR_VALUES = (
    "CASE WHEN json_type(json_value) IN ('OBJECT', 'ARRAY') THEN list_filter("
    "json_extract(json_value, '$..*'), lambda item: json_type(item) NOT IN "
    "('OBJECT', 'ARRAY', 'NULL')) WHEN json_type(json_value) = 'NULL' THEN [] "
    "ELSE [json_value] END"
)
MACROS = (
    f"CREATE MACRO bq_json_scalars(json_value) AS {_SCALAR_VALUES}",
    "CREATE MACRO bq_json_matches(json_value, pattern) AS coalesce(list_bool_or("
    "list_transform(bq_json_scalars(json_value), lambda item: "
    "regexp_matches(lower(item ->> '$'), pattern))), false)",
    f"CREATE MACRO bq_tokens(text) AS {_TOKENS}",
    "CREATE MACRO bq_search_json(json_value, query) AS list_has_all(coalesce(flatten("
    "list_transform(list_filter(bq_json_scalars(json_value), lambda item: "
    "json_type(item) = 'VARCHAR'), lambda item: bq_tokens(item ->> '$'))), []), "
    "bq_tokens(replace(query, '`', ' ')))",
)


def register(connection: Any) -> None:
    """Define the macros on a DuckDB connection."""
    for statement in MACROS:
        connection.execute(statement)
