"""A Logging-query-language syntax tree compiled to a GoogleSQL WHERE predicate.

The tree is the one `lql.parser.parse` builds for the query-language engine,
so the filters every action prints are the only definition of what it asks;
this module gives each node the engine's meaning in SQL (see `comparisons`
for single comparisons). Every comparison is wrapped in `COALESCE(..., FALSE)`:
a missing field makes SQL yield NULL, and NOT of NULL would stay NULL where
the query language says `NOT missing=x` is true.

- Comparisons on the same field side by side under one AND or OR share one
  COALESCE (NULL OR TRUE is TRUE, NULL AND TRUE is NULL: the same answers).
- A global restriction is `:` on every column of the row that is present,
  each with its type's meaning (`comparisons.anywhere`); `SEARCH()`
  is BigQuery's `SEARCH` with the query folded to lower case, because the
  query language matches SEARCH tokens without regard to case, backticks too;
  of the whole row it reads every column but severity and the timestamps.
- `log_id("x")` compares the view's decoded `log_id` column, folded.
- `ip_in_net(field, "subnet")` is built from the Net functions (`ip_ranges`);
  inside a JSON payload only a string value counts, as in the engine.
"""

from __future__ import annotations

import dataclasses
import functools
import urllib.parse

from pathways_workload.analytics import columns, comparisons, ip_ranges, operands, sql
from pathways_workload.lql import analyzer, diagnostics, fields, networks, nodes, parser, values

TIMESTAMP_BOUNDS = {">=": "start", "<=": "end"}
# What a SEARCH of the whole entry reads: every column but the typed ones held as text or
# timestamps (severity, the timestamps), since SEARCH cannot match non-text fields.
SEARCHED_ROW = (
    "STRUCT("
    + ", ".join(
        f"{columns.VIEW_ALIAS}.{field.name}"
        for field in columns.VIEW_COLUMNS
        if field.kind not in (fields.SEVERITY, fields.TIMESTAMP)
    )
    + ")"
)


@dataclasses.dataclass(frozen=True)
class Bounds:
    """The instants a filter is bounded by at its top level (None: unbounded on that side)."""

    start_ns: int | None
    end_ns: int | None


@functools.lru_cache(maxsize=256)
def _conjuncts(text: str) -> tuple[nodes.Node, ...]:
    """A filter's top-level terms, parsed once for its bounds and its predicate."""
    tree = parser.parse(text)
    return tuple(nodes.operands(tree)) if isinstance(tree, nodes.And) else (tree,)


def compile_filter(text: str, known: Bounds = Bounds(None, None)) -> str:
    """Compile filter text to a SQL predicate; top-level bounds equal to `known` are left out.

    Raises:
        diagnostics.LqlError: the filter is invalid, or has no exact mapping ("unsupported").
    """
    kept = [node for node in _conjuncts(text) if _bound(node) not in _known_bounds(known)]
    if not kept:
        return "TRUE"
    return _Compiler(text).junction(kept, conjunctive=True)


def bounds(text: str) -> Bounds:
    """The tightest `timestamp>=` and `timestamp<=` literals among a filter's top-level terms.

    Raises:
        diagnostics.LqlError: the filter is invalid.
    """
    found = [bound for bound in map(_bound, _conjuncts(text)) if bound is not None]
    starts = [ns for side, ns in found if side == "start"]
    ends = [ns for side, ns in found if side == "end"]
    return Bounds(max(starts) if starts else None, min(ends) if ends else None)


def _bound(node: nodes.Node) -> tuple[str, int] | None:
    """`("start", ns)` for `timestamp>="..."`, `("end", ns)` for `timestamp<="..."`, else None."""
    if not (isinstance(node, nodes.Comparison) and node.value is not None):
        return None
    side = TIMESTAMP_BOUNDS.get(node.op)
    if side is None or [part.lower() for part in node.path.components] != ["timestamp"]:
        return None
    nanos = values.parse_timestamp(node.value.text)
    return None if nanos is None else (side, nanos)


def _known_bounds(known: Bounds) -> set[tuple[str, int] | None]:
    found: set[tuple[str, int] | None] = set()
    if known.start_ns is not None:
        found.add(("start", known.start_ns))
    if known.end_ns is not None:
        found.add(("end", known.end_ns))
    return found


class _Compiler:
    """Compiles the nodes of one filter (kept for its text, used in errors)."""

    def __init__(self, text: str) -> None:
        self._text = text

    def node(self, node: nodes.Node) -> str:
        """Compile any node to a predicate that is never NULL."""
        if isinstance(node, (nodes.And, nodes.Or)):
            return self.junction(nodes.operands(node), isinstance(node, nodes.And))
        if isinstance(node, nodes.Not):
            return f"NOT {self.node(node.operand)}"
        if isinstance(node, nodes.Comparison):
            return _total(self._comparison(node))
        if isinstance(node, nodes.Restriction):
            return _total(comparisons.anywhere(node.value))
        if isinstance(node, nodes.Search):
            return _total(self._search(node))
        if isinstance(node, nodes.LogId):
            decoded = values.fold(urllib.parse.unquote(node.log_id.text))
            return f"COALESCE(NORMALIZE_AND_CASEFOLD(log_id, NFKC) = {sql.string(decoded)}, FALSE)"
        if isinstance(node, nodes.IpInNet):
            return _total(self._ip_in_net(node))
        assert isinstance(node, nodes.Everything)
        return "TRUE"

    def junction(self, operands: list[nodes.Node], conjunctive: bool) -> str:
        """AND (or OR) of operands; runs of comparisons on one field share a COALESCE."""
        joiner = " AND " if conjunctive else " OR "
        parts: list[str] = []
        run: list[str] = []
        run_field: str | None = None
        for operand in operands:
            field = _field_of(operand)
            if run and field != run_field:
                parts.append(_total(joiner.join(run), len(run)))
                run = []
            if field is None:
                parts.append(self.node(operand))
            else:
                assert isinstance(operand, nodes.Comparison)
                run.append(self._comparison(operand))
            run_field = field
        if run:
            parts.append(_total(joiner.join(run), len(run)))
        return parts[0] if len(parts) == 1 else "(" + joiner.join(parts) + ")"

    def _comparison(self, node: nodes.Comparison) -> str:
        operand = operands.resolve(node.path, self._text)
        if node.value is None:
            return comparisons.presence(operand)
        return comparisons.compare(operand, node.op, node.value)

    def _search(self, node: nodes.Search) -> str:
        try:
            analyzer.parse_query(node.query.text)
        except ValueError as error:
            raise diagnostics.LqlSyntaxError(
                f"{error} (at {diagnostics.position(self._text, node.query.start)})",
                self._text,
                node.query.start,
            ) from error
        query = sql.string(values.fold(node.query.text))
        if node.path is None:
            return f"SEARCH({SEARCHED_ROW}, {query})"
        operand = operands.resolve(node.path, self._text)
        if operand.record:
            return f"SEARCH({operand.column}, {query})"
        if operand.kind == columns.JSON:
            return f"SEARCH({operand.json_query if operand.keys else operand.column}, {query})"
        if operand.kind == fields.STRING:
            return f"SEARCH({operand.column}, {query})"
        return comparisons.NEVER

    def _ip_in_net(self, node: nodes.IpInNet) -> str:
        """ip_in_net on a string field, a label, or a string inside a JSON payload."""
        network = networks.subnet(node.subnet, self._text)
        operand = operands.resolve(node.path, self._text)
        if operand.kind == fields.STRING:
            return ip_ranges.ip_in_net(operand.value, network)
        if operand.kind != columns.JSON or not operand.keys:
            return comparisons.NEVER
        inside = ip_ranges.ip_in_net(operand.json_value, network)
        if operand.column in columns.STRING_MAPS:
            return inside
        is_string = f"STARTS_WITH(TO_JSON_STRING({operand.json_query}), '\"')"
        return f"({is_string} AND {inside})"


def _field_of(node: nodes.Node) -> str | None:
    """The path text of a comparison that can join a run (not `:*`), else None."""
    if isinstance(node, nodes.Comparison) and node.value is not None:
        return ".".join(node.path.components)
    return None


def _total(predicate: str, terms: int = 1) -> str:
    """A predicate made two-valued: NULL (a missing field) reads as FALSE."""
    if predicate in ("TRUE", comparisons.NEVER):
        return predicate
    body = f"({predicate})" if terms > 1 else predicate
    return f"COALESCE({body}, FALSE)"
