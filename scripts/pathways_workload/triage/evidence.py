"""Turn the entries triage fetched into evidence: what, where, when, cause or symptom.

A symptom is a downstream line: true, but never the reason. Each symptom rule
says which component's logs hold the reason and which action reads them, so a
failure known only by its symptoms still points somewhere. The rules and the
routine lines that are no evidence at all carry example lines (examples.py).
"""

from __future__ import annotations

import dataclasses
import functools
import re
import shlex
from collections.abc import Sequence

from pathways_workload import labels, scenarios, tracebacks
from pathways_workload.describe import (
    bare_message,
    container_of,
    entry_labels,
    event_reason,
    message,
    node_of,
    pod_of,
    resource_labels,
    resource_type,
    severity,
)
from pathways_workload.examples import (
    ARCHIVE,
    IFRT_PROXY,
    JOBSET_CONSTANTS,
    JOBSET_EVENT,
    MAXTEST,
    PATHWAYS_UTILS,
    POD_EVENT,
    TROUBLESHOOTING_DOC,
    Example,
)
from pathways_workload.shaping import identity
from pathways_workload.sources.base import Entry, Result, entry_time_ns, sort_key
from pathways_workload.sources.text_lines import glog_severity
from pathways_workload.terms import (
    CLIENT,
    CRASH_CATALOGUE,
    NODE_OOM_CATALOGUE,
    PROXY,
    STALL_CATALOGUE,
    STARTUP_CATALOGUE,
    USER_CATALOGUE,
    USER_CONTAINERS,
    WORKER,
    WORKER_CATALOGUE,
    WORKER_CONTAINERS,
)

# Node-level events carry whole-second timestamps, and the kernel OOM event is
# reported after the kill: such an event may stand for anything up to this long before it.
NODE_EVENT_TOLERANCE_NS = 10 * 10**9
QUIET_SEVERITIES = ("DEBUG", "INFO", "NOTICE")


@dataclasses.dataclass(frozen=True)
class Look:
    """Where the reason behind a downstream line is logged, and the actions that read it."""

    logs: str
    actions: tuple[str, ...]


PROXY_LOGS = Look(
    "the IFRT proxy's own logs (pathways-proxy), then the RM's and the workers'",
    (
        "--action=proxy --min_severity=WARNING",
        "--action=pathways-rm --min_severity=WARNING",
        "--action=workers --min_severity=WARNING",
    ),
)
PEER_REASON = (
    "the first worker that failed (a peer on the head node is its RM or compilation service)"
)
NODE_ACTIONS = ("--action=node-ooms", "--action=interruptions")
PEER_LOGS = Look(
    f"the lost peer's logs and node: {PEER_REASON}",
    ("--action=workers --min_severity=WARNING", *NODE_ACTIONS),
)


def peer_logs(nodes: Sequence[str]) -> Look:
    """Where a lost peer's reason is, given the nodes the peers' lines name: the node in the
    reason, and the node-level actions narrowed to it."""
    if not nodes:
        return PEER_LOGS
    named = ",".join(nodes)
    actions = [
        f"{action} --node_names={shlex.quote(named)}" if action in NODE_ACTIONS else action
        for action in PEER_LOGS.actions
    ]
    return Look(f"the lost peer's logs and node ({named}): {PEER_REASON}", tuple(actions))


HEAD_LOGS = Look(
    "the head pod's own logs (the RM, which runs the compilation service, and the proxy) "
    "and the head node's OOM kills",
    (
        "--action=pathways-rm --min_severity=WARNING",
        "--action=proxy --min_severity=WARNING",
        "--action=node-ooms",
    ),
)
WORKER_LOGS = Look(
    "the failing TPU worker's logs (the coordinator, slice 0 host 0, names it)",
    ("--action=workers --min_severity=WARNING",),
)
CLIENT_LOGS = Look(
    "the JAX client's own logs: it failed first and the workers only followed",
    ("--action=user-workload --min_severity=DEFAULT",),
)
TRACEBACK_LOGS = Look(
    "the lines that follow it in the same container: the exception line ends the traceback",
    ("--action=user-workload --min_severity=DEFAULT", "--action=errors --min_severity=WARNING"),
)
KUBERNETES_LOGS = Look(
    "Kubernetes and the infrastructure: interruptions, pod events, or the earlier failure "
    "that made the JobSet restart",
    ("--action=interruptions", "--action=pod-events", "--action=summary"),
)
RESTART_LOGS = Look(
    "the restarted container's own lines before it exited",
    ("--action=errors --min_severity=WARNING", "--action=pod-events"),
)
KERNEL_LOGS = Look("the node's kernel OOM report", ("--action=node-ooms",))
SCHEDULER_LOGS = Look(
    "the scheduler's message and the node pools' capacity",
    ("--action=pod-events", "--action=summary"),
)
JOBSET_LOGS = Look(
    "the first failed job's pods, which the JobSet event names",
    ("--action=errors --min_severity=WARNING", "--action=pod-events", "--action=summary"),
)
SLICE_LOGS = Look(
    "the lost slice's own logs and nodes: the RM's, the workers', their interruptions and "
    "OOM kills",
    (
        "--action=pathways-rm --min_severity=WARNING",
        "--action=workers --min_severity=WARNING",
        *NODE_ACTIONS,
    ),
)
TASK_LOGS = Look(
    "the JAX processes the message names (task N is process N, the pod of completion index "
    "N): their logs, pod events and nodes before the timeout",
    ("--action=errors --min_severity=WARNING", "--action=pod-events", *NODE_ACTIONS),
)
STALL_LOGS = Look(
    "the proxy's and the workers' lines around it (a transfer stall, or a peer that went away)",
    ("--action=proxy --min_severity=WARNING", "--action=workers --min_severity=WARNING"),
)


@dataclasses.dataclass(frozen=True)
class Symptom:
    """A downstream line: what identifies it, where it is one, where its reason is.

    `text` is a message substring, or an event reason (`event`); a `shape`
    replaces the substring with a pattern the whole message must match;
    `containers` limits the rule to those containers. A `preamble` only
    announces the evidence that follows it (a traceback's header, the kernel's
    `invoked oom-killer`), so any other symptom is named before it.
    """

    text: str
    look: Look
    examples: tuple[Example, ...]
    containers: tuple[str, ...] = ()
    event: bool = False
    shape: re.Pattern[str] | None = None
    preamble: bool = False

    def matches(self, entry: Entry) -> bool:
        return self.holds(_Read.of(entry))

    def holds(self, read: _Read) -> bool:
        """Whether the rule matches an entry, read once for every rule."""
        if self.event:
            return read.reason == self.text
        if self.containers and read.container not in self.containers:
            return False
        if self.shape is not None:
            return self.shape.match(read.text.rstrip()) is not None
        return self.text.lower() in read.lowered


@dataclasses.dataclass(frozen=True)
class _Read:
    """What the symptom rules look at in an entry."""

    reason: str
    container: str | None
    text: str
    lowered: str

    @classmethod
    def of(cls, entry: Entry) -> _Read:
        text = bare_message(entry)
        return cls(event_reason(entry), container_of(entry), text, text.lower())


def _crash_example(text: str) -> Example:
    return next(t.example for t in CRASH_CATALOGUE if t.text == text)


def _event(reason: str, line: str, source: str, kind: str = POD_EVENT) -> Example:
    return Example(line, source, kind, "WARNING", reason=reason)


# The Restarting condition's event (RestartingJobSetReasonFailurePolicyFormat and
# RestartingJobSetReasonDefaultFailurePolicy, emitted by setCondition).
JOBSET_RESTARTING = (
    JOBSET_CONSTANTS
    + " + pkg/controllers/failure_policy.go and jobset_controller.go (setCondition)"
)


def _jobset_event(reason: str, message_text: str) -> Symptom:
    example = _event(reason, message_text, JOBSET_CONSTANTS + " + failure_policy.go", JOBSET_EVENT)
    return Symptom(reason, JOBSET_LOGS, (example,), event=True)


# The lines of a printed traceback other than its exception line: the header (whatever a
# launcher or logger put before it), a frame (`  File "...", line N, in f`), the frame's
# source line, and the chaining sentences.
TRACEBACK_BODY_RE = re.compile(
    r".*Traceback \(most recent call last\):$|  File \".*\", line \d+|    \S"
    r"|During handling of the above exception, another exception occurred:$"
    r"|The above exception was the direct cause of the following exception:$"
)
CLIENT_DIED = "Client 7f3a9c2e has died, and was configured to restart servers if it died."
SYMPTOMS: tuple[Symptom, ...] = (
    Symptom(
        "Socket closed",
        PROXY_LOGS,
        (next(t.example for t in USER_CATALOGUE if t.text == "Socket closed"),),
    ),
    Symptom(
        "Connection to IFRT proxy server was terminated",
        PROXY_LOGS,
        (
            _crash_example("Connection to IFRT proxy server was terminated"),
            _crash_example("JaxRuntimeError"),
        ),
    ),
    Symptom(
        "IFRT proxy server disconnected",
        PROXY_LOGS,
        (
            Example(
                "IFRT proxy server disconnected: CANCELLED: Cancelled; Stack trace: ",
                IFRT_PROXY + "client/grpc_client.cc @80c095f (session_disconnect_cb)",
                CLIENT,
                "WARNING",
            ),
        ),
    ),
    Symptom(
        "GrpcClientSession: writes no longer allowed",
        PROXY_LOGS,
        (
            Example(
                "FAILED_PRECONDITION: GrpcClientSession: writes no longer allowed.", ARCHIVE, CLIENT
            ),
        ),
    ),
    Symptom(
        "Failed to destroy LoadedExecutable",
        PROXY_LOGS,
        (Example("Failed to destroy LoadedExecutable", ARCHIVE + " (the rest elided)", CLIENT),),
    ),
    Symptom(
        "Unable to establish connection",
        PROXY_LOGS,
        (_crash_example("Unable to initialize backend"),),
    ),
    Symptom(
        "Connection to IFRT proxy server attempt #",
        PROXY_LOGS,
        (
            Example(
                "Connection to IFRT proxy server attempt #3failed: UNAVAILABLE: failed to "
                "connect to all addresses",
                IFRT_PROXY + "client/grpc_client.cc @80c095f (CreateGrpcClient)",
                CLIENT,
                "INFO",
            ),
        ),
    ),
    Symptom(
        "Cancelled", PROXY_LOGS, (_crash_example("Connection to IFRT proxy server was terminated"),)
    ),
    Symptom("lost connection to peer", PEER_LOGS, (_crash_example("lost connection to peer"),)),
    # The coordination service reports a JAX process that is late or gone, not why.
    Symptom("Barrier timed out", TASK_LOGS, scenarios.BARRIER_TIMEOUTS),
    Symptom("heartbeat timeout. This indicates", TASK_LOGS, scenarios.HEARTBEAT_TIMEOUTS),
    Symptom("stopped sending heartbeats", TASK_LOGS, scenarios.SHARED_FATE),
    Symptom("JAX distributed service detected", TASK_LOGS, scenarios.SHARED_FATE),
    Symptom("It has likely restarted", TASK_LOGS, scenarios.RESTARTED_TASKS[:1]),
    Symptom("has restarted and likely crashed earlier", TASK_LOGS, scenarios.RESTARTED_TASKS[1:]),
    Symptom(
        "Pipe from scheduler to aggregator",
        PEER_LOGS,
        (_crash_example("Pipe from scheduler to aggregator"),),
    ),
    Symptom(
        # pathwaysutils logs it only for an error it reads as a slice going down.
        "Elastic event detected",
        SLICE_LOGS,
        (
            Example(
                "Elastic event detected",
                PATHWAYS_UTILS + "pathwaysutils/elastic/manager.py:410 (handle_slice_down_error)",
                CLIENT,
            ),
        ),
        containers=USER_CONTAINERS,
    ),
    Symptom(
        "SLICE_FAILURE_CHIP_DRIVER_ERROR",
        WORKER_LOGS,
        (
            Example(
                "Detected failure SLICE_FAILURE_CHIP_DRIVER_ERROR in session e6c885828b538167; "
                "Start failure handling",
                MAXTEST,
                CLIENT,
            ),
        ),
        containers=USER_CONTAINERS,
    ),
    Symptom(
        "has died, and was configured to restart servers",
        CLIENT_LOGS,
        (Example(CLIENT_DIED, ARCHIVE + " (quick_restart.cc:19)", WORKER),),
        containers=WORKER_CONTAINERS,
    ),
    Symptom(
        "Quick-restart requested but unsupported",
        CLIENT_LOGS,
        (
            Example(
                "(Quick-restart requested but unsupported in Cloud/OSS.)",
                ARCHIVE + " (quick_restart.cc:40; the start of the line elided)",
                WORKER,
                "CRITICAL",
            ),
        ),
        containers=WORKER_CONTAINERS,
    ),
    Symptom("SIGTERM", KUBERNETES_LOGS, (_crash_example("SIGTERM"),)),
    Symptom(
        "Back-off restarting failed container",
        RESTART_LOGS,
        (
            _event(
                "BackOff",
                "Back-off restarting failed container pathways-worker in pod "
                "llama-train-worker-1-0-km2rf_default(c1d2e3f4-0000-4000-8000-000000000001)",
                "kubernetes/kubernetes pkg/kubelet/kuberuntime/kuberuntime_manager.go (doBackOff)",
            ),
        ),
    ),
    Symptom(
        "Stopping container",
        KUBERNETES_LOGS,
        (
            Example(
                "Stopping container pathways-worker",
                "kubernetes/kubernetes pkg/kubelet/kuberuntime/kuberuntime_container.go "
                "(killContainer)",
                POD_EVENT,
                "INFO",
                reason="Killing",
            ),
        ),
    ),
    Symptom("GOAWAY", STALL_LOGS, tuple(t.example for t in STALL_CATALOGUE if t.text == "GOAWAY")),
    Symptom(
        # The kernel's preamble to an OOM kill; the `Killed process` line that follows is the
        # evidence.
        "invoked oom-killer",
        KERNEL_LOGS,
        tuple(t.example for t in NODE_OOM_CATALOGUE if t.text == "invoked oom-killer"),
        preamble=True,
    ),
    Symptom(
        # A traceback logged one line per entry: its header, frames and chaining lines lead
        # to the exception line, which is the evidence.
        "Traceback (most recent call last):",
        TRACEBACK_LOGS,
        (
            _crash_example("Traceback (most recent call last)"),
            Example("[rank0]: Traceback (most recent call last):", ARCHIVE, CLIENT),
            Example(
                '  File "/deps/src/maxtext/trainers/pre_train/train.py", line 612, in train_loop',
                "python/cpython Lib/traceback.py (the frame line of a printed traceback)",
                CLIENT,
            ),
            Example(
                "During handling of the above exception, another exception occurred:",
                "python/cpython Lib/traceback.py (chained exceptions)",
                CLIENT,
            ),
        ),
        shape=TRACEBACK_BODY_RE,
        preamble=True,
    ),
    Symptom(
        "Killing",
        KUBERNETES_LOGS,
        (
            Example(
                "Stopping container pathways-worker",
                "kubernetes/kubernetes pkg/kubelet/events/event.go (KillingContainer)",
                POD_EVENT,
                "INFO",
                reason="Killing",
            ),
        ),
        event=True,
    ),
    _jobset_event(
        "RestartJobSetFailurePolicyAction",
        "applying RestartJobSet failure policy action (first failed job: llama-train-worker-1)",
    ),
    _jobset_event(
        "FailJobSetFailurePolicyAction",
        "applying FailJobSet failure policy action (first failed job: llama-train-worker-1)",
    ),
    _jobset_event(
        "RestartJobFailurePolicyAction",
        "applying RestartJob failure policy action (first failed job: llama-train-worker-1)",
    ),
    _jobset_event(
        "RestartJobSetAndIgnoreMaxRestartsFailurePolicyAction",
        "applying RestartJobSetAndIgnoreMaxRestarts failure policy action (first failed job: "
        "llama-train-worker-1)",
    ),
    _jobset_event(
        "RestartJobAndIgnoreMaxRestartsFailurePolicyAction",
        "applying RestartJobAndIgnoreMaxRestarts failure policy action (first failed job: "
        "llama-train-worker-1)",
    ),
    Symptom(
        # The Warning event of the JobSet's Restarting condition: its reason is the failure
        # policy rule's name (FailurePolicy_<rule>, or DefaultFailurePolicy), its message the
        # action's.
        "failure policy action (first failed job:",
        JOBSET_LOGS,
        tuple(
            _event(reason, message_text, JOBSET_RESTARTING, JOBSET_EVENT)
            for reason, message_text in (
                (
                    "DefaultFailurePolicy",
                    "applying RestartJobSet failure policy action (first failed job: "
                    "llama-train-worker-1)",
                ),
                (
                    "FailurePolicy_restart-on-host-error",
                    "applying RestartJob failure policy action (first failed job: "
                    "llama-train-worker-1)",
                ),
            )
        ),
    ),
    _jobset_event("FailedJobs", "jobset failed due to one or more job failures"),
    _jobset_event(
        "ReachedMaxRestarts",
        "jobset failed due to reaching max number of restarts (first failed job: "
        "llama-train-worker-1)",
    ),
    Symptom(
        "BackoffLimitExceeded",
        JOBSET_LOGS,
        (
            _event(
                "BackoffLimitExceeded",
                "Job has reached the specified backoff limit",
                "kubernetes/kubernetes pkg/controller/job/job_controller.go",
                JOBSET_EVENT,
            ),
        ),
        event=True,
    ),
    Symptom(
        "FailedScheduling",
        SCHEDULER_LOGS,
        (
            _event(
                "FailedScheduling",
                "0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod "
                "ports. no new claims to deallocate, preemption: 0/1 nodes are available: 1 "
                "node(s) didn't have free ports for the requested pod ports.",
                "a public k3s write-up (kube-scheduler nodeports plugin wording)",
            ),
        ),
        event=True,
    ),
    Symptom(
        "NodeNotReady",
        KUBERNETES_LOGS,
        (
            _event(
                "NodeNotReady",
                "Node is not ready",
                "kubernetes/kubernetes pkg/controller/nodelifecycle (MarkPodsNotReady)",
            ),
        ),
        event=True,
    ),
)

# Lines that say a component started or the run is ready: never evidence of a failure.
READY_LINES = (
    "IFRT proxy server started with status OK",
    "Pathways Server serving",
    "Slices Now Ready",
    "MegaScale transport init",
    "Detected Pathways-on-Cloud backend",
    "Sufficient slices active",
)
# The banners absl prints after a fatal line, as it dumps the stack: `*** Check failure stack
# trace: ***` after a failed CHECK (abseil-cpp absl/log/internal/log_message.cc), and the
# failure-signal handler's `*** SIGABRT received at time=... ***` or `... by PID 1 (TID 1) on cpu
# 80 from PID 0; stack trace: ***` (terms.py cites both).
_FATAL_BANNER_RE = re.compile(r"\*\*\* (?:Check failure stack trace: |SIG[A-Z]+ received )")
# The kubelet's startContainer records `Error: <error>` (reason Failed) after the event of the
# step that failed, often in the same second: `Failed to pull image "...": <why>` (pkg/kubelet/
# images/image_manager.go), then `Error: ErrImagePull` (pkg/kubelet/kuberuntime/
# kuberuntime_container.go, startContainer's `Error: %v`).
_KUBELET_RESTATEMENT = "Error: "
# Python's default logging layout, `LEVEL:logger:message`: routine levels even when GKE
# marked the line ERROR because it went to stderr.
_PYTHON_ROUTINE_RE = re.compile(r"^(?:DEBUG|INFO):[\w.]+:")
# Python's `warnings` module: `path.py:LINE: CategoryWarning: message` (a notice, not an error).
_PYTHON_WARNING_RE = re.compile(r"^\S+\.py:\d+: (?:\w+\.)*[A-Z]\w*Warning: ")
QUIET_EVENT_REASONS = (
    "Scheduled",
    "Pulling",
    "Pulled",
    "Created",
    "Started",
    "SuccessfulCreate",
    "SuccessfulDelete",
    "AllJobsCompleted",
    "InOrderStartupPolicyInProgress",
    "InOrderStartupPolicyCompleted",
    "ResumeJobs",
)


def _startup_example(text: str) -> Example:
    return next(t.example for t in STARTUP_CATALOGUE if t.text == text)


# Lines real runs log that must produce no evidence.
BENIGN: tuple[Example, ...] = (
    _startup_example("IFRT proxy server started"),
    _startup_example("Pathways Server serving"),
    _startup_example("Slices Now Ready"),
    _startup_example("Detected Pathways-on-Cloud backend"),
    _startup_example("Sufficient slices active"),
    Example(
        "INFO:jax._src.cache_key:get (_hash_accelerator_config): unable to hash accelerator "
        "config, falling back to hashing devices + platform: UNIMPLEMENTED: "
        "GetTopologyForDevices is not supported for the IFRT proxy client. (type <class "
        "'jaxlib.xla_extension.XlaRuntimeError'>)",
        TROUBLESHOOTING_DOC,
        CLIENT,
    ),
    Example(
        "Starting new IFRT session 1 for peer 'ipv4:10.8.0.5:43122' with metadata=version { "
        "protocol_version: 14 }",
        IFRT_PROXY + "server/grpc_service_impl.cc @80c095f (IfrtSession)",
        PROXY,
        "INFO",
    ),
    *(t.example for t in WORKER_CATALOGUE[:2]),
    next(t.example for t in USER_CATALOGUE if t.text == "completed step"),
    next(t.example for t in USER_CATALOGUE if t.text == "XPK Start"),
    next(t.example for t in USER_CATALOGUE if t.text == "Elastic"),
    Example(
        "Successfully assigned default/llama-train-worker-1-0-km2rf to "
        "gke-pw-cluster-tpu-np-1-8a1b2c3d-x9k2",
        "kubernetes/kubernetes pkg/scheduler/schedule_one.go",
        POD_EVENT,
        "INFO",
        reason="Scheduled",
    ),
    Example(
        'Pulling image "us-docker.pkg.dev/cloud-tpu-v2-images/cloud-pathways/server:jax-0.12.0"',
        "kubernetes/kubernetes pkg/kubelet/images/image_manager.go (Pulling image %q)",
        POD_EVENT,
        "INFO",
        reason="Pulling",
    ),
)


@dataclasses.dataclass(frozen=True)
class Evidence:
    """One entry that says something went wrong, and how to weigh it (what is read from the
    entry is read once: triage asks it of every item many times)."""

    entry: Entry
    time_ns: int
    source: str
    symptom: bool
    traceback: tuple[str, ...] = ()  # the traceback this exception line ends, as logged

    @property
    def coarse(self) -> bool:
        """Whole-second node-level events, which may lag what they report."""
        return self.source == "node-event"

    @property
    def effective_ns(self) -> int:
        return self.time_ns - (NODE_EVENT_TOLERANCE_NS if self.coarse else 0)

    @functools.cached_property
    def pod(self) -> str | None:
        return pod_of(self.entry)

    @functools.cached_property
    def container(self) -> str | None:
        return container_of(self.entry)

    @functools.cached_property
    def node(self) -> str | None:
        return node_of(self.entry)

    @functools.cached_property
    def message(self) -> str:
        return message(self.entry)

    @functools.cached_property
    def attempt(self) -> str | None:
        return attempt_of(self.entry)

    @functools.cached_property
    def scenario(self) -> scenarios.Scenario | None:
        return scenarios.match(self.entry)

    @property
    def preamble(self) -> bool:
        """A symptom that only announces the evidence after it (see Symptom)."""
        rule = symptom_of(self.entry) if self.symptom else None
        return rule is not None and rule.preamble

    @property
    def decisive(self) -> bool:
        """A cause in its own right: neither a symptom nor an incidental failure."""
        scenario = self.scenario
        return not self.symptom and not (scenario is not None and scenario.incidental)

    @property
    def time_guessed(self) -> bool:
        """A text-log line with no time of its own (it took a nearby line's)."""
        return entry_labels(self.entry).get(labels.TIME_GUESSED) == "guessed"

    def order(self) -> tuple[bool, int, int, int, tuple[int, str]]:
        """Earliest first; a line whose time is a guess after every line with its own."""
        return self._order

    @functools.cached_property
    def _order(self) -> tuple[bool, int, int, int, tuple[int, str]]:
        rank = {"serial-console": 0, "audit": 0, "node-event": 1}.get(self.source, 2)
        return self.time_guessed, self.effective_ns, rank, self._tie_rank(), sort_key(self.entry)

    def _tie_rank(self) -> int:
        """Among lines of one instant, whose order neither the clock nor the insertIds (random)
        tell: one that names a known failure first (the kubelet's restatement of a failed step
        after the step's own event), a fatal line's stack-trace banner last."""
        if self.scenario is not None:
            return 1 if self._kubelet_restatement() else 0
        return 3 if _FATAL_BANNER_RE.match(bare_message(self.entry).strip()) else 2

    def _kubelet_restatement(self) -> bool:
        """A pod event in which the kubelet restates a failed step: `Error: ErrImagePull`."""
        if self.source != "pod-event" or event_reason(self.entry) != "Failed":
            return False
        payload = self.entry.get("jsonPayload")
        said = payload.get("message") if isinstance(payload, dict) else None
        return isinstance(said, str) and said.startswith(_KUBELET_RESTATEMENT)


def restart_attempt(entry: Entry) -> str | None:
    """The JobSet restart attempt an entry belongs to, if it says."""
    found = entry_labels(entry)
    return next(
        (str(found[k]) for k in labels.RESTART_ATTEMPT if isinstance(found.get(k), str)), None
    )


def attempt_of(entry: Entry) -> str | None:
    """The JobSet restart attempt (or LWS group) an entry belongs to, if it says."""
    attempt = restart_attempt(entry)
    if attempt is not None:
        return attempt
    group = entry_labels(entry).get(labels.LWS_GROUP_INDEX)
    return f"group {group}" if isinstance(group, str) else None


def source_of(entry: Entry) -> str:
    """Which kind of evidence an entry is."""
    kind = resource_type(entry)
    log_name = str(entry.get("logName", ""))
    if kind == "gce_instance":
        return "serial-console" if "serialconsole" in log_name else "audit"
    if kind == "gke_nodepool":  # GKE's audit record of a node pool operation
        return "audit"
    if kind == "k8s_node":
        return "node-event"
    if kind == "k8s_pod":
        return "pod-event"
    if kind == "k8s_cluster":
        return "cluster-event"
    namespace = resource_labels(entry).get("namespace_name")
    return "controller" if namespace == "jobset-system" else "container"


def symptom_of(entry: Entry) -> Symptom | None:
    """The first symptom rule the entry matches, or None for a possible cause."""
    read = _Read.of(entry)
    return next((rule for rule in SYMPTOMS if rule.holds(read)), None)


def _routine_line(entry: Entry) -> bool:
    """A quiet container line: low severity (unless a known failure is logged that low, or a
    whole traceback: a client whose stderr goes to stdout logs its crash at INFO), a Python
    logging record at a routine level or a Python warning, or a start-up and readiness line.
    A glog line whose header the logging agent left in the message is read by its own letter,
    not by the severity of the stream it went to (stderr ERROR, stdout INFO)."""
    text = bare_message(entry)
    level = glog_severity(text) or severity(entry)
    if level in QUIET_SEVERITIES and not tracebacks.is_whole(message(entry)):
        scenario = scenarios.match(entry)
        return scenario is None or not scenario.info_level
    python = _PYTHON_ROUTINE_RE.match(text) or _PYTHON_WARNING_RE.match(text)
    return bool(python) or any(line in text for line in READY_LINES)


def _is_noise(entry: Entry, source: str) -> bool:
    """Routine entries that are not evidence of a failure."""
    if source == "container":
        return _routine_line(entry)
    if source == "controller":
        return severity(entry) in QUIET_SEVERITIES
    if source in ("pod-event", "cluster-event"):
        return event_reason(entry) in QUIET_EVENT_REASONS or (
            severity(entry) != "WARNING"
            and symptom_of(entry) is None
            and scenarios.match(entry) is None
        )
    return False


def classify(entry: Entry) -> Evidence | None:
    """Evidence from an entry, or None for routine entries."""
    source = source_of(entry)
    if _is_noise(entry, source):
        return None
    return Evidence(entry, entry_time_ns(entry), source, symptom_of(entry) is not None)


def with_tracebacks(
    evidence: list[Evidence], crashes: Sequence[Entry], follow_ups: Sequence[Result]
) -> list[Evidence]:
    """The evidence, with the exception line of each traceback the crash lines start.

    A traceback logged one line per entry starts with a header (a symptom: it
    says nothing yet); its exception line, found among the follow-up lines, is
    the evidence, whatever its severity, and carries the traceback with it.
    """
    lines = [entry for result in follow_ups for entry in result.entries]
    ends: dict[tuple[str, str, str], Evidence] = {}
    for header in tracebacks.first_headers(crashes, len(crashes)):
        built = tracebacks.assemble(header, lines)
        if built.exception is not None:
            end = built.exception
            symptom = symptom_of(end) is not None
            item = Evidence(end, entry_time_ns(end), source_of(end), symptom, tuple(built.text()))
            ends[identity(end)] = item
    kept = [item for item in evidence if identity(item.entry) not in ends]
    return kept + list(ends.values())
