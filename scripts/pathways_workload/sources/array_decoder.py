"""Decode a JSON array of entries of any layout, one entry at a time.

For arrays no framing fits (all on one line, `indent=0`, hand-edited): the JSON
decoder finds where each entry ends. Text is read in large pieces and more is
read only when an entry is cut short, doubling the buffer each time, so an
entry of any size costs time in proportion to its size. Lines are counted as
the decoder moves, for error messages.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterator

from pathways_workload.exact_json import NotText, decode_entry
from pathways_workload.sources.records import Record, corrupt, line_at
from pathways_workload.sources.stream import READ_BYTES, Stream

_BLANKS = " \t\r\n"
_NOT_CLOSED = "the JSON array is not closed (a truncated export?)"


def _misplaced(token: str, expected: str) -> str:
    """What is wrong where `token` comes instead of what was `expected`."""
    if token == "]":
        return "a comma after the array's last entry"
    if token == ",":
        return "a comma before the array's first entry" if expected != "entry" else "two commas"
    return "no comma after the entry before this one"


def after_array(another: bool) -> str:
    """What to say of data after an export's closing `]`; `another`: it opens a second array,
    as when the outputs of several printed gcloud commands were saved to one file."""
    if not another:
        return "data after the end of the JSON array"
    return (
        "data after the end of the JSON array: another array, as when several gcloud "
        "commands' outputs go to one file; save each to its own file and give their folder "
        "to --logs_file"
    )


class ArrayDecoder:
    """Entries of the array that starts (with its `[`) at the front of a stream's buffer."""

    def __init__(self, stream: Stream, number: int) -> None:
        self.stream = stream
        self.number = number
        self.utf8 = codecs.getincrementaldecoder("utf-8")()
        self.line = stream.line_now()
        self.text = ""
        self.base = stream.offset  # the byte offset where decoding started
        self.dropped = 0  # characters decoded and dropped from the front of `text`
        self._take()
        self.position = 1  # past the `[`
        self.expected = "entry or ]"  # what may come next: "entry or ]", ", or ]" or "entry"

    def _take(self) -> None:
        """Decode everything buffered, checking it is UTF-8 text without NUL (naming the first
        bad byte: a stream's copy ends after a NUL byte, maybe inside a character)."""
        stream = self.stream
        offset, data = stream.offset, stream.drop(len(stream.buffer))
        pending = len(self.utf8.getstate()[0])
        nul = data.find(b"\x00")
        try:
            text = self.utf8.decode(data[:nul] if nul >= 0 else data, final=stream.eof)
        except UnicodeDecodeError as error:
            bad = offset - pending + error.start
            line = line_at(stream.export, bad)
            raise corrupt(
                stream.export, line, f"not UTF-8 text (byte 0x{error.object[error.start]:02x})"
            ) from None
        if nul >= 0:
            line = line_at(stream.export, offset + nul)
            raise corrupt(stream.export, line, "a NUL byte, which JSON text cannot hold")
        self.text += text

    def _read(self) -> bool:
        """Read more text (at least as much as is buffered); False at the end of the export."""
        self.dropped += self.position
        self.text, self.position = self.text[self.position :], 0
        more = self.stream.more(max(READ_BYTES, len(self.text)))
        self._take()
        return more

    def _fail(self, what: str, upto: int | None = None) -> Exception:
        newlines = self.text.count("\n", self.position, upto) if upto is not None else 0
        return corrupt(self.stream.export, self.line + newlines, what)

    def _skip(self) -> bool:
        """Move past blanks to the next token; False when the text ran out."""
        text, position = self.text, self.position
        while position < len(text) and text[position] in _BLANKS:
            position += 1
        self.line += text.count("\n", self.position, position)
        self.position = position
        return position < len(text)

    def batches(self, size: int) -> Iterator[list[Record]]:
        """The entries, `size` at a time, up to the array's closing `]`."""
        batch: list[Record] = []
        while True:
            if not self._skip():
                if not self._read():
                    raise self._fail(_NOT_CLOSED)
                continue
            token = self.text[self.position]
            if token == "]" and self.expected != "entry":
                self._end()
                break
            if token == "," and self.expected == ", or ]":
                self.position += 1
                self.expected = "entry"
                continue
            if token in ",]" or self.expected == ", or ]":
                raise self._fail(_misplaced(token, self.expected))
            record = self._entry()
            if record is not None:
                self.expected = ", or ]"
                batch.append(record)
                if len(batch) >= size:
                    yield batch
                    batch = []
        if batch:
            yield batch

    def _end(self) -> None:
        """After the closing `]`, only blanks may follow."""
        self.position += 1
        while True:
            rest = self.text[self.position :]
            if rest.strip():
                upto = self.position + len(rest) - len(rest.lstrip())
                raise self._fail(after_array(rest.lstrip().startswith("[")), upto)
            if not self._read():
                return

    def _entry(self) -> Record | None:
        """The next entry, or None when more text had to be read first."""
        start = self.position
        try:
            entry, raw, end = decode_entry(self.text, start)
        except json.JSONDecodeError as error:
            cut_short = error.pos >= len(self.text) - 1 or error.msg.startswith("Unterminated")
            if cut_short and not self.stream.eof:
                self._read()
                return None
            what = _NOT_CLOSED if cut_short else f"not valid JSON ({error.msg})"
            raise self._fail(what, error.pos) from None
        except NotText as error:
            raise self._fail(
                str(error), start + len(raw_prefix(self.text, start, error.position))
            ) from None
        except RecursionError:
            raise self._fail("an entry is nested too deeply") from None
        if not isinstance(entry, dict):
            raise self._fail("an entry is not a JSON object")
        order = (self.number, self.base + self.dropped + start)
        record = Record(raw, self.stream.export, line=self.line, order=order, parsed=entry)
        self.line += raw.count(b"\n")
        self.position = end
        return record


def raw_prefix(text: str, start: int, byte_position: int) -> str:
    """The characters of `text` from `start` that encode to `byte_position` bytes."""
    return text[start:].encode("utf-8")[:byte_position].decode("utf-8", "ignore")
