"""Print mode's chained stages in SQL: node discovery feeding the node queries through `@nodes`.

The node actions' second stage is built from the nodes the first one finds;
print mode builds it with the sentinel `NODES_FROM_DISCOVERY` instead. For
SQL, the printed recipe runs the discovery query wrapped in a `SELECT
DISTINCT node` that extracts names as `node_discovery.nodes_from` does (the
Scheduled event's target, the line's node label), into the shell variable
NODES; the node query then reads them as the array parameter `@nodes`: an
equality with the sentinel becomes `IN UNNEST(@nodes)`, a regular
expression alternative `(NODES_FROM_DISCOVERY)` becomes the names, dots
escaped, joined by `|`. With the names known (--execute, --logs_file) the
tool runs the same SQL with the names written out.
"""

from __future__ import annotations

import re

from pathways_workload.analytics import columns, sql
from pathways_workload.lql import values
from pathways_workload.node_discovery import ASSIGNED_RE

PARAMETER = "nodes"
_LITERAL = re.compile(r"'(?:[^'\\]|\\.)*'")
_ESCAPED_DOT = sql.string("\\.")
_ALTERNATIVES = (
    f"ARRAY_TO_STRING(ARRAY(SELECT REPLACE(node, '.', {_ESCAPED_DOT}) "
    f"FROM UNNEST(@{PARAMETER}) AS node), '|')"
)
# Only words that can be node names reach the array (nothing a log line says can widen it).
NAME_GUARD = "grep -E '^[a-z0-9][-a-z0-9.]*$' | sort -u"


def parametrized(text: str, sentinel: str) -> str:
    """The SQL with the sentinel's node list read from `@nodes`.

    Raises:
        ValueError: the sentinel is used in a form this cannot rewrite.
    """
    text = text.replace(f" = {sql.string(values.fold(sentinel))}", f" IN UNNEST(@{PARAMETER})")
    alternative = f"({sentinel})"

    def split(literal: re.Match[str]) -> str:
        if alternative not in literal.group(0):
            return literal.group(0)
        before, after = literal.group(0)[1:-1].split(alternative, 1)
        return f"CONCAT('{before}(', {_ALTERNATIVES}, '){after}')"

    text = _LITERAL.sub(split, text)
    if sentinel.casefold() in text.casefold():
        raise ValueError(f"print mode cannot chain SQL that uses {sentinel} so")
    return text


def node_names(stage_sql: str) -> str:
    """A query listing the node names the rows of the discovery query (text columns) name."""
    message = (
        "COALESCE(text_payload, JSON_VALUE(json_payload, '$.message'), "
        "JSON_VALUE(json_payload, '$.MESSAGE'))"
    )
    assigned = f"REGEXP_EXTRACT({message}, {sql.string(ASSIGNED_RE.pattern)})"
    indented = "\n".join("  " + line for line in stage_sql.rstrip("\n").splitlines())
    return (
        f"SELECT DISTINCT node FROM (\n{indented}\n) AS found,\n"
        f"UNNEST([{assigned}, {columns.NODE_LABEL_COLUMN}]) AS node\n"
        "WHERE node IS NOT NULL AND node != ''\nORDER BY node\n"
    )


def array_parameter(variable: str) -> str:
    """The bq `--parameter` word that passes the names in `$variable` as `@nodes`."""
    names = f"$(for name in ${variable}; do printf '\"%s\",' \"$name\"; done | sed 's/,$//')"
    return f'--parameter="{PARAMETER}:ARRAY<STRING>:[{names}]"'
