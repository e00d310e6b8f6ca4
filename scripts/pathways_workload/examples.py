"""Evidence for the wordings the tool relies on: a log line and where it was seen.

Every signature (a scenario's substrings, a search term, a symptom rule) carries
at least one `Example`: the line as Cloud Logging stores it, with its public
source, or marked `guessed` when no public source shows it verbatim. The tests
build a log entry from each example and check that the signature matches it.
"""

from __future__ import annotations

import dataclasses

# Kinds of entries that are not the lines of a workload container (`Example.container`).
POD_EVENT = "pod-event"  # a Kubernetes event about a workload pod
JOBSET_EVENT = "jobset-event"  # an event about the JobSet (a k8s_cluster entry)
NODE_EVENT = "node-event"  # a node-problem-detector or kubelet event about a node
KUBELET = "kubelet"  # a kubelet journal line of a node (jsonPayload.MESSAGE)
SERIAL_CONSOLE = "serial-console"  # a serial-console line of a node's instance
AUDIT = "audit"  # a GCE system_event audit entry; the line is its method
NODEPOOL = "nodepool"  # a GKE node pool audit entry; the line is its method
CONTROLLER = "jobset-controller"  # the JobSet controller manager (namespace jobset-system)
KINDS = (POD_EVENT, JOBSET_EVENT, NODE_EVENT, KUBELET, SERIAL_CONSOLE, AUDIT, NODEPOOL, CONTROLLER)

# Sources cited by many examples.
TROUBLESHOOTING_DOC = (
    "https://docs.cloud.google.com/ai-hypercomputer/docs/workloads/pathways-on-cloud/"
    "troubleshooting-pathways"
)
ARCHIVE = "real-world-log-lines.md, archive"
SKILL_DOC = "google/skills@2194d3b skills/cloud/pathways-workload/references/special-scenarios.md"
PATHWAYS_UTILS = "AI-Hypercomputer/pathways-utils@8950a34 "
MAXTEXT = "AI-Hypercomputer/maxtext@e591f30 "
HANG_PLAYBOOK = MAXTEXT + "docs/guides/monitoring_and_debugging/megascale_hang_playbook.md"
MAXTEST = MAXTEXT + "benchmarks/maxtest/getting_started.md"
IFRT_PROXY = "openxla/xla xla/python/ifrt_proxy/"
KUBELET_IMAGES = "kubernetes/kubernetes pkg/kubelet/images/image_manager.go (EnsureImageExists)"
KUBELET_EVENTS = "kubernetes/kubernetes pkg/kubelet/events/event.go"
JOBSET_CONSTANTS = "kubernetes-sigs/jobset@08dfbdf pkg/constants/constants.go"
GCE_INTERRUPTIONS = (
    "GoogleCloudPlatform/ml-auto-solutions@7eda193 "
    "dags/tpu_observability/interruption_validation_dag.py"
)
ABSL_SIGNALS = "abseil/abseil-cpp@926f1d0 absl/debugging/failure_signal_handler.cc"


@dataclasses.dataclass(frozen=True)
class Example:
    """A log line that carries a signature, and where it was seen.

    `line` is the message as Cloud Logging stores it (glog header stripped,
    a format string instantiated); `container` the container that logs it, or
    one of KINDS; `severity` the entry's severity (GKE marks plain stderr
    ERROR, glog letters map to INFO/WARNING/ERROR/CRITICAL); `reason` an
    event's reason when the line is the event's message; `guessed` marks a
    line no public source shows verbatim (its source then says what is known).
    """

    line: str
    source: str
    container: str
    severity: str = "ERROR"
    guessed: bool = False
    reason: str = ""


@dataclasses.dataclass(frozen=True)
class Term:
    """A search term and a line it finds."""

    text: str
    example: Example


def texts(catalogue: tuple[Term, ...]) -> tuple[str, ...]:
    """The terms of a catalogue, as the filter builders use them."""
    return tuple(term.text for term in catalogue)
