"""What an action builds (queries) and what it is built from (a request)."""

from __future__ import annotations

import dataclasses

from pathways_workload.target import Target
from pathways_workload.window import Window

SEVERITIES = (
    "DEFAULT",
    "DEBUG",
    "INFO",
    "NOTICE",
    "WARNING",
    "ERROR",
    "CRITICAL",
    "ALERT",
    "EMERGENCY",
)


@dataclasses.dataclass(frozen=True)
class Query:
    """One Cloud Logging filter and the question it answers."""

    purpose: str
    filter: str


@dataclasses.dataclass(frozen=True)
class Options:
    """How the answer is shaped (the shaping flags)."""

    min_severity: str | None = None
    extra_terms: tuple[str, ...] = ()
    limit: int = 200
    order: str = "asc"
    first_per_pod: int | None = None
    fetch_limit: int = 1000
    filter_text: str | None = None

    @property
    def fetch_size(self) -> int:
        """How many entries a query needs: the fetch limit when grouping, else the limit."""
        return self.fetch_limit if self.first_per_pod else self.limit


@dataclasses.dataclass(frozen=True)
class Request:
    """Everything a builder needs.

    `floor` is the severity floor: --min_severity, else the action's default.
    `nodes` is None until the workload's nodes are known.
    `logged_until_ns` is how far the logs are known to run (now in the cloud, the export's
    last entry offline, neither past the window's end), once the queries ran; None: unknown.
    """

    target: Target
    window: Window
    options: Options = Options()
    nodes: tuple[str, ...] | None = None
    issue_ns: int | None = None
    floor: str = "DEFAULT"
    logged_until_ns: int | None = None

    def with_nodes(self, nodes: tuple[str, ...]) -> Request:
        return dataclasses.replace(self, nodes=nodes)
