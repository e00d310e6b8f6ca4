"""Read an export as blocks of whole records, with bounded memory.

Layouts, told apart by their first bytes: JSON Lines (`{` first), gcloud's
indented JSON array, an array with one compact entry per line, and any other
JSON array (all on one line, `indent=0`, ...), each optionally gzipped. The
first three come as blocks of whole records in their framing, the scanner's
input; any other array is decoded entry by entry, an entry as large as memory
allows. Plain-text container logs (`kubectl logs` output) are told apart here
too, when a `TextLogs` is given, and come as batches of entries made from
their lines (text_records.py). A UTF-8 byte order mark is skipped; UTF-16 and
UTF-32 are refused, naming the encoding. All bytes are checked to be UTF-8
text without NUL, whatever the layout, so a file is refused for the same
reasons whether or not a query would have looked at the bad line.
"""

from __future__ import annotations

import dataclasses
import gzip
import re
from collections.abc import Callable, Generator, Iterator
from typing import Generic, Protocol, TypeVar

from pathways_workload.errors import InputFileError
from pathways_workload.sources.array_decoder import ArrayDecoder, after_array
from pathways_workload.sources.background import Ahead, looked
from pathways_workload.sources.framing import Framing, LineFraming, ObjectFraming
from pathways_workload.sources.inputs import GZIP_MAGIC, ExportFile
from pathways_workload.sources.records import Record, corrupt, line_at, open_decompressed
from pathways_workload.sources.stream import READ_BYTES, Stream, check_text
from pathways_workload.sources.text_logs import TextLogs
from pathways_workload.sources.text_records import text_batches

BATCH_ENTRIES = 512
SNIFF_BYTES = 1 << 16
_BOM = b"\xef\xbb\xbf"
_SPACE = b" \t\r\n"
_NOT_BLANK = re.compile(rb"[^ \t\r]")
_FOREIGN_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32LE"),
    (b"\x00\x00\xfe\xff", "UTF-32BE"),
    (b"\xff\xfe", "UTF-16LE"),
    (b"\xfe\xff", "UTF-16BE"),
)
# Which bytes of the first four are zero, for text in a wider encoding without a BOM.
_FOREIGN_ZEROS = {
    (False, True, True, True): "UTF-32LE",
    (True, True, True, False): "UTF-32BE",
    (False, True, False, True): "UTF-16LE",
    (True, False, True, False): "UTF-16BE",
}


@dataclasses.dataclass(frozen=True)
class Block:
    """Whole records of export number `number` in its framing, `offset` bytes into it.

    `reloadable`: the export is not compressed, so the block can be read again
    from its offset instead of being held in memory.
    """

    data: bytes
    export: ExportFile
    offset: int
    framing: Framing
    number: int = 0
    reloadable: bool = False

    def record(self, start: int, end: int) -> Record:
        raw = self.framing.record(self.data, start, end)
        offset = self.offset + start
        return Record(raw, self.export, offset, order=(self.number, offset))


class Looked(Protocol):
    """What looking at a block found; a broken block is read record by record."""

    @property
    def broken(self) -> bool: ...


LookedT = TypeVar("LookedT", bound=Looked)


@dataclasses.dataclass(frozen=True)
class Seen(Generic[LookedT]):
    """A block, and what the look at it found."""

    block: Block
    look: LookedT


Decoded = list[Record]


# Compressed files other than gzip, by their first bytes: the command that decompresses
# such a file, and the one that decompresses a stream in a pipe.
_OTHER_COMPRESSIONS = (
    (b"BZh", "bzip2", "bunzip2 -k", "bunzip2"),
    (b"\xfd7zXZ\x00", "xz", "unxz -k", "unxz"),
    (b"\x28\xb5\x2f\xfd", "zstd", "unzstd", "unzstd"),
    (b"PK\x03\x04", "zip", "unzip", "funzip"),
)
_REPLAY = "python3 scripts/debug_workload.py --logs_file=- ..."


def _decompressing(export: ExportFile, command: str, pipe: str) -> str:
    """A runnable way to decompress an export: the file's command, or a pipe for a stream."""
    if export.spool is not None:
        return f"... | {pipe} | {_REPLAY}"
    return f"{command} {export.name}"


def _refuse_foreign_encoding(export: ExportFile, head: bytes) -> None:
    """Refuse (decompressed) bytes that are compressed again, or text in another encoding."""
    if head.startswith(GZIP_MAGIC):
        stream = export.spool is not None
        outer = "... | gunzip" if stream else f"gunzip -c {export.name}"
        raise InputFileError(
            f"{export.name}: a gzip file inside a gzip file; decompress it first (e.g. "
            f"{outer} | {_REPLAY}): gzip is read as is, once"
        )
    for magic, compression, command, pipe in _OTHER_COMPRESSIONS:
        if head.startswith(magic):
            raise InputFileError(
                f"{export.name}: compressed with {compression}; decompress it first (e.g. "
                f"{_decompressing(export, command, pipe)}): gzip is the one compression read "
                "as is"
            )
    name = next((name for bom, name in _FOREIGN_BOMS if head.startswith(bom)), None)
    if name is None and len(head) >= 4:
        name = _FOREIGN_ZEROS.get(tuple(byte == 0 for byte in head[:4]))  # type: ignore[arg-type]
    if name:
        raise InputFileError(
            f"{export.name}: the export is {name} text, not UTF-8; convert it first, "
            f"e.g. iconv -f {name} -t UTF-8"
        )


def _line(stream: Stream, start: int) -> bytes | None:
    """The line starting at `start` in the buffer, reading more as needed (None: no line).
    Each read doubles the buffer and only new bytes are searched, so a line of any length
    (a whole array on one line) costs time in proportion to it."""
    searched = start
    while (end := stream.buffer.find(b"\n", searched)) < 0 and not stream.eof:
        searched = max(searched, len(stream.buffer))
        stream.more(max(SNIFF_BYTES, len(stream.buffer)))
    if start >= len(stream.buffer):
        return None
    return stream.buffer[start:] if end < 0 else stream.buffer[start:end]


@dataclasses.dataclass(frozen=True)
class Layout:
    """How an export is laid out: a framing (None: decode it), after `header` bytes; or text."""

    framing: Framing | None
    header: int = 0
    text: bool = False


TEXT = Layout(None, text=True)


def _first_byte(stream: Stream, start: int) -> int:
    """Where the first byte from `start` on that is no space, tab or `\r` lies in the buffer,
    reading more as needed (its end: none). As in `_line`, reads double and only new bytes
    are searched."""
    while (found := _NOT_BLANK.search(stream.buffer, start)) is None:
        start = len(stream.buffer)
        if not stream.more(max(SNIFF_BYTES, len(stream.buffer))):
            return start
    return found.start()


def _array_layout(stream: Stream) -> Layout:
    """The layout of an array whose `[` starts the buffer. An array with more than the `[` on
    its first line is decoded, found without reading that line whole (it may be the array)."""
    start = _first_byte(stream, 1)
    if stream.buffer[start : start + 1] not in (b"\n", b""):
        return Layout(None)
    start += 1
    while (line := _line(stream, start)) is not None and not line.strip(_SPACE):
        start += len(line) + 1
    if line is None:
        return Layout(None)
    body = line.lstrip(b" \t")
    indent = line[: len(line) - len(body)]
    if indent and body == b"{":
        return Layout(ObjectFraming(indent), start)
    if not indent and body.startswith(b"{") and body.rstrip(b" \t\r").endswith((b"}", b"},")):
        return Layout(LineFraming(commas=True), start)
    return Layout(None)


def _is_text(stream: Stream, text: TextLogs) -> bool:
    """Whether the export is text container logs (refusing what is neither that nor JSON)."""
    while len(stream.buffer) < SNIFF_BYTES and stream.more(SNIFF_BYTES):
        pass
    return text.is_text(stream.export.name, stream.buffer[:SNIFF_BYTES])


def sniff(stream: Stream, text: TextLogs | None = None) -> Layout | None:
    """The export's layout, the buffer then at its first byte of JSON (or of text logs, which
    `text` says how to tell); None: an empty file."""
    while len(stream.buffer) < 6 and stream.more(SNIFF_BYTES):
        pass
    _refuse_foreign_encoding(stream.export, stream.buffer[:6])
    if stream.buffer.startswith(_BOM):
        stream.drop(len(_BOM), count_lines=True)
    while not stream.buffer.lstrip(_SPACE) and stream.more(SNIFF_BYTES):
        pass
    body = stream.buffer.lstrip(_SPACE)
    if not body:
        return None
    leading = len(stream.buffer) - len(body)  # before `_is_text` may read more
    if text is not None and _is_text(stream, text):
        return TEXT
    stream.drop(leading, count_lines=True)
    if body.startswith(b"{"):
        return Layout(LineFraming())
    if body.startswith(b"["):
        return _array_layout(stream)
    raise corrupt(stream.export, stream.line, "not a JSON export (expected '[' or '{')")


def _json_lines(framing: Framing) -> bool:
    """Whether a framing is JSON Lines' (not an array's)."""
    return isinstance(framing, LineFraming) and not framing.commas


# The array's closing `]`: the first line that starts with one (an entry's lines start with
# `{` or are indented).
_CLOSE = re.compile(rb"(?:\A|\n)\]")


def _tail(stream: Stream, framing: Framing, after_blocks: bool) -> bytes:
    """The rest of the export at its end: whole records, the array's closing `]` removed.
    `after_blocks`: blocks of records came before, each record ending with its comma."""
    data = stream.buffer
    if _json_lines(framing):
        return data if not data or data.endswith(b"\n") else data + b"\n"
    closing = _CLOSE.search(data)
    rest = data[closing.end() :] if closing is not None else b""
    if closing is not None and rest.strip(_SPACE):
        after = closing.end() + len(rest) - len(rest.lstrip(_SPACE))
        line = line_at(stream.export, stream.offset + after)
        raise corrupt(stream.export, line, after_array(rest.lstrip(_SPACE).startswith(b"[")))
    body = data.rstrip(_SPACE)
    if not body.endswith(b"]"):
        line = line_at(stream.export, stream.offset + len(body))
        raise corrupt(stream.export, line, "the JSON array is not closed (a truncated export?)")
    records = body[:-1].rstrip(_SPACE)
    if records.endswith(b",") or (after_blocks and not records):
        # Nothing left but the `]`: the last block's last comma was the array's last byte.
        comma = stream.offset + len(records) - 1 if records else stream.offset - 2
        line = line_at(stream.export, comma)
        raise corrupt(stream.export, line, "a comma after the array's last entry")
    if isinstance(framing, ObjectFraming) and records:
        close = b"\n" + framing.indent + b"}"
        if not records.endswith(close) and records != close[1:]:
            start = records.rfind(b"\n" + framing.indent + b"{") + 1
            line = line_at(stream.export, stream.offset + start)
            raise corrupt(stream.export, line, "this entry is cut short (a truncated export?)")
    # The last entry gets the comma every other entry has, so an entry without one (its
    # framing's alarm) is two entries with no comma between them.
    return records + b",\n" if records else b""


def framed_blocks(
    stream: Stream, framing: Framing, number: int, reloadable: bool = False
) -> Generator[Block, None, None]:
    """The export as blocks of whole records (a long record makes its block longer).

    Bytes are read into one reused buffer and copied once, into their block;
    what follows the block's last whole record waits in the stream's buffer.
    """
    scratch = bytearray(READ_BYTES)
    emitted = False
    while filled := stream.read_into(scratch):
        cut = framing.cut(scratch, filled)
        if not cut:
            stream.buffer = b"".join((stream.buffer, memoryview(scratch)[:filled]))
            continue
        offset = stream.offset
        data = b"".join((stream.buffer, memoryview(scratch)[:cut]))
        stream.buffer = bytes(memoryview(scratch)[cut:filled])
        stream.offset += len(data)
        stream.line = 0
        check_text(stream.export, data, offset)
        yield Block(data, stream.export, offset, framing, number, reloadable)
        emitted = True
        if stream.eof:
            break
    offset = stream.offset
    check_text(stream.export, stream.buffer, offset)  # a bad byte before a cut-short end
    data = _tail(stream, framing, emitted)
    # Read again from the file only if the file holds these very bytes (the tail may have
    # gained a final newline, or lost a `\r` before the array's end).
    same = stream.buffer.startswith(data)
    stream.drop(len(stream.buffer))
    if data:
        yield Block(data, stream.export, offset, framing, number, reloadable and same)


def _decoded(stream: Stream, number: int) -> Iterator[Decoded]:
    yield from ArrayDecoder(stream, number).batches(BATCH_ENTRIES)


def _unframed(
    stream: Stream, layout: Layout, number: int, text: TextLogs | None
) -> Iterator[Decoded]:
    """Entries not read in framed blocks: text logs' lines, or an array decoded entry by entry
    (`sniff` says text only when `text` is given)."""
    if layout.text and text is not None:
        return text_batches(stream, text, number, BATCH_ENTRIES)
    return _decoded(stream, number)


def read_export(
    export: ExportFile, number: int, look: Callable[[Block], LookedT], text: TextLogs | None = None
) -> Iterator[Seen[LookedT] | Decoded]:
    """Framed blocks with what `look` found, or decoded batches for any other array.

    Blocks are read (and decompressed) in a worker thread while `look` runs.
    An array whose framing breaks (an indentation, an entry over several lines, commas
    that start lines) is decoded from that block on: any valid array is read.
    """
    with open_decompressed(export) as handle:
        stream = Stream(export, handle)
        layout = sniff(stream, text)
        if layout is None:
            return
        if layout.framing is None:
            yield from _unframed(stream, layout, number, text)
            return
        stream.drop(layout.header, count_lines=True)
        reloadable = not isinstance(handle, gzip.GzipFile)
        with Ahead(framed_blocks(stream, layout.framing, number, reloadable)) as blocks:
            for block, found, waiting in looked(blocks, look):
                if not found.broken or _json_lines(block.framing):
                    yield Seen(block, found)
                    continue
                rest = b"".join(later.data for later in [block, *waiting, *blocks.stop()])
                if stream.eof and not stream.buffer:  # the tail took the `]` and added a comma
                    rest = rest.removesuffix(b",\n") + b"]"
                stream.buffer = b"[" + rest + stream.buffer
                stream.offset = block.offset - 1
                stream.line = line_at(export, block.offset)
                yield from _decoded(stream, number)
                return


def simple_export(
    export: ExportFile, number: int, text: TextLogs | None = None
) -> Iterator[Block | Decoded]:
    """An export the simple way: JSON Lines as blocks of lines, any array through the decoder."""
    with open_decompressed(export) as handle:
        stream = Stream(export, handle)
        layout = sniff(stream, text)
        if layout is None:
            return
        framing = layout.framing
        if isinstance(framing, LineFraming) and not framing.commas:
            yield from framed_blocks(stream, framing, number)
        else:
            yield from _unframed(stream, layout, number, text)


def every_record(
    export: ExportFile, number: int = 0, text: TextLogs | None = None
) -> Iterator[Record]:
    """Every record of an export in file order, read the simple way (each one checked)."""
    for item in simple_export(export, number, text):
        yield from item if isinstance(item, list) else line_records(item)


def line_records(block: Block) -> Iterator[Record]:
    """Every record of a block of JSON Lines, each line checked (blank lines allowed)."""
    start = 0
    for line in block.data.split(b"\n"):
        text = line.strip(_SPACE)
        if text:
            if not (text.startswith(b"{") and text.endswith(b"}")):
                line_number = line_at(block.export, block.offset + start)
                raise corrupt(
                    block.export, line_number, "this line is not one complete JSON object"
                )
            offset = block.offset + start + line.index(text[:1])
            yield Record(text, block.export, offset, order=(block.number, offset))
        start += len(line) + 1
