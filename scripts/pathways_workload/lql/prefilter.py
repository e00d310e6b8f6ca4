"""Prefilter: byte strings a raw JSON line must contain for its entry to match.

From the syntax tree this derives a conjunction of alternatives: for each
group, at least one of its lowercase byte strings must occur in the line.
Sources of groups: `=` and `:` on text fields with a plain text value (the
folded value must occur), global restrictions, SEARCH tokens, and severity
comparisons (the names of the levels that satisfy them, unless DEFAULT does,
since an entry without a severity is DEFAULT). AND joins groups; OR gives one
group, the union of one group of each operand, only when every operand has
one; NOT, regular expressions, numbers, booleans, NULL_VALUE, timestamps and
presence tests give none.

Why it is exact: when a line is ASCII without `\\u` or `\\/` escapes, every
string of its entry is ASCII and appears in the line as written, except for
`"`, `\\` and control characters, which terms never contain; folding ASCII is
lowercasing, and lowercasing the line keeps every such occurrence. Any other
line is let through undecided.
"""

from __future__ import annotations

from pathways_workload.lql import analyzer, fields, nodes, values

Groups = list[frozenset[bytes]]

TEXT_KINDS = frozenset({fields.STRING, fields.MESSAGE, fields.MAP, fields.STRUCT, fields.PROTO})
SEVERITY_OPERATORS = frozenset({"=", ":", "!=", "<", "<=", ">", ">="})
COMPARE_LEVELS = {
    "=": lambda level, wanted: level == wanted,
    ":": lambda level, wanted: level == wanted,
    "!=": lambda level, wanted: level != wanted,
    "<": lambda level, wanted: level < wanted,
    "<=": lambda level, wanted: level <= wanted,
    ">": lambda level, wanted: level > wanted,
    ">=": lambda level, wanted: level >= wanted,
}


def required_groups(tree: nodes.Node, filter_text: str) -> tuple[frozenset[bytes], ...]:
    """Groups of byte strings, one of each must be in a line that can match.

    Groups with fewer and longer strings come first, as they are the cheapest
    to test and the likeliest to reject a line.
    """
    groups = _groups(tree, filter_text)
    unique = set(groups)
    return tuple(sorted(unique, key=lambda group: (len(group), -min(map(len, group)))))


def _groups(node: nodes.Node, filter_text: str) -> Groups:
    """Derive the groups of one node."""
    if isinstance(node, nodes.And):
        return _groups(node.left, filter_text) + _groups(node.right, filter_text)
    if isinstance(node, nodes.Or):
        left = _groups(node.left, filter_text)
        right = _groups(node.right, filter_text)
        if not left or not right:
            return []
        return [_most_selective(left) | _most_selective(right)]
    if isinstance(node, nodes.Comparison):
        return _comparison(node, filter_text)
    if isinstance(node, nodes.Restriction):
        return _single(_text_term(node.value))
    if isinstance(node, nodes.Search):
        try:
            query = analyzer.parse_query(node.query.text)
        except ValueError:
            return []
        return [group for token in sorted(query.tokens) for group in _single(token)]
    return []


def _comparison(node: nodes.Comparison, filter_text: str) -> Groups:
    """Groups of a comparison: its folded text value, or the satisfying severity names."""
    if node.value is None:
        return []
    field = fields.resolve(node.path, filter_text)
    if field.kind == fields.SEVERITY and not field.free_keys:
        return _severity(node.op, node.value)
    if field.kind in TEXT_KINDS and node.op in ("=", ":"):
        return _single(_text_term(node.value))
    return []


def _severity(op: str, literal: nodes.Literal) -> Groups:
    """The names of the levels that satisfy `severity op literal`."""
    wanted = values.parse_severity(literal.text)
    if wanted is None or op not in SEVERITY_OPERATORS:
        return []
    compare = COMPARE_LEVELS[op]
    names = [name for name, level in values.SEVERITY_LEVELS.items() if compare(level, wanted)]
    if not names or "DEFAULT" in names:
        return []
    return [frozenset(name.lower().encode("ascii") for name in names)]


def _text_term(literal: nodes.Literal) -> str:
    """The folded text a matching string must contain; "" when a value of another type may match."""
    text = literal.text
    if not literal.quoted and text == "NULL_VALUE":
        return ""
    if values.parse_number(text) is not None or values.parse_bool(text) is not None:
        return ""
    return values.fold(text)


def _single(term: str) -> Groups:
    """One group of one term, if the term can be looked for in a raw line."""
    if not term or any(char in '"\\\x7f' or char < " " for char in term):
        return []
    return [frozenset({term.encode("utf-8", "surrogatepass")})]


def _most_selective(groups: Groups) -> frozenset[bytes]:
    """The group of a conjunction that best stands for it in a union."""
    return min(groups, key=lambda group: (len(group), -min(map(len, group))))
