"""The presenter of the entry actions: merged, grouped and limited entries.

When the action followed up traceback headers, each header is shown with
the exception line that ends its traceback, and a note names each header
whose exception the window's end may have cut off. When it read whether the workload
completed, a note names the event that says so.
"""

from __future__ import annotations

import dataclasses

from pathways_workload.actions.followups import FOLLOW_UPS, cut_short, exceptions_of
from pathways_workload.actions.teardown import COMPLETION, completion_notes
from pathways_workload.plan import Results
from pathways_workload.query import Request
from pathways_workload.reports import EntryReport
from pathways_workload.shaping import shape

EMPTY_HINT = (
    "if --action=preflight has not passed for this target and window, run it first: it says "
    "whether the workload logged at all and which logs are missing; if it passed, widen with "
    "--min_severity=WARNING or --extra_terms"
)
# An action with no severity floor reads every entry of its kind: --min_severity only narrows.
EVERY_ENTRY_HINT = (
    "if --action=preflight has not passed for this target and window, run it first: it says "
    "whether the workload logged at all and which logs are missing; this action has no "
    "severity floor to lower (--min_severity only narrows it): if it passed, widen the window "
    "or check the workload flags (--action=pods names the owner of each pod that logged)"
)


@dataclasses.dataclass(frozen=True)
class EntryPresenter:
    """An entry action's presenter; `marks_nodes` marks the lines about the workload's nodes.

    Its report prints entries only, so a source may read just the fields a line
    shows (Log Analytics selects fewer columns for text output).
    """

    empty_hint: str = EMPTY_HINT
    marks_nodes: bool = False

    def __call__(self, request: Request, results: Results) -> EntryReport:
        shown = [r for r in results if r.fetch.name not in (FOLLOW_UPS, COMPLETION)]
        found = [entry for result in shown for entry in result.entries]
        ends = exceptions_of(found, results)
        stream = shape(shown, request.options, ends)
        if results.all(FOLLOW_UPS):
            stream.notes.extend(cut_short(found, ends, request.window))
        stream.notes.extend(completion_notes(request, results))
        marked = frozenset(request.nodes or ()) if self.marks_nodes else frozenset()
        return EntryReport(stream, request.window, self.empty_hint, marked)


def present_entries(empty_hint: str = EMPTY_HINT, marks_nodes: bool = False) -> EntryPresenter:
    """An entry action's presenter."""
    return EntryPresenter(empty_hint, marks_nodes)
