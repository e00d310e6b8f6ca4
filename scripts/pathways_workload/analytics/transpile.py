"""The generated BigQuery SQL, transpiled by sqlglot for DuckDB (the offline engine).

No DuckDB SQL is written by hand for a query: sqlglot translates the same
text that BigQuery would run, and only these rewrites adapt what DuckDB
lacks, each to a function `emulation` registers:

- the view's table path becomes the local table `log_view`;
- `NORMALIZE_AND_CASEFOLD(x, NFKC)` becomes `LOWER(x)` (no NFKC offline);
- `CONTAINS_SUBSTR` of a JSON value or of the whole row searches the JSON
  values (not the keys), as BigQuery's default `json_scope` does; of a
  string, sqlglot's `CONTAINS(LOWER(x), LOWER(term))`;
- `SEARCH(x, query)` runs the query-language tokenizer over x's strings;
- every CTE is `MATERIALIZED`, so the scan runs once, as in BigQuery.

sqlglot is imported only here, and only when an offline or fake query runs.
"""

from __future__ import annotations

from typing import Any

from pathways_workload.analytics import columns
from pathways_workload.analytics.extra import require

LOCAL_TABLE = "log_view"
JSON_COLUMNS = frozenset({"labels", "json_payload", "resource.labels"})
CONTAINS_JSON = "bq_contains_substr_json"
SEARCH_JSON = "bq_search_json"


def to_duckdb(bigquery_sql: str) -> str:
    """DuckDB SQL for a query written for BigQuery."""
    sqlglot = require("sqlglot")
    exp = sqlglot.exp
    tree = sqlglot.parse_one(bigquery_sql, read="bigquery")
    tree = tree.transform(lambda node: _rewrite(node, exp, sqlglot))
    for cte in tree.find_all(exp.CTE):
        cte.set("materialized", True)  # run once, as BigQuery runs a non-recursive CTE
    text: str = tree.sql(dialect="duckdb", unsupported_level=sqlglot.ErrorLevel.RAISE)
    return text


def _rewrite(node: Any, exp: Any, sqlglot: Any) -> Any:
    """One node adapted for DuckDB (see the module docstring), or the node itself."""
    if isinstance(node, exp.Table):
        return exp.to_table(LOCAL_TABLE).as_(node.alias_or_name) if node.alias else node
    if isinstance(node, exp.Normalize) and node.args.get("is_casefold"):
        return exp.Lower(this=node.this)
    if isinstance(node, exp.Contains) and isinstance(node.this, exp.Lower):
        searched = node.this.this
        if _is_json(searched, exp):
            term = (
                node.expression.this if isinstance(node.expression, exp.Lower) else node.expression
            )
            return _json_contains(searched, term, exp)
    if isinstance(node, exp.Anonymous) and str(node.this).upper() == "SEARCH":
        searched, query = node.expressions
        return _json_call(SEARCH_JSON, searched, query, exp)
    return node


def _is_json(node: Any, exp: Any) -> bool:
    """Whether an expression is JSON (a path into a JSON column, one, or the whole row)."""
    if isinstance(node, exp.JSONExtract):
        return True
    if isinstance(node, (exp.Column, exp.Dot)):
        return node.sql() in JSON_COLUMNS or node.sql() == columns.VIEW_ALIAS
    return False


def _json_contains(value: Any, term: Any, exp: Any) -> Any:
    """CONTAINS_SUBSTR of JSON: a string searched directly, anything else by the macro."""
    if isinstance(value, exp.Column) and value.sql() == columns.VIEW_ALIAS:
        return _json_call(CONTAINS_JSON, value, term, exp)
    kind = exp.Anonymous(this="json_type", expressions=[value.copy()])
    text = exp.Anonymous(
        this="json_extract_string", expressions=[value.copy(), exp.Literal.string("$")]
    )
    found = exp.Anonymous(
        this="contains", expressions=[exp.Lower(this=text), exp.Lower(this=term.copy())]
    )
    is_string = exp.EQ(this=kind, expression=exp.Literal.string("VARCHAR"))
    return exp.Case(
        ifs=[exp.If(this=is_string, true=found)],
        default=_json_call(CONTAINS_JSON, value, term, exp),
    )


def _json_call(name: str, value: Any, argument: Any, exp: Any) -> Any:
    """`name(TO_JSON(value), argument)`: the macro reads the value as JSON."""
    as_json = exp.Anonymous(this="TO_JSON", expressions=[value.copy()])
    return exp.Anonymous(this=name, expressions=[as_json, argument.copy()])
