"""How an action asks its questions: stages of named fetches, and their named results.

A stage builds its fetches from the request and the results of the stages
before it, so a later question can depend on an earlier answer (the nodes
the workload ran on, the lines after a traceback header). A stage may also
learn something for the stages after it; in print mode, where nothing runs,
it assumes a stand-in instead.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar, cast

from pathways_workload.query import Request
from pathways_workload.sources.base import Entry, Fetch, Result

T = TypeVar("T")


class Results:
    """What the fetches of an action returned, by fetch name, in the order they ran."""

    def __init__(self, results: Sequence[Result] = ()) -> None:
        self._results = tuple(results)
        self._derived: dict[str, Any] = {}

    def derived(self, key: str, compute: Callable[[], T]) -> T:
        """A value computed from these results once, however often it is asked for."""
        if key not in self._derived:
            self._derived[key] = compute()
        return cast(T, self._derived[key])

    def __iter__(self) -> Iterator[Result]:
        return iter(self._results)

    def plus(self, more: Sequence[Result]) -> Results:
        return Results(self._results + tuple(more))

    def all(self, name: str) -> list[Result]:
        """Every result of fetches with this name (none when the stage asked nothing)."""
        return [result for result in self._results if result.fetch.name == name]

    def one(self, name: str) -> Result:
        """The result of the one fetch with this name."""
        (result,) = self.all(name)
        return result

    def entries(self, name: str) -> list[Entry]:
        return [entry for result in self.all(name) for entry in result.entries]

    def rewindowed(self, old: str, new: str) -> Results:
        """The same results, their filters' window clause `old` written as `new` (for a run
        that learnt its window while it ran)."""

        def moved(result: Result) -> Result:
            query = result.fetch.query
            query = dataclasses.replace(query, filter=query.filter.replace(old, new))
            return dataclasses.replace(result, fetch=dataclasses.replace(result.fetch, query=query))

        return Results([moved(result) for result in self._results])


@dataclasses.dataclass(frozen=True)
class Chain:
    """How print mode runs a later stage: a shell variable set from this stage's commands.

    Later builders see `sentinel` in place of each learnt name; `recipe` gives
    the shell lines that set `variable` (one name per word) from the printed fetches.
    """

    variable: str
    sentinel: str
    recipe: Callable[[Sequence[Fetch], str], str]


@dataclasses.dataclass(frozen=True)
class PrintNote:
    """What print mode shows for a stage it cannot build: instructions, and maybe an example.

    `lines(request)` are the instructions; `example(request)`, when given, is
    the stage's fetch with placeholders (named in the lines) where the earlier
    results would go, or None when the request has none to show. Each printer
    writes the example as its own command, commented out.
    """

    lines: Callable[[Request], Sequence[str]]
    example: Callable[[Request], Fetch | None] | None = None


Build = Callable[[Request, Results], list[Fetch]]
# What a stage learns for later stages: a new request, and lines for stderr.
Learn = Callable[[Request, Results], tuple[Request, list[str]]]


@dataclasses.dataclass(frozen=True)
class Stage:
    """One round of fetches that can run together.

    `answers` is False for a stage that only serves the stages after it (node
    discovery): its results go to `learn`, not to the presenter. A `required`
    stage that finds nothing to ask ends the action ("nothing to query"); any
    other is skipped. Print mode cannot run a stage built from earlier
    results: it prints `print_note` in its place, if given. `anticipate` builds,
    from the request alone, fetches a later stage may ask: a source that reads
    everything for each stage answers them in this stage's pass.
    """

    build: Build
    learn: Learn | None = None
    # Print mode's stand-in for `learn`, and how the printed commands chain to the next stage.
    assume: Callable[[Request], Request] | None = None
    chain: Chain | None = None
    answers: bool = True
    required: bool = True
    print_note: PrintNote | None = None
    anticipate: Callable[[Request], list[Fetch]] | None = None


def single(build: Callable[[Request], list[Fetch]]) -> tuple[Stage, ...]:
    """A plan of one stage that needs no earlier results."""
    return (Stage(lambda request, _: build(request)),)
