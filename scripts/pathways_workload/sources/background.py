"""Make a generator's next items in a worker thread while the caller uses this one.

Decompression and RE2 searches release the GIL, so reading, scanning and using
blocks overlap, and two blocks can be searched at once (`looked`). Errors
raised in the worker surface in order, at the item where they happened.
Closing waits for the item being made, then closes the generator; `stop`
instead hands that item back and leaves the generator open, for a caller that
must read the rest of the stream its own way."""

from __future__ import annotations

import collections
from collections.abc import Callable, Generator, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from types import TracebackType
from typing import Generic, TypeVar

T = TypeVar("T")
L = TypeVar("L")
LOOKS_AT_ONCE = 2


def looked(
    items: Iterator[T], look: Callable[[T], L], at_once: int = LOOKS_AT_ONCE
) -> Iterator[tuple[T, L, list[T]]]:
    """Each item with what `look` found, in order, and the items taken after it whose look
    is under way. The first look runs alone (it may settle what the others look for); then
    up to `at_once` run together in worker threads. A look's error surfaces at its item."""
    first = next(items, None)
    if first is None:
        return
    yield first, look(first), []
    pending: collections.deque[tuple[T, Future[L]]] = collections.deque()
    with ThreadPoolExecutor(max_workers=at_once, thread_name_prefix="pathways-look") as pool:
        for item in items:
            pending.append((item, pool.submit(look, item)))
            if len(pending) == at_once:
                done, future = pending.popleft()
                yield done, future.result(), [waiting for waiting, _ in pending]
        while pending:
            done, future = pending.popleft()
            yield done, future.result(), [waiting for waiting, _ in pending]


class Ahead(Generic[T]):
    """The items of a generator, made in a worker up to `depth` items ahead of their use."""

    def __init__(self, items: Generator[T, None, None], depth: int = 2) -> None:
        self._items = items
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pathways-workload")
        self._pending: collections.deque[Future[tuple[bool, T | None]]] = collections.deque(
            self._pool.submit(self._next) for _ in range(depth)
        )

    def _next(self) -> tuple[bool, T | None]:
        for item in self._items:
            return True, item
        return False, None

    def __iter__(self) -> Iterator[T]:
        return self

    def __next__(self) -> T:
        if not self._pending:
            raise StopIteration
        made, item = self._pending.popleft().result()
        if not made:
            self._pending.clear()
            raise StopIteration
        self._pending.append(self._pool.submit(self._next))
        return item  # type: ignore[return-value]

    def stop(self) -> list[T]:
        """Stop reading ahead: the items already made; the generator stays open."""
        pending = list(self._pending)
        self._pending.clear()
        self._pool.shutdown(wait=True)
        made = [future.result() for future in pending]
        return [item for done, item in made if done]  # type: ignore[misc]

    def close(self) -> None:
        self._pending.clear()
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._items.close()

    def __enter__(self) -> Ahead[T]:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()
