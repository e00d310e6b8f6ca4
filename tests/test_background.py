"""Reading ahead in worker threads: items come back in order, errors at their own item."""

from __future__ import annotations

import threading
import time
from collections.abc import Generator

import pytest

from pathways_workload.sources.background import Ahead, looked


def test_looks_run_two_at_once_after_the_first_and_come_back_in_order() -> None:
    running, most, lock = [0], [0], threading.Lock()
    first_alone = []

    def look(item: int) -> int:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
            if item == 0:
                first_alone.append(running[0] == 1)
        time.sleep(0.02 if item % 2 else 0.001)  # odd items finish after the next one
        with lock:
            running[0] -= 1
        return item * 10

    found = list(looked(iter(range(9)), look))
    assert [(item, seen) for item, seen, _ in found] == [(n, n * 10) for n in range(9)]
    assert first_alone == [True] and most[0] == 2
    assert [waiting for _, _, waiting in found] == [[], *([[n + 1] for n in range(1, 8)]), []]


def test_a_look_that_fails_raises_at_its_own_item() -> None:
    def look(item: int) -> int:
        if item == 3:
            raise ValueError("bad block 3")
        return item

    seen = []
    with pytest.raises(ValueError, match="bad block 3"):
        for item, _, _ in looked(iter(range(6)), look):
            seen.append(item)
    assert seen == [0, 1, 2]


def test_ahead_hands_back_what_it_made_when_stopped() -> None:
    def numbers() -> Generator[int, None, None]:
        yield from range(5)

    with Ahead(numbers(), depth=2) as items:
        assert next(items) == 0
        assert items.stop() == [1, 2]
