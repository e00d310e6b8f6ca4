"""Cloud Logging's paging, played back over entries a source already holds.

Offline sources collect a fetch's matches at once; to answer exactly as the
API would, and to count requests as the API would (one per page), the entries
are cut into pages of PAGE_SIZE and read until the limit is reached or the
fetch's `until` says the question is answered.
"""

from __future__ import annotations

import dataclasses
import math

from pathways_workload.sources.base import PAGE_SIZE, Allowance, Entry, Fetch, Result


def pages_needed(count: int) -> int:
    """Requests the API needs to return `count` entries (an empty answer is one request)."""
    return max(1, math.ceil(count / PAGE_SIZE))


def within_pages(fetches: list[Fetch], left: int | None = None) -> list[Fetch]:
    """Each fetch held to the requests its limit needs at full pages, so that a server
    sending short pages cuts the reads short (truncated) rather than the budget.

    With `left`, the requests the run may still send: only the fetches that fit in it at
    full pages, in order, and those share it as a hard cap (partial-scan pages and retries
    cost requests too).
    """
    held = [dataclasses.replace(f, max_requests=pages_needed(f.limit)) for f in fetches]
    if left is None:
        return held
    allowance, kept = Allowance(left), []
    for fetch in held:
        if fetch.max_requests <= left:
            left -= fetch.max_requests
            kept.append(dataclasses.replace(fetch, allowance=allowance))
    return kept


def as_paged(fetch: Fetch, entries: list[Entry], matched: int) -> Result:
    """The result the API would give: `entries` are the first matches, of `matched` in all."""
    kept = entries[: fetch.limit]
    if fetch.until is not None:
        for page in range(1, pages_needed(len(kept)) + 1):
            if fetch.until(kept[: page * PAGE_SIZE]):
                kept = kept[: page * PAGE_SIZE]
                break
    answered = fetch.until is not None and fetch.until(kept)
    return Result(fetch, kept, matched > len(kept), pages_needed(len(kept)), answered, matched)
