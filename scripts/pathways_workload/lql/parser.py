"""Parser: tokens to a syntax tree, top-down by binding power (Pratt).

The Logging query language binds NOT tightest, then OR, then AND, the reverse
of most languages: `a AND b OR c` is `a AND (b OR c)`. Terms side by side are
joined by an implicit AND with AND's binding power, so `a b OR c` is also
`a AND (b OR c)`. All of that is the one `BINDING_POWER` table below.

A parenthesized right-hand side (`f=("a" OR NOT "b")`) is parsed with the same
machinery, with values as its terms, and the field and operator distributed
over them. Function names are case-insensitive; `SEARCH`, `log_id` and
`ip_in_net` are evaluated, the other documented functions are rejected as
unsupported. A regular expression must be a quoted string.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from pathways_workload.lql import diagnostics, lexer, networks, nodes, values

MAX_FILTER_LENGTH = 20_000
# Deepest nesting of parentheses and NOTs accepted (this engine's limit, which
# keeps parsing and evaluation well inside Python's recursion limit).
MAX_NESTING = 64

# Binding power of each operator; "implicit-and" is whitespace between terms.
BINDING_POWER = {"and": 1, "implicit-and": 1, "or": 2, "not": 3}
# Tokens that start a term, so an implicit AND joins them to what precedes.
TERM_START = frozenset({"word", "string", "dot", "lparen", "not", "minus"})
# Tokens that make up a path or an unquoted value when written without spaces.
COMPOUND_PARTS = frozenset({"word", "string", "dot"})
KEYWORD_KINDS = frozenset({"and", "or", "not"})
# Longest value quoted back in an error message's suggestion.
MAX_SUGGESTION_LENGTH = 60

# Documented functions whose results cannot be reproduced offline, and why.
UNSUPPORTED_FUNCTIONS = {
    "sample": "samples with a hash that Cloud Logging does not document",
    "cast": "formats values in ways the documentation does not pin down",
    "regexp_extract": "is not implemented by the offline engine",
    "source": "depends on the resource hierarchy, which log entries do not carry",
}

Leaf = Callable[[], nodes.Node]


def parse(text: str) -> nodes.Node:
    """Parse a filter into its syntax tree (`nodes.Everything` when empty).

    Raises:
        diagnostics.LqlLimitError: the filter is longer than Cloud Logging accepts.
        diagnostics.LqlSyntaxError: the filter is not valid.
        diagnostics.LqlUnsupportedError: it calls a function this engine cannot evaluate.
    """
    tree, unsupported = parse_all(text)
    if unsupported is not None:  # a valid filter, which only Cloud Logging evaluates
        raise unsupported
    return tree


def parse_all(text: str) -> tuple[nodes.Node, diagnostics.LqlUnsupportedError | None]:
    """Parse a filter that may call functions this engine cannot evaluate: each such call
    stands in the tree as `nodes.Everything`, and the error that names the first one is
    returned beside the tree, so that the rest of the filter can still be checked.

    Raises:
        diagnostics.LqlLimitError: the filter is longer than Cloud Logging accepts.
        diagnostics.LqlSyntaxError: the filter is not valid.
    """
    if len(text) > MAX_FILTER_LENGTH:
        raise diagnostics.LqlLimitError(
            f"the filter has {len(text):,} characters; Cloud Logging accepts at most "
            f"{MAX_FILTER_LENGTH:,}",
            text,
        )
    parsing = _Parser(text, lexer.tokenize(text))
    return parsing.parse(), parsing.unsupported


class _Parser:
    """Holds the token list and the position while one filter is parsed."""

    def __init__(self, text: str, tokens: list[lexer.Token]) -> None:
        self._text = text
        self._tokens = tokens
        self._index = 0
        self._depth = 0
        # The first call to a function this engine cannot evaluate, once the filter is parsed.
        self.unsupported: diagnostics.LqlUnsupportedError | None = None

    def parse(self) -> nodes.Node:
        """Parse the whole filter."""
        if self._peek().kind == "eof":
            return nodes.Everything()
        tree = self._expression(0, self._restriction, in_values=False)
        token = self._peek()
        if token.kind != "eof":
            hint = ": there is no '(' to close" if token.kind == "rparen" else ""
            raise self._error(f"unexpected {_describe(token)} at {self._where(token)}{hint}", token)
        return tree

    # Expressions: the precedence climbing itself.

    def _expression(self, right_power: int, leaf: Leaf, in_values: bool) -> nodes.Node:
        """Parse terms joined by operators that bind tighter than `right_power`."""
        left = self._prefix(leaf, in_values)
        while right_power < self._binding_power(self._peek()):
            left = self._infix(left, leaf, in_values)
        return left

    def _binding_power(self, token: lexer.Token) -> int:
        """How tightly the operator at `token` binds (0: it ends the expression)."""
        if token.kind in TERM_START:
            return BINDING_POWER["implicit-and"]
        return BINDING_POWER.get(token.kind, 0)

    def _prefix(self, leaf: Leaf, in_values: bool) -> nodes.Node:
        """Parse one term: a negation, a group or a leaf."""
        token = self._peek()
        if token.kind == "minus" and in_values and self._number_follows():
            return leaf()
        if token.kind in ("not", "minus"):
            self._nest(self._advance())
            negated = nodes.Not(self._expression(BINDING_POWER["not"], leaf, in_values))
            self._depth -= 1
            return negated
        if token.kind == "lparen":
            return self._group(leaf, in_values)
        if token.kind in COMPOUND_PARTS:
            return leaf()
        raise self._expected("a value" if in_values else "a term", token)

    def _infix(self, left: nodes.Node, leaf: Leaf, in_values: bool) -> nodes.Node:
        """Join `left` with the next term by AND, OR or an implicit AND."""
        token = self._peek()
        if token.kind in ("and", "or"):
            self._advance()
            right = self._expression(BINDING_POWER[token.kind], leaf, in_values)
            return nodes.And(left, right) if token.kind == "and" else nodes.Or(left, right)
        right = self._expression(BINDING_POWER["implicit-and"], leaf, in_values)
        return nodes.And(left, right)

    def _group(self, leaf: Leaf, in_values: bool) -> nodes.Node:
        """Parse `( expression )`."""
        opening = self._advance()
        if self._peek().kind == "rparen":
            raise self._error(f"empty parentheses at {self._where(opening)}", opening)
        self._nest(opening)
        inner = self._expression(0, leaf, in_values)
        self._close(opening)
        self._depth -= 1
        return inner

    def _nest(self, token: lexer.Token) -> None:
        """Enter one more level of parentheses or NOT, at `token`, within MAX_NESTING."""
        self._depth += 1
        if self._depth > MAX_NESTING:
            raise diagnostics.LqlLimitError(
                f"the filter nests parentheses and NOTs more than {MAX_NESTING} deep, at "
                f"{self._where(token)}",
                self._text,
                token.start,
            )

    def _close(self, opening: lexer.Token) -> None:
        """Consume the ')' that closes `opening`."""
        token = self._peek()
        if token.kind == "rparen":
            self._advance()
            return
        if token.kind == "eof":
            raise self._error(f"missing ')' for '(' at {self._where(opening)}", opening)
        raise self._error(
            f"expected ')' for '(' at {self._where(opening)}, found {_describe(token)} "
            f"at {self._where(token)}",
            token,
        )

    # Terms: comparisons, global restrictions and function calls.

    def _restriction(self) -> nodes.Node:
        """Parse a comparison, a function call or a global restriction."""
        parts = self._compound()
        following = self._peek()
        if (
            len(parts) == 1
            and parts[0].kind == "word"
            and following.kind == "lparen"
            and following.start == parts[0].end
        ):
            return self._call(parts[0])
        if following.kind == "op":
            path = self._path(parts)
            return self._comparison(path, self._advance())
        return nodes.Restriction(self._literal(parts))

    def _comparison(self, path: nodes.Path, operator: lexer.Token) -> nodes.Node:
        """Parse what follows `path operator`: nothing, a value or a group."""
        if operator.value == ":*":
            return nodes.Comparison(path, ":*", None)
        if self._peek().kind == "lparen":
            leaf = functools.partial(self._value_comparison, path, operator.value)
            return self._group(leaf, in_values=True)
        return self._value_comparison(path, operator.value)

    def _value_comparison(self, path: nodes.Path, operator: str) -> nodes.Node:
        """Parse the value after `path operator` (or one value of a parenthesized side)."""
        value = self._value()
        if operator in nodes.REGEX_OPERATORS and not value.quoted:
            suggestion = value.text.replace("\\", "\\\\")
            if len(suggestion) > MAX_SUGGESTION_LENGTH:
                suggestion = suggestion[: MAX_SUGGESTION_LENGTH - 3] + "..."
            raise diagnostics.LqlSyntaxError(
                f"the regular expression at {diagnostics.position(self._text, value.start)} "
                f'must be in double quotes: write {operator}"{suggestion}"',
                self._text,
                value.start,
            )
        return nodes.Comparison(path, operator, value)

    def _value(self) -> nodes.Literal:
        """Parse one value: quoted, unquoted, or a negative number."""
        token = self._peek()
        if token.kind == "minus" and self._number_follows():
            self._advance()
            number = self._literal(self._compound())
            return nodes.Literal("-" + number.text, False, token.start)
        if token.kind == "minus":
            raise self._error(
                f"a value that starts with '-' must be quoted, at {self._where(token)}", token
            )
        if token.kind in COMPOUND_PARTS:
            return self._literal(self._compound())
        raise self._expected("a value", token)

    def _call(self, name: lexer.Token) -> nodes.Node:
        """Parse `name(arguments)` for a known function."""
        function = name.value.lower()
        if function in UNSUPPORTED_FUNCTIONS:
            self.unsupported = self.unsupported or diagnostics.LqlUnsupportedError(
                f"{name.value}() {UNSUPPORTED_FUNCTIONS[function]}, so it cannot be evaluated "
                f"offline (at {self._where(name)})",
                self._text,
                name.start,
            )
            return self._skipped_call(name)
        if function not in ("search", "log_id", "ip_in_net"):
            raise self._error(
                f"unknown function {diagnostics.shorten(name.value)} at {self._where(name)}; "
                "the functions evaluated here are SEARCH, log_id and ip_in_net",
                name,
            )
        arguments = self._arguments()
        if function == "log_id":
            if len(arguments) != 1:
                raise self._error(f"log_id() at {self._where(name)} takes one log ID", name)
            return nodes.LogId(self._literal(arguments[0]))
        if function == "ip_in_net":
            return self._ip_in_net(name, arguments)
        return self._search(name, arguments)

    def _skipped_call(self, name: lexer.Token) -> nodes.Node:
        """Step over the balanced parentheses of a call this engine cannot evaluate, and a
        comparison of its result, so that the rest of the filter is still checked."""
        opening = self._advance()
        depth = 1
        while depth:
            token = self._advance()
            if token.kind == "eof":
                raise self._error(f"missing ')' for '(' at {self._where(opening)}", opening)
            depth += {"lparen": 1, "rparen": -1}.get(token.kind, 0)
        if self._peek().kind == "op":
            self._comparison(self._path([name]), self._advance())
        return nodes.Everything()

    def _ip_in_net(self, name: lexer.Token, arguments: list[list[lexer.Token]]) -> nodes.Node:
        """Build an ip_in_net node; its subnet must be a legal address or range."""
        if len(arguments) != 2 or len(arguments[1]) != 1 or arguments[1][0].kind != "string":
            raise self._error(
                f"ip_in_net() at {self._where(name)} takes a field and a quoted address or "
                'CIDR range: ip_in_net(field, "10.1.2.0/24")',
                name,
            )
        subnet = self._literal(arguments[1])
        networks.subnet(subnet, self._text)
        return nodes.IpInNet(self._path(arguments[0]), subnet)

    def _search(self, name: lexer.Token, arguments: list[list[lexer.Token]]) -> nodes.Node:
        """Build a SEARCH node from its arguments."""
        query = arguments[-1] if arguments else []
        if len(arguments) not in (1, 2) or len(query) != 1 or query[0].kind != "string":
            raise self._error(
                f"SEARCH() at {self._where(name)} takes a quoted query, optionally after a "
                'field: SEARCH("text") or SEARCH(field, "text")',
                name,
            )
        path = self._path(arguments[0]) if len(arguments) == 2 else None
        return nodes.Search(self._literal(query), path)

    def _arguments(self) -> list[list[lexer.Token]]:
        """Parse `( argument, ... )`, each argument a path or a value."""
        opening = self._advance()
        arguments: list[list[lexer.Token]] = []
        if self._peek().kind == "rparen":
            self._advance()
            return arguments
        while True:
            token = self._peek()
            if token.kind not in COMPOUND_PARTS:
                raise self._expected("a function argument", token)
            arguments.append(self._compound())
            if self._peek().kind != "comma":
                self._close(opening)
                return arguments
            self._advance()

    # Paths and values written as adjacent words, strings and dots.

    def _compound(self) -> list[lexer.Token]:
        """Take the adjacent words, strings and dots that form one path or value."""
        parts = [self._advance()]
        while True:
            token = self._peek()
            if token.start != parts[-1].end:
                return parts
            after_dot = parts[-1].kind == "dot" and token.kind in KEYWORD_KINDS
            if token.kind not in COMPOUND_PARTS and not after_dot:
                return parts
            parts.append(self._advance())

    def _path(self, parts: list[lexer.Token]) -> nodes.Path:
        """Read tokens as a dotted field path; quoted components keep any text."""
        components: list[str] = []
        for position, token in enumerate(parts):
            if (token.kind == "dot") != (position % 2 == 1):
                break
            if token.kind != "dot":
                components.append(token.value)
        else:
            if parts[-1].kind != "dot":
                text = self._text[parts[0].start : parts[-1].end]
                return nodes.Path(tuple(components), text, parts[0].start)
        text = diagnostics.shorten(self._text[parts[0].start : parts[-1].end])
        raise self._error(
            f"malformed field name {text} at {self._where(parts[0])}: join components with "
            "single dots and quote components that contain special characters",
            parts[0],
        )

    def _literal(self, parts: list[lexer.Token]) -> nodes.Literal:
        """Read tokens as one value: a quoted string, or unquoted text."""
        if len(parts) == 1 and parts[0].kind == "string":
            return nodes.Literal(parts[0].value, True, parts[0].start)
        if all(token.kind != "string" for token in parts) and any(
            token.kind != "dot" for token in parts
        ):
            return nodes.Literal("".join(token.value for token in parts), False, parts[0].start)
        text = diagnostics.shorten(self._text[parts[0].start : parts[-1].end])
        raise self._error(
            f"malformed value {text} at {self._where(parts[0])}: quote the whole value", parts[0]
        )

    def _number_follows(self) -> bool:
        """Tell whether the '-' at the current token is the sign of a number."""
        index = self._index + 1
        end = self._tokens[self._index].end
        pieces: list[str] = []
        while self._tokens[index].kind in ("word", "dot") and self._tokens[index].start == end:
            pieces.append(self._tokens[index].value)
            end = self._tokens[index].end
            index += 1
        return values.parse_number("".join(pieces)) is not None

    # Token access and errors.

    def _peek(self) -> lexer.Token:
        return self._tokens[self._index]

    def _advance(self) -> lexer.Token:
        token = self._tokens[self._index]
        self._index = min(self._index + 1, len(self._tokens) - 1)
        return token

    def _where(self, token: lexer.Token) -> str:
        return diagnostics.position(self._text, token.start)

    def _error(self, message: str, token: lexer.Token) -> diagnostics.LqlSyntaxError:
        return diagnostics.LqlSyntaxError(message, self._text, token.start)

    def _expected(self, what: str, token: lexer.Token) -> diagnostics.LqlSyntaxError:
        """Say that `what` was expected at `token` (or after the previous one, at the end)."""
        if token.kind == "eof" and self._index > 0:
            previous = self._tokens[self._index - 1]
            return self._error(
                f"expected {what} after {_describe(previous)} at {self._where(previous)}, "
                "but the filter ends",
                previous,
            )
        return self._error(
            f"expected {what} at {self._where(token)}, found {_describe(token)}", token
        )


def _describe(token: lexer.Token) -> str:
    """Name a token for an error message."""
    if token.kind == "eof":
        return "the end of the filter"
    if token.kind == "string":
        return "a quoted string"
    return repr(token.value)
