"""What an incident's cluster holds: nodes, pods, container ids, pulled images, and which pods
were on which node when (the kubelet's periodic lines name them)."""

from __future__ import annotations

from dataclasses import dataclass, field

from tests.corpus.model import Node, Pod


@dataclass
class Stay:
    """A pod on a node from `since` until `until` (None: still there)."""

    pod: Pod
    since: int
    until: int | None = None


@dataclass
class ClusterState:
    nodes: dict[str, Node] = field(default_factory=dict)
    pods: dict[str, Pod] = field(default_factory=dict)
    container_ids: dict[tuple[str, str], str] = field(default_factory=dict)
    images: dict[str, list[str]] = field(default_factory=dict)
    stays: dict[str, list[Stay]] = field(default_factory=dict)
    pool_hashes: dict[str, str] = field(default_factory=dict)

    def place(self, pod: Pod, at: int) -> None:
        """The pod is on its node from `at`."""
        self.stays.setdefault(pod.node.name, []).append(Stay(pod, at))

    def unplace(self, pod: Pod, at: int) -> None:
        """The pod left its node at `at`."""
        for stay in self.stays.get(pod.node.name, []):
            if stay.pod is pod and stay.until is None:
                stay.until = at

    def pods_on(self, node: Node, at: int) -> list[Pod]:
        """The pods on the node at that moment, in the order they came."""
        return [
            stay.pod
            for stay in self.stays.get(node.name, [])
            if stay.since <= at and (stay.until is None or at < stay.until)
        ]
