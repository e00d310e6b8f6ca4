"""One entry of an export as read: its raw JSON text, where it is, its entry parsed once.

Errors name the file and the line: a record knows its line when the reader
counted lines, else its byte offset, and the line is counted (by reading the
export again) only for the message.
"""

from __future__ import annotations

import dataclasses
import json
from typing import IO, Any

from isal import igzip

from pathways_workload.errors import InputFileError
from pathways_workload.exact_json import NotText, parse_entry
from pathways_workload.sources.inputs import GZIP_MAGIC, ExportFile

_COUNT_BYTES = 4 << 20
INCOMPLETE = "any output printed before this message is incomplete"


def corrupt(export: ExportFile, line: int, what: str) -> InputFileError:
    return InputFileError(f"{export.name}:{line}: {what}; {INCOMPLETE}")


def open_decompressed(export: ExportFile) -> IO[bytes]:
    """The export's bytes, decompressed when it is gzipped (by ISA-L: a gzip file, three
    times faster than zlib here)."""
    handle = export.open()
    if handle.peek(2)[:2] == GZIP_MAGIC:  # type: ignore[attr-defined]
        return igzip.IGzipFile(fileobj=handle)  # type: ignore[no-untyped-call,return-value]
    return handle


def line_at(export: ExportFile, offset: int) -> int:
    """The line number of a byte offset of the (decompressed) export: read again, errors only."""
    lines, seen = 1, 0
    with open_decompressed(export) as stream:
        while seen < offset and (chunk := stream.read(min(_COUNT_BYTES, offset - seen))):
            lines += chunk.count(b"\n")
            seen += len(chunk)
    return lines


@dataclasses.dataclass(eq=False)
class Record:
    """One entry's raw JSON text and where it is; parsed once, on demand.

    `offset` is where the text starts in the decompressed export; `line` is its
    first line when the reader counted lines, else 0. `order` sorts the records
    of a run in file order: (export number, a position growing through the file).
    """

    raw: bytes
    export: ExportFile
    offset: int = 0
    line: int = 0
    order: tuple[int, int] = (0, 0)
    parsed: Any = None

    def line_number(self, newlines_before: int = 0) -> int:
        """The line of the record's start, or of a point `newlines_before` lines into it."""
        return (self.line or line_at(self.export, self.offset)) + newlines_before

    def fail(self, what: str, newlines_before: int = 0) -> InputFileError:
        return corrupt(self.export, self.line_number(newlines_before), what)

    def entry(self) -> Any:
        """The decoded entry (a dict; anything else makes the export corrupt)."""
        if self.parsed is None:
            self.parsed = self._parse()
        return self.parsed

    def _parse(self) -> Any:
        try:
            value = parse_entry(self.raw)
        except json.JSONDecodeError as error:
            newlines = error.doc.count("\n", 0, error.pos)
            raise self.fail(f"not valid JSON ({error.msg})", newlines) from None
        except NotText as error:
            raise self.fail(str(error), self.raw.count(b"\n", 0, error.position)) from None
        except RecursionError:
            raise self.fail("an entry is nested too deeply") from None
        if not isinstance(value, dict):
            raise self.fail("an entry is not a JSON object")
        return value
