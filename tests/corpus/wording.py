"""Rows of planted wording: every line, event and audit entry the corpus writes is one of these.

A row is a template (`str.format` fields, literal braces doubled) plus how it is logged. Its
wording is either guessed (`guess` says what was made up, as the expected files list it) or
unverified: believed real, but no public source is cited for it yet. `planted` marks a row as
part of an incident's story (a root cause or its cascade), which the generator's own checks
exempt from "background lines must not look like a failure".
"""

from __future__ import annotations

from dataclasses import dataclass

GUESSED = "guessed"
UNVERIFIED = "unverified"
NO_SOURCE = ("main.cc", 1)

# Guesses most incidents share; listed once in the corpus README.
BUILD_GUESS = (
    "Pathways Build label values, binary paths in the argv echo and the "
    "build_info.cc/server_main.cc source locations"
)
PERIODIC_GUESS = (
    "periodic lines: RM `Slice health: ...`, proxy `Session 1: N requests served`, worker "
    "`Executed N programs in the last 60s; host memory in use ...`, sidecar `Handled N colocated "
    "Python calls`"
)
REGISTRATION_GUESS = (
    "worker/RM registration lines (`Registered with resource manager ...`, `Registered worker ...`)"
    " and the full `Transition slice N unplaced -> placed` line"
)
PROXY_GUESS = (
    "proxy `Connecting to resource manager at ...`; the metadata, file and line of `Starting new "
    "IFRT session N for peer ... with metadata=...`"
)
SIGTERM_GUESS = (
    "`*** SIGTERM received by PID 1 (TID 1) on cpu N from PID 0; stack trace: ***` (absl failure "
    "signal handler format) as the SIGTERM line of Pathways and JAX containers"
)
MAXTEXT_GUESS = (
    "MaxText `System Information: ...`, `Config param ...`, `saved a checkpoint at step N` wording"
)
NODE_GUESS = "kubelet `Image garbage collection skipped` line; containerd message details"
JOBSET_EVENT_GUESS = (
    "JobSet event rendering (events.k8s.io: no lastTimestamp, empty source, ingestion timestamp) "
    "and the `(first failed job: ...)` suffix on FailedJobs/ReachedMaxRestarts"
)
JOURNAL_GUESS = (
    "severity on node journald entries (kubelet, container-runtime); `Created container: X` (newer "
    "kubelets) next to `Created container X` (older) across incidents"
)
COMMON_GUESSES = (
    BUILD_GUESS,
    PERIODIC_GUESS,
    REGISTRATION_GUESS,
    PROXY_GUESS,
    SIGTERM_GUESS,
    MAXTEXT_GUESS,
    NODE_GUESS,
    JOBSET_EVENT_GUESS,
    JOURNAL_GUESS,
)


@dataclass(frozen=True, kw_only=True)
class Wording:
    """Whether a row's wording is guessed or unverified, and whether it is planted."""

    guess: str | None = None
    planted: bool = False

    @property
    def flag(self) -> str:
        """`guessed` or `unverified`."""
        return GUESSED if self.guess else UNVERIFIED


@dataclass(frozen=True)
class Line(Wording):
    """A container's line. `form`: `glog` (the logging agent parsed the header into severity
    and source location), `raw` (a glog header it did not parse), `plain` or `json`."""

    text: str
    source: tuple[str, int] = NO_SOURCE
    letter: str = "I"
    form: str = "glog"
    stream: str = "stderr"
    logger: str = "root"


@dataclass(frozen=True)
class KubeletLine(Wording):
    """A kubelet journald line (klog format; the header is written from `letter`, `source`)."""

    text: str
    source: tuple[str, int] = ("kubelet.go", 2453)
    letter: str = "I"


@dataclass(frozen=True)
class ContainerdLine(Wording):
    """A containerd journald line (logrus format, `level=`)."""

    text: str
    level: str = "info"


@dataclass(frozen=True)
class KernelLine(Wording):
    """A kernel message on a node's serial console (dmesg uptime stamp in front)."""

    text: str


@dataclass(frozen=True)
class Event(Wording):
    """A Kubernetes event: about a `kind` of object, from a `component`; `events_api`: recorded
    through events.k8s.io (eventTime and action, no lastTimestamp)."""

    reason: str
    message: str
    type: str = "Normal"
    component: str = "kubelet"
    kind: str = "Pod"
    events_api: bool = False


@dataclass(frozen=True)
class SystemEvent(Wording):
    """A Compute Engine system-event audit entry."""

    method: str
    status: str


@dataclass(frozen=True)
class ZapLine(Line):
    """A controller-runtime manager's line (zap console encoder): `level`, the `logger` name,
    the message (`text`) and its JSON `fields` (a template), tab-separated on stderr."""

    form: str = "plain"
    level: str = "INFO"
    fields: str = "{{}}"
