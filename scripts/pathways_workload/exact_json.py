"""LogEntries read from JSON text, and written back exactly as read, one per line.

Reading keeps the text of every number that is not an integer (`1e400`,
`0.10000000000000000555`, `1E2`, `-0`) and of an integer too long for Python
to convert (past 4,300 digits): the value is a float for comparisons and keeps
its text for output. `NaN`, `Infinity` and `-Infinity` (not JSON, but
some writers emit them) read as floats and are written as the strings `"NaN"`,
`"Infinity"` and `"-Infinity"`, as protobuf's JSON mapping writes such doubles,
so the output stays valid JSON. An entry that holds an escaped half of a UTF-16
surrogate pair (`\\ud800` alone) is not text and is refused.

Writing: an entry read as one minified line (no blanks between tokens, no
`NaN`) is written as read, escapes and all; anything else is minified. Either
way the line separators U+2028, U+2029 and U+0085 (and the other C1 controls,
which some terminals obey) are escaped, so readers that split on them see one
entry per line.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

# A JSON string ("unrolled": a run of plain characters is one step, so a long string costs
# no memory per character).
_STRINGS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
# Outside strings, a minified line holds none of these (N, I: NaN, Infinity).
_NOT_MINIFIED = re.compile(r"[ \t\r\nNI]")
_NEEDS_ESCAPE = re.compile("[\u0080-\u009f\u2028\u2029\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_NON_FINITE = {"NaN": '"NaN"', "Infinity": '"Infinity"', "-Infinity": '"-Infinity"'}


class JsonNumber(float):
    """A number that is not an integer, with the text it was written as."""

    __slots__ = ("text",)
    text: str


class ReadEntry(dict[str, Any]):
    """An entry read from an export, with its JSON `text` as read."""

    __slots__ = ("text",)
    text: str


class NotText(ValueError):
    """An entry holds an unpaired surrogate escape; `position` is where, in its raw text."""

    def __init__(self, position: int) -> None:
        super().__init__("an entry holds an unpaired UTF-16 surrogate escape such as \\ud800")
        self.position = position


def _number(text: str) -> JsonNumber:
    value = JsonNumber(text)
    value.text = text
    return value


def _integer(text: str) -> int | JsonNumber:
    """An integer; `-0`, and one past Python's limit on digits, keep their text."""
    if text == "-0":
        return _number(text)
    try:
        return int(text)
    except ValueError:
        return _number(text)


def _constant(name: str) -> JsonNumber:
    value = JsonNumber(name)
    value.text = _NON_FINITE[name]
    return value


_DECODER = json.JSONDecoder(parse_float=_number, parse_int=_integer, parse_constant=_constant)


def _minified(text: str) -> bool:
    """Whether a JSON text is one minified line (decided outside its strings)."""
    return _NOT_MINIFIED.search(_STRINGS.sub("", text)) is None


def _check_text(raw: bytes, value: Any) -> None:
    """Refuse an entry holding an unpaired surrogate (the escape is all a reader sees)."""
    found = _SURROGATE_ESCAPE.search(raw)
    if found is None:
        return
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise NotText(found.start()) from None


def _as_entry(value: Any, raw: bytes, text: str) -> Any:
    _check_text(raw, value)
    if not isinstance(value, dict):
        return value
    entry = ReadEntry(value)
    entry.text = text
    return entry


def parse_entry(raw: bytes) -> Any:
    """Decode one entry's UTF-8 JSON text; an object comes back as a ReadEntry.

    Raises ValueError (json.JSONDecodeError, NotText) or RecursionError.
    """
    text = raw.decode("utf-8")
    return _as_entry(_DECODER.decode(text), raw, text)


def decode_value(text: str) -> Any:
    """A JSON value's text decoded as entries are (numbers keep their text).

    Raises ValueError (json.JSONDecodeError) or RecursionError.
    """
    return _DECODER.decode(text)


def decode_entry(text: str, position: int) -> tuple[Any, bytes, int]:
    """Decode the JSON value starting at `position` of a longer text (an array's next entry).

    Returns the value (an object as a ReadEntry), its raw UTF-8 text, and where it ends.
    Raises like `parse_entry`.
    """
    value, end = _DECODER.raw_decode(text, position)
    piece = text[position:end]
    raw = piece.encode("utf-8")
    return _as_entry(value, raw, piece), raw, end


class _Written(str):
    """JSON text already written (punctuation, a key and its colon), not a value to write."""


def _scalar(value: Any) -> str:
    """A string, number, boolean or null as JSON, a number as it was read."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, JsonNumber):
        return value.text
    if isinstance(value, float) and not math.isfinite(value):
        return _NON_FINITE[json.dumps(value)]
    if value is None or isinstance(value, (bool, int, float)):
        return json.dumps(value)
    raise TypeError(f"cannot write a {type(value).__name__} as JSON")


def _encode(value: Any) -> str:
    """Minified JSON of a decoded value, numbers as they were read. It keeps a stack of its
    own: an entry may nest deeper than Python's calls may (the reader takes about 1,000)."""
    written: list[str] = []
    todo: list[Any] = [value]
    while todo:
        item = todo.pop()
        if type(item) is _Written:
            written.append(item)
        elif isinstance(item, Mapping):
            pairs = list(item.items())
            todo.append(_Written("}"))
            for index in range(len(pairs) - 1, -1, -1):
                key, inner = pairs[index]
                todo.append(inner)
                key_text = json.dumps(str(key), ensure_ascii=False)
                todo.append(_Written(("," if index else "") + key_text + ":"))
            todo.append(_Written("{"))
        elif isinstance(item, (list, tuple)):
            todo.append(_Written("]"))
            for index in range(len(item) - 1, -1, -1):
                todo.append(item[index])
                if index:
                    todo.append(_Written(","))
            todo.append(_Written("["))
        else:
            written.append(_scalar(item))
    return "".join(written)


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def json_line(value: Any) -> str:
    """Any JSON value as one line (without the newline): UTF-8 text, the line separators
    and C1 controls escaped, so readers that split on them see one record per line."""
    line = json.dumps(value, ensure_ascii=False)
    return line if line.isascii() else _NEEDS_ESCAPE.sub(_escape, line)


def output_line(entry: Mapping[str, Any]) -> str:
    """The entry as one line of JSON (without the newline), exactly as read where possible."""
    text = getattr(entry, "text", None)
    line = text if isinstance(text, str) and _minified(text) else _encode(entry)
    return line if line.isascii() else _NEEDS_ESCAPE.sub(_escape, line)
