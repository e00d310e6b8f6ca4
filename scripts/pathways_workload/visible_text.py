"""Text for a terminal: the control characters a log line carries are shown, not obeyed.

Log messages hold what programs wrote: colour codes, a progress bar's carriage
returns, now and then an escape sequence that retitles a terminal or sets its
clipboard. Written raw to a terminal they recolour or overwrite the report (a
`\\r` hides what came before it on the line). Every text the tool writes as
text (reports, entry lines, notes and errors) shows each control character
but tab and newline as `\\xNN`, and the line and paragraph separators and the
bidirectional embeddings, overrides and isolates (which would reorder what a
terminal shows: a pod name that reads backwards) as `\\uXXXX`; JSON output
escapes them as JSON does.
"""

from __future__ import annotations

import io
import re
from typing import TextIO

# C0 but tab and newline, DEL, C1 (which some terminals obey in UTF-8 too), U+2028 and
# U+2029 (line breaks to a reader that splits lines on them), and the bidirectional
# embeddings, overrides and isolates.
CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028-\u202e\u2066-\u2069]")


def _shown(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """`text` with each control character but tab and newline written as `\\xNN` (the
    separators and bidirectional controls as `\\uXXXX`)."""
    return text if CONTROLS.search(text) is None else CONTROLS.sub(_shown, text)


class VisibleControls(io.TextIOBase):
    """Wraps a text stream; what is written to it goes through `visible`."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(visible(text))
        return len(text)

    def flush(self) -> None:
        self._stream.flush()

    def isatty(self) -> bool:
        return self._stream.isatty()
