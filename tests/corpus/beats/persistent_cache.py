"""pathways-rm cannot set up its persistent cache on the scratch bucket: it exits at start-up
and the kubelet restarts it until the window ends."""

from __future__ import annotations

from tests.corpus.beats.crashloops import crash_loop_to_the_end
from tests.corpus.beats.startup import rm_prelude
from tests.corpus.clock import US
from tests.corpus.incident import Incident
from tests.corpus.model import RM, Run
from tests.corpus.wording import Line
from tests.logentry import Entry

CACHE_GUESS = (
    "`Initializing persistent cache storage at ...`, `Resource manager start-up did not "
    "complete; exiting`"
)
CACHE_INIT = Line(
    "Initializing persistent cache storage at {scratch}",
    ("persistent_cache.cc", 180),
    guess=CACHE_GUESS,
)
RM_EXITS = Line(
    "Resource manager start-up did not complete; exiting",
    ("server_main.cc", 240),
    letter="F",
    planted=True,
    guess=CACHE_GUESS,
)


def rm_fails(inc: Incident, run: Run, at: int, failure: Line) -> tuple[Entry, int]:
    """One start of pathways-rm: setting up the cache fails with `failure`, the RM exits.

    Returns the failure line and when it was logged."""
    at = rm_prelude(inc, run, at, 1) + inc.between(0.05, 0.2)
    inc.log(run.head, RM, at, CACHE_INIT, scratch=run.scratch)
    at += inc.between(0.3, 0.9)
    entry = inc.log(run.head, RM, at, failure)
    inc.log(run.head, RM, at + 200 * US, RM_EXITS)
    return entry, at


def rm_crash_loop(inc: Incident, run: Run, start: int, failure: Line) -> Entry:
    """pathways-rm fails the same way at every start. Returns its first failure line."""
    return crash_loop_to_the_end(
        inc,
        run.head,
        RM,
        start,
        lambda at: rm_fails(inc, run, at, failure),
        code=1,
        key=f"{run.head.uid}/BackOff/rm",
    )
