"""Search-term catalogues and container names, per component and per question.

Terms are matched case-insensitively as substrings of the message fields, so
each is chosen to be specific: `OOM` alone would match every `room`. Each term
carries a line it finds and where that line was seen (see examples.py); the
filter builders use the plain tuples derived from the catalogues.
"""

from __future__ import annotations

from pathways_workload.examples import (
    ABSL_SIGNALS,
    ARCHIVE,
    AUDIT,
    CONTROLLER,
    GCE_INTERRUPTIONS,
    HANG_PLAYBOOK,
    KUBELET,
    KUBELET_IMAGES,
    MAXTEST,
    MAXTEXT,
    NODE_EVENT,
    NODEPOOL,
    PATHWAYS_UTILS,
    POD_EVENT,
    SERIAL_CONSOLE,
    SKILL_DOC,
    TROUBLESHOOTING_DOC,
    Example,
    Term,
    texts,
)

USER_CONTAINERS = ("jax-tpu", "workload-container", "main", "user-workload")
PROXY_CONTAINERS = ("pathways-proxy",)
RM_CONTAINERS = ("pathways-rm",)
WORKER_CONTAINERS = ("pathways-worker",)
SIDECAR_CONTAINERS = ("colocated-python-sidecar", "python-sidecar")

CLIENT, PROXY, RM, WORKER, SIDECAR = (
    "jax-tpu",
    "pathways-proxy",
    "pathways-rm",
    "pathways-worker",
    "colocated-python-sidecar",
)
ELASTIC_DOC = MAXTEXT + "docs/run_maxtext/run_maxtext_elastic_training.md"
ELASTIC_UTILS = MAXTEXT + "src/maxtext/utils/elastic_utils.py"
PLACEMENT = (
    PATHWAYS_UTILS + "pathwaysutils/experimental/shared_pathways_service/isc_pathways.py "
    "(_wait_for_placement matches these words in proxy logs; the full lines are not public)"
)
SHARED_SERVICE_README = (
    PATHWAYS_UTILS + "pathwaysutils/experimental/shared_pathways_service/README.md"
)
# The workers' start-up lines were shown by that README on its `sps` branch, not on main.
SHARED_SERVICE_WORKER_LOGS = (
    "AI-Hypercomputer/pathways-utils@43fa093 (branch sps) "
    "pathwaysutils/experimental/shared_pathways_service/README.md "
    "(kubectl logs of the pathways-worker containers)"
)
BUILD_LABEL = (
    "the `Build label:` line libtpu logs at start-up; the Pathways binaries' label is not public"
)
LOST_PEER_LINE = (
    "DEADLINE_EXCEEDED: lost connection to peer at http://machine/gke-pw-cluster-tpu-np-1-"
    "8a1b2c3d-x9k2/events#srcs=borg%2Bcoroner since 10.99987274s ago; this usually means that "
    "the peer has unexpectedly gone away (peer stopped sending messages since "
    "2026-10-22T11:29:49.12Z; timeout is 10s and the current machine is http://machine/"
    "gke-pw-cluster-cpu-np-5f3a9c1e-h7kq/events#srcs=borg%2Bcoroner)"
)
HBM_COMPILE_LINE = (
    "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. "
    "Ran out of memory in memory space hbm. Used 21.95G of 15.48G hbm. Exceeded hbm capacity "
    "by 6.47G."
)
HBM_BUFFER_LINE = (
    "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Error allocating device buffer: "
    "Attempting to allocate 15.65G. That was not possible. There are 11.08G free.; (0x0x0_HBM0)"
)
PROXY_BACKEND_LINE = (
    "RuntimeError: Unable to initialize backend 'proxy': UNAVAILABLE: Unable to establish "
    "connection to ifrt_proxy server, please check provided address "
    "'example-workload-proxy-0-0.example-workload.default.svc.example-cluster-domain.:38676'; "
    "detailed error: DNS resolution failed"
)
LIFECYCLE_LINE = (
    "INVALID_ARGUMENT : Permanent error, with a last message of Lifecycle matches_prefix cannot "
    "specify more than 50 prefixes per config.; Error while initializing persistent cache "
    "storage Cloud Storage"
)
TOPOLOGY_LINE = (
    "FAILED_PRECONDITION: The newly added instance does not match with the expected instances; "
    "this is currently not allowed. for job 3"
)
ALTS_LINE = "Status 11 from handshaker service: Input frame length is out of range"
ALTS_SOURCE = (
    "grpc/grpc@016a556 src/core/tsi/alts/handshaker/alts_handshaker_client.cc "
    "(LOG_EVERY_N_SEC(INFO)); status text from " + SKILL_DOC
)
GOAWAY_LINE = (
    "ipv4:10.8.0.12:29001: Received a GOAWAY with error code ENHANCE_YOUR_CALM and debug data "
    'equal to "too_many_pings". Current keepalive time (before throttling): 4000ms'
)
GOAWAY_SOURCE = "grpc/grpc issue #33661 (chttp2_transport.cc)"
SLICE_FAILURE_LINE = (
    "Detected failure SLICE_FAILURE_CHIP_DRIVER_ERROR in session e6c885828b538167; "
    "Start failure handling"
)


def term(
    text: str,
    line: str,
    source: str,
    container: str,
    severity: str = "ERROR",
    *,
    guessed: bool = False,
    reason: str = "",
) -> Term:
    """A term and the example line that shows it."""
    return Term(text, Example(line, source, container, severity, guessed, reason))


def signal_term(name: str) -> Term:
    """A fatal signal, as absl's failure-signal handler reports it."""
    return term(name, f"*** {name} received at time=1792668600 on cpu 12 ***", ABSL_SIGNALS, WORKER)


CRASH_CATALOGUE = (
    term(
        "Segmentation fault",
        "Fatal Python error: Segmentation fault",
        "python/cpython Modules/faulthandler.c (faulthandler_handlers)",
        CLIENT,
    ),
    signal_term("SIGSEGV"),
    signal_term("SIGABRT"),
    signal_term("SIGBUS"),
    signal_term("SIGILL"),
    term(
        "SIGTERM",
        "*** SIGTERM received by PID 1 (TID 1) on cpu 80 from PID 0; stack trace: ***",
        "pytorch/xla issue #1963 (libtpu's failure-signal handler; also #3947, #5616)",
        WORKER,
    ),
    term(
        "core dumped",
        "Aborted (core dumped)",
        "kingoflolz/mesh-transformer-jax issue #59 (after a fatal TPU runtime line)",
        CLIENT,
    ),
    term(
        "Check failed",
        "Check failed: ret == 0 (11 vs. 0)Thread tf_ creation via pthread_create() failed.",
        "openxla/xla@61c2f07 xla/tsl/platform/default/env.cc (PThread); "
        "tensorflow/tensorflow issue #41532",
        CLIENT,
        "CRITICAL",
    ),
    term(
        "Check failure stack trace",
        "*** Check failure stack trace: ***",
        "abseil/abseil-cpp@926f1d0 absl/log/internal/log_message.cc",
        WORKER,
    ),
    term(
        "Fatal Python error",
        "Fatal Python error: Aborted",
        "python/cpython Modules/faulthandler.c (faulthandler_handlers)",
        CLIENT,
    ),
    term(
        "Traceback (most recent call last)",
        "Traceback (most recent call last):",
        "python/cpython Lib/traceback.py (the header of every printed traceback)",
        CLIENT,
    ),
    term(
        "terminate called",
        "terminate called after throwing an instance of 'std::bad_alloc'",
        "gcc-mirror/gcc libstdc++-v3/libsupc++/vterminate.cc (__verbose_terminate_handler)",
        PROXY,
    ),
    term(
        "std::bad_alloc",
        "  what():  std::bad_alloc",
        "gcc-mirror/gcc libstdc++-v3/libsupc++/vterminate.cc (__verbose_terminate_handler)",
        PROXY,
    ),
    term(
        "out of memory",
        "RESOURCE_EXHAUSTED: Out of memory while trying to allocate 285212672 bytes.",
        "google-deepmind/jaxline issue #11",
        CLIENT,
    ),
    term(
        "OOMKilled",
        "Container pathways-rm terminated: OOMKilled",
        "Kubernetes' container termination reason OOMKilled; no container line shows it",
        RM,
        guessed=True,
    ),
    term(
        "oom-kill",
        "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),task=python3,pid=23793,uid=0",
        "torvalds/linux mm/oom_kill.c (a kernel line; in a container only if it echoes dmesg)",
        WORKER,
        guessed=True,
    ),
    term("RESOURCE_EXHAUSTED", HBM_BUFFER_LINE, "google-deepmind/gemma issue #85", CLIENT),
    term("FAILED_PRECONDITION", TOPOLOGY_LINE, ARCHIVE, RM),
    term("DEADLINE_EXCEEDED", LOST_PEER_LINE, ARCHIVE, CLIENT),
    term("DATA_LOSS", "DATA_LOSS: Pipe from scheduler to aggregator", SKILL_DOC, CLIENT),
    term(
        "UNAVAILABLE",
        "Connection to IFRT proxy server was terminated: UNAVAILABLE: Socket closed",
        ARCHIVE,
        CLIENT,
    ),
    term(
        "PERMISSION_DENIED",
        "\tstatus = StatusCode.PERMISSION_DENIED",
        TROUBLESHOOTING_DOC + " (the Cloud Logging client's _InactiveRpcError; also "
        "google/fuzzbench issue #1286)",
        CLIENT,
    ),
    term(
        "Permission denied",
        "Unsuccessful TensorSliceReader constructor: Failed to get matching files on "
        "gs://xusongpei1995/output/model.ckpt-0: Permission denied: Error executing an HTTP "
        "request: HTTP response code 403 with body '{",
        "nyu-dl/dl4marco-bert issue #19",
        CLIENT,
    ),
    term(
        "does not have storage.",
        "llama-train@my-project.iam.gserviceaccount.com does not have storage.objects.get access "
        "to the Google Cloud Storage object. Permission 'storage.objects.get' denied on resource "
        "(or it may not exist).",
        "spaceml-org/STARCOP issue #6 (Cloud Storage's refusal, the second line of gcsfs's "
        "OSError)",
        CLIENT,
    ),
    term(
        "Mosaic failed to compile TPU kernel",
        "INTERNAL: Mosaic failed to compile TPU kernel: cannot statically prove that index in "
        "dimension 0 is a multiple of 1024",
        "openxla/xla@27585e2 docs/errors/error_2xxx.md",
        CLIENT,
    ),
    term(
        # The second line of a core halt's message when the hosts' launches disagree.
        "shows up in the launch group",
        "An unexpected peer shows up in the launch group with a different launch id than the "
        "current group leader. If using single controller backends, this signals a bug in the "
        "runtime scheduling system or above. If using multi-controller backends",
        "openxla/xla@27585e2 docs/errors/error_03xx.md",
        CLIENT,
    ),
    term(
        # Logged at INFO by older releases: the process runs without its TPU.
        "Not attempting to load libtpu.so",
        'libtpu.so already in use by another process probably owned by another user. Run "$ sudo '
        'lsof -w /dev/accel0" to figure out which process is using the TPU. Not attempting to '
        "load libtpu.so in this process.",
        "jax-ml/jax issue #10192",
        CLIENT,
        "INFO",
    ),
    term(
        "ABORTED:",
        'XlaRuntimeError: ABORTED: Permanent error, with a last message "" of The metadata for '
        "object was edited during the operation. Please try again",
        SKILL_DOC,
        CLIENT,
    ),
    term("INVALID_ARGUMENT", LIFECYCLE_LINE, TROUBLESHOOTING_DOC, RM),
    term(
        "Unknown command line flag",
        "ERROR: Unknown command line flag 'megascale_grpc_enable_xor_tracer'",
        "abseil/abseil-cpp@926f1d0 absl/flags/parse.cc and absl/flags/usage_config.cc "
        "(ReportUsageError)",
        WORKER,
    ),
    term(
        "unknown flag",
        "Error: unknown flag: --num-slices",
        "spf13/pflag flag.go (unknown flag: --%s) as cobra prints it",
        "main",
        guessed=True,
    ),
    term(
        "unrecognized arguments",
        "train.py: error: unrecognized arguments: --num_slices=2",
        "python/cpython Lib/argparse.py (parse_args)",
        CLIENT,
    ),
    term(
        "Address already in use",
        "OSError: [Errno 98] Address already in use",
        "glibc strerror(EADDRINUSE) as python/cpython Objects/exceptions.c prints an OSError",
        SIDECAR,
    ),
    term(
        "failed to bind",
        "RuntimeError: Failed to bind to address [::]:50051; set GRPC_VERBOSITY=debug "
        "environment variable to see detailed error message.",
        "grpc/grpc.io issue #738",
        SIDECAR,
    ),
    term(
        "JaxRuntimeError",
        "jax.errors.JaxRuntimeError: UNAVAILABLE: Connection to IFRT proxy server was "
        "terminated: UNAVAILABLE: Socket closed",
        ARCHIVE,
        CLIENT,
    ),
    term("XlaRuntimeError", HBM_COMPILE_LINE, "LargeWorldModel/LWM issue #60", CLIENT),
    term("Unable to initialize backend", PROXY_BACKEND_LINE, TROUBLESHOOTING_DOC, CLIENT),
    term(
        "Connection to IFRT proxy server was terminated",
        "Connection to IFRT proxy server was terminated: CANCELLED: Cancelled",
        TROUBLESHOOTING_DOC + " (rpc_helper.cc:56)",
        CLIENT,
    ),
    term(
        "failed to agree on the protocol version",
        "IFRT Proxy client and server failed to agree on the protocol version; supported "
        "versions: client = [1, 1], server = [3, 14]",
        TROUBLESHOOTING_DOC,
        CLIENT,
    ),
    term(
        "Failed to deserialize the Mosaic module",
        "ValueError: Failed to deserialize the Mosaic module: INTERNAL: Unsupported version: "
        "expected <= 7 but got 8",
        "pytorch/xla issue #9614",
        CLIENT,
    ),
    term("lost connection to peer", LOST_PEER_LINE, ARCHIVE, CLIENT),
    term(
        "Pipe from scheduler to aggregator",
        "DATA_LOSS: Pipe from scheduler to aggregator",
        SKILL_DOC,
        CLIENT,
    ),
    term("from handshaker service", ALTS_LINE, ALTS_SOURCE, PROXY, "INFO"),
    term("Lifecycle matches_prefix", LIFECYCLE_LINE, TROUBLESHOOTING_DOC, RM),
    term(
        "was edited during the operation",
        'googleapi: Error 409: The metadata for object "metadata/payment-risk-datasets/'
        'production/cz7vntanluzg2fck4yim/inputs" was edited during the operation. Please try '
        "again., conflict",
        "flyteorg/flyteadmin pkg/common/data_store.go (a production log quoted in a comment)",
        WORKER,
    ),
    term("does not match with the expected instances", TOPOLOGY_LINE, ARCHIVE, RM),
    term(
        "HANG_DETECTED",
        "HANG_DETECTED",
        HANG_PLAYBOOK + " (names the token only; the line around it is not public)",
        WORKER,
        guessed=True,
    ),
    term(
        "Megascale detects a hang",
        "Megascale detects a hang but cannot determine the root cause. Please inspect the full "
        "digest below.",
        HANG_PLAYBOOK,
        WORKER,
    ),
    term("SLICE_FAILURE", SLICE_FAILURE_LINE, MAXTEST, WORKER),
    term(
        "Timeout from watchdog",
        "Timeout from watchdog 'train_step'",
        PATHWAYS_UTILS + "pathwaysutils/debug/watchdog.py:84",
        CLIENT,
        "CRITICAL",
    ),
    term(
        "Catastrophic error",
        "Catastrophic error in monitor thread, thread is dying!",
        PATHWAYS_UTILS + "pathwaysutils/elastic/manager.py:280",
        CLIENT,
        "CRITICAL",
    ),
    term(
        "ElasticRuntimeError",
        "pathwaysutils.elastic.manager.ElasticRuntimeError: Elastic attempt 3 failed.",
        PATHWAYS_UTILS + "pathwaysutils/elastic/manager.py:35,401",
        CLIENT,
    ),
    term(
        "Timed out waiting for",
        "TimeoutError: Timed out waiting for 2 slices. Only 1 active after 600.00 seconds. Next "
        "check would occur after the timeout of 600 seconds.",
        PATHWAYS_UTILS + "pathwaysutils/elastic/elastic.py:238",
        CLIENT,
    ),
    term(
        "ModuleNotFoundError",
        "ModuleNotFoundError: No module named 'jax.experimental.gda_serialization'",
        "google/orbax issue #393",
        CLIENT,
    ),
    term(
        "ImportError",
        "ImportError: cannot import name 'monitoring' from 'jax' "
        "(/usr/local/lib/python3.8/dist-packages/jax/__init__.py)",
        "google/flax issue #2824",
        CLIENT,
    ),
    term(
        "IndivisibleError",
        "jax._src.sharding.IndivisibleError: One of pjit arguments with pytree key path "
        "params['embed'] was given the sharding NamedSharding(mesh=Mesh('data': 8), "
        "spec=PartitionSpec('data',)) implies that array axis 0 is partitioned 8 times, but "
        "the dimension size is 12 (full shape: (12, 512), per-dimension tiling factors: (8, 1) "
        "should evenly divide the shape).",
        "jax-ml/jax@cec06d1 jax/_src/pjit.py:852 and jax/_src/sharding.py:72",
        CLIENT,
    ),
    term(
        "must equal the product of mesh_shape",
        "ValueError: Number of devices 32 must equal the product of mesh_shape (8, 8)",
        "jax-ml/jax@cec06d1 jax/_src/mesh_utils.py:830",
        CLIENT,
    ),
    term(
        "but this version of jax requires",
        "RuntimeError: jaxlib is version 0.3.25, but this version of jax requires version >= "
        "0.4.19.",
        "google-deepmind/weathernext issue #48 (jax/_src/lib/__init__.py check_jaxlib_version)",
        CLIENT,
    ),
    term(
        "FATAL ERROR",
        "[/dev/accel0 tpu1013:pe1:0] !!!! FATAL ERROR !!!! for [/dev/accel0 tpu1013:pe1:0] , "
        "fatal_error: true, running_timer: 0xeacdbdd045e77",
        "marin-community/marin issue #1534 (synchronous_driver.cc)",
        WORKER,
    ),
    term(
        "all pending programs will fail",
        "1x0x2_BC1: *** [Physical location: tpu1013:pe1:3] A Unknown error has occurred, all "
        "pending programs will fail, and results may be corrupted. An unknown error has "
        "occurred, contact your next level of support.",
        "marin-community/marin issue #1534 (fake_program_continuator.cc)",
        WORKER,
    ),
    term(
        "TPU session error",
        "Session is failing with the following status: Session master detected TPU session "
        "error from worker tpu-job-jax-v6e-8-5-15.headless-svc:8471. The reporting TPU chip "
        "locations are:tpu31:pe4:3, tpu31:pe4:2",
        MAXTEST,
        WORKER,
    ),
    term(
        "Core halted unexpectedly",
        "jaxlib._jax.XlaRuntimeError: INTERNAL: Core halted unexpectedly: INTERNAL: Accelerator "
        "device halted prematurely, perhaps due to an on-device check-failure. Node 0 halted "
        "unexpectedly at tag:pc TensorCoreSequencer:20:0xa (from TensorCoreSequencer:20:0x13a)",
        "vllm-project/tpu-inference pull request #412",
        CLIENT,
    ),
    term(
        "Missing hosts",
        "MegaScale Topology Discovery in progress. Missing hosts",
        "AI-Hypercomputer/cloud-diagnostics-xprof@19c64e0 src/mltrace/constants.py (the prefix "
        "it matches; what follows is not public)",
        WORKER,
    ),
    term(
        "The specified bucket does not exist",
        "Permanent error, with a last message of The specified bucket does not exist.; Error "
        "while initializing persistent cache storage gcs",
        TROUBLESHOOTING_DOC,
        RM,
    ),
    term(
        "logging.logEntries.create",
        "details = \"Permission 'logging.logEntries.create' denied on resource (or it may not "
        'exist)."',
        TROUBLESHOOTING_DOC,
        CLIENT,
    ),
    term(
        "has died, and was configured to restart servers",
        "Client 7f3a9c2e has died, and was configured to restart servers if it died.",
        ARCHIVE + " (quick_restart.cc:19)",
        WORKER,
    ),
)
CRASH_TERMS = texts(CRASH_CATALOGUE)

# Start-up notices every C++ binary writes to stderr (so ERROR in Cloud Logging) and that say
# nothing went wrong: abseil's, before its logging is initialised (seen in public logs of
# TensorFlow, XLA and gRPC programs alike). A severity floor does not select them.
ROUTINE_NOTICES = ("All log messages before absl::InitializeLog() is called are written to STDERR",)

# Proxy-to-worker transfer stalls (triage reads them with the crash lines).
STALL_CATALOGUE = (
    term(
        "Still waiting to acquire semaphore",
        "Still waiting to acquire semaphore for destination 3 to send Chunk",
        SKILL_DOC + " (section 15)",
        PROXY,
        "WARNING",
    ),
    term("Recv completion error", "Recv completion error", SKILL_DOC, WORKER, "WARNING"),
    term("GOAWAY", GOAWAY_LINE, GOAWAY_SOURCE, PROXY),
)
STALL_TERMS = texts(STALL_CATALOGUE)

# Lines that say a component started (triage reads versions and readiness from them).
STARTUP_CATALOGUE = (
    term(
        "IFRT proxy server started",
        "IFRT proxy server started with status OK",
        TROUBLESHOOTING_DOC,
        PROXY,
        "INFO",
    ),
    term(
        "Pathways Server serving",
        "Pathways Server serving on [::]:29001",
        TROUBLESHOOTING_DOC,
        RM,
        "INFO",
    ),
    term(
        "Slices Now Ready",
        "*** 2/2 Pathways Slices Now Ready ***",
        TROUBLESHOOTING_DOC,
        RM,
        "INFO",
    ),
    term(
        "MegaScale transport init",
        "MegaScale transport init succeeded.",
        SHARED_SERVICE_WORKER_LOGS,
        WORKER,
        "INFO",
    ),
    term(
        "Detected Pathways-on-Cloud backend",
        "WARNING:absl:pathwaysutils: Detected Pathways-on-Cloud backend. Applying changes.",
        TROUBLESHOOTING_DOC,
        CLIENT,
    ),
    term(
        "Sufficient slices active",
        "Sufficient slices active: 2 >= 2. Active indices: {0, 1}",
        PATHWAYS_UTILS + "pathwaysutils/elastic/elastic.py:219",
        CLIENT,
        "INFO",
    ),
)
STARTUP_TERMS = texts(STARTUP_CATALOGUE)
# Lines that prove the run is (again) ready: a failure before one is over after it.
RECOVERY_TERMS = ("Slices Now Ready", "Sufficient slices active")

VERSION_CATALOGUE = (
    term(
        "cloud-pathways/",
        'Pulling image "us-docker.pkg.dev/cloud-tpu-v2-images/cloud-pathways/server:jax-0.12.0"',
        KUBELET_IMAGES + " (Pulling image %q); repository from " + SKILL_DOC,
        POD_EVENT,
        "INFO",
        reason="Pulling",
    ),
    term(
        "Build label",
        "Build label: pathways_20261108_RC00",
        BUILD_LABEL,
        RM,
        "INFO",
        guessed=True,
    ),
    term(
        "jax==",
        "jax==0.12.0",
        "pip freeze output of the client image; no public Pathways log shows it",
        CLIENT,
        "INFO",
        guessed=True,
    ),
    term(
        "jax version",
        "System Information: Jax Version: 0.12.0",
        MAXTEXT + "src/maxtext/utils/max_utils.py:832",
        CLIENT,
        "INFO",
    ),
    term(
        "jaxlib",
        "System Information: Jaxlib Version: 0.12.0",
        MAXTEXT + "src/maxtext/utils/max_utils.py:833",
        CLIENT,
        "INFO",
    ),
)
VERSION_TERMS = texts(VERSION_CATALOGUE)

USER_CATALOGUE = (
    term(
        "completed step",
        "completed step: 1, seconds: 24.930, TFLOP/s/device: 0.861, Tokens/s/device: 164.297",
        MAXTEXT + "src/maxtext/examples/dpo_qwen3_demo.ipynb (metric_logger.py:214)",
        CLIENT,
        "INFO",
    ),
    term(
        "checkpoint",
        "Elastic utils: Checking for incomplete checkpoint after an elastic event...",
        ELASTIC_UTILS + ":117",
        CLIENT,
        "INFO",
    ),
    term(
        "jax version",
        "System Information: Jax Version: 0.12.0",
        MAXTEXT + "src/maxtext/utils/max_utils.py:832",
        CLIENT,
        "INFO",
    ),
    term(
        "jaxlib",
        "System Information: Jaxlib Version: 0.12.0",
        MAXTEXT + "src/maxtext/utils/max_utils.py:833",
        CLIENT,
        "INFO",
    ),
    term(
        "Detected Pathways-on-Cloud backend",
        "Detected Pathways-on-Cloud backend. Applying changes.",
        PATHWAYS_UTILS + "pathwaysutils/_initialize.py",
        CLIENT,
        "DEBUG",
    ),
    term("Elastic", "Elastic attempt 2 out of 10", ELASTIC_DOC + ":162", CLIENT, "INFO"),
    term(
        "XPK Start",
        "XPK Start: Sat Aug 22 10:00:33 UTC 2026",
        "AI-Hypercomputer/xpk@367c838 src/xpk/core/docker_container.py:156",
        CLIENT,
        "INFO",
    ),
    term(
        "XPK End",
        "XPK End: Sat Aug 22 11:40:02 UTC 2026",
        "AI-Hypercomputer/xpk@367c838 src/xpk/core/docker_container.py:167",
        CLIENT,
        "INFO",
    ),
    term(
        "EXIT_CODE=",
        "EXIT_CODE=1",
        "AI-Hypercomputer/xpk@367c838 src/xpk/core/docker_container.py:168",
        CLIENT,
        "INFO",
    ),
    term(
        "Socket closed",
        "IFRT proxy server disconnected: UNAVAILABLE: Socket closed",
        ARCHIVE + " (grpc_client.cc)",
        CLIENT,
        "WARNING",
    ),
)
USER_TERMS = texts(USER_CATALOGUE)

PROXY_CATALOGUE = (
    term(
        "IFRT proxy server started",
        "IFRT proxy server started with status OK",
        TROUBLESHOOTING_DOC,
        PROXY,
        "INFO",
    ),
    term(
        "Connection refused",
        "failed to connect to all addresses; last error: UNKNOWN: ipv4:10.8.0.12:29001: Failed "
        "to connect to remote host: connect: Connection refused (111)",
        "lautenberger/elmfire issue #86 (grpc C-core wording)",
        PROXY,
        "WARNING",
    ),
    term(
        ":29001",
        "argv[2]: '--resource_manager_address=pathways-cluster-pathways-head-0-0."
        "pathways-cluster:29001'",
        SHARED_SERVICE_README + " (a worker's flag echo; the proxy's is not public)",
        PROXY,
        "INFO",
        guessed=True,
    ),
    term(
        "Socket closed",
        "UNAVAILABLE: Socket closed",
        "gRPC's status text; the proxy's own line around it is not public",
        PROXY,
        "WARNING",
        guessed=True,
    ),
    term(
        "Still waiting to acquire semaphore",
        "Still waiting to acquire semaphore for destination 3 to send Chunk",
        SKILL_DOC + " (section 15)",
        PROXY,
        "WARNING",
    ),
    term("GOAWAY", GOAWAY_LINE, GOAWAY_SOURCE, PROXY),
    term("handshake", ALTS_LINE, ALTS_SOURCE, PROXY, "INFO"),
    term(
        "placement",
        "Waiting for placement of 2 slices",
        PLACEMENT,
        PROXY,
        "INFO",
        guessed=True,
    ),
    term(
        "Signaling to RM",
        "Signaling to RM that slice 0 is ready",
        PLACEMENT,
        PROXY,
        "INFO",
        guessed=True,
    ),
    term(
        "Transition slice",
        "Transition slice 0: unplaced -> placed",
        PLACEMENT,
        PROXY,
        "INFO",
        guessed=True,
    ),
    term(
        "Build label",
        "Build label: pathways_20261108_RC00",
        BUILD_LABEL,
        PROXY,
        "INFO",
        guessed=True,
    ),
)
PROXY_TERMS = texts(PROXY_CATALOGUE)

RM_CATALOGUE = (
    term(
        "Pathways Server serving",
        "Pathways Server serving on [::]:29001",
        TROUBLESHOOTING_DOC,
        RM,
        "INFO",
    ),
    term(
        "Slices Now Ready",
        "*** 2/2 Pathways Slices Now Ready ***",
        TROUBLESHOOTING_DOC,
        RM,
        "INFO",
    ),
    term(
        "unplaced",
        "Transition slice 1: placed -> unplaced",
        PLACEMENT,
        RM,
        "INFO",
        guessed=True,
    ),
    term(
        "Unassigning",
        "Unassigning slice 1",
        "no public source shows this RM line",
        RM,
        "INFO",
        guessed=True,
    ),
    term(
        "expected topology",
        "expected topology: { chips_per_host_bounds: 2 2 1 host_bounds: 1 1 1 }",
        SKILL_DOC + " (section 5 names the proto, not the line)",
        RM,
        "INFO",
        guessed=True,
    ),
    term(
        "Newly added slice topology",
        "Newly added slice topology: { chips_per_host_bounds: 2 2 1 host_bounds: 2 1 1 }",
        SKILL_DOC + " (section 5 names the proto, not the line)",
        RM,
        "INFO",
        guessed=True,
    ),
    term("Build label", "Build label: pathways_20261108_RC00", BUILD_LABEL, RM, guessed=True),
    term(
        "cancelled",
        "Job cancelled due to slice 1 failure",
        "google/skills@2194d3b skills/cloud/pathways-workload/SKILL.md (step 2.3 names "
        "'Job cancelled due to ...')",
        RM,
        "INFO",
        guessed=True,
    ),
    term(
        "Transition slice",
        "Transition slice 1: placed -> unplaced",
        PLACEMENT,
        RM,
        "INFO",
        guessed=True,
    ),
)
RM_TERMS = texts(RM_CATALOGUE)

WORKER_CATALOGUE = (
    term(
        "Pathways Server serving",
        "Pathways Server serving on [::]:29005",
        SHARED_SERVICE_WORKER_LOGS,
        WORKER,
        "INFO",
    ),
    term(
        "MegaScale transport",
        "MegaScale transport initialized.",
        SHARED_SERVICE_WORKER_LOGS,
        WORKER,
        "INFO",
    ),
    term("Recv completion error", "Recv completion error", SKILL_DOC, WORKER, "WARNING"),
    term(
        "Build label",
        "Build label: pathways_20261108_RC00",
        BUILD_LABEL,
        WORKER,
        "INFO",
        guessed=True,
    ),
    term(
        "colocated",
        "Waiting for the colocated Python sidecar at localhost:50051",
        "no public source shows a worker's sidecar line",
        WORKER,
        "INFO",
        guessed=True,
    ),
    term("GOAWAY", GOAWAY_LINE, GOAWAY_SOURCE, WORKER),
)
WORKER_TERMS = texts(WORKER_CATALOGUE)

SIDECAR_CATALOGUE = (
    term(
        "colocated",
        "Starting colocated Python server on [::]:50051",
        "no public source shows the sidecar's start-up line",
        SIDECAR,
        "INFO",
        guessed=True,
    ),
    term(
        "sidecar",
        "Python sidecar serving on [::]:50051",
        "no public source shows the sidecar's start-up line",
        SIDECAR,
        "INFO",
        guessed=True,
    ),
    term(
        ":50051",
        "RuntimeError: Failed to bind to address [::]:50051; set GRPC_VERBOSITY=debug "
        "environment variable to see detailed error message.",
        "grpc/grpc.io issue #738",
        SIDECAR,
        "INFO",
    ),
)
SIDECAR_TERMS = texts(SIDECAR_CATALOGUE)
# Worker lines about the sidecar (waiting for it, losing it).
SIDECAR_WAITING_CATALOGUE = (
    term(
        "colocated python",
        "Waiting for the colocated Python sidecar at localhost:50051",
        "no public source shows a worker's sidecar line",
        WORKER,
        "INFO",
        guessed=True,
    ),
    term(
        "sidecar",
        "Lost connection to the Python sidecar at localhost:50051",
        "no public source shows a worker's sidecar line",
        WORKER,
        "INFO",
        guessed=True,
    ),
)
SIDECAR_WAITING_TERMS = texts(SIDECAR_WAITING_CATALOGUE)

ELASTIC_CATALOGUE = (
    term(
        "Elastic",
        "Elastic attempt 2",
        PATHWAYS_UTILS + "pathwaysutils/elastic/manager.py:373",
        CLIENT,
        "INFO",
    ),
    term(
        "slices active",
        "Sufficient slices active: 2 >= 2. Active indices: {0, 1}",
        PATHWAYS_UTILS + "pathwaysutils/elastic/elastic.py:219",
        CLIENT,
        "INFO",
    ),
    term(
        "Slices Now Ready",
        "*** 2/2 Pathways Slices Now Ready ***",
        TROUBLESHOOTING_DOC,
        RM,
        "INFO",
    ),
    term(
        "placed -> unplaced",
        "Transition slice 1: placed -> unplaced",
        PLACEMENT,
        RM,
        "INFO",
        guessed=True,
    ),
    term(
        "Unassigning",
        "Unassigning slice 1",
        "no public source shows this RM line",
        RM,
        "INFO",
        guessed=True,
    ),
    term(
        "New slices found",
        "New slices found: [1]",
        SKILL_DOC + " (section 1 names the words, not the line)",
        CLIENT,
        "INFO",
        guessed=True,
    ),
    term(
        "Scale up requested",
        "Scale up requested.",
        PATHWAYS_UTILS + "pathwaysutils/elastic/manager.py:390",
        CLIENT,
        "INFO",
    ),
    term(
        "Newly available but inactive slices",
        "Newly available but inactive slices {1}",
        PATHWAYS_UTILS + "pathwaysutils/elastic/manager.py (the monitor thread)",
        CLIENT,
        "INFO",
    ),
    term(
        "slices. Poll interval",
        "Waiting for 2 slices. Poll interval: 10, Timeout: 600",
        PATHWAYS_UTILS + "pathwaysutils/elastic/manager.py",
        CLIENT,
        "INFO",
    ),
    term(
        "a new slice is available",
        "Started a checkpoint and a new slice is available. Waiting for current checkpoint to "
        "finish before interrupting.",
        ELASTIC_UTILS,
        CLIENT,
        "INFO",
    ),
    term(
        "slice down",
        "Caught an error that may or may not be due to slice down (matched "
        "_ELASTIC_DOWN_ADDITIONAL_ERROR_TYPES). This error will be treated as due to slice down.",
        PATHWAYS_UTILS + "pathwaysutils/elastic/elastic.py:287",
        CLIENT,
        "WARNING",
    ),
    term(
        "snapshot",
        "Attempting to restore from in-memory snapshot at step 100...",
        "a MaxText fork's train.py; not in upstream MaxText",
        CLIENT,
        "INFO",
        guessed=True,
    ),
    term(
        "Restoring",
        "Restoring checkpoint from gs://.../checkpoints/100.",
        ELASTIC_DOC + ":163 (example output)",
        CLIENT,
        "INFO",
    ),
    term(
        "Falling back to persistent checkpoint",
        "In-memory snapshot recovery failed (timeout). Falling back to persistent checkpoint.",
        "a MaxText fork's train.py; not in upstream MaxText",
        CLIENT,
        "WARNING",
        guessed=True,
    ),
    term(
        "Resuming",
        "Recovery complete! Resuming safely at step 100...",
        "a MaxText fork's train.py; not in upstream MaxText",
        CLIENT,
        "INFO",
        guessed=True,
    ),
    term(
        "commit_success",
        "No commit_success file found. Deleting gs://bucket/run/checkpoints/100/...",
        ELASTIC_UTILS + ":141",
        CLIENT,
        "INFO",
    ),
    term(
        "Timed out waiting for",
        "TimeoutError: Timed out waiting for 2 slices. Only 1 active after 600.00 seconds. Next "
        "check would occur after the timeout of 600 seconds.",
        PATHWAYS_UTILS + "pathwaysutils/elastic/elastic.py:238",
        CLIENT,
    ),
)
ELASTIC_TERMS = texts(ELASTIC_CATALOGUE)

SUMMARY_CONTROLLER_CATALOGUE = (
    term(
        "error",
        '2026-02-27T19:51:30Z\tERROR\tadmission\tfinding leader pod for follower\t{"webhookGroup"'
        ': "", "webhookKind": "Pod", "namespace": "default"}',
        "kubernetes-sigs/jobset site/content/en/docs/troubleshooting/_index.md (section 5)",
        CONTROLLER,
        "INFO",
    ),
    term(
        "invalid",
        'JobSet.jobset.x-k8s.io "llama-train" is invalid: spec.replicatedJobs[0].replicas: '
        "Invalid value: -1: must be greater than or equal to 0",
        "kubernetes/apimachinery pkg/api/errors/errors.go (NewInvalid); the controller's own "
        "line around it is not public",
        CONTROLLER,
        "INFO",
        guessed=True,
    ),
    term(
        "must be no more than",
        "must be no more than 63 characters",
        "kubernetes-sigs/jobset@08dfbdf pkg/webhooks/jobset_webhook.go:56",
        CONTROLLER,
        "INFO",
    ),
    term(
        "webhook",
        'admission webhook "vpod.kb.io" denied the request: follower pod node selector not set',
        "kubernetes-sigs/jobset site/content/en/docs/troubleshooting/_index.md (section 5)",
        CONTROLLER,
        "INFO",
    ),
    term(
        "denied",
        'admission webhook "vpod.kb.io" denied the request: follower pod node selector not set',
        "kubernetes-sigs/jobset site/content/en/docs/troubleshooting/_index.md (section 5)",
        CONTROLLER,
        "INFO",
    ),
    term(
        "OOMKilled",
        "Last state of container manager: Terminated, reason OOMKilled",
        "Kubernetes' container termination reason OOMKilled; no controller line shows it",
        CONTROLLER,
        "INFO",
        guessed=True,
    ),
    term(
        "failed",
        '2026-02-27T19:52:02Z\tERROR\tjobset-controller\texecuting failure policy\t{"error": '
        '"failed to update jobset status"}',
        "kubernetes-sigs/jobset@08dfbdf pkg/controllers/jobset_controller.go:192 logs "
        "'executing failure policy'; the error text is not public",
        CONTROLLER,
        "INFO",
        guessed=True,
    ),
)
SUMMARY_CONTROLLER_TERMS = texts(SUMMARY_CONTROLLER_CATALOGUE)

SCHEDULING_FAILURE_CATALOGUE = (
    term(
        "FailedScheduling",
        "0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod ports.",
        "kubernetes/kubernetes pkg/scheduler/framework/plugins/nodeports/node_ports.go",
        POD_EVENT,
        "WARNING",
        reason="FailedScheduling",
    ),
    term(
        "FailedCreate",
        'admission webhook "vpod.kb.io" denied the request: follower pod node selector not set',
        "kubernetes-sigs/jobset site/content/en/docs/troubleshooting/_index.md (section 5)",
        POD_EVENT,
        "WARNING",
        reason="FailedCreate",
    ),
    term(
        "FailedMount",
        'MountVolume.SetUp failed for volume "gcs-volume" : rpc error: code = PermissionDenied '
        "desc = gcsfuse failed with error: Error: mountWithStorageHandle: fs.NewServer: create "
        "file system: SetUpBucket: BucketHandle: storageLayout call failed: GetStorageLayout for "
        '"projects/_/buckets/llama-ckpt/storageLayout" failed with a non-retryable error: rpc '
        "error: code = PermissionDenied desc = Caller does not have storage.objects.list access "
        "to the Google Cloud Storage bucket. Permission 'storage.objects.list' denied on "
        "resource (or it may not exist).",
        "GoogleCloudPlatform/gcs-fuse-csi-driver pull request #1356 (an end-to-end test's "
        "FailedMount event; kubernetes/kubernetes pkg/kubelet/events/event.go FailedMountVolume)",
        POD_EVENT,
        "WARNING",
        reason="FailedMount",
    ),
    term(
        "FailedAttachVolume",
        'AttachVolume.Attach failed for volume "data" : timed out waiting for external-attacher',
        "kubernetes/kubernetes attach-detach controller reason; the message is not from a "
        "public capture",
        POD_EVENT,
        "WARNING",
        guessed=True,
        reason="FailedAttachVolume",
    ),
)
SCHEDULING_FAILURES = texts(SCHEDULING_FAILURE_CATALOGUE)

NODE_OOM_REASON_CATALOGUE = (
    term(
        "OOMKilling",
        "Memory cgroup out of memory: Killed process 2829418 (python3) total-vm:187301232kB, "
        "anon-rss:160321044kB, file-rss:77312kB, shmem-rss:0kB, UID:0 pgtables:318820kB "
        "oom_score_adj:-997",
        "kubernetes/node-problem-detector@6632ca6 config/kernel-monitor.json (the event message "
        "is the matched kernel line)",
        NODE_EVENT,
        "WARNING",
        reason="OOMKilling",
    ),
    term(
        "SystemOOM",
        "System OOM encountered, victim process: stress-ng-vm, pid: 3103923",
        "kubernetes/kubernetes@054d429 pkg/kubelet/oom/oom_watcher_linux.go",
        NODE_EVENT,
        "WARNING",
        reason="SystemOOM",
    ),
)
NODE_OOM_REASONS = texts(NODE_OOM_REASON_CATALOGUE)

# The kubelet's node-pressure events: the eviction manager's before it evicts, and the node
# status setters' when a pressure condition turns true ("Node %s status is now: %s",
# pkg/kubelet/kubelet_node_status.go recordNodeStatusEvent).
KUBELET_SETTERS = "kubernetes/kubernetes@8340f5a pkg/kubelet/nodestatus/setters.go"
NODE_PRESSURE_REASON_CATALOGUE = (
    term(
        "EvictionThresholdMet",
        "Attempting to reclaim memory",
        "kubernetes/kubernetes@5ff739e pkg/kubelet/eviction/eviction_manager.go "
        "(Attempting to reclaim %s)",
        NODE_EVENT,
        "WARNING",
        reason="EvictionThresholdMet",
    ),
    term(
        "NodeHasInsufficientMemory",
        "Node gke-pw-cluster-tpu-np-1-8a1b2c3d-x9k2 status is now: NodeHasInsufficientMemory",
        KUBELET_SETTERS + " (MemoryPressureCondition)",
        NODE_EVENT,
        "INFO",
        reason="NodeHasInsufficientMemory",
    ),
    term(
        "NodeHasDiskPressure",
        "Node gke-pw-cluster-tpu-np-1-8a1b2c3d-x9k2 status is now: NodeHasDiskPressure",
        KUBELET_SETTERS + " (DiskPressureCondition)",
        NODE_EVENT,
        "INFO",
        reason="NodeHasDiskPressure",
    ),
    term(
        "NodeHasInsufficientPID",
        "Node gke-pw-cluster-tpu-np-1-8a1b2c3d-x9k2 status is now: NodeHasInsufficientPID",
        KUBELET_SETTERS + " (PIDPressureCondition)",
        NODE_EVENT,
        "INFO",
        reason="NodeHasInsufficientPID",
    ),
)
NODE_PRESSURE_REASONS = texts(NODE_PRESSURE_REASON_CATALOGUE)
# The node events of memory running out: the OOM kills and the kubelet's node pressure.
NODE_MEMORY_REASONS = NODE_OOM_REASONS + NODE_PRESSURE_REASONS

# For each kind of workload, the object and event reason that say it succeeded: the JobSet
# controller's AllJobsCompleted ("jobset completed successfully", kubernetes-sigs/jobset
# pkg/constants/constants.go) and the Job controller's Completed ("Job completed",
# kubernetes/kubernetes pkg/controller/job/job_controller.go), both Normal events.
COMPLETIONS = {"jobset": ("JobSet", "AllJobsCompleted"), "job": ("Job", "Completed")}

KERNEL_OOM_LINE = (
    "[337533.314412] Memory cgroup out of memory: Killed process 23793 (leaker) "
    "total-vm:2623712kB, anon-rss:506500kB, file-rss:1268kB, shmem-rss:0kB"
)
LKML_OOM = "an LKML reply by Michal Hocko quoting a kernel log (torvalds/linux mm/oom_kill.c)"
NODE_OOM_CATALOGUE = (
    term("Memory cgroup out of memory", KERNEL_OOM_LINE, LKML_OOM, SERIAL_CONSOLE, "INFO"),
    term(
        "Out of memory: Killed process",
        "Out of memory: Killed process 3103923 (stress-ng-vm) total-vm:8429808kB, "
        "anon-rss:8123056kB, file-rss:4kB, shmem-rss:0kB, UID:0 pgtables:28184kB "
        "oom_score_adj:1000",
        "torvalds/linux mm/oom_kill.c (__oom_kill_process), as kernel-monitor reports it",
        NODE_EVENT,
        "WARNING",
        reason="OOMKilling",
    ),
    term(
        "oom-kill",
        "[337533.314408] oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),oom_memcg=/leaker,"
        "task_memcg=/leaker,task=leaker,pid=23793,uid=0",
        LKML_OOM,
        SERIAL_CONSOLE,
        "INFO",
    ),
    term(
        "Killed process",
        "[11686.043647] Killed process 2603 (flasherav) total-vm:1498536kB, anon-rss:721784kB, "
        "file-rss:4228kB",
        "torvalds/linux mm/oom_kill.c (__oom_kill_process: kernels before commit c797bc88 "
        "print it without the 'Memory cgroup out of memory:' prefix); node-problem-detector "
        "config/kernel-monitor.json matches 'Killed process \\d+ (.+) total-vm:'",
        SERIAL_CONSOLE,
        "INFO",
    ),
    term(
        "or sacrifice child",
        "[11686.043641] Out of memory: Kill process 2603 (flasherav) score 761 or sacrifice child",
        "torvalds/linux mm/oom_kill.c (oom_kill_process, before its 'Kill process ... or "
        "sacrifice child' line was removed); node-problem-detector config/kernel-monitor.json",
        SERIAL_CONSOLE,
        "INFO",
    ),
    term(
        "invoked oom-killer",
        "[337533.314300] python3 invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, "
        "oom_score_adj=-997",
        "torvalds/linux mm/oom_kill.c (dump_header)",
        SERIAL_CONSOLE,
        "INFO",
    ),
    term(
        "exitCode=137",
        'I1022 11:30:01.232422    2264 generic.go:332] "Generic (PLEG): container finished" '
        'podID="7eaba53e-63d2-4906-9a16-ff315c3337fd" containerID="7baae34a2750" exitCode=137',
        "kubernetes/kubernetes pkg/kubelet/pleg/generic.go (the layout of a public GKE kubelet "
        "capture)",
        KUBELET,
        "INFO",
    ),
    term(
        "exit code 137",
        "container pathways-worker exited with exit code 137",
        "no public node line with these words",
        KUBELET,
        "INFO",
        guessed=True,
    ),
    term(
        "System OOM encountered",
        "System OOM encountered, victim process: stress-ng-vm, pid: 3103923",
        "kubernetes/kubernetes@054d429 pkg/kubelet/oom/oom_watcher_linux.go",
        NODE_EVENT,
        "WARNING",
        reason="SystemOOM",
    ),
)
NODE_OOM_TERMS = texts(NODE_OOM_CATALOGUE)


def audit_term(method: str, source: str = GCE_INTERRUPTIONS, guessed: bool = False) -> Term:
    """A GCE system-event method: the example is the audit entry with that method."""
    return term(method, method, source, AUDIT, "INFO", guessed=guessed)


INTERRUPTION_METHOD_CATALOGUE = (
    audit_term("compute.instances.preempted"),
    audit_term("compute.instances.hostError"),
    audit_term("compute.instances.terminateOnHostMaintenance"),
    audit_term("compute.instances.migrateOnHostMaintenance"),
    audit_term("compute.instances.baremetalCaretakerPreempted"),
    audit_term("compute.instances.guestTerminate"),
    audit_term(
        "compute.instances.automaticRestart",
        "scylladb/scylla-cluster-tests unit test (FakeGceLogClient.get_system_events)",
    ),
    audit_term("compute.instances.instanceManagerHaltForRestart"),
    audit_term("compute.instances.stoppedDueToPdDoubleServe"),
    audit_term("compute.instances.kmsKeyError"),
    audit_term("compute.instances.shredmillKeyError"),
    audit_term("compute.instances.invalidVmImage"),
    audit_term("compute.instances.scratchDiskCreationFailed"),
)
INTERRUPTION_METHODS = texts(INTERRUPTION_METHOD_CATALOGUE)

GKE_API = "https://cloud.google.com/kubernetes-engine/docs/reference/rest (ClusterManager methods)"
NOT_IN_API = "not a method of the public GKE API; no captured audit entry"
NODEPOOL_METHOD_CATALOGUE = (
    term(
        "google.container.v1.ClusterManager.RepairNodePool",
        "google.container.v1.ClusterManager.RepairNodePool",
        "google/skills query_gke.md names it for auto-repair; " + NOT_IN_API,
        NODEPOOL,
        "NOTICE",
        guessed=True,
    ),
    term(
        "google.container.v1.ClusterManager.UpgradeNodePool",
        "google.container.v1.ClusterManager.UpgradeNodePool",
        NOT_IN_API + " (upgrades go through UpdateNodePool)",
        NODEPOOL,
        "NOTICE",
        guessed=True,
    ),
    *(
        term(name, name, GKE_API, NODEPOOL, "NOTICE")
        for name in (
            "google.container.v1.ClusterManager.UpdateNodePool",
            "google.container.v1.ClusterManager.SetNodePoolSize",
            "google.container.v1.ClusterManager.DeleteNodePool",
        )
    ),
)
NODEPOOL_METHODS = texts(NODEPOOL_METHOD_CATALOGUE)

NODE_CONTROLLER = "kubernetes/kubernetes pkg/controller/nodelifecycle/node_lifecycle_controller.go"
ILLUSTRATIVE = (
    "google/skills gke-ai-troubleshooting-jobset-interruption failure_signatures.md (an "
    "illustration, not a captured event)"
)
NODE_INTERRUPTION_REASON_CATALOGUE = (
    term(
        "NodeNotReady",
        "Node gke-pw-cluster-tpu-np-1-8a1b2c3d-x9k2 status is now: NodeNotReady",
        NODE_CONTROLLER + " (Node %s status is now: %s)",
        NODE_EVENT,
        "INFO",
        reason="NodeNotReady",
    ),
    term(
        "Rebooted",
        "Node gke-pw-cluster-tpu-np-1-8a1b2c3d-x9k2 has been rebooted, boot id: "
        "a1ac0b1141674ec4ac6b2dfc2c1baa33",
        "kubernetes/kubernetes pkg/kubelet/nodestatus/setters.go (MachineInfo, NodeRebooted)",
        NODE_EVENT,
        "WARNING",
        reason="Rebooted",
    ),
    term(
        "TerminationEvent",
        "Node 'gke-tpu-pool-12345-abcde' was terminated due to: Host Error",
        ILLUSTRATIVE,
        NODE_EVENT,
        "WARNING",
        guessed=True,
        reason="TerminationEvent",
    ),
    term(
        "PreemptionEvent",
        "Node 'gke-tpu-pool-12345-abcde' in node pool 'tpu-pool' was preempted.",
        ILLUSTRATIVE,
        NODE_EVENT,
        "WARNING",
        guessed=True,
        reason="PreemptionEvent",
    ),
    term(
        "MaintenanceEvent",
        "Node 'gke-tpu-pool-12345-abcde' is scheduled for host maintenance.",
        ILLUSTRATIVE,
        NODE_EVENT,
        "WARNING",
        guessed=True,
        reason="MaintenanceEvent",
    ),
    term(
        "NodeRepair",
        "Node gke-pw-cluster-tpu-np-1-8a1b2c3d-x9k2 is being repaired",
        "no public capture of a GKE auto-repair node event",
        NODE_EVENT,
        "WARNING",
        guessed=True,
        reason="NodeRepair",
    ),
    term(
        "RemovingNode",
        "Removing Node gke-pw-cluster-tpu-np-1-8a1b2c3d-x9k2 from Controller",
        NODE_CONTROLLER,
        NODE_EVENT,
        "INFO",
        reason="RemovingNode",
    ),
    term(
        "DeletingNode",
        "Deleting node gke-pw-cluster-tpu-np-1-8a1b2c3d-x9k2 because it does not exist in the "
        "cloud provider",
        "kubernetes/cloud-provider controllers/nodelifecycle/node_lifecycle_controller.go",
        NODE_EVENT,
        "INFO",
        reason="DeletingNode",
    ),
    term(
        "TerminatingEvictedPod",
        "Pod llama-train-worker-1-0-km2rf has exceeded the grace period for deletion after "
        'being evicted from Node "gke-pw-cluster-tpu-np-1-8a1b2c3d-x9k2" and is being force '
        "killed",
        "kubernetes/kubernetes pkg/controller/node/nodecontroller.go (older releases)",
        NODE_EVENT,
        "INFO",
        reason="TerminatingEvictedPod",
    ),
)
NODE_INTERRUPTION_REASONS = texts(NODE_INTERRUPTION_REASON_CATALOGUE)
# Node event messages that name an interruption whatever their reason.
NODE_INTERRUPTION_CATALOGUE = (
    term(
        "NodeNotReady",
        "Node gke-pw-cluster-tpu-np-1-8a1b2c3d-x9k2 status is now: NodeNotReady",
        NODE_CONTROLLER + " (Node %s status is now: %s)",
        NODE_EVENT,
        "INFO",
        reason="NodeStatusChange",
    ),
    term(
        "Preemption",
        "Preemption of node gke-pw-cluster-tpu-np-1-8a1b2c3d-x9k2 started",
        "no public capture of such a node event",
        NODE_EVENT,
        "INFO",
        guessed=True,
        reason="NodeEvent",
    ),
    term(
        "Termination",
        "Termination of node gke-pw-cluster-tpu-np-1-8a1b2c3d-x9k2 started",
        "no public capture of such a node event",
        NODE_EVENT,
        "INFO",
        guessed=True,
        reason="NodeEvent",
    ),
    term(
        "Maintenance",
        "Maintenance of node gke-pw-cluster-tpu-np-1-8a1b2c3d-x9k2 scheduled",
        "no public capture of such a node event",
        NODE_EVENT,
        "INFO",
        guessed=True,
        reason="NodeEvent",
    ),
)
NODE_INTERRUPTION_TERMS = texts(NODE_INTERRUPTION_CATALOGUE)

SCHEDULED_CATALOGUE = (
    term(
        "Scheduled",
        "Successfully assigned default/llama-train-worker-1-0-km2rf to "
        "gke-pw-cluster-tpu-np-1-8a1b2c3d-x9k2",
        "kubernetes/kubernetes pkg/scheduler/schedule_one.go (Successfully assigned %v/%v to %v)",
        POD_EVENT,
        "INFO",
        reason="Scheduled",
    ),
)
SCHEDULED_REASON = SCHEDULED_CATALOGUE[0].text

# Every catalogue, named after the tuple the filter builders use.
CATALOGUES: dict[str, tuple[Term, ...]] = {
    "CRASH_TERMS": CRASH_CATALOGUE,
    "STALL_TERMS": STALL_CATALOGUE,
    "STARTUP_TERMS": STARTUP_CATALOGUE,
    "VERSION_TERMS": VERSION_CATALOGUE,
    "USER_TERMS": USER_CATALOGUE,
    "PROXY_TERMS": PROXY_CATALOGUE,
    "RM_TERMS": RM_CATALOGUE,
    "WORKER_TERMS": WORKER_CATALOGUE,
    "SIDECAR_TERMS": SIDECAR_CATALOGUE,
    "SIDECAR_WAITING_TERMS": SIDECAR_WAITING_CATALOGUE,
    "ELASTIC_TERMS": ELASTIC_CATALOGUE,
    "SUMMARY_CONTROLLER_TERMS": SUMMARY_CONTROLLER_CATALOGUE,
    "SCHEDULING_FAILURES": SCHEDULING_FAILURE_CATALOGUE,
    "NODE_OOM_REASONS": NODE_OOM_REASON_CATALOGUE,
    "NODE_OOM_TERMS": NODE_OOM_CATALOGUE,
    "NODE_PRESSURE_REASONS": NODE_PRESSURE_REASON_CATALOGUE,
    "INTERRUPTION_METHODS": INTERRUPTION_METHOD_CATALOGUE,
    "NODEPOOL_METHODS": NODEPOOL_METHOD_CATALOGUE,
    "NODE_INTERRUPTION_REASONS": NODE_INTERRUPTION_REASON_CATALOGUE,
    "NODE_INTERRUPTION_TERMS": NODE_INTERRUPTION_CATALOGUE,
    "SCHEDULED_REASON": SCHEDULED_CATALOGUE,
}
