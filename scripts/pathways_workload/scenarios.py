"""The known failures: their signatures, cause and fix, and the lines that show them.

Fifteen scenarios come from the Pathways debugging guide; the failure classes
numbered from 16 were seen in real Pathways runs or come from the systems that run
them (Kueue, the kubelet). `references/special-scenarios.md`
tells each story in full; triage uses this table to name the failure an incident
matches. Every entry carries example lines with their public source (see
examples.py).
"""

from __future__ import annotations

import dataclasses
import re

from pathways_workload import terms
from pathways_workload.describe import audit_method, bare_message, event_reason
from pathways_workload.examples import (
    ARCHIVE,
    HANG_PLAYBOOK,
    JOBSET_EVENT,
    KUBELET_IMAGES,
    MAXTEST,
    POD_EVENT,
    TROUBLESHOOTING_DOC,
    Example,
)
from pathways_workload.sources.base import Entry
from pathways_workload.terms import CLIENT, WORKER

# Kueue records its eviction message as a Normal `Stopped` event on the job it suspends.
KUEUE_STOP = "kubernetes-sigs/kueue@df7e05b pkg/controller/jobframework/reconciler.go (stopJob)"
# The kubelet's eviction message: nodeLowMessageFmt, then thresholdMetMessageFmt and
# containerMessageFmt in newer kubelets; the prefix is in every version.
SCHEDULER_FIT = (
    "kubernetes/kubernetes pkg/scheduler/framework/plugins/noderesources/fit.go ('Insufficient "
    "%v') and nodeaffinity/node_affinity.go (ErrReasonPod: \"node(s) didn't match Pod's node "
    'affinity/selector")'
)
KUBELET_STORAGE_LIMIT = (
    "kubernetes/kubernetes@de663b9 pkg/kubelet/eviction/helpers.go "
    "(containerEphemeralStorageMessageFmt, podEphemeralStorageMessageFmt, emptyDirMessageFmt)"
)
KUBELET_EVICTION = (
    "kubernetes/kubernetes@de663b9 pkg/kubelet/eviction/helpers.go ('The node was low on "
    "resource: %v.'); master's helpers.go adds 'Threshold quantity: %v, available: %v. ' and "
    "'Container %s was using %s, request is %s, has larger consumption of %v. '"
)
# The node a lost-peer line names: `lost connection to peer at http://machine/<node>/...`.
_PEER_NODE_RE = re.compile(r"lost connection to peer at http://machine/([\w.-]+)/", re.IGNORECASE)


@dataclasses.dataclass(frozen=True)
class Scenario:
    """A known failure: the message substrings and event reasons that identify it.

    `slug` is its stable name. Roles: `hang` is the scenario of a run that
    stopped without an error; `teardown` names the signal Kubernetes sends when
    it stops containers, so after another failure it is only the consequence
    of that failure; `incidental` failures (a missing bucket, a Logging
    permission) often sit beside the real one, so they are the cause only when
    nothing else is found; `lost_peer` is a peer reporting that another process
    vanished, and `head_service` what it means when that process ran on the
    head node; `wraps` marks lines that embed another scenario's signature, so
    they are tried first; `info_level` signatures are logged at INFO and still
    count as evidence there. `methods` are the audit methods (a Compute Engine
    or GKE record of a node) that identify it; `record_fix`, when given, is the fix
    when the root cause is such a record or event itself rather than a line that carries
    the signature.
    """

    number: int
    slug: str
    title: str
    cause: str
    fix: str
    examples: tuple[Example, ...]
    substrings: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ()
    methods: tuple[str, ...] = ()
    hang: bool = False
    teardown: bool = False
    incidental: bool = False
    lost_peer: bool = False
    head_service: bool = False
    wraps: bool = False
    info_level: bool = False
    record_fix: str = ""


def _example(term: str) -> Example:
    """The crash-term catalogue's example of a term."""
    return next(t.example for t in terms.CRASH_CATALOGUE if t.text == term)


def _ex(
    line: str, source: str, container: str, severity: str = "ERROR", *, guessed: bool = False
) -> Example:
    return Example(line, source, container, severity, guessed)


def _event(reason: str, line: str, source: str, severity: str = "WARNING") -> Example:
    return Example(line, source, POD_EVENT, severity, reason=reason)


PATHWAYS_IMAGE = "us-docker.pkg.dev/cloud-tpu-v2-images/cloud-pathways/server:jax-0.9.9"
CONTAINERD_NOT_FOUND = (
    f'Failed to pull image "{PATHWAYS_IMAGE}": rpc error: code = NotFound desc = failed to pull '
    f'and unpack image "{PATHWAYS_IMAGE}": failed to resolve reference "{PATHWAYS_IMAGE}": '
    f"{PATHWAYS_IMAGE}: not found"
)
COMPILE_SERVICE_LINE = (
    "compile: ABORTED: Compilation service has crashed or shut down while compilation was "
    "pending for computation with key: 5c1f0e9a7d3b2a41, computation name: jit_train_step, "
    "original error: DEADLINE_EXCEEDED: lost connection to peer at http://machine/"
    "gke-pw-cluster-cpu-np-5f3a9c1e-h7kq/events#srcs=borg%2Bcoroner since 10.99987274s ago; "
    "this usually means that the peer has unexpectedly gone away"
)
# XLA's error pages give each TPU HBM exhaustion's wording: a program that does not fit when
# it is loaded (0101) and the compiler's early abort and SparseCore breakdown (1000).
XLA_ERRORS = "openxla/xla@11903d4 docs/errors/"
XLA_ERRORS_MIRROR = "tensorflow/tensorflow@3457ee4 third_party/xla/docs/errors/"
HBM_PROGRAM_LINE = (
    "XlaRuntimeError: RESOURCE_EXHAUSTED: Error loading program 'jit_embedding_pipeline_step_fn'"
    ": Attempting to reserve 29.49G at the bottom of memory. That was not possible. There are "
    "147.64M free, 0B reserved, and 147.64M reservable. Scope: unknown..: while running "
    "replica 0 and partition 34 of a replicated computation (other replicas may have failed "
    "as well)."
)
HBM_EARLY_ABORT_LINE = (
    "RESOURCE_EXHAUSTED: Compilation failure: Aborting compilation early because it's unlikely "
    "to have enough memory. Requires 3.84T, has 90.96G available. If more detailed logging is "
    "desired, set --xla_tpu_impure_oom_fast_exit_threshold=-1"
)
HBM_SPARSECORE_LINE = (
    "RESOURCE_EXHAUSTED: TPU TensorCore Hbm usage: 34.82G, SparseCore Hbm usage 174.10G, "
    "exceeding available bytes: 95.74G"
)
# Cloud Storage refuses a request in these words whatever client made it (the Python client's
# exception here; the crash catalogue has the second line of gcsfs's OSError).
GCS_FORBIDDEN_LINE = (
    "google.api_core.exceptions.Forbidden: 403 GET https://storage.googleapis.com/storage/v1/b/"
    "llama-ckpt?projection=noAcl&prettyPrint=false: llama-train@my-project.iam.gserviceaccount"
    ".com does not have storage.buckets.get access to the Google Cloud Storage bucket. "
    "Permission 'storage.buckets.get' denied on resource (or it may not exist)."
)
GCS_FORBIDDEN_SOURCE = "ansible-collections/google.cloud issue #575 (google-cloud-storage)"
# The JAX coordination service (jax.distributed) times out a barrier or a silent process in
# these words; the real lines are those of public reports.
COORDINATION_SERVICE = (
    "openxla/xla@b80f3b7 xla/tsl/distributed_runtime/coordination/coordination_service.cc"
)
BARRIER_INIT_LINE = (
    "DEADLINE_EXCEEDED: Barrier timed out. Id: [Init]Wait_for_all_tasks_to_register::0. This "
    "usually happens because a task triggered the barrier too early or too slowly. Please look "
    "at the task logs (both timed out and first task) to debug further."
)
BARRIER_CHECKPOINT_LINE = (
    "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Id: "
    "0_async_write_complete.0.1. This usually happens because a task triggered the barrier too "
    "early or too slowly. Please look at the task logs (both timed out and first task) to debug "
    "further."
)
HEARTBEAT_LINE = (
    "/job:jax_worker/replica:0/task:0 has been set to ERROR in coordination service: "
    "UNAVAILABLE: Task /job:jax_worker/replica:0/task:0 heartbeat timeout. This indicates that "
    "the remote task has failed, got preempted, or crashed unexpectedly. Check the task logs for "
    "an earlier error to debug further. [type.googleapis.com/tensorflow.CoordinationServiceError"
    "='']"
)
BARRIER_TIMEOUTS = (
    _ex(
        BARRIER_INIT_LINE, "AI-Hypercomputer/gpu-recipes issue #2; " + COORDINATION_SERVICE, CLIENT
    ),
    _ex(BARRIER_CHECKPOINT_LINE, "AI-Hypercomputer/maxtext issue #1434 (an Orbax save)", CLIENT),
)
SHARED_FATE_LINE = (
    "Terminating process because the JAX distributed service detected fatal errors. This most "
    "likely indicates that another task died; see the other task logs for more details. Disable "
    "Python buffering, i.e. `python -u`, to be sure to see all the previous output. absl::Status: "
    "UNAVAILABLE: The following tasks are unhealthy (stopped sending heartbeats):"
)
SHARED_FATE = (
    _ex(SHARED_FATE_LINE, "jax-ml/jax@2c55d1b docs/fault_tolerance.rst", CLIENT, "CRITICAL"),
)
# A task that comes back with a new incarnation (its process restarted) is refused in these
# words (RegisterTask and the heartbeat's incarnation check).
RESTARTED_TASKS = (
    _ex(
        "ABORTED: /job:jax_worker/replica:0/task:1 unexpectedly tried to connect with a different "
        "incarnation. It has likely restarted.",
        COORDINATION_SERVICE + " (RegisterTask)",
        CLIENT,
    ),
    _ex(
        "ABORTED: /job:jax_worker/replica:0/task:1 Heartbeat: Incarnation ID mismatch: expecting "
        "5306912409148221431 but got 1410386234437208052. The task has restarted and likely "
        "crashed earlier - check for any earlier errors or any scheduler events (e.g. "
        "preemption, eviction) to debug further.",
        COORDINATION_SERVICE + " (TaskState::RecordHeartbeat)",
        CLIENT,
    ),
)
HEARTBEAT_TIMEOUTS = (
    _ex(HEARTBEAT_LINE, "jax-ml/jax issue #23599; " + COORDINATION_SERVICE, CLIENT),
)
# libtpu takes its chips for one process (TryAcquireTpuLock); another that tries is refused.
TPU_LOCK = (
    "openxla/xla@001918b xla/stream_executor/tpu/tpu_initializer_helper.cc (TryAcquireTpuLock)"
)
TPU_IN_USE_LINE = (
    "jaxlib.xla_extension.XlaRuntimeError: ABORTED: The TPU is already in use by process with "
    "pid 2239507. Not attempting to load libtpu.so in this process."
)
VFIO_BUSY_LINE = (
    "Failed to initialize TPU system with error: FAILED_PRECONDITION: open(/dev/vfio/0): Device "
    "or resource busy: Device or resource busy; Couldn't open iommu group /dev/vfio/0"
)
# The kubelet cannot build a container's environment or volumes from a Secret or ConfigMap:
# 'Error: %v' (a Failed event) or a FailedMount event, with the API's not-found error or the
# missing key (pkg/kubelet/kubelet_pods.go makeEnvironmentVariables: "couldn't find key %v in
# Secret %v/%v"). Newer kubelets name the kind in the singular, older ones in the plural.
KUBELET_START = (
    "kubernetes/kubernetes pkg/kubelet/kuberuntime/kuberuntime_container.go (startContainer: "
    "Error: %v)"
)
KUBELET_CONFIG = KUBELET_START + " and pkg/kubelet/kubelet_pods.go (makeEnvironmentVariables)"
MISSING_CONFIG = (
    ("Failed", 'Error: secret "smtp-account" not found', "carlosedp/cluster-monitoring issue #21"),
    (
        "Failed",
        'Error: secrets "busybox-secret-47" not found',
        "kubernetes/kubernetes issue #80466",
    ),
    (
        "Failed",
        'Error: configmap "cluster-config" not found',
        "rustyrazorblade/easy-db-lab issue #733",
    ),
    (
        "Failed",
        "Error: couldn't find key VALUE in Secret default/aegis-secret-aegis-workload-demo",
        "shieldworks/aegis issue #293",
    ),
    (
        "FailedMount",
        'MountVolume.SetUp failed for volume "cf-secrets" : secrets "secrets-2.16.4-1" not found',
        "cloudfoundry/eirini-release issue #111",
    ),
    (
        "FailedMount",
        'MountVolume.SetUp failed for volume "config" : configmap "kube-apiserver" not found',
        "kubernetes/kubernetes issue #90725",
    ),
    (
        "FailedMount",
        'Unable to mount volumes for pod "nginx-ingress-controller-1626740531-88561_default('
        'd125e230-1151-11e6-a2d1-0adbaa6061ff)": configmaps "nginx-template" not found',
        "kubernetes/kubernetes issue #25096",
    ),
)
# XLA's error pages: a TPU core halts on a compiler-generated check when the hosts' programs
# disagree (E0200 scenario 3.A; 03xx), which is no hardware fault.
LAUNCH_GROUP_LINE = (
    "Core halted unexpectedly: INTERNAL: Accelerator device halted prematurely, perhaps due to "
    "an on-device check-failure. Node 0 halted unexpectedly at tag:pc TensorCoreSequencer:1:0x1d9"
    " (from TensorCoreSequencer:1:0x309): scheckne: An unexpected leader shows up in the launch "
    "group with a different launch id than the current group leader."
)
# XLA's error page for Mosaic (Pallas TPU kernel) compilation failures (2xxx).
MOSAIC_ERRORS = "openxla/xla@27585e2 docs/errors/error_2xxx.md"
MOSAIC_VERSION_LINE = (
    "INVALID_ARGUMENT: Mosaic failed to compile TPU kernel: unregistered operation "
    "'tpu.wait_dma' found in dialect ('tpu') that does not allow unknown operations"
)
# containerd could not start a container's process; the kubelet's Failed event carries its
# error after 'Error: ' (kuberuntime_container.go startContainer).
RUNTIME_START_LINES = (
    (
        "Error: failed to create containerd task: failed to create shim task: OCI runtime create "
        "failed: unable to retrieve OCI runtime error (open /run/containerd/io.containerd.runtime."
        "v2.task/k8s.io/emptydir-concealed-disk-over-sizelimit-quotas-false-container/log.json: "
        'no such file or directory): exec: "runc": executable file not found in $PATH',
        "containerd/containerd pull request #11557 (a kubelet Failed event)",
    ),
    (
        "failed to create containerd task: failed to create shim task: OCI runtime create "
        "failed: runc create failed: unable to create new parent process",
        "containerd/containerd issue #7388 (title)",
    ),
)
# kube-scheduler's reason for the pod it deletes to make room for one of higher priority.
SCHEDULER_PREEMPTED = "Preempted"

_CLASSICS = (
    Scenario(
        1,
        "elastic-recovery",
        "Elastic recovery or checkpoint restore fails",
        "a slice was lost and the elastic loop could not recover from a snapshot or a "
        "committed checkpoint before it gave up or the JobSet restarted; or, when no slice "
        "was lost, the program waits for more slices than the workload runs",
        "check which slice was lost, whether a snapshot or committed checkpoint existed, "
        "and the elastic wait timeout against the JobSet restart policy; if none was lost "
        "(the RM kept all its slices ready), make the slice count the program waits for "
        "(`Timed out waiting for N slices`) the JobSet's",
        (
            _example("Timed out waiting for"),
            _example("ElasticRuntimeError"),
            _ex(
                "In-memory snapshot recovery failed (timeout). Falling back to persistent "
                "checkpoint.",
                "a MaxText fork's train.py; not in upstream MaxText",
                CLIENT,
                "WARNING",
                guessed=True,
            ),
        ),
        substrings=(
            "Elastic attempt",
            "Falling back to persistent checkpoint",
            "Timed out waiting for",
            "In-memory snapshot recovery failed",
        ),
    ),
    Scenario(
        2,
        "host-oom",
        "Host memory runs out on the head pod or a TPU host",
        "the kernel OOM killer ended a container process: host (CPU) RAM, not TPU HBM",
        "give the killed container more memory (on the head pod about 100 GiB for the JAX "
        "client and the proxy, 32 GiB for the RM) or reduce its host memory use; when the "
        "kernel ran out for the whole node (`Out of memory`, not `Memory cgroup out of "
        "memory`), another pod on the node may hold it: --action=neighbors names them",
        (
            *(t.example for t in terms.NODE_OOM_REASON_CATALOGUE),
            *(t.example for t in terms.NODE_OOM_CATALOGUE[:3]),
            _example("OOMKilled"),
        ),
        substrings=(
            "Memory cgroup out of memory",
            "Out of memory: Killed process",
            "oom-kill",
            "OOMKilled",
            "System OOM encountered",
        ),
        reasons=terms.NODE_OOM_REASONS,
    ),
    Scenario(
        3,
        "proxy-backend-unknown",
        "The proxy backend is unknown to JAX",
        "JAX started without the Pathways proxy backend registered",
        "call pathwaysutils.initialize() at the start of the program",
        (
            _ex(
                "RuntimeError: Unable to initialize backend 'proxy': Backend 'proxy' is not in "
                "the list of known backends: ['cpu', 'tpu']. (set JAX_PLATFORMS='' to "
                "automatically choose an available backend).",
                "sgl-project/sglang-jax issue #521",
                CLIENT,
            ),
        ),
        substrings=("is not in the list of known backends",),
    ),
    Scenario(
        4,
        "sigterm",
        "SIGTERM received by PID 1",
        "Kubernetes stopped the containers: a preemption (of the VM, or of the pod by the "
        "scheduler for a pod of higher priority), host maintenance or error, a node repair, "
        "or a JobSet restart after another container failed",
        "find what sent it: infrastructure interruptions and pod events, or the earlier "
        "failure that made the JobSet restart",
        (
            _example("SIGTERM"),
            *(t.example for t in terms.INTERRUPTION_METHOD_CATALOGUE),
            *(t.example for t in terms.NODEPOOL_METHOD_CATALOGUE),
            *(t.example for t in terms.NODE_INTERRUPTION_REASON_CATALOGUE),
            _event(
                SCHEDULER_PREEMPTED,
                "Preempted by pod 4f0e2a8c-1b7d-4c55-9d0e-3a6b2c1d9e87 on node "
                "gke-pw-cluster-tpu-np-1-8a1b2c3d-x9k2",
                "kubernetes/kubernetes pkg/scheduler/framework/preemption/preemption.go "
                "(Preempted by pod %v on node %v, a Normal event on the victim pod)",
                "INFO",
            ),
        ),
        substrings=("SIGTERM",),
        reasons=(*terms.NODE_INTERRUPTION_REASONS, SCHEDULER_PREEMPTED),
        methods=terms.INTERRUPTION_METHODS + terms.NODEPOOL_METHODS,
        teardown=True,
        record_fix="the node was interrupted (the record above says how): for Spot "
        "preemption use reserved or on-demand capacity, for host maintenance set a "
        "maintenance window or exclusion, for a host error or a node repair rerun on the "
        "replacement node; checkpoint often so that a restart loses little",
    ),
    Scenario(
        5,
        "topology-mismatch",
        "Slice topology does not match what the RM expects",
        "the TPU slice GKE provisioned differs from the topology the RM was started with, or "
        "workers registered while the autoscaler was still provisioning the other nodes",
        "compare the RM's expected topology with the newly added slice topology and fix "
        "the instance type or node pool; if the nodes were still being provisioned, restart "
        "once they are all ready",
        (_example("does not match with the expected instances"),),
        substrings=("does not match with the expected instances",),
    ),
    Scenario(
        6,
        "proxy-connection-terminated",
        "The client's proxy connection was terminated",
        "the IFRT proxy the client was connected to exited or restarted",
        "find why the proxy stopped (its own log, node OOMs); restart the workload",
        (
            _ex(
                "Internal error from proxy server during Array::IsDeleted(): UNAVAILABLE:"
                "Connection to IFRT proxy server was terminated: FAILED_PRECONDITION: "
                "GrpcClientSession: writes no longer allowed.",
                TROUBLESHOOTING_DOC,
                CLIENT,
            ),
            _ex(
                "FAILED_PRECONDITION: GrpcClientSession: writes no longer allowed.", ARCHIVE, CLIENT
            ),
        ),
        substrings=("GrpcClientSession: writes no longer allowed",),
    ),
    Scenario(
        7,
        "cached-executable-edited",
        "Cached executable edited while being read",
        "a race between writing and reading the compiled-executable cache in Cloud Storage",
        "mount the bucket with GCSFuse so writes are atomic",
        (_example("ABORTED:"), _example("was edited during the operation")),
        substrings=("was edited during the operation",),
    ),
    Scenario(
        8,
        "lost-peer",
        "Lost connection to a peer",
        "a TPU worker exited (hardware failure, OOM or a fatal error) and its peers lost it",
        "read the logs and node of the first worker that failed",
        (_example("lost connection to peer"), _example("Pipe from scheduler to aggregator")),
        substrings=("lost connection to peer", "Pipe from scheduler to aggregator"),
        lost_peer=True,
    ),
    Scenario(
        9,
        "alts-handshake",
        "ALTS handshake fails for a client outside Google Cloud",
        "the proxy expects ALTS, which only works for clients on Google Cloud",
        "set IFRT_PROXY_USE_INSECURE_GRPC_CREDENTIALS=true on the client and the proxy "
        "(trusted networks only), or run the client on Google Cloud",
        (_example("from handshaker service"),),
        substrings=("from handshaker service", "Input frame length is out of range"),
        info_level=True,
    ),
    Scenario(
        10,
        "gcs-lifecycle-prefixes",
        "Too many Cloud Storage lifecycle prefixes",
        "the --gcs_scratch_location bucket reached the 50-prefix lifecycle limit",
        "remove unused lifecycle rules; use one common prefix for all workloads",
        (_example("Lifecycle matches_prefix"),),
        substrings=("Lifecycle matches_prefix",),
    ),
    Scenario(
        11,
        "version-mismatch",
        "JAX and Pathways versions do not match",
        "the Pathways images were built for another JAX release than the client's",
        "use the image tag jax-<your JAX version> (or YYYYMMDD-jax_<version>); when no "
        "image is built for the client's JAX (a version the release notes do not list), pin "
        "the client to the JAX the images name instead",
        (
            _example("failed to agree on the protocol version"),
            _example("Failed to deserialize the Mosaic module"),
        ),
        substrings=(
            "failed to agree on the protocol version",
            "Failed to deserialize the Mosaic module",
        ),
    ),
    Scenario(
        12,
        "image-pull",
        "Image pull failures",
        "a container image could not be pulled (missing tag, no permission, network)",
        "read the pull error; list the registry's tags and use a published one, or grant "
        "the node service account read access",
        (
            _event(
                "Failed",
                CONTAINERD_NOT_FOUND,
                KUBELET_IMAGES + "; containerd's not-found wording from public kubectl "
                "describe captures (e.g. geldata/gel-deploy issue #10)",
            ),
            _event(
                "Failed",
                "Error: ErrImagePull",
                "kubernetes/kubernetes pkg/kubelet/kuberuntime/kuberuntime_container.go "
                "(startContainer: Error: %v)",
            ),
            _event(
                "BackOff",
                f'Back-off pulling image "{PATHWAYS_IMAGE}"',
                KUBELET_IMAGES + " (a Normal event)",
                "INFO",
            ),
            _event(
                "Failed",
                "Error: ImagePullBackOff",
                "kubernetes/kubernetes pkg/kubelet/kuberuntime/kuberuntime_container.go "
                "(startContainer: Error: %v)",
            ),
        ),
        substrings=(
            "Failed to pull image",
            "Back-off pulling image",
            "ErrImagePull",
            "ImagePullBackOff",
        ),
    ),
    Scenario(
        13,
        "port-collision",
        "Port collisions on the host network",
        "another process on the node holds a Pathways port (hostNetwork pods share ports)",
        "find the other user of the port (neighbors), set host exclusivity or move ports",
        (
            _example("Address already in use"),
            _example("failed to bind"),
            terms.SCHEDULING_FAILURE_CATALOGUE[0].example,
        ),
        substrings=("Address already in use", "didn't have free ports", "failed to bind"),
    ),
    Scenario(
        14,
        "hang",
        "The job hangs without an error",
        "one component stopped making progress and the rest waited for it",
        "find the component that went quiet first and read its last lines, and pending or "
        "restarted pods; a Megascale hang digest names its suspects: remove the hosts it "
        "calls bad (cordon their nodes) and restart the workload",
        (
            _ex(
                "Megascale detects a hang that is likely caused by bad TPU chips on the following "
                "hosts. Please remove the hosts from the fleet and restart the workload. If "
                "problem persists please contact Megascale XLA team.",
                HANG_PLAYBOOK,
                WORKER,
            ),
            _ex(
                "Megascale detects a hang that is likely caused by inconsistent HLO module "
                "compilation across workers. This can be caused by some workers running with "
                "different JIT functions or a bug in the XLA compiler. Please inspect the HLO "
                "dumps to confirm the root cause.",
                HANG_PLAYBOOK,
                WORKER,
            ),
            _example("Megascale detects a hang"),
            _example("HANG_DETECTED"),
        ),
        substrings=("HANG_DETECTED", "Megascale detects a hang"),
        hang=True,
    ),
    Scenario(
        15,
        "transfer-stall",
        "Proxy-to-worker transfers stall",
        "host-to-device transfers from the IFRT proxy to the workers stalled (a Pathways "
        "runtime problem, not Orbax, Cloud Storage or user code)",
        "compare image tags with the last good run; call pathwaysutils.initialize() before "
        "creating the Orbax checkpoint manager so workers read Cloud Storage directly",
        tuple(t.example for t in terms.STALL_CATALOGUE[:2]),
        substrings=("Still waiting to acquire semaphore", "Recv completion error"),
    ),
)

_CLASSES = (
    Scenario(
        16,
        "user-code-exception",
        "The program raised an exception",
        "the user's program failed on its own: a module it imports is missing, packages in "
        "the image disagree on versions (JAX, jaxlib, Flax, Orbax), or a mesh or sharding "
        "does not fit the arrays or the devices; Pathways only carried the error",
        "read the exception line and the frames above it; install the missing module or pin "
        "matching versions in the client image, or make the mesh shape and the sharded "
        "dimensions agree with the device count",
        (
            _example("ModuleNotFoundError"),
            _example("ImportError"),
            _example("but this version of jax requires"),
            _example("IndivisibleError"),
            _example("must equal the product of mesh_shape"),
        ),
        substrings=(
            "ModuleNotFoundError",
            "ImportError",
            "but this version of jax requires",
            "IndivisibleError",
            "should evenly divide the shape",
            "must equal the product of mesh_shape",
        ),
    ),
    Scenario(
        17,
        "compilation-service-crash",
        "A service on the head node went away (compilation service or RM)",
        "the compilation service (or the resource manager) on the CPU head node crashed or "
        "was stopped, so pending compilations and the connections to it failed; no TPU host "
        "is at fault",
        "read the head pod's own logs (pathways-rm, pathways-proxy) and the head node's OOM "
        "kills and interruptions; give the head pod more memory if it was OOM-killed",
        (_ex(COMPILE_SERVICE_LINE, ARCHIVE, CLIENT),),
        substrings=("Compilation service has crashed",),
        head_service=True,
        wraps=True,
    ),
    Scenario(
        18,
        "unknown-flag",
        "A Pathways container was given a flag its image does not know",
        "a flag in the container's arguments does not exist in that image (removed, renamed "
        "or from another release), so the binary exits at start-up",
        "remove or rename the flag, or use the image release that has it; keep the server, "
        "proxy and sidecar images on one tag",
        (_example("Unknown command line flag"),),
        substrings=("Unknown command line flag",),
    ),
    Scenario(
        19,
        "thread-exhaustion",
        "The client could not start a thread",
        "pthread_create failed with EAGAIN (11): the container reached its process or thread "
        "limit, or had no memory left for thread stacks",
        "raise the pod's process limit or memory, or start fewer threads (data-loader "
        "workers, thread pools)",
        (
            _example("Check failed"),
            _ex(
                "Check failed: ret == 0 (11 vs. 0) Thread pjrt_async_work_runner creation via "
                "pthread_create failed.",
                ARCHIVE,
                CLIENT,
                "CRITICAL",
            ),
        ),
        substrings=("creation via pthread_create",),
    ),
    Scenario(
        20,
        "proxy-compile-error",
        "Compilation failed and the error came back through the proxy",
        "XLA rejected the program when Pathways compiled it; the compile error travelled "
        "back to the client through the IFRT proxy",
        "read the compile error: it is a program or version problem (an unsupported "
        "operation, shape or sharding), not a Pathways outage; check that the client's JAX "
        "matches the Pathways images (scenario 11)",
        (
            _ex(
                "compile: INVALID_ARGUMENT: E1200: …",
                ARCHIVE + " (the rest of the line elided)",
                CLIENT,
            ),
        ),
        substrings=("compile: INVALID_ARGUMENT",),
    ),
    Scenario(
        21,
        "tpu-hardware-fault",
        "A TPU chip or host failed",
        "the TPU runtime reported a fatal chip error (a halted core, a fatal driver error, a "
        "failed TPU session): faulty hardware, or an on-device check failure such as a bug "
        "in a custom kernel",
        "if it repeats on the same host, take that host out (recreate or repair its node) "
        "and restart; if it follows a change to a Pallas or Mosaic kernel, suspect the "
        "kernel first",
        (
            _example("FATAL ERROR"),
            _example("all pending programs will fail"),
            _example("TPU session error"),
            _example("Core halted unexpectedly"),
            _ex(
                "6x2x0_SC1: *** A program or fatal error occurred, all pending programs will "
                "fail, and results may be corrupted. This is likely an XLA compiler bug or your "
                "job hit a bad TPU hardware.",
                MAXTEST,
                WORKER,
            ),
            _example("SLICE_FAILURE"),
        ),
        substrings=(
            "!!!! FATAL ERROR !!!!",
            "all pending programs will fail",
            "Session master detected TPU session error",
            "Core halted unexpectedly",
            "SLICE_FAILURE_CHIP_DRIVER_ERROR",
        ),
    ),
    Scenario(
        22,
        "hbm-exhausted",
        "TPU memory (HBM) ran out",
        "the program needs more TPU high-bandwidth memory than the chips have, when it is "
        "compiled or when buffers are allocated; this is not host RAM",
        "lower the memory per device: a smaller batch or sequence, more sharding, "
        "rematerialization, or a larger slice; more container memory does not help",
        (
            _example("XlaRuntimeError"),
            _example("RESOURCE_EXHAUSTED"),
            _ex(HBM_PROGRAM_LINE, XLA_ERRORS + "error_0101.md", CLIENT),
            _ex(HBM_EARLY_ABORT_LINE, XLA_ERRORS + "error_1000.md", CLIENT),
            _ex(HBM_SPARSECORE_LINE, XLA_ERRORS_MIRROR + "error_1000.md", CLIENT),
        ),
        substrings=(
            "memory space hbm",
            "Error allocating device buffer",
            "at the bottom of memory",
            "unlikely to have enough memory",
            "TensorCore Hbm usage",
        ),
    ),
    Scenario(
        23,
        "megascale-missing-hosts",
        "Megascale is still waiting for hosts at start-up",
        "some TPU hosts of the multislice job never joined Megascale's topology discovery: "
        "their pods are pending, unscheduled or failing before they start",
        "find the missing hosts' pods (pending or crash-looping workers in the pod events) "
        "and check the node pools' capacity",
        (_example("Missing hosts"),),
        substrings=("Topology Discovery in progress. Missing hosts",),
    ),
    Scenario(
        24,
        "missing-bucket",
        "The Cloud Storage bucket does not exist",
        "the bucket named in --gcs_scratch_location (used for the persistent compilation "
        "cache) does not exist or is misspelt",
        "create the bucket or correct its name; when the run failed for another reason too, "
        "fix that first",
        (_example("The specified bucket does not exist"),),
        substrings=("The specified bucket does not exist",),
        incidental=True,
    ),
    Scenario(
        25,
        "logging-permission",
        "The workload may not write to Cloud Logging",
        "the client's service account lacks logging.logEntries.create, so records it sends "
        "through the Cloud Logging client are lost (its stdout and stderr still arrive)",
        "grant roles/logging.logWriter to the service account; this rarely stops a run, so "
        "look for another error first",
        (_example("logging.logEntries.create"),),
        substrings=("logging.logEntries.create",),
        incidental=True,
    ),
    Scenario(
        26,
        "kueue-eviction",
        "Kueue evicted the workload (preemption or PodsReady timeout)",
        "Kueue evicted the JobSet's Workload and suspended the JobSet, which stopped every "
        "pod: a workload of higher priority (or one reclaiming its cohort's quota) took the "
        "TPUs, or the pods were not all ready within Kueue's waitForPodsReady timeout; the "
        "SIGTERM and Killing lines that follow are that stop",
        "for a preemption, give the run a higher WorkloadPriorityClass, a ClusterQueue that "
        "does not lend the quota it needs, or reserved capacity, and checkpoint often: Kueue "
        "requeues the JobSet and resumes it when quota frees up; for the PodsReady timeout, "
        "find why the pods started late (--action=pod-events: image pulls, scheduling) or "
        "raise waitForPodsReady.timeout",
        (
            Example(
                "Preempted to accommodate a workload (UID: 9f542104-a9e2-4344-ad2e-9c136204da18, "
                "JobUID: a20d0a6a-64a3-46ce-9b95-8cfb3bf6e675) due to prioritization in the "
                "ClusterQueue; preemptor path: /tpu-cohort/cq-prod; preemptee path: "
                "/tpu-cohort/cq-research",
                KUEUE_STOP + " + pkg/scheduler/preemption/preemption.go (preemptionMessage)",
                JOBSET_EVENT,
                "INFO",
                reason="Stopped",
            ),
            Example(
                "Exceeded the PodsReady timeout default/jobset-llama-train-5c7f2",
                KUEUE_STOP + " + pkg/controller/core/workload_controller.go",
                JOBSET_EVENT,
                "INFO",
                reason="Stopped",
            ),
        ),
        substrings=("Preempted to accommodate a", "Exceeded the PodsReady timeout"),
    ),
    Scenario(
        27,
        "node-pressure-eviction",
        "The kubelet evicted a pod because its node ran low on memory or disk",
        "the node's free memory (or disk, inodes, PIDs) fell below a kubelet eviction "
        "threshold, and the kubelet stopped the pod using the most of it beyond its request "
        "to reclaim it before the kernel OOM killer had to act; the SIGTERM and Killing lines "
        "that follow are that stop",
        "read which resource ran low and which container used it beyond its request; give "
        "that container a request equal to its real use (the head pod's JAX client and proxy "
        "need tens of GiB) or lower its use, and keep other pods off the node "
        "(--action=neighbors names them); for disk, clean up or enlarge the boot disk",
        (
            _event(
                "Evicted",
                "The node was low on resource: memory. Threshold quantity: 100Mi, available: "
                "51280Ki. Container pathways-worker was using 402653184Ki, request is 0, has "
                "larger consumption of memory. ",
                KUBELET_EVICTION,
            ),
            *(t.example for t in terms.NODE_PRESSURE_REASON_CATALOGUE),
        ),
        substrings=("The node was low on resource:",),
        reasons=terms.NODE_PRESSURE_REASONS,
    ),
    Scenario(
        28,
        "storage-limit-eviction",
        "The kubelet evicted a pod that outgrew its own local storage limit",
        "a container wrote more to its node's local disk (its writable layer, logs or an "
        "emptyDir volume such as a compilation cache or checkpoint staging area) than its "
        "ephemeral-storage limit or the volume's sizeLimit allows, and the kubelet evicted the "
        "pod; the node itself was not short of disk, and the SIGTERM and Killing lines that "
        "follow are that stop",
        "find what the named container or volume writes locally (caches, checkpoints staged "
        "on local disk, core dumps, verbose logs) and move it to a bucket or a larger volume, "
        "or raise the container's ephemeral-storage limit or the emptyDir's sizeLimit to its "
        "real use; the eviction repeats on every restart until then",
        tuple(
            _event("Evicted", line, KUBELET_STORAGE_LIMIT)
            for line in (
                'Container pathways-worker exceeded its local ephemeral storage limit "10Gi". ',
                "Pod ephemeral local storage usage exceeds the total limit of containers 20Gi. ",
                'Usage of EmptyDir volume "compilation-cache" exceeds the limit "50Gi". ',
            )
        ),
        substrings=(
            "exceeded its local ephemeral storage limit",
            "Pod ephemeral local storage usage exceeds the total limit",
            "Usage of EmptyDir volume",
        ),
    ),
    Scenario(
        29,
        "tpu-unschedulable",
        "The TPU pods cannot be scheduled",
        "the scheduler found no node with free TPU chips for the pod (`Insufficient "
        "google.com/tpu`: the TPU node pool is full, still being created, or held by another "
        "workload) or none whose labels match the pod's TPU node selector (accelerator type "
        "and topology); the pod stays Pending, and everything that waits for that host (the "
        "RM, the client's first computation) waits with it",
        "compare the pod's nodeSelector (cloud.google.com/gke-tpu-accelerator, "
        "cloud.google.com/gke-tpu-topology) and google.com/tpu request with the TPU node "
        "pools (gcloud container node-pools list); if they match, the pool lacks free hosts: "
        "check its size and autoscaling limit, the project's TPU quota or reservation, and "
        "whether an earlier JobSet still holds the nodes (delete finished JobSets); with "
        "queued provisioning the wait is expected until capacity is granted",
        (
            _event(
                "FailedScheduling",
                "0/6 nodes are available: 2 Insufficient google.com/tpu, 4 node(s) didn't match "
                "Pod's node affinity/selector. preemption: 0/6 nodes are available: 2 No "
                "preemption victims found for incoming pod, 4 Preemption is not helpful for "
                "scheduling.",
                SCHEDULER_FIT,
            ),
        ),
        substrings=("Insufficient google.com/tpu", "didn't match Pod's node affinity"),
    ),
    Scenario(
        30,
        "gcs-permission",
        "The workload may not read or write its Cloud Storage bucket",
        "the identity the pods run as (the Kubernetes service account through Workload "
        "Identity Federation, or the node pool's service account) lacks the Cloud Storage "
        "permission the message names on a bucket the run reads or writes: its checkpoints, "
        "its data, or the Pathways servers' --gcs_scratch_location",
        "grant the principal the message names a role holding the missing permission on that "
        "bucket (roles/storage.objectUser reads and writes objects), check that the pods run "
        "as that principal, and restart",
        (
            _ex(GCS_FORBIDDEN_LINE, GCS_FORBIDDEN_SOURCE, CLIENT),
            _example("does not have storage."),
            next(t.example for t in terms.SCHEDULING_FAILURE_CATALOGUE if t.text == "FailedMount"),
        ),
        substrings=("does not have storage.", "Permission 'storage."),
    ),
    Scenario(
        31,
        "jax-coordination",
        "The JAX processes lost each other (coordination service)",
        "a process of a multi-host JAX run (one per TPU host, started by "
        "jax.distributed.initialize) did not reach a barrier in time or stopped sending "
        "heartbeats: it never started (its pod pending or crashing before it connected), it "
        "died (an OOM kill, a TPU fault, a preemption) or it was slow (a long import or "
        "checkpoint write); the processes that waited for it only report it",
        "find the tasks the message names (task N is JAX process N, the pod of completion "
        "index N) and read their logs, pod events and nodes before the timeout; fix what "
        "stopped them; raise the timeout (initialization_timeout, heartbeat_timeout_seconds, "
        "the checkpointer's barrier timeout) only when they were just slow",
        (*BARRIER_TIMEOUTS, *HEARTBEAT_TIMEOUTS, *SHARED_FATE, *RESTARTED_TASKS),
        substrings=(
            "Barrier timed out",
            "heartbeat timeout. This indicates that the remote task",
            "stopped sending heartbeats",
            "JAX distributed service detected",
            "It has likely restarted",
            "The task has restarted and likely crashed earlier",
        ),
    ),
    Scenario(
        32,
        "tpu-in-use",
        "Another process already holds the TPU chips",
        "a second process on the host tried to open TPU chips that a process started earlier "
        "still held: another JAX process in the same container (a check or helper run before "
        "the program, a data-loader child that imports JAX and touches the TPU, a previous run "
        "not yet exited), or a process outside the pod's accounting (a privileged or host-level "
        "process, a pod on the node that uses the TPU without requesting it)",
        "start one TPU process per host: stop the earlier process, keep JAX off the TPU in "
        "helpers and data-loader workers (JAX_PLATFORMS=cpu for them), make sure every pod "
        "that uses the TPU requests google.com/tpu, and wait for the previous run's pods to "
        "terminate before starting the next; if nothing else should hold the chips, recreate "
        "the node",
        (
            _ex(TPU_IN_USE_LINE, "jax-ml/jax issue #13260; " + TPU_LOCK, CLIENT),
            _example("Not attempting to load libtpu.so"),
            _ex(VFIO_BUSY_LINE, "marin-community/marin issue #2618", CLIENT),
        ),
        substrings=(
            "The TPU is already in use by",
            "Not attempting to load libtpu.so",
            "Device or resource busy; Couldn't open iommu group",
        ),
        info_level=True,
    ),
    Scenario(
        33,
        "missing-config",
        "A Secret or ConfigMap the pods use is missing",
        "a container's environment (env valueFrom, envFrom) or a volume refers to a Secret or "
        "ConfigMap, or a key in one, that does not exist in the pod's namespace (not created "
        "yet, misspelt, created in another namespace), so the kubelet cannot create the "
        "container (CreateContainerConfigError) or mount the volume, and the pod never starts; "
        "the rest of the workload waits for it",
        "create the Secret or ConfigMap (or the key) the event names in the workload's "
        "namespace, or correct the name in the JobSet; the kubelet retries and starts the "
        "container once it exists, but a Job that has already failed must be recreated",
        tuple(
            _event(reason, line, f"{source}; {KUBELET_CONFIG}")
            for reason, line, source in MISSING_CONFIG
        ),
        substrings=(
            ': secret "',
            ': secrets "',
            ': configmap "',
            ': configmaps "',
            "Error: couldn't find key",
        ),
    ),
    Scenario(
        34,
        "launch-group-mismatch",
        "A TPU core halted on a launch group mismatch",
        "a TPU core halted on a check the compiler inserts: a core joined a launch group whose "
        "leader had another launch id. In a multi-controller JAX run the hosts launched "
        "different programs (XLA_FLAGS or LIBTPU_INIT_ARGS, image, JAX or libtpu versions that "
        "differ, or a host-dependent jit, shape or order of computations); under Pathways, a "
        "single controller, XLA's error page calls it a bug in the runtime's scheduling. "
        "Either way it is not a hardware fault",
        "multi-controller: give every host the same image, flags and environment, and make "
        "every host run the same computations in the same order; Pathways: compare the image "
        "tags of the RM, proxy and workers with the last good run and report it with the "
        "Pathways release; do not take the hosts out, they are not faulty",
        (
            _ex(
                LAUNCH_GROUP_LINE,
                "openxla/xla@2c8839d docs/errors/error_0200.md (scenario 3.A)",
                WORKER,
            ),
            _example("shows up in the launch group"),
        ),
        substrings=("shows up in the launch group",),
        wraps=True,
    ),
    Scenario(
        35,
        "mosaic-compile",
        "A Pallas kernel did not compile (Mosaic)",
        "the Mosaic compiler rejected a custom Pallas TPU kernel: its block shapes or indices "
        "do not fit the TPU's tiling, it uses a data type, operation or layout this TPU "
        "generation does not support, or it asks for more scoped VMEM than the core has; an "
        "'unregistered operation' means the JAX that built the kernel and the libtpu that "
        "compiles it come from different releases",
        "read the reason after 'Mosaic failed to compile TPU kernel' and change the kernel or "
        "its block sizes (multiples of the tiling, dtypes the generation supports, less "
        "scratch memory); for an unregistered operation use a JAX and libtpu (under Pathways, "
        "server images) of one release; retrying does not help",
        (
            _example("Mosaic failed to compile TPU kernel"),
            _ex(MOSAIC_VERSION_LINE, MOSAIC_ERRORS, CLIENT),
        ),
        substrings=("Mosaic failed to compile TPU kernel",),
        wraps=True,
    ),
    Scenario(
        36,
        "container-start-failed",
        "The container runtime could not start the container",
        "containerd could not start the container's process: its command or entrypoint is not "
        "in the image (a typo, another image, a script whose interpreter is missing), the image "
        "cannot satisfy its working directory, mounts or user, or the node's runtime itself "
        "failed (runc missing or broken, the node out of resources); the container never ran, "
        "and the kubelet retries it (RunContainerError, then a crash-loop back-off)",
        "read the error after 'OCI runtime create failed': for 'executable file not found', "
        "correct the container's command and args or the image (run the image with the same "
        "command to check); when it names the runtime or happens on one node only, recreate "
        "that node",
        tuple(
            _event("Failed", line, f"{source}; {KUBELET_START}")
            for line, source in RUNTIME_START_LINES
        ),
        substrings=("failed to create containerd task", "OCI runtime create failed"),
    ),
)
SCENARIOS = _CLASSICS + _CLASSES
# Scenarios whose lines embed another's signature are tried first.
MATCH_ORDER = tuple(sorted(SCENARIOS, key=lambda scenario: not scenario.wraps))
# Every known failure's message substrings, once each: triage reads them with the crash lines.
SIGNATURES = tuple(dict.fromkeys(text for scenario in SCENARIOS for text in scenario.substrings))
HANG = next(scenario for scenario in SCENARIOS if scenario.hang)
TEARDOWN = next(scenario for scenario in SCENARIOS if scenario.teardown)
HEAD_SERVICE = next(scenario for scenario in SCENARIOS if scenario.head_service)


def match(entry: Entry) -> Scenario | None:
    """The first scenario whose signature the entry carries, or None."""
    text = bare_message(entry).lower()
    reason, method = event_reason(entry), audit_method(entry)
    for scenario in MATCH_ORDER:
        if (
            reason in scenario.reasons
            or method in scenario.methods
            or any(s.lower() in text for s in scenario.substrings)
        ):
            return scenario
    return None


def fix_of(scenario: Scenario, entry: Entry) -> str:
    """The scenario's fix for a root cause: its `record_fix` when the entry is one of the
    records or events that identify it (an interruption found, not the signal it sent)."""
    recorded = audit_method(entry) in scenario.methods or event_reason(entry) in scenario.reasons
    return scenario.record_fix if scenario.record_fix and recorded else scenario.fix


def peer_node(text: str) -> str | None:
    """The node a lost-peer line names (`lost connection to peer at http://machine/<node>/`)."""
    found = _PEER_NODE_RE.search(text)
    return found.group(1) if found else None
