"""Standard output that says when it cannot be written, and standard error that never stops
the report.

A write or flush of the output that fails (a full disk, a closed descriptor)
raises OutputError, so the command ends with one line and exit 74. A reader
that stopped early (a closed pipe) is not an error: BrokenPipeError passes
through. Standard error holds notes: when it is closed or nobody reads it,
the notes are lost and the report is still written. Both are written in
UTF-8, whatever the locale says (as Python's UTF-8 mode does).
"""

from __future__ import annotations

import io
import sys
from typing import TextIO

from pathways_workload.errors import OutputError


class GuardedOutput(io.TextIOBase):
    """Wraps a text stream; failures to write it become OutputError."""

    def __init__(self, stream: TextIO | None) -> None:
        super().__init__()
        self._stream = stream

    def write(self, text: str) -> int:
        if self._stream is None:
            raise OutputError("cannot write the output: standard output is closed")
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as error:
            raise _unwritable(error) from None

    def flush(self) -> None:
        if self._stream is None:
            return
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as error:
            raise _unwritable(error) from None

    def isatty(self) -> bool:
        return self._stream is not None and self._stream.isatty()


def _unwritable(error: OSError) -> OutputError:
    reason = error.strerror or str(error)
    return OutputError(f"cannot write the output ({reason}); nothing more was written")


class NotesOutput(io.TextIOBase):
    """Wraps standard error: a write that fails (closed, or its reader gone) is dropped."""

    def __init__(self, stream: TextIO | None) -> None:
        super().__init__()
        self._stream = stream

    def write(self, text: str) -> int:
        if self._stream is not None:
            try:
                self._stream.write(text)
            except (OSError, ValueError):  # ValueError: the stream was closed
                self._stream = None
        return len(text)

    def flush(self) -> None:
        if self._stream is not None:
            try:
                self._stream.flush()
            except (OSError, ValueError):
                self._stream = None


class NoteRecorder(io.TextIOBase):
    """Wraps standard error: passes every write on, and keeps its notes and warnings (the
    lines `note: ...` and `warning: ...`) for a report that shows them (the HTML page)."""

    PREFIXES = ("note: ", "warning: ")

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self._stream = stream
        self.notes: list[str] = []

    def write(self, text: str) -> int:
        self.notes += [line for line in text.splitlines() if line.startswith(self.PREFIXES)]
        self._stream.write(text)
        return len(text)

    def flush(self) -> None:
        self._stream.flush()


def keep_note(err: TextIO, note: str) -> None:
    """A note for the page alone, when `err` is a NoteRecorder (stderr says it otherwise)."""
    if isinstance(err, NoteRecorder):
        err.notes.append(note)


def recorded_notes(err: TextIO) -> list[str]:
    """The notes and warnings written so far to `err`, when it is a NoteRecorder."""
    return list(err.notes) if isinstance(err, NoteRecorder) else []


def in_utf8(stream: TextIO | None) -> TextIO | None:
    """A standard stream set to write UTF-8 (a C or Latin-1 locale would refuse non-ASCII)."""
    if isinstance(stream, io.TextIOWrapper) and stream.encoding.lower().replace("-", "") != "utf8":
        stream.reconfigure(encoding="utf-8")
    return stream


def standard_streams() -> tuple[TextIO | None, TextIO | None]:
    """Standard output and error as the tool writes them (UTF-8)."""
    return in_utf8(sys.stdout), in_utf8(sys.stderr)
