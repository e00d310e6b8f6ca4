"""Bounded retries with exponential backoff and jitter, and a shared request budget.

Cloud Logging allows 60 `entries.list` requests per minute per project, so the
waits are in seconds, and every request of a run (retries included) draws
from one token bucket that stays well under that quota. Both take their clock,
sleep and randomness as arguments, so tests run without real waiting.
"""

from __future__ import annotations

import dataclasses
import random
import threading
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")
Sleep = Callable[[float], object]


@dataclasses.dataclass(frozen=True)
class Backoff:
    """Exponential backoff: waits of about initial, initial*multiplier, ... up to maximum.

    Each wait is drawn from [half, all] of its step (jitter), and retrying stops
    once the next wait would end later than `deadline` seconds after the first try.
    """

    initial: float = 2.0
    multiplier: float = 2.0
    maximum: float = 32.0
    deadline: float = 90.0
    uniform: Callable[[float, float], float] = random.uniform
    # The longest wait a server's advice (Retry-After) may ask for.
    longest_advised: float = 60.0

    def wait(self, attempt: int) -> float:
        """The wait after failed attempt number `attempt` (1 for the first try)."""
        step = min(self.maximum, self.initial * self.multiplier ** (attempt - 1))
        return self.uniform(step / 2, step)


class GaveUp(Exception):
    """Retrying stopped: `error` is the last failure, after `attempts` tries."""

    def __init__(self, error: Exception, attempts: int, elapsed: float) -> None:
        super().__init__(str(error))
        self.error = error
        self.attempts = attempts
        self.elapsed = elapsed


def retrying(
    call: Callable[[], T],
    transient: Callable[[Exception], bool],
    backoff: Backoff,
    on_retry: Callable[[Exception, float, int], None],
    sleep: Sleep,
    clock: Callable[[], float] = time.monotonic,
    advised: Callable[[Exception], float] = lambda _: 0.0,
) -> T:
    """Call `call` until it succeeds, retrying transient errors within the deadline.

    A non-transient error propagates at once; a transient one past the deadline
    raises GaveUp. `on_retry(error, wait, attempt)` runs before each wait. A wait is
    at least what `advised(error)` says the server asked for (up to `longest_advised`).
    """
    start = clock()
    attempt = 0
    while True:
        attempt += 1
        try:
            return call()
        except Exception as error:
            if not transient(error):
                raise
            wait = max(backoff.wait(attempt), min(advised(error), backoff.longest_advised))
            if clock() - start + wait > backoff.deadline:
                raise GaveUp(error, attempt, clock() - start) from error
            on_retry(error, wait, attempt)
            sleep(wait)


class RequestBudget:
    """A token bucket shared by every request of a source: `burst` at once, then a steady rate."""

    def __init__(
        self,
        per_minute: float = 15.0,
        burst: int = 25,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.per_minute = per_minute
        self.burst = burst
        self._rate = per_minute / 60.0
        self._clock = clock
        self._tokens = float(burst)
        self._last = clock()
        self._lock = threading.Lock()

    def reserve(self) -> float:
        """Take one request; returns how long the caller must wait before sending it."""
        with self._lock:
            now = self._clock()
            self._tokens = min(self.burst, self._tokens + (now - self._last) * self._rate)
            self._last = now
            self._tokens -= 1
            return max(0.0, -self._tokens / self._rate)
