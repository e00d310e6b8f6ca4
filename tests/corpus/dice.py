"""The seeded randomness of one incident: every value the corpus draws comes from here."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

from tests.corpus.clock import sec

K8S_CHARS = "bcdfghjklmnpqrstvwxz2456789"  # the alphabet Kubernetes uses for name suffixes
ID_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789"
HEX = "0123456789abcdef"
Item = TypeVar("Item")


class Dice:
    """Draws from `random.Random(seed)` only, so an incident is the same on every run."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def between(self, low: float, high: float) -> int:
        """A duration from `low` to `high` seconds, in nanoseconds."""
        return self.rng.randint(sec(low), sec(high))

    def integer(self, low: int, high: int) -> int:
        return self.rng.randint(low, high)

    def uniform(self, low: float, high: float) -> float:
        return self.rng.uniform(low, high)

    def chance(self) -> float:
        return self.rng.random()

    def pick(self, items: Sequence[Item]) -> Item:
        return self.rng.choice(items)

    def shuffle(self, items: list[Item]) -> None:
        self.rng.shuffle(items)

    def token(self, length: int, chars: str = ID_CHARS) -> str:
        return "".join(self.rng.choice(chars) for _ in range(length))

    def hex(self, length: int) -> str:
        return self.token(length, HEX)

    def uuid(self) -> str:
        digits = self.hex(32)
        variant = self.rng.choice("89ab")
        return (
            f"{digits[:8]}-{digits[8:12]}-4{digits[13:16]}-{variant}{digits[17:20]}-{digits[20:]}"
        )

    def suffix(self) -> str:
        """The random suffix Kubernetes gives a pod or ReplicaSet name."""
        return self.token(5, K8S_CHARS)

    def pid(self, low: int, high: int) -> int:
        """A process id without `137` in it (an exit code the checks look for)."""
        while True:
            value = self.rng.randint(low, high)
            if "137" not in str(value):
                return value
