"""Python tracebacks logged one line per entry: find the header, and the exception it ends with.

GKE turns every line a container writes to stderr into its own entry, so a
traceback arrives as a header (`Traceback (most recent call last):`), frame
lines, and the exception line (`ValueError: …`), which carries no crash term.
Lines of one traceback often share a timestamp, so their order is not to be
trusted: the exception line is found by its shape. With chained exceptions
(`During handling of the above exception…`) the last exception is the one
that ended the program. Launchers may prefix every line (`[rank0]: `).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from pathways_workload.describe import bare_text, container_of, message, pod_of
from pathways_workload.shaping import identity
from pathways_workload.sources.base import Entry, entry_time_ns, sort_key

HEADER = "Traceback (most recent call last):"
CHAINING = ("During handling of the above exception", "The above exception was the direct cause")
# How far after its header a traceback's lines are looked for, and how many.
FOLLOW_NS = 10 * 10**9
FOLLOW_LINES = 300
# `pkg.module.NameError: message`, `KeyboardInterrupt`: a dotted name ending as
# exception classes do, alone or followed by `: message`.
_EXCEPTION_RE = re.compile(
    r"^(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Exit|Interrupt|Warning|Fault|Failure)"
    r"(?::\s.*|:)?$"
)


def is_header(entry: Entry) -> bool:
    """A traceback's header line, whatever prefix a launcher or logger put before it."""
    return bare_text(message(entry)).strip().endswith(HEADER)


def is_exception_line(text: str) -> bool:
    line = bare_text(text.rstrip())
    return not line[:1].isspace() and _EXCEPTION_RE.match(line) is not None


@dataclasses.dataclass(frozen=True)
class Traceback:
    """A traceback put back together: its header, its lines, the exception that ended it."""

    header: Entry
    lines: tuple[Entry, ...]
    exception: Entry | None

    def text(self) -> list[str]:
        return [bare_text(message(entry)) for entry in self.lines]


def _same_stream(entry: Entry, header: Entry) -> bool:
    return pod_of(entry) == pod_of(header) and container_of(entry) == container_of(header)


def assemble(header: Entry, candidates: Sequence[Entry]) -> Traceback:
    """The traceback that starts at `header`, from the lines of its container that follow it.

    Lines at the header's own instant belong to it whatever their insertIds (random for
    GKE's agent) say: the header comes first and the exception ends it."""
    start = entry_time_ns(header)
    lines = sorted(
        (
            entry
            for entry in candidates
            if _same_stream(entry, header)
            and start <= entry_time_ns(entry) <= start + FOLLOW_NS
            and identity(entry) != identity(header)
        ),
        key=sort_key,
    )[: FOLLOW_LINES - 1]
    exceptions = [entry for entry in lines if is_exception_line(message(entry))]
    if not exceptions:
        return Traceback(header, (header, *lines), None)
    end = exceptions[-1]
    ordered = [line for line in lines if line is not end]
    # The exception ends the traceback wherever its insertId sorted it among equal times.
    kept = [line for line in ordered if sort_key(line) <= sort_key(end) or _is_frame(line)]
    return Traceback(header, (header, *kept, end), end)


def _is_frame(entry: Entry) -> bool:
    """A traceback's own line: a frame, its source, or a chaining line."""
    line = bare_text(message(entry))
    return line[:1].isspace() or line.startswith(CHAINING) or line.strip() == HEADER


def first_headers(entries: Sequence[Entry], most: int) -> list[Entry]:
    """The earliest header of each pod and container, the earliest `most` of them."""
    seen: dict[tuple[str | None, str | None], Entry] = {}
    for entry in sorted(entries, key=sort_key):
        key = (pod_of(entry), container_of(entry))
        if key not in seen and is_header(entry):
            seen[key] = entry
    return list(seen.values())[:most]


def _exceptions(lines: Sequence[str]) -> list[str]:
    """The exception lines of a whole traceback in one message (its header first), or []."""
    if len(lines) > 1 and lines[0].strip() == HEADER:
        return [line for line in lines if is_exception_line(line)]
    return []


def is_whole(text: str) -> bool:
    """A whole traceback in one message: its header, then the exception that ended it."""
    return bool(_exceptions([bare_text(line) for line in text.splitlines()]))


def headline(text: str) -> str:
    """A message's telling line: its exception, when it is a whole traceback; else its first."""
    lines = [bare_text(line) for line in text.splitlines()]
    ends = _exceptions(lines)
    return ends[-1] if ends else (lines[0] if lines else "")
