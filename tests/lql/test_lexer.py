"""The lexer: token kinds, offsets, escapes, comments and its errors."""

from __future__ import annotations

import pytest

from pathways_workload.lql import LqlSyntaxError, lexer


def kinds_and_values(text: str) -> list[tuple[str, str]]:
    return [(token.kind, token.value) for token in lexer.tokenize(text)]


def test_path_comparison_and_keywords() -> None:
    assert kinds_and_values('resource.type="k8s_container" AND NOT severity>=ERROR') == [
        ("word", "resource"),
        ("dot", "."),
        ("word", "type"),
        ("op", "="),
        ("string", "k8s_container"),
        ("and", "AND"),
        ("not", "NOT"),
        ("word", "severity"),
        ("op", ">="),
        ("word", "ERROR"),
        ("eof", ""),
    ]


@pytest.mark.parametrize("operator", ["=", "!=", "<", "<=", ">", ">=", ":", ":*", "=~", "!~"])
def test_every_operator(operator: str) -> None:
    assert kinds_and_values(f"a{operator}b")[1] == ("op", operator)


def test_lowercase_keywords_are_words() -> None:
    assert kinds_and_values("and or not") == [
        ("word", "and"),
        ("word", "or"),
        ("word", "not"),
        ("eof", ""),
    ]


def test_minus_starts_a_token_but_not_inside_a_word() -> None:
    assert kinds_and_values("-a b-c") == [
        ("minus", "-"),
        ("word", "a"),
        ("word", "b-c"),
        ("eof", ""),
    ]


def test_comments_run_to_the_end_of_the_line() -> None:
    assert kinds_and_values("a -- b c\nd --e\r\nf") == [
        ("word", "a"),
        ("word", "d"),
        ("word", "f"),
        ("eof", ""),
    ]


def test_offsets() -> None:
    tokens = lexer.tokenize('ab  "c d"')
    assert [(token.start, token.end) for token in tokens] == [(0, 2), (4, 9), (9, 9)]


@pytest.mark.parametrize(
    ("written", "decoded"),
    [
        (r'"a\"b"', 'a"b'),
        (r'"a\\b"', "a\\b"),
        (r'"\n\t\r\b\f\v\a"', "\n\t\r\b\f\v\a"),
        (r'"\/\'"', "/'"),
        (r'"\x41\u00e9\U0001F600"', "Aé\U0001f600"),
        (r'"\101\0\7"', "A\x00\x07"),
        (r'"\400"', " 0"),
        (r'"\d+\.\w"', r"\d+\.\w"),
    ],
)
def test_string_escapes(written: str, decoded: str) -> None:
    assert lexer.tokenize(written)[0].value == decoded


@pytest.mark.parametrize("text", [r'"\x4"', r'"\uZZZZ"', r'"\ud800"', r'"\U00110000"'])
def test_malformed_numeric_escapes(text: str) -> None:
    with pytest.raises(LqlSyntaxError, match="invalid escape"):
        lexer.tokenize(text)


def test_unquoted_text_keeps_backslashes() -> None:
    assert kinds_and_values(r"a\b")[0] == ("word", r"a\b")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('textPayload:"abc', "unterminated string starting at column 13"),
        ('"abc\\', "unterminated string starting at column 1"),
        ("a!b", "unexpected '!' at column 2: write '!=', '!~' or NOT"),
        ("a~b", "unexpected '~' at column 2: write '=~' or '!~'"),
        ("a*", "unexpected '*' at column 2: write ':*' to test presence, or quote the value"),
    ],
)
def test_errors(text: str, message: str) -> None:
    with pytest.raises(LqlSyntaxError) as raised:
        lexer.tokenize(text)
    assert raised.value.message == message
