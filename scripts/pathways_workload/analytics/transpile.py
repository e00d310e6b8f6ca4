"""The generated BigQuery SQL, transpiled by sqlglot for DuckDB (the offline engine).

No DuckDB SQL is written by hand for a query: sqlglot translates the same
text that BigQuery would run, and only these rewrites adapt what DuckDB
lacks or handles badly, the functions they call defined by `emulation`:

- the view's table path becomes the local table `log_view`;
- `NORMALIZE_AND_CASEFOLD(x, NFKC)` becomes `bq_casefold(x)`;
- `CONTAINS_SUBSTR(x, term)` becomes an RE2 search of `bq_casefold(x)` for
  the escaped, folded term, and a run of them on the same x joined by OR
  becomes one search for any of the terms (one expression instead of
  hundreds: DuckDB keeps state per expression); on JSON (a path, a JSON
  column or the whole row) the scalar values are searched, not the keys,
  as BigQuery's default `json_scope` does;
- `SEARCH(x, query)` runs the LOG_ANALYZER-style tokenizer over x's strings;
- `JSON_TYPE`, `LAX_FLOAT64` and `LAX_BOOL` of JSON call their emulations;
- `NET.F(...)` calls `bq_net_f(...)`, the Net function emulated in Python.

sqlglot is imported only here, and only when an offline or fake query runs.
"""

from __future__ import annotations

import re
from typing import Any

from pathways_workload.analytics import columns
from pathways_workload.analytics.emulation import (
    CASEFOLD,
    JSON_TYPE,
    LAX_BOOL,
    LAX_FLOAT64,
    NET_PREFIX,
)
from pathways_workload.analytics.extra import require
from pathways_workload.errors import UsageError
from pathways_workload.filters import regex_literal
from pathways_workload.lql.values import fold

LOCAL_TABLE = "log_view"
MATCHES_JSON = "bq_json_matches"
SEARCH_JSON = "bq_search_json"
JSON_PATH_FUNCTIONS = frozenset({"JSON_QUERY", "JSON_VALUE"})
# An empty key in a JSONPath that `sql.json_path` wrote (keys holding quotes are refused there).
EMPTY_KEY = re.compile(r'\.""(?:[.]|$)')


def to_duckdb(bigquery_sql: str) -> str:
    """DuckDB SQL for a query written for BigQuery.

    Raises:
        UsageError: a JSON key named `*`, which DuckDB reads as a wildcard even quoted,
            or an empty JSON key, which sqlglot drops from its path.
    """
    sqlglot = require("sqlglot")
    exp = sqlglot.exp
    if _has_empty_json_key(sqlglot, bigquery_sql):
        raise UsageError(
            "--filter: a JSON key named '' (empty) is dropped from its path by the SQL "
            "transpiler, which would then read the whole object, so the offline analytics "
            "engine cannot address it; use --engine=logging"
        )
    tree = sqlglot.parse_one(bigquery_sql, read="bigquery")
    if any(key.this == "*" for key in tree.find_all(exp.JSONPathKey)):
        raise UsageError(
            "--filter: a JSON key named '*' is read by DuckDB as every key of its object, so the "
            "offline analytics engine cannot address it; use --engine=logging"
        )
    _merge_substring_runs(tree, exp)
    tree = tree.transform(lambda node: _rewrite(node, exp))
    text: str = tree.sql(dialect="duckdb", unsupported_level=sqlglot.ErrorLevel.RAISE)
    return text


def _has_empty_json_key(sqlglot: Any, bigquery_sql: str) -> bool:
    """Whether a JSON path (`JSON_QUERY` or `JSON_VALUE`'s second argument, as
    `sql.json_path` writes it) has an empty key `.""`: read from the tokens, since
    sqlglot's parsed path has already lost it."""
    string = sqlglot.tokens.TokenType.STRING
    tokens = sqlglot.tokenize(bigquery_sql, read="bigquery")
    return any(
        token.token_type == string
        and EMPTY_KEY.search(token.text)
        and _is_path_argument(sqlglot, tokens[:index])
        for index, token in enumerate(tokens)
    )


def _is_path_argument(sqlglot: Any, before: list[Any]) -> bool:
    """Whether the tokens before a string end with `JSON_QUERY(column.path,` (or JSON_VALUE)."""
    kinds = sqlglot.tokens.TokenType
    if not before or before[-1].token_type != kinds.COMMA:
        return False
    index = len(before) - 2
    while index > 0 and before[index].token_type in (kinds.VAR, kinds.DOT):
        index -= 1
    opening = before[index].token_type == kinds.L_PAREN and index > 0
    return opening and before[index - 1].text.upper() in JSON_PATH_FUNCTIONS


def _rewrite(node: Any, exp: Any) -> Any:
    """One node adapted for DuckDB (see the module docstring), or the node itself."""
    if isinstance(node, exp.Table):
        return exp.to_table(LOCAL_TABLE).as_(node.alias_or_name) if node.alias else node
    if isinstance(node, exp.Normalize) and node.args.get("is_casefold"):
        return _casefold(node.this, exp)
    target = _substring_target(node, exp)
    if target is not None:
        return _search_for(target[0], [target[1]], exp)
    if isinstance(node, exp.NetFunc):
        name = f"{NET_PREFIX}{str(node.this.this).lower()}"
        arguments = [e.transform(lambda inner: _rewrite(inner, exp)) for e in node.this.expressions]
        return exp.Anonymous(this=name, expressions=arguments)
    for kind, name in (
        (exp.JSONType, JSON_TYPE),
        (exp.LaxFloat64, LAX_FLOAT64),
        (exp.LaxBool, LAX_BOOL),
    ):
        if isinstance(node, kind):
            inner = node.this.transform(lambda inside: _rewrite(inside, exp))
            return exp.Anonymous(this=name, expressions=[inner])
    if isinstance(node, exp.Anonymous) and str(node.this).upper() == "SEARCH":
        searched, query = node.expressions
        as_json = exp.Anonymous(this="TO_JSON", expressions=[searched.copy()])
        return exp.Anonymous(this=SEARCH_JSON, expressions=[as_json, query.copy()])
    return node


def _substring_target(node: Any, exp: Any) -> tuple[Any, str] | None:
    """`(x, term)` when the node is `CONTAINS_SUBSTR(x, 'term')` as sqlglot parsed it."""
    if not (isinstance(node, exp.Contains) and isinstance(node.this, exp.Lower)):
        return None
    term = node.expression.this if isinstance(node.expression, exp.Lower) else node.expression
    if not (isinstance(term, exp.Literal) and term.is_string):
        return None
    return node.this.this, str(term.this)


def _merge_substring_runs(tree: Any, exp: Any) -> None:
    """Replace each run of CONTAINS_SUBSTR on the same value inside an OR by one search."""
    for chain in [node for node in tree.find_all(exp.Or) if not isinstance(node.parent, exp.Or)]:
        runs: list[tuple[str | None, list[Any]]] = []
        for operand in chain.flatten():
            target = _substring_target(operand, exp)
            key = target[0].sql() if target else None
            if key is not None and runs and runs[-1][0] == key:
                runs[-1][1].append(operand)
            else:
                runs.append((key, [operand]))
        if all(len(members) == 1 for _, members in runs):
            continue
        merged = [
            _search_for(
                _substring_target(members[0], exp)[0],  # type: ignore[index]
                [_substring_target(member, exp)[1] for member in members],  # type: ignore[index]
                exp,
            )
            if key is not None
            else members[0]
            for key, members in runs
        ]
        chain.replace(exp.or_(*merged, copy=False) if len(merged) > 1 else merged[0])


def _casefold(value: Any, exp: Any) -> Any:
    return exp.Anonymous(this=CASEFOLD, expressions=[value.copy()])


def _search_for(value: Any, terms: list[str], exp: Any) -> Any:
    """An RE2 search of a value (folded) for any of the folded terms."""
    pattern = exp.Literal.string("|".join(regex_literal(fold(term)) for term in terms))
    if not _is_json(value, exp):
        return exp.RegexpLike(this=_casefold(value, exp), expression=pattern)
    if isinstance(value, exp.Column) and value.sql() == columns.VIEW_ALIAS:
        as_json = exp.Anonymous(this="TO_JSON", expressions=[value.copy()])
        return exp.Anonymous(this=MATCHES_JSON, expressions=[as_json, pattern])
    kind = exp.Anonymous(this="json_type", expressions=[value.copy()])
    text = exp.Anonymous(
        this="json_extract_string", expressions=[value.copy(), exp.Literal.string("$")]
    )
    is_string = exp.EQ(this=kind, expression=exp.Literal.string("VARCHAR"))
    found = exp.RegexpLike(this=_casefold(text, exp), expression=pattern.copy())
    other = exp.Anonymous(this=MATCHES_JSON, expressions=[value.copy(), pattern.copy()])
    return exp.Case(ifs=[exp.If(this=is_string, true=found)], default=other)


def _is_json(node: Any, exp: Any) -> bool:
    """Whether an expression is JSON (a path into a JSON column, one, or the whole row)."""
    if isinstance(node, exp.JSONExtract):
        return True
    if isinstance(node, (exp.Column, exp.Dot)):
        return node.sql() in columns.JSON_PATHS or node.sql() == columns.VIEW_ALIAS
    return False
