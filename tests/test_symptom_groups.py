"""Symptom groups come earliest first by instant, whatever fraction their timestamps have."""

from __future__ import annotations

from pathways_workload.sources.base import entry_time_ns
from pathways_workload.triage.evidence import Evidence
from pathways_workload.triage.grouping import symptom_groups
from tests.helpers import container_entry


def evidence(text: str, container: str, timestamp: str) -> Evidence:
    entry = container_entry(text, container=container, timestamp=timestamp)
    return Evidence(entry, entry_time_ns(entry), "container", symptom=True)


def test_groups_are_ordered_by_instant_not_by_text() -> None:
    later = evidence("Socket closed", "pathways-proxy", "2026-10-22T11:30:07.25Z")
    earlier = evidence("lost connection to peer", "pathways-worker", "2026-10-22T11:30:07Z")
    groups = symptom_groups([later, earlier])
    assert [group["component"] for group in groups] == ["pathways-worker", "pathways-proxy"]
    assert [group["first"] for group in groups] == [
        "2026-10-22T11:30:07Z",
        "2026-10-22T11:30:07.25Z",
    ]
