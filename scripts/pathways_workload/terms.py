"""Search-term catalogues and container names, per component and per question.

Terms are matched case-insensitively as substrings of the message fields, so
each is chosen to be specific: `OOM` alone would match every `room`.
"""

from __future__ import annotations

USER_CONTAINERS = ("jax-tpu", "workload-container", "main", "user-workload")
PROXY_CONTAINERS = ("pathways-proxy",)
RM_CONTAINERS = ("pathways-rm",)
WORKER_CONTAINERS = ("pathways-worker",)
SIDECAR_CONTAINERS = ("colocated-python-sidecar", "python-sidecar")

CRASH_TERMS = (
    "Segmentation fault",
    "SIGSEGV",
    "SIGABRT",
    "SIGBUS",
    "SIGILL",
    "SIGTERM",
    "core dumped",
    "Check failed",
    "Check failure stack trace",
    "Fatal Python error",
    "Traceback (most recent call last)",
    "terminate called",
    "std::bad_alloc",
    "out of memory",
    "OOMKilled",
    "oom-kill",
    "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",
    "DEADLINE_EXCEEDED",
    "DATA_LOSS",
    "UNAVAILABLE",
    "PERMISSION_DENIED",
    "Permission denied",
    "ABORTED:",
    "INVALID_ARGUMENT",
    "Unknown command line flag",
    "unknown flag",
    "unrecognized arguments",
    "Address already in use",
    "failed to bind",
    "JaxRuntimeError",
    "XlaRuntimeError",
    "Unable to initialize backend",
    "Connection to IFRT proxy server was terminated",
    "failed to agree on the protocol version",
    "Failed to deserialize the Mosaic module",
    "lost connection to peer",
    "Pipe from scheduler to aggregator",
    "from handshaker service",
    "Lifecycle matches_prefix",
    "was edited during the operation",
    "does not match with the expected instances",
    "HANG_DETECTED",
    "Megascale detects a hang",
    "SLICE_FAILURE",
    "Timeout from watchdog",
    "Catastrophic error",
)

USER_TERMS = (
    "completed step",
    "checkpoint",
    "jax version",
    "jaxlib",
    "Detected Pathways-on-Cloud backend",
    "Elastic",
    "XPK Start",
    "XPK End",
    "EXIT_CODE=",
    "Socket closed",
)

PROXY_TERMS = (
    "IFRT proxy server started",
    "Connection refused",
    ":29001",
    "Socket closed",
    "Still waiting to acquire semaphore",
    "GOAWAY",
    "handshake",
    "placement",
    "Signaling to RM",
    "Transition slice",
    "Build label",
)

RM_TERMS = (
    "Pathways Server serving",
    "Slices Now Ready",
    "unplaced",
    "Unassigning",
    "expected topology",
    "Newly added slice topology",
    "Build label",
    "cancelled",
    "Transition slice",
)

WORKER_TERMS = (
    "Pathways Server serving",
    "MegaScale transport",
    "Recv completion error",
    "Build label",
    "colocated",
    "GOAWAY",
)

SIDECAR_TERMS = (
    "colocated",
    "sidecar",
    "50051",
)

ELASTIC_TERMS = (
    "Elastic",
    "slices active",
    "Slices Now Ready",
    "placed -> unplaced",
    "Unassigning",
    "New slices found",
    "Scale up requested",
    "slice down",
    "snapshot",
    "Restoring",
    "Falling back to persistent checkpoint",
    "Resuming",
    "commit_success",
    "Timed out waiting for",
)

SUMMARY_CONTROLLER_TERMS = (
    "error",
    "invalid",
    "must be no more than",
    "webhook",
    "denied",
    "OOMKilled",
    "failed",
)

NODE_OOM_REASONS = ("OOMKilling", "SystemOOM")
NODE_OOM_TERMS = (
    "Memory cgroup out of memory",
    "Out of memory: Killed process",
    "oom-kill",
    "invoked oom-killer",
    "exitCode=137",
    "exit code 137",
    "System OOM encountered",
)

INTERRUPTION_METHODS = (
    "compute.instances.preempted",
    "compute.instances.hostError",
    "compute.instances.terminateOnHostMaintenance",
    "compute.instances.migrateOnHostMaintenance",
    "compute.instances.baremetalCaretakerPreempted",
    "compute.instances.guestTerminate",
    "compute.instances.automaticRestart",
    "compute.instances.instanceManagerHaltForRestart",
)
NODEPOOL_METHODS = (
    "google.container.v1.ClusterManager.RepairNodePool",
    "google.container.v1.ClusterManager.UpgradeNodePool",
    "google.container.v1.ClusterManager.UpdateNodePool",
    "google.container.v1.ClusterManager.SetNodePoolSize",
    "google.container.v1.ClusterManager.DeleteNodePool",
)
NODE_INTERRUPTION_REASONS = (
    "NodeNotReady",
    "Rebooted",
    "TerminationEvent",
    "PreemptionEvent",
    "MaintenanceEvent",
    "NodeRepair",
    "RemovingNode",
    "DeletingNode",
    "TerminatingEvictedPod",
)

SCHEDULED_REASON = "Scheduled"
