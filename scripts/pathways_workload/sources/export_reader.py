"""Stream LogEntry records out of recorded exports, with bounded memory.

Formats: the JSON array `gcloud logging read --format=json` prints (pretty or
compact), JSON Lines as log sinks write, each optionally gzipped, or a folder of
such files. Each record comes with its raw bytes (for the fast path) and where
it starts; the caller parses only the records it needs. Framing errors (a
truncated array, a line that is not a whole object) raise InputFileError naming
the file and line, also for records nobody parsed.
"""

from __future__ import annotations

import codecs
import dataclasses
import gzip
import json
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from pathways_workload.errors import InputFileError

_GZIP_MAGIC = b"\x1f\x8b"
_CHUNK_CHARS = 1 << 20
_SNIFF_BYTES = 1 << 16
_BLOCK_BYTES = 4 << 20
_MAX_RECORD_CHARS = 64 << 20
_INCOMPLETE = "any output printed before this message is incomplete"


@dataclasses.dataclass(frozen=True)
class Record:
    """One entry's raw JSON text and where it starts, parsed on demand.

    `line` is the line number when the reader knew it; records cut out of
    JSON Lines blocks carry the byte `offset` instead, and their line number
    is counted only if an error needs it.
    """

    raw: bytes
    path: Path
    line: int = 0
    parsed: Any = None
    offset: int = 0

    def line_number(self) -> int:
        return self.line or line_at(self.path, self.offset)

    def entry(self) -> Any:
        """The decoded entry (a dict for a well-formed export)."""
        if self.parsed is not None:
            return self.parsed
        try:
            value = json.loads(self.raw)
        except (ValueError, RecursionError) as error:
            raise corrupt(self.path, self.line_number(), f"not valid JSON ({error})") from None
        if not isinstance(value, dict):
            raise corrupt(self.path, self.line_number(), "an entry is not a JSON object")
        return value


def corrupt(path: Path, line: int, what: str) -> InputFileError:
    return InputFileError(f"{path}:{line}: {what}; {_INCOMPLETE}")


def line_at(path: Path, offset: int) -> int:
    """The line number of a byte offset (read again from the start: errors only)."""
    lines, seen = 1, 0
    with _open(path) as stream:
        while seen < offset and (chunk := stream.read(min(_BLOCK_BYTES, offset - seen))):
            lines += chunk.count(b"\n")
            seen += len(chunk)
    return lines


def export_files(paths: list[str]) -> list[Path]:
    """Expand folders (recursively, hidden files skipped) into sorted file lists."""
    files: list[Path] = []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            files.extend(
                sorted(
                    p
                    for p in path.rglob("*")
                    if p.is_file() and not any(part.startswith(".") for part in p.parts)
                )
            )
        elif path.is_file():
            files.append(path)
        else:
            raise InputFileError(f"{name}: no such file or folder; check --logs_file")
    return files


def _open(path: Path) -> IO[bytes]:
    try:
        handle = path.open("rb")
        magic = handle.read(2)
        handle.seek(0)
    except OSError as error:
        raise InputFileError(f"{path}: cannot read it ({error.strerror})") from None
    if magic == _GZIP_MAGIC:
        return gzip.GzipFile(fileobj=handle)  # type: ignore[return-value]
    return handle


def is_json_lines(path: Path) -> bool:
    """Whether an export is JSON Lines (its first non-blank byte is `{`)."""
    with _open(path) as stream:
        try:
            for line in stream:
                if line.strip():
                    return line.lstrip().startswith(b"{")
        except (OSError, EOFError, zlib.error) as error:
            raise InputFileError(f"{path}: the gzip stream is damaged ({error})") from None
    return False


def iter_line_blocks(path: Path) -> Iterator[tuple[bytes, int]]:
    """A JSON Lines export as blocks of whole lines, each with its byte offset."""
    with _open(path) as stream:
        offset = 0
        try:
            while block := stream.read(_BLOCK_BYTES):
                if not block.endswith(b"\n"):
                    block += stream.readline()
                yield (block if block.endswith(b"\n") else block + b"\n"), offset
                offset += len(block)
        except (OSError, EOFError, zlib.error) as error:
            raise InputFileError(
                f"{path}: the gzip stream is damaged or truncated ({error}); {_INCOMPLETE}"
            ) from None


def iter_line_blocks_backwards(path: Path) -> Iterator[tuple[bytes, int]]:
    """An uncompressed JSON Lines export as blocks of whole lines, the last block first.

    Exports are mostly in time order, so the newest entries come first: a
    fetch of the latest lines fills up early and can skip the rest unparsed.
    """
    try:
        with path.open("rb") as stream:
            end = stream.seek(0, 2)
            tail = b""
            while end > 0:
                start = max(0, end - _BLOCK_BYTES)
                stream.seek(start)
                data = stream.read(end - start) + tail
                cut = data.find(b"\n") + 1 if start else 0
                tail, block = data[:cut], data[cut:]
                if block:
                    yield (block if block.endswith(b"\n") else block + b"\n"), start + cut
                end = start
    except OSError as error:
        raise InputFileError(f"{path}: cannot read it ({error.strerror})") from None


def is_compressed(path: Path) -> bool:
    with _open(path) as stream:
        return isinstance(stream, gzip.GzipFile)


def block_records(block: bytes, path: Path, offset: int) -> Iterator[Record]:
    """Every record of a block of JSON Lines, each line's framing checked."""
    start = 0
    for line in block.split(b"\n"):
        text = line.strip()
        if text:
            if not (text.startswith(b"{") and text.endswith(b"}")):
                raise corrupt(
                    path, line_at(path, offset + start), "this line is not one complete JSON object"
                )
            yield Record(text, path, offset=offset + start)
        start += len(line) + 1


def iter_records(path: Path) -> Iterator[Record]:
    """Every record of one export file, in file order."""
    with _open(path) as stream:
        try:
            yield from _iter_stream(path, stream)
        except (OSError, EOFError, zlib.error) as error:
            raise InputFileError(
                f"{path}: the gzip stream is damaged or truncated ({error}); {_INCOMPLETE}"
            ) from None


def _iter_stream(path: Path, stream: IO[bytes]) -> Iterator[Record]:
    """Pick the layout from the first bytes, without reading a whole (maybe huge) line."""
    head = stream.read(_SNIFF_BYTES)
    body = head.lstrip()
    stream.seek(0)
    if not body:
        return
    if body.startswith(b"["):
        first_line = body[1:].split(b"\n", 1)
        if len(first_line) == 2 and not first_line[0].strip():
            yield from _iter_array(path, stream)
        else:
            yield from _iter_compact_array(path, stream, stream.read(_CHUNK_CHARS), 1)
        return
    lines = iter(stream)
    for lineno, line in enumerate(lines, 1):
        if line.strip():
            if not line.lstrip().startswith(b"{"):
                raise corrupt(path, lineno, "not a JSON export (expected '[' or '{')")
            yield from _iter_json_lines(path, lines, line.strip(), lineno)
            return


def _iter_json_lines(
    path: Path, stream: Iterator[bytes], first: bytes, lineno: int
) -> Iterator[Record]:
    text = first
    while True:
        if not (text.startswith(b"{") and text.endswith(b"}")):
            raise corrupt(path, lineno, "this line is not one complete JSON object")
        yield Record(text, path, lineno)
        for line in stream:
            lineno += 1
            text = line.strip()
            if text:
                break
        else:
            return


def _iter_array(path: Path, stream: IO[bytes]) -> Iterator[Record]:
    """gcloud's indented array, one entry object at a time, line by line."""
    lineno = 0
    for line in stream:  # up to and including the opening `[`
        lineno += 1
        if line.strip():
            break
    indent: bytes | None = None
    buffer: list[bytes] = []
    start = lineno
    closed = False
    for line in stream:
        lineno += 1
        text = line.strip()
        if closed:
            if text:
                raise corrupt(path, lineno, "data after the end of the JSON array")
        elif indent is not None:
            buffer.append(line)
            if line.rstrip() in (indent + b"}", indent + b"},"):
                yield Record(b"".join(buffer).rstrip().rstrip(b","), path, start)
                indent, buffer = None, []
        elif text == b"{":
            indent, buffer, start = line[: len(line) - len(line.lstrip())], [line], lineno
        elif text == b"]":
            closed = True
        elif text:
            raise corrupt(path, lineno, "expected an entry object '{' or the closing ']'")
    if not closed:
        raise corrupt(path, lineno, "the JSON array is not closed (a truncated export?)")


def _iter_compact_array(
    path: Path, stream: IO[bytes], first: bytes, lineno: int
) -> Iterator[Record]:
    """Decode a JSON array of any layout incrementally, one object at a time."""
    decoder = json.JSONDecoder()
    utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")
    text, pos, eof = utf8.decode(first).lstrip()[1:], 0, False
    line = lineno
    while True:
        while pos < len(text) and text[pos] in " \t\r\n,":
            line += text[pos] == "\n"
            pos += 1
        if pos < len(text) and text[pos] == "]":
            if text[pos + 1 :].strip() or stream.read(1 << 16).strip():
                raise corrupt(path, line, "data after the end of the JSON array")
            return
        try:
            value, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as error:
            if eof or len(text) - pos > _MAX_RECORD_CHARS:
                what = "the JSON array is not closed (a truncated export?)" if eof else str(error)
                raise corrupt(path, line, what) from None
            chunk = stream.read(_CHUNK_CHARS)
            eof = not chunk
            text = text[pos:] + utf8.decode(chunk, final=eof)
            pos = 0
            continue
        if not isinstance(value, dict):
            raise corrupt(path, line, "an entry is not a JSON object")
        raw = text[pos:end]
        yield Record(raw.encode(), path, line, value)
        line += raw.count("\n")
        pos = end
