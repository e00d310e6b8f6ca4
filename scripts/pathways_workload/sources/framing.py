"""Where the records of an export block are: one per line, or one per indented object.

JSON Lines, and arrays holding one compact entry per line, are line-framed.
gcloud's indented array is object-framed: an entry starts with a line holding
only `{` at the array's indentation and ends with a line holding `}` or `},`
there, and its own keys sit one level deeper, so its top-level `timestamp` is
found exactly. A framing cuts a stream into blocks of whole records, finds the
record around a byte, lists a block's records, and says (as RE2 alternatives,
searched for in the scanner's single pass) which bytes break it.

Every alarm ends with the byte it faults, or needs one ordinary byte after what
it matches, so that no earlier match can swallow the newline another alarm
looks at.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from itertools import accumulate

# A byte that is neither a line break nor another control character.
ORDINARY = rb"[\x09\x20-\xff]"
CONTROL = rb"[\x00-\x08\x0b\x0c\x0e-\x1f]"
_LINE_STAMP = re.compile(rb'"timestamp"[ \t]*:[ \t]*"([^"\n]*)"')
# The first such value of each line that has one (the rest of the line is skipped).
_FIRST_STAMP = re.compile(_LINE_STAMP.pattern + rb"[^\n]*\n")
_LINE_ALARMS = rb"[^}\r]\n|[^}]\r\n|\n[^{]"
# In an array, also an entry without its comma (the reader gives the last one its comma).
_COMMA_ALARMS = rb"[^},\r]\n|[^},]\r\n|[^}],\r?\n|\n[^{]|\}\r?\n"
# The key of an entry's time, as JSON writes it.
KEY = b'"timestamp"'
# The key spelt in any way JSON allows: each letter itself or its `\u` escape.
_ANY_KEY_SPELLING = re.compile(
    b'"' + b"".join(b"(?:%s|\\\\u(?i:%04x))" % (bytes([c]), c) for c in KEY.strip(b'"')) + b'"'
)
# A line with two "timestamp" keys: which one is the entry's needs a parse.
TWO_STAMPS = KEY + rb"[^\n]*" + KEY + ORDINARY
# A time as Cloud Logging writes it (`2026-10-22T11:10:00.123456789Z`), its `Z` outside the
# group: without it, such texts sort as their instants do.
_CANONICAL_TIME = rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?"
_CANONICAL_VALUE = rb'"timestamp"[ \t]*:[ \t]*"(' + _CANONICAL_TIME + rb')Z"'
_CANONICAL_STAMP = re.compile(_CANONICAL_VALUE)
# Each `"timestamp"` of a block: its canonical value, or b"" when it has none.
_STAMP_OR_NONE = re.compile(rb'"timestamp"(?:[ \t]*:[ \t]*"(' + _CANONICAL_TIME + rb')Z"|)')


# An escaped backslash or quote, which the skeleton leaves out.
_ESCAPED_SKELETON = re.compile(rb'\\[\\"]')
# What the check of whole records deletes from a block: all but braces, quotes and line breaks.
_NOT_SKELETON = bytes(byte for byte in range(256) if byte not in b'{}"\n')
# How deep objects may nest in a record for its skeleton alone to show its braces pair up (a
# deeper record is parsed).
NESTING = 32


def skeleton(block: bytes) -> bytes:
    """A block's braces, quotes and line breaks, with escaped backslashes and quotes taken
    out first (one pass, left to right, as JSON reads escapes): a JSON string is left as two
    quotes with only braces between. A tenth of the block or less, made at C speed, for
    `whole` to match."""
    if b"\\" in block:
        block = _ESCAPED_SKELETON.sub(b"", block)
    return block.translate(None, _NOT_SKELETON)


def _paired(other: bytes, depth: int) -> bytes:
    """A regex for a skeleton whose braces outside strings pair up, nested at most `depth`
    deep; `other`: what else may come between strings (b"" for nothing)."""
    flat = b'(?:"[{}]*"' + (b"|" + other if other else b"") + b")*"
    text = flat
    for _ in range(depth):
        text = flat + rb"(?:\{" + text + rb"\}" + flat + b")*"
    return text


def _whole_records(other: bytes) -> bytes:
    """A regex for the skeleton of a block of whole records as the reader frames them: each
    one object whose braces pair up, then its line's end. A record cut short never is one:
    it ends inside a string, or before the brace that closes it."""
    return rb"(?:\{" + _paired(other, NESTING - 1) + rb"\}\n)*"


_WHOLE_LINES = _whole_records(b"")
_WHOLE_ENTRIES = _whole_records(rb"\n")


def escaped_key(record: bytes) -> bool:
    """Whether a record spells a "timestamp" key with `\\u` escapes: JSON reads it as the
    key, the text patterns here do not, so the record's time needs a parse."""
    return b"\\u" in record and any(
        found.group() != KEY for found in _ANY_KEY_SPELLING.finditer(record)
    )


def _no_word_line(word: bytes) -> bytes:
    """A regex for a whole line (its newline included) that does not hold `"word"`.

    It follows the word's matching automaton: after a quote, a prefix of the word, then a
    byte that breaks it (back to the start), a quote (a new attempt) or the line's end;
    the word's letters hold no quote, so a quote always starts a new attempt.
    """
    other = rb'[^"\n]'

    def prefix(size: int) -> bytes:  # an optional prefix of the word, up to `size` letters
        text = b""
        for letter in reversed(word[:size]):
            text = re.escape(bytes([letter])) + (b"(?:" + text + b")?" if text else b"")
        return b"(?:" + text + b")?" if text else b""

    def broken(index: int) -> bytes:  # `index` letters read, then a byte that is not next
        if index == len(word):
            return other
        letter = re.escape(bytes([word[index]]))
        return b"(?:[^" + letter + rb'"\n]|' + letter + broken(index + 1) + b")"

    again = prefix(len(word) - 1) + b'"'
    attempt = b'"(?:' + again + b")*"
    return (
        b"(?:" + other + b"*" + attempt + broken(0) + b")*" + other + b"*"
        b"(?:" + attempt + prefix(len(word)) + rb")?\n"
    )


# A line without a "timestamp" key (from the block's start or a newline): its time needs a
# parse, and the block's lines cannot be counted by their keys.
NO_STAMP = rb"(?:\A|\n)" + _no_word_line(KEY.strip(b'"'))


def _hex(text: bytes) -> bytes:
    """Bytes as an RE2 literal that escapes every byte (RE2 refuses `\\ ` for a space)."""
    return b"".join(b"\\x%02x" % byte for byte in text)


def _not_starting_with(text: bytes) -> bytes:
    """A regex for the rest of a line (its newline included) that does not start with
    `text`: a prefix of it, then a byte that breaks it or the line's end."""
    breaks = [
        re.escape(text[:size]) + b"[^" + re.escape(text[size : size + 1]) + rb"\n][^\n]*"
        for size in range(len(text))
    ]
    ends = [re.escape(text[:size]) for size in range(len(text))]
    return b"(?:" + b"|".join(breaks + ends) + rb")\n"


@dataclasses.dataclass(frozen=True)
class LineFraming:
    """One record per line; with `commas`, each may end with the comma of an array."""

    commas: bool = False

    @property
    def stamps(self) -> re.Pattern[bytes]:
        """`"timestamp": "..."` values (top-level or not: a line may hold nested ones)."""
        return _LINE_STAMP

    @property
    def block_stamps(self) -> re.Pattern[bytes]:
        """In a block: the first `"timestamp": "..."` value of each line that has one."""
        return _FIRST_STAMP

    def canonical_stamps(self, block: bytes, one_key_each: bool) -> tuple[list[bytes], bool]:
        """The canonical `"timestamp"` values of a block whose lines hold at most one such
        key, `Z` left out, and whether every record has one. `one_key_each`: the scan found
        each line holds exactly one, so the values need no count of the lines."""
        if one_key_each:
            found: list[bytes] = _STAMP_OR_NONE.findall(block)
            return found, bool(found) and b"" not in found
        stamps: list[bytes] = _CANONICAL_STAMP.findall(block)
        return stamps, len(stamps) == block.count(b"\n")

    @property
    def alarms(self) -> bytes:
        return _COMMA_ALARMS if self.commas else _LINE_ALARMS

    @property
    def whole(self) -> bytes:
        """The `skeleton` of a block of whole lines: each one object whose braces pair up."""
        return _WHOLE_LINES

    @property
    def ambiguous(self) -> bytes | None:
        """A line whose top-level timestamp the stamps pattern cannot tell from nested ones."""
        return TWO_STAMPS

    @property
    def unstamped(self) -> bytes | None:
        """A line without a "timestamp" key."""
        return NO_STAMP

    def alarm_kind(self, text: bytes) -> str:
        """What a match holding a newline is: framing alarms are at most 4 bytes long (the
        shortest lines without a "timestamp" are read as broken framing, which is safe)."""
        return "unstamped" if len(text) > 4 and text.endswith(b"\n") else "framing"

    def two_keys(self, record: bytes) -> bool:
        """Whether a line holds two "timestamp" keys (top-level or not)."""
        return record.count(KEY) > 1

    def settles(self, kind: str) -> bool:
        """Whether a match of this kind settles its record: in JSON Lines, every match."""
        return True

    def resume(self, match_end: int, record_end: int) -> int:
        """Where the search goes on once a line is settled: its last bytes, where framing
        alarms start (`[^}],\r\n`)."""
        return record_end - 3

    def inside(self, text: bytes, kind: str) -> int:
        """How far into an `unstamped` or `ambiguous` match its line starts (after the
        newline before it)."""
        return 1 if text.startswith(b"\n") else 0

    def opens(self, block: bytes) -> bool:
        return block.startswith(b"{")

    def cut(self, data: bytes | bytearray, size: int | None = None) -> int:
        """The end of the last whole record in the first `size` bytes of `data` (0: none).

        In an array, a record is whole once its comma is seen: the last one and
        the closing `]` stay for the end of the export.
        """
        end = data.rfind(b"\n", 0, len(data) if size is None else size)
        if self.commas:
            steps = 0  # lines stepped over: the last record and the `]` (blank ones are free)
            while steps < 2 and end > 0:
                if data[end - 1 : end] == b"," or data[end - 2 : end] == b",\r":
                    break
                start = data.rfind(b"\n", 0, end)
                steps += bool(bytes(data[start + 1 : end]).strip())
                end = start
        return end + 1

    def start(self, block: bytes, position: int) -> int:
        return block.rfind(b"\n", 0, position) + 1

    def end(self, block: bytes, position: int) -> int:
        return block.index(b"\n", position)

    def record(self, block: bytes, start: int, end: int) -> bytes:
        raw = block[start:end].rstrip(b"\r")
        return raw[:-1] if self.commas and raw.endswith(b",") else raw

    def count(self, block: bytes) -> int:
        return block.count(b"\n")

    def spans(self, block: bytes) -> list[tuple[int, int]]:
        """(start, end) of every record of a well-framed block."""
        lines = block.split(b"\n")[:-1]
        ends = list(accumulate(len(line) + 1 for line in lines))
        return [(end - len(line) - 1, end - 1) for line, end in zip(lines, ends)]


@dataclasses.dataclass(frozen=True)
class ObjectFraming:
    """gcloud's indented array: `indent` is the indentation of each entry's braces."""

    indent: bytes

    @functools.cached_property
    def stamps(self) -> re.Pattern[bytes]:
        """The top-level `"timestamp": "..."` values, exactly (keys one level in)."""
        keys = re.escape(b"\n" + self.indent * 2)
        return re.compile(keys + rb'"timestamp"[ \t]*:[ \t]*"([^"\n]*)"')

    @functools.cached_property
    def alarms(self) -> bytes:
        """Lines at the entries' indentation other than `{` and `},` (the reader gives the
        last entry its comma); shallower lines."""
        indent = _hex(self.indent)
        shallower = [
            b"\\n" + _hex(self.indent[:size]) + rb"[^ \t]" for size in range(len(self.indent))
        ]
        level = [
            rb"\n" + indent + rb"[^ \t{}]",
            rb"\n" + indent + rb"\{[^\n]",
            rb"\n" + indent + rb"\}[^,]",
            rb"\n" + indent + rb"\},[^\n]",
        ]
        return b"|".join(shallower + level)

    @property
    def whole(self) -> bytes:
        """The `skeleton` of a block of whole entries: each one object whose braces pair up."""
        return _WHOLE_ENTRIES

    @property
    def block_stamps(self) -> re.Pattern[bytes]:
        return self.stamps

    @functools.cached_property
    def _top_stamps(self) -> re.Pattern[bytes]:
        """Each top-level `"timestamp"`: its canonical value, or b"" when it has none."""
        return re.compile(rb"\n" + re.escape(self.indent * 2) + _STAMP_OR_NONE.pattern)

    @functools.cached_property
    def _opens_and_stamps(self) -> re.Pattern[bytes]:
        """Each entry's opening line after the first (as an empty value) and each canonical
        top-level `"timestamp"` value: one search finds both."""
        indent = re.escape(self.indent)
        return re.compile(rb"\n" + indent + rb"(?:\{\n|" + indent + _CANONICAL_VALUE + rb")")

    def canonical_stamps(self, block: bytes, one_key_each: bool) -> tuple[list[bytes], bool]:
        """The canonical top-level `"timestamp"` values, `Z` left out, and whether each entry
        has one: values and openings then alternate, a value first (a block opens an entry).
        `one_key_each`: the scan found each entry holds exactly one, so none are counted."""
        if one_key_each:
            values: list[bytes] = self._top_stamps.findall(block)
            return values, bool(values) and b"" not in values
        found: list[bytes] = self._opens_and_stamps.findall(block)
        stamps, opens = found[0::2], found[1::2]
        one_each = len(found) % 2 == 1 and self.opens(block) and opens.count(b"") == len(opens)
        return (stamps if one_each else list(filter(None, found))), one_each

    @functools.cached_property
    def ambiguous(self) -> bytes | None:
        """An entry with two top-level "timestamp" keys (the lines between are its own)."""
        key = _hex(self.indent * 2) + KEY
        inside = _hex(self.indent * 2) + rb"[^\n]*\n"
        return rb"\n" + key + rb"[^\n]*\n(?:" + inside + b")*?" + key + ORDINARY

    @functools.cached_property
    def unstamped(self) -> bytes | None:
        """A whole entry without a top-level "timestamp" key."""
        indent, inner = _hex(self.indent), _hex(self.indent * 2)
        line = inner + _not_starting_with(KEY)
        return rb"(?:\A|\n)" + indent + rb"\{\n(?:" + line + b")*" + indent + rb"\}"

    def alarm_kind(self, text: bytes) -> str:
        """What a match holding a newline is: a framing alarm is at most the indentation and
        three bytes long; the other two are whole entries or top-level lines."""
        if text.startswith(b"\n" + self.indent * 2 + KEY):
            return "ambiguous"
        if len(text) > len(self.indent) + 3 and text.endswith(b"}"):
            return "unstamped"
        return "framing"

    def two_keys(self, record: bytes) -> bool:
        """Whether a record holds two top-level "timestamp" keys."""
        return record.count(b"\n" + self.indent * 2 + KEY) > 1

    def settles(self, kind: str) -> bool:
        """Whether a match of this kind settles its entry: only the alarms that span its
        lines (a term's match leaves the rest of the entry to the search, which checks the
        indentation of its lines)."""
        return kind in ("ambiguous", "unstamped")

    def resume(self, match_end: int, record_end: int) -> int:
        """Where the search goes on once a record is settled: after the match, but before
        the entry's closing line, where framing alarms start."""
        return min(match_end, record_end - len(self.indent) - 2)

    def inside(self, text: bytes, kind: str) -> int:
        """How far into an `unstamped` or `ambiguous` match its entry's own lines start."""
        return text.index(b"{\n") + 2 if kind == "unstamped" else 1

    def opens(self, block: bytes) -> bool:
        return block.startswith(self.indent + b"{\n")

    def cut(self, data: bytes | bytearray, size: int | None = None) -> int:
        """The end of the last whole record in the first `size` bytes of `data` (0: none).

        A record is whole once its comma is seen: the last one and the closing `]` stay
        for the end of the export.
        """
        size = len(data) if size is None else size
        close = b"\n" + self.indent + b"},\n"
        position = data.rfind(close, 0, size)
        return position + len(close) if position >= 0 else 0

    def start(self, block: bytes, position: int) -> int:
        found = block.rfind(b"\n" + self.indent + b"{\n", 0, position)
        return (found + 1 if found >= 0 else 0) + len(self.indent)

    def end(self, block: bytes, position: int) -> int:
        return block.index(b"\n" + self.indent + b"}", position) + len(self.indent) + 2

    def record(self, block: bytes, start: int, end: int) -> bytes:
        return block[start:end]

    def count(self, block: bytes) -> int:
        return block.count(b"\n" + self.indent + b"{\n") + 1

    def spans(self, block: bytes) -> list[tuple[int, int]]:
        """(start, end) of every record of a well-framed block."""
        spans, start = [], 0
        while start < len(block):
            end = self.end(block, start)
            spans.append((start + len(self.indent), end))
            start = block.find(b"\n", end) + 1 or len(block)
        return spans


Framing = LineFraming | ObjectFraming
