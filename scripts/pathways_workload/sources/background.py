"""Run an iterator one item ahead in a worker thread, so reading overlaps with using.

Decompression and RE2 searches release the GIL, so the next block is read and
scanned while this one is used. Errors raised in the worker surface in order,
at the item where they happened; when the user stops early, the worker
finishes its one item and the iterator is closed.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")
_END = object()


def ahead(items: Generator[T, None, None]) -> Iterator[T]:
    """The items of a generator, each produced in a worker while the one before is used."""
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pathways-workload-read")
    try:
        pending = pool.submit(next, items, _END)
        while (item := pending.result()) is not _END:
            pending = pool.submit(next, items, _END)
            yield item  # type: ignore[misc]
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        items.close()
