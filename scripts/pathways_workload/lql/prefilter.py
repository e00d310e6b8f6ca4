"""Prefilter: byte strings a raw JSON line must contain for its entry to match.

From the syntax tree this derives a conjunction of alternatives: for each
group, at least one of its lowercase byte strings must occur in the line.
Sources of groups: `=` and `:` on text fields with a plain text value (the
folded value must occur), global restrictions, SEARCH tokens, and severity
comparisons (the names of the levels that satisfy them, unless DEFAULT does,
since an entry without a severity is DEFAULT). AND joins groups; OR gives one
group, the union of one group of each operand, only when every operand has
one; NOT, regular expressions, numbers, booleans, NULL_VALUE, timestamps,
presence tests and ip_in_net (an address can be written in many ways) give none.
A global restriction (or `:` on a LogEntry message) searches typed fields too:
one whose value may be a timestamp or duration gives none, and one that names
a severity also accepts the level's number (`"severity": 400` is WARNING),
except DEFAULT, which gives none (a severity that names no level reads as DEFAULT).

Why it is exact: when a line is ASCII without `\\u` or `\\/` escapes (or a
severity written as a number, which a line is let through with), every
string of its entry is ASCII and appears in the line as written, except for
`"`, `\\` and control characters (a term holding them is looked for by its
longest piece between them, which is written as is); folding ASCII is
lowercasing, so a case-insensitive search of the line finds every such
occurrence. Any other line is let through undecided.

The search is one pass of an RE2 set over the line, whatever the number of
terms: every term case-insensitively, and the two escapes.
"""

from __future__ import annotations

import itertools
import math
import re
import urllib.parse

import re2

from pathways_workload.lql import analyzer, checks, fields, nodes, values

Groups = list[frozenset[bytes]]

# JSON escapes after which a line's text is no longer as written, and a severity written as
# the enum's number (severity comparisons look for the levels' names).
UNDECIDABLE_ESCAPES = rb'\\[u/]|"severity"[ \t]*:[ \t]*"?-?[0-9]'
# Memory budget of the RE2 set. A set of literals needs about one DFA state
# per character of its terms, so any filter under the length limit stays far
# below this; a DFA out of memory would report "no match", a false negative.
SET_MAX_MEMORY = 256 << 20

TEXT_KINDS = frozenset({fields.STRING, fields.MESSAGE, fields.MAP, fields.STRUCT, fields.PROTO})
SEVERITY_OPERATORS = frozenset(checks.ORDERING)
# Characters a JSON line never holds as written (it escapes them).
_ESCAPED = re.compile(r'["\\\x00-\x1f\x7f]')
# The shortest piece between such characters worth looking for, for a term holding them.
MIN_PIECE = 3
# An OR gives every union of one group of each operand up to this many (a scanner picks
# the rarest in the export); past it, only the union of each operand's longest terms.
MOST_UNIONS = 16


class RawLineTest:
    """Tells whether a raw JSON line may hold a matching entry."""

    __slots__ = ("_escapes", "_groups", "_set", "required")

    def __init__(self, tree: nodes.Node, filter_text: str) -> None:
        self.required = tuple(sorted(set(_groups(tree, filter_text)), key=sorted))
        terms = sorted({term for group in self.required for term in group})
        options = re2.Options()
        options.log_errors = False
        options.encoding = re2.Options.Encoding.LATIN1
        options.max_mem = SET_MAX_MEMORY
        self._set = re2.Set.SearchSet(options)
        index = {term: self._set.Add(b"(?i)" + re2.escape(term)) for term in terms}
        self._escapes = self._set.Add(UNDECIDABLE_ESCAPES)
        self._set.Compile()
        self._groups = tuple(frozenset(index[term] for term in group) for group in self.required)

    def __call__(self, line: bytes | bytearray) -> bool:
        """False only if no entry written as this line can match (see the module doc)."""
        if not self._groups or not isinstance(line, (bytes, bytearray)) or not line.isascii():
            return True
        found = self._set.Match(bytes(line))
        if found is None:
            return False
        return self._escapes in found or all(not group.isdisjoint(found) for group in self._groups)


def _groups(node: nodes.Node, filter_text: str) -> Groups:
    """Derive the groups of one node."""
    if isinstance(node, nodes.And):
        return [
            group for operand in nodes.operands(node) for group in _groups(operand, filter_text)
        ]
    if isinstance(node, nodes.Or):
        alternatives = [_groups(operand, filter_text) for operand in nodes.operands(node)]
        if not all(alternatives):
            return []
        if math.prod(map(len, alternatives)) > MOST_UNIONS:
            return [frozenset().union(*map(_most_selective, alternatives))]
        return [frozenset().union(*choice) for choice in itertools.product(*alternatives)]
    if isinstance(node, nodes.Comparison):
        return _comparison(node, filter_text)
    if isinstance(node, nodes.Restriction):
        return _has(node.value)
    if isinstance(node, nodes.LogId):
        return _log_id(node.log_id)
    if isinstance(node, nodes.Search):
        try:
            query = analyzer.parse_query(node.query.text)
        except ValueError:
            return []
        return [group for token in sorted(query.tokens) for group in _single(token)]
    return []


def _log_id(literal: nodes.Literal) -> Groups:
    """`log_id("a/b")`: `logName` holds the log ID's last part as written, unless something
    in the line is percent-encoded (any character of the name may be)."""
    last = values.fold(urllib.parse.unquote(literal.text)).rsplit("/", 1)[-1]
    groups = _single(last)
    return [group | {b"%"} for group in groups]


def _comparison(node: nodes.Comparison, filter_text: str) -> Groups:
    """Groups of a comparison: its folded text value, or the satisfying severity names."""
    if node.value is None:
        return []
    field = fields.resolve(node.path, filter_text)
    if field.kind == fields.SEVERITY and not field.free_keys:
        return _severity(node.op, node.value)
    if field.kind == fields.MESSAGE and node.op == ":":
        return _has(node.value)
    if field.kind in TEXT_KINDS and node.op in ("=", ":"):
        return _single(_text_term(node.value))
    return []


def _severity(op: str, literal: nodes.Literal) -> Groups:
    """The names of the levels that satisfy `severity op literal`."""
    wanted = values.parse_severity(literal.text)
    if wanted is None or op not in SEVERITY_OPERATORS:
        return []
    compare = checks.ORDERING[op]
    names = [name for name, level in values.SEVERITY_LEVELS.items() if compare(level, wanted)]
    if not names or "DEFAULT" in names:
        return []
    return [frozenset(name.lower().encode("ascii") for name in names)]


def _has(literal: nodes.Literal) -> Groups:
    """Groups of `:` on every field of an entry or LogEntry message (a global restriction).

    Its text, unless a typed field may hold it written otherwise: a timestamp
    or duration in another form (nothing is required), a severity as its
    level's number (that number is the alternative), DEFAULT as any text that
    names no level (nothing is required).
    """
    text = literal.text
    if values.timestamp_key(text) is not None or values.parse_field_duration_ns(text) is not None:
        return []
    groups = _single(_text_term(literal))
    level = values.parse_severity(text)
    if level == values.SEVERITY_LEVELS["DEFAULT"]:
        return []
    if level is None:
        return groups
    return [group | {str(level).encode("ascii")} for group in groups]


def _text_term(literal: nodes.Literal) -> str:
    """The folded text a matching string must contain; "" when a value of another type may match."""
    text = literal.text
    if not literal.quoted and text == "NULL_VALUE":
        return ""
    if values.parse_number(text) is not None or values.parse_bool(text) is not None:
        return ""
    return values.fold(text)


def _single(term: str) -> Groups:
    """One group of one term: its longest piece a raw line holds as written (JSON escapes
    `"`, `\\` and control characters, so a term holding them is looked for by the text
    between them), if that piece is long enough to tell lines apart."""
    pieces = _ESCAPED.split(term)
    piece = max(pieces, key=len)
    if not piece or (len(pieces) > 1 and len(piece) < MIN_PIECE):
        return []
    try:
        return [frozenset({piece.encode("utf-8")})]
    except UnicodeEncodeError:
        return []


def _most_selective(groups: Groups) -> frozenset[bytes]:
    """The group of a conjunction that best stands for it in a union."""
    return min(groups, key=lambda group: (len(group), -min(map(len, group))))
