"""What an action's presenter hands to the renderers: entries, a table, or the triage report.

Renderers know these three shapes and nothing about actions; every JSON
report is its `data` object.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from pathways_workload.shaping import Stream
from pathways_workload.window import Window


@dataclasses.dataclass(frozen=True)
class EntryReport:
    """The entries an entry action found, and what to say about them on stderr."""

    stream: Stream
    window: Window
    empty_hint: str
    marked_nodes: frozenset[str] = frozenset()  # lines about these nodes are marked

    @property
    def span(self) -> str:
        """The window, for "no entries matched in ..."."""
        return self.window.span()


@dataclasses.dataclass(frozen=True)
class TableReport:
    """A short report: a title and a table for text, one JSON object for json.

    `failed` says why a check failed (the command then exits 1).
    """

    data: dict[str, Any]
    rows: list[dict[str, Any]]
    title: str | None = None
    footer: tuple[str, ...] = ()
    failed: str | None = None


@dataclasses.dataclass(frozen=True)
class TriageReport:
    """The root-cause report: Markdown for text, one JSON object for json."""

    data: dict[str, Any]


# A triage report's answer when the window holds none of the workload's lines.
NO_VERDICT = (
    "No verdict: the window holds none of the workload's lines. Check the window, the "
    "namespace (--namespace, `default` unless given) and the workload flags (--action=pods "
    "lists the pods that logged in a namespace, --action=preflight whether the workload "
    "logged; offline, leave out the window flags to read the export's whole span)."
)
# Its answer when the workload's lines were read in part but its latest lines were not: the
# check that did not finish (a request budget, Cloud Logging) is why, not the window.
UNREAD_VERDICT = (
    "No verdict: the latest lines of the workload were not all read (their check did not "
    "finish: the run's request budget ran out, or Cloud Logging failed), though it logged in "
    "the window, so neither an error nor a hang is ruled out: see the gaps below, narrow the "
    "window and rerun."
)


def no_verdict(report: dict[str, Any]) -> str:
    """A triage report's answer when it has no cause, no completion and no last lines: the
    window holds none of the workload's lines, unless some of them were read."""
    components = (report.get("coverage") or {}).get("components") or []
    read = sum(row.get("lines_read") or 0 for row in components)
    return UNREAD_VERDICT if read else NO_VERDICT


# A triage report's line when the workload completed (its event's time and message, which
# names the object that completed: a client Job's completion does not end a JobSet beside it).
COMPLETED_TEXT = (
    "Completed at {when} ({message}): it finished successfully, and what its pods stopped "
    "after it (Killing, SIGTERM, quiet hosts) is its teardown, not a failure."
)

# A failure's line when its time is not its own (a text log's line without one).
GUESSED_TIME_TEXT = (
    "Time guessed: the line has no time of its own (it took a nearby line's), and nothing "
    "with a time of its own was found; record the logs with kubectl logs --timestamps"
)


def cause_heading(report: dict[str, Any]) -> str:
    """The heading of a triage report's answer: `Outcome` for a run that completed with no
    failure before it (it has no root cause to name), else `Root cause`."""
    finished = report.get("root_cause") is None and report.get("completed") is not None
    return "Outcome" if finished else "Root cause"


Report = EntryReport | TableReport | TriageReport
