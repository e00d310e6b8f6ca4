"""The interface every source implements, and the ordering they share."""

from __future__ import annotations

import dataclasses
import functools
import threading
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from pathways_workload.query import Query
from pathways_workload.timestamps import parse_timestamp_ns

Entry = dict[str, Any]
# entries.list returns at most this many entries a page: one request each.
PAGE_SIZE = 1000


class Allowance:
    """The requests the fetches of one stage of a budgeted run may still send, together
    (retries and partial-scan pages included): a hard cap, shared across threads."""

    def __init__(self, requests: int) -> None:
        self._left = max(0, requests)
        self._lock = threading.Lock()

    def take(self) -> bool:
        """Take one request; False when none is left (the request must not be sent)."""
        with self._lock:
            if self._left <= 0:
                return False
            self._left -= 1
            return True


@dataclasses.dataclass(frozen=True)
class Fetch:
    """Run `query` and return at most `limit` entries, earliest first (or latest for desc).

    `name` is what the action calls the answer; several fetches may share one
    (follow-ups, a long list split over several filters). `until`, when given,
    is asked after each page of PAGE_SIZE entries whether the entries so far
    answer the question; reading stops at the first page where it says yes.
    `per_source`, when set, is the question behind the fetch: the first (or
    latest) `per_source` entries of every source (container, node, instance),
    and with `source_last` each source's last entry too (`--first_per_pod`). An
    engine that can aggregate where the entries are (SQL) answers that instead
    of pages. `max_requests`, when set, caps the requests the read may take
    (a budgeted run): short pages from the server then cut it short (truncated)
    instead of costing more requests. `allowance`, when set, is the stage's shared
    hard cap on requests sent (a source that sends real requests honours it).
    """

    query: Query
    limit: int
    order: str = "asc"
    name: str = ""
    until: Callable[[Sequence[Entry]], bool] | None = None
    per_source: int = 0
    source_last: bool = False
    max_requests: int = 0
    allowance: Allowance | None = dataclasses.field(default=None, compare=False, repr=False)


@dataclasses.dataclass
class Result:
    """The entries a fetch returned, in its order, and whether more matched.

    `answered`: the entries answer the fetch's `until` question, so more
    matches, if `truncated` says there are some, are not needed. `matched`: how
    many entries matched in all, when the source knows (offline it does).
    `group_totals`: for a fetch answered per source with each source's last
    entry, how many entries matched per group (`describe.where`).
    """

    fetch: Fetch
    entries: list[Entry]
    truncated: bool = False
    requests: int = 0
    answered: bool = False
    matched: int | None = None
    group_totals: dict[str, int] | None = None
    cut: bool = False


class Source(Protocol):
    """Runs fetches; independent fetches may run together (one pass, or concurrently).

    `anticipated` are fetches a later stage may ask, built from the request
    alone: a source that reads everything for each stage anyway may answer
    them in the same pass and keep the answers for when they are asked.
    """

    def run(self, fetches: Sequence[Fetch], anticipated: Sequence[Fetch] = ()) -> list[Result]: ...


@functools.lru_cache(maxsize=1 << 16)
def instant_ns(text: str) -> int | None:
    """A timestamp's nanoseconds, or None; entries are sorted and compared many times over."""
    try:
        return parse_timestamp_ns(text)
    except ValueError:
        return None


def entry_time_ns(entry: Entry) -> int:
    """The entry's timestamp in nanoseconds (receiveTimestamp, else 0, when it has none)."""
    for key in ("timestamp", "receiveTimestamp"):
        value = entry.get(key)
        if isinstance(value, str) and (instant := instant_ns(value)) is not None:
            return instant
    return 0


def sort_key(entry: Entry) -> tuple[int, str]:
    """Cloud Logging's order: timestamp with nanoseconds, ties broken by insertId."""
    insert_id = entry.get("insertId")
    return entry_time_ns(entry), insert_id if isinstance(insert_id, str) else ""
