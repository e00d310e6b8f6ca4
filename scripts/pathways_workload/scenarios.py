"""The fifteen known failures: their signatures, cause and fix, in one table.

`references/special-scenarios.md` tells each story in full; triage uses this
table to name the scenario an incident matches.
"""

from __future__ import annotations

import dataclasses

from pathways_workload.describe import event_reason, message
from pathways_workload.sources.base import Entry


@dataclasses.dataclass(frozen=True)
class Scenario:
    """A known failure: the message substrings and event reasons that identify it.

    Roles: `hang` is the scenario of a run that stopped without an error;
    `teardown` names the signal Kubernetes sends when it stops containers, so
    after another failure it is only the consequence of that failure.
    """

    number: int
    title: str
    cause: str
    fix: str
    substrings: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ()
    hang: bool = False
    teardown: bool = False


SCENARIOS = (
    Scenario(
        1,
        "Elastic recovery or checkpoint restore fails",
        "a slice was lost and the elastic loop could not recover from a snapshot or a "
        "committed checkpoint before it gave up or the JobSet restarted",
        "check which slice was lost, whether a snapshot or committed checkpoint existed, "
        "and the elastic wait timeout against the JobSet restart policy",
        substrings=(
            "Elastic attempt",
            "Falling back to persistent checkpoint",
            "Timed out waiting for",
            "In-memory snapshot recovery failed",
        ),
    ),
    Scenario(
        2,
        "Host memory runs out on the head pod or a TPU host",
        "the kernel OOM killer ended a container process: host (CPU) RAM, not TPU HBM",
        "give the container more memory (about 100 GiB for the JAX client and the proxy, "
        "32 GiB for the RM) or reduce its host memory use",
        substrings=(
            "Memory cgroup out of memory",
            "Out of memory: Killed process",
            "oom-kill",
            "OOMKilled",
            "System OOM encountered",
        ),
        reasons=("OOMKilling", "SystemOOM"),
    ),
    Scenario(
        3,
        "The proxy backend is unknown to JAX",
        "JAX started without the Pathways proxy backend registered",
        "call pathwaysutils.initialize() at the start of the program",
        substrings=("is not in the list of known backends",),
    ),
    Scenario(
        4,
        "SIGTERM received by PID 1",
        "Kubernetes stopped the containers: a preemption, host maintenance or error, a node "
        "repair, or a JobSet restart after another container failed",
        "find what sent it: infrastructure interruptions and pod events, or the earlier "
        "failure that made the JobSet restart",
        substrings=("SIGTERM",),
        teardown=True,
    ),
    Scenario(
        5,
        "Slice topology does not match what the RM expects",
        "the TPU slice GKE provisioned differs from the topology the RM was started with",
        "compare the RM's expected topology with the newly added slice topology and fix "
        "the instance type or node pool",
        substrings=("does not match with the expected instances",),
    ),
    Scenario(
        6,
        "The client's proxy connection was terminated",
        "the IFRT proxy the client was connected to exited or restarted",
        "find why the proxy stopped (its own log, node OOMs); restart the workload",
        substrings=("GrpcClientSession: writes no longer allowed",),
    ),
    Scenario(
        7,
        "Cached executable edited while being read",
        "a race between writing and reading the compiled-executable cache in Cloud Storage",
        "mount the bucket with GCSFuse so writes are atomic",
        substrings=("was edited during the operation",),
    ),
    Scenario(
        8,
        "Lost connection to a peer",
        "a TPU worker exited (hardware failure, OOM or a fatal error) and its peers lost it",
        "read the logs and node of the first worker that failed",
        substrings=("lost connection to peer", "Pipe from scheduler to aggregator"),
    ),
    Scenario(
        9,
        "ALTS handshake fails for a client outside Google Cloud",
        "the proxy expects ALTS, which only works for clients on Google Cloud",
        "set IFRT_PROXY_USE_INSECURE_GRPC_CREDENTIALS=true on the client and the proxy "
        "(trusted networks only), or run the client on Google Cloud",
        substrings=("from handshaker service", "Input frame length is out of range"),
    ),
    Scenario(
        10,
        "Too many Cloud Storage lifecycle prefixes",
        "the --gcs_scratch_location bucket reached the 50-prefix lifecycle limit",
        "remove unused lifecycle rules; use one common prefix for all workloads",
        substrings=("Lifecycle matches_prefix",),
    ),
    Scenario(
        11,
        "JAX and Pathways versions do not match",
        "the Pathways images were built for another JAX release than the client's",
        "use the image tag jax-<your JAX version> (or YYYYMMDD-jax_<version>)",
        substrings=(
            "failed to agree on the protocol version",
            "Failed to deserialize the Mosaic module",
        ),
    ),
    Scenario(
        12,
        "Image pull failures",
        "a container image could not be pulled (missing tag, no permission, network)",
        "read the pull error; list the registry's tags and use a published one, or grant "
        "the node service account read access",
        substrings=("ErrImagePull", "ImagePullBackOff", "Failed to pull image"),
        reasons=("ErrImagePull", "ImagePullBackOff"),
    ),
    Scenario(
        13,
        "Port collisions on the host network",
        "another process on the node holds a Pathways port (hostNetwork pods share ports)",
        "find the other user of the port (neighbors), set host exclusivity or move ports",
        substrings=("Address already in use", "didn't have free ports", "failed to bind"),
    ),
    Scenario(
        14,
        "The job hangs without an error",
        "one component stopped making progress and the rest waited for it",
        "find the component that went quiet first and read its last lines; check the "
        "Megascale hang detectors and pending or restarted pods",
        substrings=("HANG_DETECTED", "Megascale detects a hang"),
        hang=True,
    ),
    Scenario(
        15,
        "Proxy-to-worker transfers stall",
        "host-to-device transfers from the IFRT proxy to the workers stalled (a Pathways "
        "runtime problem, not Orbax, Cloud Storage or user code)",
        "compare image tags with the last good run; call pathwaysutils.initialize() before "
        "creating the Orbax checkpoint manager so workers read Cloud Storage directly",
        substrings=("Still waiting to acquire semaphore", "Recv completion error"),
    ),
)
HANG = next(scenario for scenario in SCENARIOS if scenario.hang)
TEARDOWN = next(scenario for scenario in SCENARIOS if scenario.teardown)


def match(entry: Entry) -> Scenario | None:
    """The first scenario whose signature the entry carries, or None."""
    text = message(entry).lower()
    reason = event_reason(entry)
    for scenario in SCENARIOS:
        if reason in scenario.reasons or any(s.lower() in text for s in scenario.substrings):
            return scenario
    return None
