"""A container that fails at every start: the kubelet restarts it with growing back-off.

`fail(at)` logs one failed start-up beginning at `at` and returns its failure line and when
it failed; the loops log the exit, the kubelet's BackOff event and the next start.
"""

from __future__ import annotations

from collections.abc import Callable

from tests.corpus.beats.pods import container_died, crash_backoff, start_container
from tests.corpus.clock import sec
from tests.corpus.incident import Incident
from tests.corpus.model import Pod
from tests.logentry import Entry

Failure = Callable[[int], tuple[Entry, int]]
FIRST_BACKOFF, MAX_BACKOFF = 10.0, 300.0


def crash_loop_to_the_end(
    inc: Incident, pod: Pod, container: str, start: int, fail: Failure, *, code: int, key: str
) -> Entry:
    """Fail, exit and restart until the window ends. Returns the first failure line."""
    failures = []
    at, backoff, restarts = start, FIRST_BACKOFF, 0
    while at < inc.t1 - sec(30):
        failure, failed = fail(at + inc.between(0.2, 0.6))
        failures.append(failure)
        container_died(inc, pod, container, failed + inc.between(0.05, 0.2), code)
        restarts += 1
        at = failed + sec(backoff) + inc.between(0.5, 1.5)
        if at >= inc.t1 - sec(30):
            break
        crash_backoff(inc, pod, container, failed + sec(1), key)
        at = start_container(inc, pod, container, at, attempt=restarts)
        backoff = min(backoff * 2, MAX_BACKOFF)
    return failures[0]


def crash_loop_to_the_limit(
    inc: Incident, pod: Pod, container: str, start: int, fail: Failure, *, times: int, code: int
) -> tuple[Entry, int]:
    """Fail, exit and restart `times` times (the Job's backoff limit).

    Returns the first failure line and when the last start failed."""
    failures = []
    at, backoff = start, FIRST_BACKOFF
    for restarts in range(1, times + 1):
        failure, failed = fail(at + inc.between(0.2, 0.7))
        failures.append(failure)
        container_died(inc, pod, container, failed + inc.between(0.1, 0.3), code)
        if restarts == times:
            break
        crash_backoff(inc, pod, container, failed + sec(1), f"{pod.uid}/BackOff")
        at = failed + sec(backoff) + inc.between(0.5, 1.5)
        at = start_container(inc, pod, container, at, attempt=restarts)
        backoff = min(backoff * 2, MAX_BACKOFF)
    return failures[0], failed
