"""Standard output that says when it cannot be written.

A write or flush that fails (a full disk, a closed descriptor) raises
OutputError, so the command ends with one line and exit 74. A reader that
stopped early (a closed pipe) is not an error: BrokenPipeError passes through.
"""

from __future__ import annotations

import io
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
