"""Triage's answers by question, whichever stage and however many fetches answered each."""

from __future__ import annotations

import dataclasses
from typing import Any, cast

from pathways_workload.actions import probes
from pathways_workload.actions.followups import FOLLOW_UPS
from pathways_workload.plan import Results
from pathways_workload.shaping import merge
from pathways_workload.sources.base import Entry, Result
from pathways_workload.triage import fetches
from pathways_workload.triage.hosts import client_containers
from pathways_workload.triage.shape import WorkloadShape, learn_shape

# The names of the later stages' fetches, by the question they add to.
MORE_CRASHES, MISSING_CRASHES = "more_crashes", "missing_crashes"
SUSPECTS, UNSEEN_HOSTS = "suspects", "unseen_hosts"
MORE_EVENTS = "more_events"
CRASH_NAMES = (fetches.CRASHES, MORE_CRASHES, MISSING_CRASHES)
LATEST_NAMES = (fetches.TAIL, SUSPECTS, UNSEEN_HOSTS, fetches.PROGRESS)


@dataclasses.dataclass(frozen=True)
class TriageResults:
    """One field per question: the results that answer it, in the order they ran."""

    crashes: list[Result]
    startup: list[Result]
    latest: list[Result]
    events: list[Result]
    node_events: list[Result]
    instances: list[Result]
    controller: list[Result]
    follow_ups: list[Result]
    head_lines: list[Result]
    events_any: list[Result]
    node_any: list[Result]
    serial_any: list[Result]
    _cache: dict[object, Any] = dataclasses.field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, results: Results) -> TriageResults:
        def named(*names: str) -> list[Result]:
            return [result for name in names for result in results.all(name)]

        return cls(
            crashes=named(*CRASH_NAMES),
            startup=named(fetches.STARTUP),
            latest=named(*LATEST_NAMES),
            events=named(fetches.EVENTS, MORE_EVENTS),
            node_events=named(fetches.NODE_EVENTS),
            instances=named(fetches.INSTANCES),
            controller=named(fetches.CONTROLLER),
            follow_ups=named(FOLLOW_UPS),
            head_lines=named(probes.HEAD_LINES),
            events_any=named(probes.EVENTS_ANY),
            node_any=named(probes.NODE_ANY),
            serial_any=named(probes.SERIAL_ANY),
        )

    def entries(self, results: list[Result]) -> list[Entry]:
        """Every entry of the results (some of these), each once, earliest first: merged once,
        the same list at every ask (not to be changed)."""
        key = tuple(map(id, results))  # the results live as long as these answers
        if key not in self._cache:
            self._cache[key] = merge(results, "asc")
        return cast(list[Entry], self._cache[key])

    def latest_lines(self) -> list[Entry]:
        """The latest lines triage read (of every later question too), each once."""
        return self.entries(self.latest)

    def container_lines(self) -> list[Entry]:
        """The workload's lines triage read: crash, start-up and latest lines, each once."""
        return self.entries(self.crashes + self.startup + self.latest)

    def shape(self) -> WorkloadShape:
        """The workload's pods and hosts, as its lines show them."""
        if "shape" not in self._cache:
            self._cache["shape"] = learn_shape(self.container_lines())
        return cast(WorkloadShape, self._cache["shape"])

    def clients(self) -> frozenset[str]:
        """The JAX client's containers, as the workload's lines show them."""
        if "clients" not in self._cache:
            self._cache["clients"] = client_containers(self.container_lines())
        return cast(frozenset[str], self._cache["clients"])

    def every(self) -> list[Result]:
        """All the answers, question by question."""
        return [
            result
            for field in dataclasses.fields(self)
            if not field.name.startswith("_")
            for result in getattr(self, field.name)
        ]
