"""The parser: tree shapes (precedence, distribution of values) and exact error text."""

from __future__ import annotations

import pytest

from pathways_workload.lql import LqlError, compile_filter, nodes, parser


def show(node: nodes.Node) -> str:
    """A compact rendering of a tree: (AND a b), (OR a b), (NOT a), path op value, 'global'."""
    if isinstance(node, (nodes.And, nodes.Or)):
        name = "AND" if isinstance(node, nodes.And) else "OR"
        return f"({name} {show(node.left)} {show(node.right)})"
    if isinstance(node, nodes.Not):
        return f"(NOT {show(node.operand)})"
    if isinstance(node, nodes.Comparison):
        value = "" if node.value is None else node.value.text
        return f"{'.'.join(node.path.components)}{node.op}{value}"
    if isinstance(node, nodes.Restriction):
        return repr(node.value.text)
    if isinstance(node, nodes.Search):
        field = "" if node.path is None else ".".join(node.path.components) + ","
        return f"SEARCH({field}{node.query.text})"
    if isinstance(node, nodes.LogId):
        return f"log_id({node.log_id.text})"
    if isinstance(node, nodes.IpInNet):
        return f"ip_in_net({'.'.join(node.path.components)}, {node.subnet.text})"
    return "ALL"


@pytest.mark.parametrize(
    ("text", "tree"),
    [
        ("a=1 AND b=2 OR c=3", "(AND a=1 (OR b=2 c=3))"),
        ("a=1 OR b=2 AND c=3", "(AND (OR a=1 b=2) c=3)"),
        ("a=1 b=2 OR c=3", "(AND a=1 (OR b=2 c=3))"),
        ("NOT a=1 OR b=2", "(OR (NOT a=1) b=2)"),
        ("NOT a=1 b=2", "(AND (NOT a=1) b=2)"),
        ("-a=1 -b", "(AND (NOT a=1) (NOT 'b'))"),
        ("a=1 OR b=2 OR c=3", "(OR (OR a=1 b=2) c=3)"),
        ('"a" OR NOT "b" AND NOT "c" OR "d"', "(AND (OR 'a' (NOT 'b')) (OR (NOT 'c') 'd'))"),
        ("(a=1 AND b=2) OR c=3", "(OR (AND a=1 b=2) c=3)"),
        ("a and b", "(AND (AND 'a' 'and') 'b')"),
        ("", "ALL"),
        ("-- only a comment", "ALL"),
    ],
)
def test_precedence(text: str, tree: str) -> None:
    assert show(parser.parse(text)) == tree


@pytest.mark.parametrize(
    ("text", "tree"),
    [
        ('f:("a" OR "b")', "(OR f:a f:b)"),
        ('f=("a" AND NOT "b")', "(AND f=a (NOT f=b))"),
        ("f:(a b OR c)", "(AND f:a (OR f:b f:c))"),
        ("f=(-5 OR 3)", "(OR f=-5 f=3)"),
        ('f=(-"x")', "(NOT f=x)"),
        ("f>-1.5e3", "f>-1.5e3"),
        ("f:*", "f:*"),
    ],
)
def test_parenthesized_values_are_distributed(text: str, tree: str) -> None:
    assert show(parser.parse(text)) == tree


@pytest.mark.parametrize(
    ("text", "components"),
    [
        (
            'labels."k8s-pod/jobset_sigs_k8s_io/jobset-name"',
            ("labels", "k8s-pod/jobset_sigs_k8s_io/jobset-name"),
        ),
        (
            "labels.k8s-pod/batch_kubernetes_io/job-name",
            ("labels", "k8s-pod/batch_kubernetes_io/job-name"),
        ),
        ('jsonPayload."a.b".c', ("jsonPayload", "a.b", "c")),
        ("jsonPayload.NOT", ("jsonPayload", "NOT")),
    ],
)
def test_paths(text: str, components: tuple[str, ...]) -> None:
    tree = parser.parse(f"{text}:*")
    assert isinstance(tree, nodes.Comparison)
    assert tree.path.components == components


def test_functions() -> None:
    assert show(parser.parse('SEARCH("a b") search(textPayload, "c")')) == (
        "(AND SEARCH(a b) SEARCH(textPayload,c))"
    )
    assert show(parser.parse('Log_Id("a/b")')) == "log_id(a/b)"
    assert show(parser.parse('NOT ip_in_net(labels."a.b", "10.0.0.0/8")')) == (
        "(NOT ip_in_net(labels.a.b, 10.0.0.0/8))"
    )


@pytest.mark.parametrize(
    ("text", "rendered"),
    [
        (
            'textPayload:"abc',
            'unterminated string starting at column 13\ntextPayload:"abc\n            ^',
        ),
        (
            "a=1 (b=2 OR c=3",
            "missing ')' for '(' at column 5\na=1 (b=2 OR c=3\n    ^",
        ),
        (
            "textPayload:",
            "expected a value after ':' at column 12, but the filter ends\n"
            "textPayload:\n           ^",
        ),
        (
            "a=1 AND",
            "expected a term after 'AND' at column 5, but the filter ends\na=1 AND\n    ^",
        ),
        ("a=1)", "unexpected ')' at column 4: there is no '(' to close\na=1)\n   ^"),
        ("a = = b", "expected a value at column 5, found '='\na = = b\n    ^"),
        ("()", "empty parentheses at column 1\n()\n^"),
        ("f=-abc", "a value that starts with '-' must be quoted, at column 3\nf=-abc\n  ^"),
        (
            "labels.a=~unquoted",
            "the regular expression at column 11 must be in double quotes: write "
            '=~"unquoted"\nlabels.a=~unquoted\n          ^',
        ),
        (
            'f!~("^a" OR b\\d)',
            "the regular expression at column 13 must be in double quotes: write "
            '!~"b\\\\d"\nf!~("^a" OR b\\d)\n            ^',
        ),
        (
            "a=1\n  b=(2",
            "missing ')' for '(' at line 2, column 5\n  b=(2\n    ^",
        ),
        (
            'nosuch("x")',
            "unknown function 'nosuch' at column 1; the functions evaluated here are SEARCH, "
            'log_id and ip_in_net\nnosuch("x")\n^',
        ),
        (
            'ip_in_net(labels.ip, "10.1.2.0/33")',
            "'10.1.2.0/33' at column 22 is not an IP address or CIDR range, such as "
            '"10.1.2.3", "10.1.2.0/24" or "1:2::/48"\nip_in_net(labels.ip, "10.1.2.0/33")\n'
            "                     ^",
        ),
        (
            "ip_in_net(labels.ip, 10.1.2.0/24)",
            "ip_in_net() at column 1 takes a field and a quoted address or CIDR range: "
            'ip_in_net(field, "10.1.2.0/24")\nip_in_net(labels.ip, 10.1.2.0/24)\n^',
        ),
        (
            "SEARCH(x)",
            'SEARCH() at column 1 takes a quoted query, optionally after a field: SEARCH("text") '
            'or SEARCH(field, "text")\nSEARCH(x)\n^',
        ),
        (
            'a."b""c"=1',
            'malformed field name \'a."b""c"\' at column 1: join components with single dots '
            'and quote components that contain special characters\na."b""c"=1\n^',
        ),
    ],
)
def test_syntax_error_text(text: str, rendered: str) -> None:
    with pytest.raises(LqlError) as raised:
        compile_filter(text)
    assert raised.value.kind == "syntax"
    assert raised.value.render() == rendered


def test_error_attributes() -> None:
    with pytest.raises(LqlError) as raised:
        compile_filter('x=1\ntextPayload:"abc')
    error = raised.value
    assert (error.kind, error.line, error.column) == ("syntax", 2, 13)
    assert error.filter_text == 'x=1\ntextPayload:"abc'
    assert error.message == "unterminated string starting at line 2, column 13"
    assert str(error) == error.message


def test_unsupported_and_undefined_text() -> None:
    with pytest.raises(LqlError) as raised:
        compile_filter("severity>=ERROR sample(insertId, 0.1)")
    assert raised.value.kind == "unsupported"
    assert raised.value.render() == (
        "sample() samples with a hash that Cloud Logging does not document, so it cannot be "
        "evaluated offline (at column 17)\n"
        "severity>=ERROR sample(insertId, 0.1)\n"
        "                ^"
    )
    with pytest.raises(LqlError) as raised:
        compile_filter('severity>=ERROR foo.bar="x"')
    assert raised.value.kind == "undefined-field"
    assert raised.value.column == 17
    assert raised.value.message.startswith("unknown field 'foo.bar' at column 17: ")


def test_limit_has_no_column() -> None:
    with pytest.raises(LqlError) as raised:
        compile_filter("a" * 20_001)
    error = raised.value
    assert (error.kind, error.column) == ("limit", None)
    assert (
        error.render() == "the filter has 20,001 characters; Cloud Logging accepts at most 20,000"
    )


def test_render_cuts_long_lines_around_the_column() -> None:
    text = "a=1 " * 100 + "(" + " b=2" * 100
    with pytest.raises(LqlError) as raised:
        compile_filter(text)
    message, line, caret = raised.value.render().split("\n")
    assert message == "missing ')' for '(' at column 401"
    assert line.startswith("...") and line.endswith("...")
    assert line[caret.index("^")] == "("


@pytest.mark.parametrize(
    ("text", "shown", "cells_before"),
    [
        # Each wide character takes two terminal cells: the caret went three cells short.
        ('textPayload:"日本語" )', 'textPayload:"日本語" )', 21),
        # A combining accent takes none.
        ('textPayload:"e\u0301" )', 'textPayload:"e\u0301" )', 16),
        # Zero-width spaces (format characters) take none.
        ('textPayload:"a\u200bb" )', 'textPayload:"a\u200bb" )', 17),
        # A carriage return is shown, not obeyed (it hid the start of the line).
        ('textPayload:"a\rb" )', 'textPayload:"a\\x0db" )', 21),
    ],
)
def test_the_caret_is_under_the_column_in_terminal_cells(
    text: str, shown: str, cells_before: int
) -> None:
    with pytest.raises(LqlError) as raised:
        compile_filter(text)
    message, line, caret = raised.value.render().split("\n")
    assert message.startswith("unexpected ')'")
    assert line == shown
    assert caret == " " * cells_before + "^"


@pytest.mark.parametrize(
    "text",
    [
        "sample(insertId, 0.1)",
        'cast(timestamp, STRING, TIMEZONE("America/New_York")) =~ "^2023-01-02.*"',
        "source(projects/my-proj) severity>=ERROR",
        'textPayload:x AND regexp_extract(textPayload, "(\\\\d+)") = "5"',
    ],
)
def test_a_function_only_cloud_logging_evaluates_is_unsupported_once_all_else_is_valid(
    text: str,
) -> None:
    with pytest.raises(LqlError) as raised:
        compile_filter(text)
    assert raised.value.kind == "unsupported"


@pytest.mark.parametrize(
    ("text", "start"),
    [
        ("sample(insertId, 0.1", "missing ')' for '(' at column 7"),
        ("sample(insertId, 0.1) AND (", "expected a term after '(' at column 27"),
        ("cast(timestamp, STRING) =~ unquoted", "the regular expression at column 28 must be"),
    ],
)
def test_a_syntax_error_after_such_a_function_is_still_found(text: str, start: str) -> None:
    with pytest.raises(LqlError) as raised:
        compile_filter(text)
    assert raised.value.kind == "syntax"
    assert raised.value.message.startswith(start)


@pytest.mark.parametrize(
    ("text", "kind", "start"),
    [
        ('sample(insertId, 0.1) thud="x"', "undefined-field", "unknown field 'thud' at column 23"),
        ('thud="x" sample(insertId, 0.1)', "undefined-field", "unknown field 'thud' at column 1"),
        ("source(projects/p) textPayload.thud:*", "undefined-field", "unknown field"),
        ('sample(insertId, 0.1) textPayload=~"("', "syntax", "invalid regular expression"),
    ],
)
def test_an_error_cloud_logging_reports_beside_such_a_function_is_still_found(
    text: str, kind: str, start: str
) -> None:
    """Cloud Logging refuses an undefined field or a bad regular expression before running
    anything, so the filter is invalid, not merely one to leave to Cloud Logging."""
    with pytest.raises(LqlError) as raised:
        compile_filter(text)
    assert raised.value.kind == kind
    assert raised.value.message.startswith(start)
