"""The decompressed bytes of an export, read in large blocks behind a buffer."""

from __future__ import annotations

import io
import typing
import zlib
from typing import IO

from isal import isal_zlib

from pathways_workload.errors import InputFileError
from pathways_workload.sources.inputs import GZIP_MAGIC, ExportFile
from pathways_workload.sources.records import INCOMPLETE, corrupt, line_at

READ_BYTES = 4 << 20
# What a damaged or truncated gzip stream raises while it is read.
_DAMAGED: tuple[type[Exception], ...] = (
    OSError,
    EOFError,
    zlib.error,
    typing.cast(type[Exception], isal_zlib.error),  # its stub calls it an instance
)


class Stream:
    """The decompressed bytes of an export, read in large blocks behind a buffer."""

    def __init__(self, export: ExportFile, handle: IO[bytes]) -> None:
        self.export = export
        self._handle = handle
        self.buffer = b""
        self.offset = 0
        self.line = 1
        self.eof = False

    def _damaged(self, error: Exception) -> InputFileError:
        after = _after_gzip(self.export)
        if after is not None:
            return InputFileError(
                f"{self.export.name}: data after the end of the gzip stream (at byte {after} "
                f"of the file); {INCOMPLETE}"
            )
        return InputFileError(
            f"{self.export.name}: the gzip stream is damaged or truncated ({error}); {INCOMPLETE}"
        )

    def more(self, size: int = READ_BYTES) -> bool:
        """Read about `size` more bytes into the buffer; False at the end."""
        try:
            chunk = self._handle.read(size)
        except _DAMAGED as error:
            raise self._damaged(error) from None
        self.eof = not chunk
        self.buffer += chunk
        return bool(chunk)

    def read_into(self, scratch: bytearray) -> int:
        """Fill `scratch` with the bytes after the buffer (not moving them into it); how many
        were read (fewer only at the end)."""
        view, filled = memoryview(scratch), 0
        handle = typing.cast(io.BufferedIOBase, self._handle)
        try:
            while filled < len(scratch) and (count := handle.readinto(view[filled:])):
                filled += count
        except _DAMAGED as error:
            raise self._damaged(error) from None
        self.eof = filled < len(scratch)
        return filled

    def drop(self, size: int, count_lines: bool = False) -> bytes:
        """Take bytes off the front (counting their lines only when asked: it costs a pass)."""
        taken, self.buffer = self.buffer[:size], self.buffer[size:]
        self.offset += len(taken)
        self.line = self.line + taken.count(b"\n") if count_lines and self.line else 0
        return taken

    def line_now(self) -> int:
        """The line number where the buffer starts."""
        return self.line or line_at(self.export, self.offset)


def _after_gzip(export: ExportFile) -> int | None:
    """Where bytes that start no gzip member follow the export's whole gzip members (None:
    a member is cut short or damaged instead). Read again, for an error's message only."""
    member, offset = zlib.decompressobj(31), 0  # offset: where `chunk` starts in the file
    with export.open() as raw:
        while chunk := raw.read(READ_BYTES):
            while chunk:
                try:
                    member.decompress(chunk, READ_BYTES)
                except zlib.error:
                    return None
                rest = member.unconsumed_tail or member.unused_data
                if member.eof:
                    offset += len(chunk) - len(rest)
                    if not rest.startswith(GZIP_MAGIC[: len(rest)]):
                        return offset
                    member, chunk = zlib.decompressobj(31), rest
                else:
                    offset, chunk = offset + len(chunk) - len(rest), rest
    return None


def check_text(export: ExportFile, data: bytes, offset: int) -> None:
    """Refuse bytes that are not UTF-8 text, or that hold NUL (no JSON text does), naming the
    first bad byte (a stream's copy ends after a NUL byte, maybe inside a character)."""
    nul = data.find(b"\x00")
    text = data if nul < 0 else data[:nul]
    if not text.isascii():
        try:
            text.decode("utf-8")
        except UnicodeDecodeError as error:
            line = line_at(export, offset + error.start)
            raise corrupt(
                export, line, f"not UTF-8 text (byte 0x{data[error.start]:02x})"
            ) from None
    if nul >= 0:
        line = line_at(export, offset + nul)
        raise corrupt(export, line, "a NUL byte, which JSON text cannot hold")
