"""Lexer: filter text to a list of tokens.

The lexer knows characters only. It produces, in order, tokens of these kinds:

- "string": a double-quoted string; `value` holds the decoded text.
- "word": a run of unquoted text (names, numbers, unquoted values).
- "and", "or", "not": the uppercase words AND, OR, NOT (lowercase ones are words).
- "minus": a `-` at the start of a token (`--` starts a comment instead).
- "op": one of `=`, `!=`, `<`, `<=`, `>`, `>=`, `:`, `:*`, `=~`, `!~`.
- "lparen", "rparen", "comma", "dot": the characters `(`, `)`, `,`, `.`.
- "eof": the end of the filter, always last.

Tokens keep their `start` and `end` offsets: the parser uses them for error
columns and to tell `a.b` (one path) from `a . b`, since adjacency matters.

Escapes accepted in quoted strings: `\\"`, `\\\\`, `\\'`, `\\/`, `\\a`, `\\b`,
`\\f`, `\\n`, `\\r`, `\\t`, `\\v`, octal `\\N`..`\\NNN` (up to 0o377),
`\\xHH`, `\\uHHHH` and `\\UHHHHHHHH` (no surrogates). Any other backslash pair
is kept as both characters, so regular expressions such as `"\\d+"` keep their
meaning. Unquoted text is taken literally, backslashes included.
"""

from __future__ import annotations

import dataclasses

from pathways_workload.lql import diagnostics

KEYWORDS = {"AND": "and", "OR": "or", "NOT": "not"}
SINGLE_CHARACTER_TOKENS = {"(": "lparen", ")": "rparen", ",": "comma", ".": "dot"}
# Operators, longest spelling first so `<=` wins over `<`.
OPERATORS = ("!=", "!~", "=~", "<=", ">=", ":*", "=", "<", ">", ":")
# Characters that end unquoted text.
WORD_DELIMITERS = frozenset('"()=!<>:~,.*')
# What to say about a character that cannot start a token.
STRAY_CHARACTER_HINTS = {
    "!": "write '!=', '!~' or NOT",
    "~": "write '=~' or '!~'",
    "*": "write ':*' to test presence, or quote the value",
}
SIMPLE_ESCAPES = {
    '"': '"',
    "\\": "\\",
    "'": "'",
    "/": "/",
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
}
HEX_ESCAPE_DIGITS = {"x": 2, "u": 4, "U": 8}
OCTAL_DIGITS = frozenset("01234567")
HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


@dataclasses.dataclass(frozen=True)
class Token:
    """One token: its kind, its (decoded) text, and its offsets in the filter."""

    kind: str
    value: str
    start: int
    end: int


def tokenize(text: str) -> list[Token]:
    """Split a filter into tokens, ending with an "eof" token.

    Raises:
        diagnostics.LqlSyntaxError: on an unterminated string, a bad escape or a
            character that cannot start a token.
    """
    tokens: list[Token] = []
    position = 0
    length = len(text)
    while True:
        while position < length and text[position].isspace():
            position += 1
        if position >= length:
            tokens.append(Token("eof", "", length, length))
            return tokens
        if text.startswith("--", position):
            position = _end_of_line(text, position)
            continue
        token = _next_token(text, position)
        tokens.append(token)
        position = token.end


def _next_token(text: str, start: int) -> Token:
    """Read the token that starts at `start` (not whitespace, not a comment)."""
    char = text[start]
    if char == '"':
        return _string(text, start)
    if char in SINGLE_CHARACTER_TOKENS:
        return Token(SINGLE_CHARACTER_TOKENS[char], char, start, start + 1)
    if char == "-":
        return Token("minus", char, start, start + 1)
    for operator in OPERATORS:
        if text.startswith(operator, start):
            return Token("op", operator, start, start + len(operator))
    if char in STRAY_CHARACTER_HINTS:
        raise diagnostics.LqlSyntaxError(
            f"unexpected {char!r} at {diagnostics.position(text, start)}: "
            f"{STRAY_CHARACTER_HINTS[char]}",
            text,
            start,
        )
    end = start
    while end < len(text) and not text[end].isspace() and text[end] not in WORD_DELIMITERS:
        end += 1
    word = text[start:end]
    return Token(KEYWORDS.get(word, "word"), word, start, end)


def _end_of_line(text: str, position: int) -> int:
    """Return the offset just past the comment that starts at `position`."""
    while position < len(text) and text[position] not in "\n\r":
        position += 1
    return position


def _string(text: str, start: int) -> Token:
    """Read a double-quoted string starting at `start`, decoding its escapes."""
    pieces: list[str] = []
    position = start + 1
    while position < len(text):
        char = text[position]
        if char == '"':
            return Token("string", "".join(pieces), start, position + 1)
        if char != "\\":
            pieces.append(char)
            position += 1
            continue
        if position + 1 >= len(text):
            break
        decoded, position = _escape(text, position)
        pieces.append(decoded)
    raise diagnostics.LqlSyntaxError(
        f"unterminated string starting at {diagnostics.position(text, start)}", text, start
    )


def _escape(text: str, backslash: int) -> tuple[str, int]:
    """Decode the escape at `backslash`; return its text and the offset after it."""
    letter = text[backslash + 1]
    if letter in SIMPLE_ESCAPES:
        return SIMPLE_ESCAPES[letter], backslash + 2
    if letter in OCTAL_DIGITS:
        end = backslash + 1
        while end < min(backslash + 4, len(text)) and text[end] in OCTAL_DIGITS:
            end += 1
        value = int(text[backslash + 1 : end], 8)
        if value <= 0o377:
            return chr(value), end
        return chr(int(text[backslash + 1 : end - 1], 8)), end - 1
    if letter in HEX_ESCAPE_DIGITS:
        end = backslash + 2 + HEX_ESCAPE_DIGITS[letter]
        digits = text[backslash + 2 : end]
        if len(digits) == end - backslash - 2 and all(d in HEX_DIGITS for d in digits):
            value = int(digits, 16)
            if value <= 0x10FFFF and not 0xD800 <= value <= 0xDFFF:
                return chr(value), end
        raise diagnostics.LqlSyntaxError(
            f"invalid escape '\\{letter}{digits}' at {diagnostics.position(text, backslash)}: "
            f"'\\{letter}' needs {HEX_ESCAPE_DIGITS[letter]} hex digits of a valid character",
            text,
            backslash,
        )
    return "\\" + letter, backslash + 2
