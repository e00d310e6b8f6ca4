"""An export replayed as `gcloud logging read --project=P` reads Cloud Logging: P's logs only.

An export of many projects' logs (an organization's sink) holds other projects'
workloads, possibly under the same names: their entries are left out (an entry
with no logName cannot tell, and is kept), and a note names those projects.
When no entry of P matches at all while others' do, --project names no project
of the export (mistyped, or given only for the printed commands): the export is
read whole, as before the scope, and a note says so.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from pathways_workload.filters import compile_checked
from pathways_workload.lql import CompiledFilter
from pathways_workload.selectors import project_logs


def log_owner(entry: Mapping[str, object]) -> str:
    """The project (or organization, folder, billing account) a logName says the entry's."""
    parts = str(entry.get("logName", "")).split("/")
    return parts[1] if len(parts) > 2 and parts[0] == "projects" else "/".join(parts[:2])


@dataclasses.dataclass
class ProjectScope:
    """The project an offline replay reads; what its queries left out, and whether it holds."""

    project: str
    holds: bool | None = None  # None until a pass matched anything; False: the export is not P's
    own: int = 0
    others: set[str] = dataclasses.field(default_factory=set)
    told: bool = False

    def __post_init__(self) -> None:
        self._own_logs = compile_checked(project_logs(self.project))

    def narrowed(self, compiled: CompiledFilter) -> CompiledFilter:
        """The query as --project reads it (unchanged once the export proved not P's)."""
        return compiled if self.holds is False else compiled.narrowed(self._admits)

    def _admits(self, entry: Mapping[str, object]) -> bool:
        if self._own_logs.matches(entry):
            self.own += 1
            return True
        self.others.add(log_owner(entry))
        return False

    def settle(self) -> bool:
        """After a pass: whether the scope turned out to name no project of the export (then
        the pass is to be read again unscoped). The first pass that matched anything decides."""
        if self.holds is None and (self.own or self.others):
            self.holds = bool(self.own)
            return not self.holds
        return False

    def notes(self) -> list[str]:
        """The note about other projects' entries, once."""
        if self.told or not self.others or self.holds is None:
            return []
        self.told = True
        others = ", ".join(sorted(self.others))
        if not self.holds:
            return [
                f"note: no entry of project {self.project} matched; the export's entries that "
                f"did are of {others}, and were read: check --project (offline it scopes the "
                "export to that project's logs, as Cloud Logging does)"
            ]
        return [
            f"note: entries of other projects ({others}) matched and were left out: "
            f"--project={self.project} reads its own logs only, as Cloud Logging does"
        ]
