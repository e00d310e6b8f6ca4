"""Plain-text container logs (`kubectl logs` output) read as LogEntry-shaped entries.

A file is text logs when `--logs_format=kubectl` says so, or (`auto`) when it
does not start like a JSON export and one of its first lines carries a
`[pod/NAME/CONTAINER]` prefix, an RFC 3339 time or a glog header
(text_lines.py). Anything else is refused, naming the file and line.

Each non-blank line becomes one `k8s_container` entry, as GKE's agent makes one
per line:
- pod and container: the line's prefix; else the file's place: a node's own log
  layouts wherever they are, or `<pod>/<container>.log` (`.txt`, maybe gzipped)
  in a folder given to `--logs_file`; else
  `--pod_prefix` and a single `--container_names` value. Mixing prefixed and
  unprefixed lines is refused: whose a line is would be a guess; kubectl's own
  error lines among them are left out, with a note.
- time: the RFC 3339 time, else the glog header's (glog_time.py). A line
  without one keeps the time of the previous timed line of the same container
  in file order; lines before a container's first time take that first time;
  a container that never logs a time takes the file's previous time. A file
  without any time is refused.
- severity: the glog letter, else a zap console line's level, else a CRI line's
  stream (stderr ERROR, stdout INFO, as GKE's agent has it), else DEFAULT (a
  transcript does not say which stream a line went to); a glog header becomes
  `sourceLocation` and leaves the message as `textPayload`. A line that is one
  JSON object becomes `jsonPayload`, its `severity` field the entry's, as GKE's
  agent stores structured logs (Cloud Logging's structured-logging special
  fields).
- insertId: distinct, in file order within a container, so lines sharing a time keep
  their order; made from the line's container, number and text, so the same transcript
  given twice (a copy, its gzipped copy `NAME.gz`, standard input) is one entry a line.
- resource labels: project, location and cluster from their flags when given,
  the namespace from the file's path, else jobset-system for the JobSet controller's pods
  (`jobset-controller-manager-HASH-SUFFIX`), else `--namespace`; workload labels from the pod's name
  (pod_names.py). No logName (stdout or stderr is unknown).
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from pathways_workload.errors import InputFileError
from pathways_workload.exact_json import NotText, output_line, parse_entry
from pathways_workload.labels import TIME_GUESSED
from pathways_workload.lql.values import SEVERITY_NAMES, severity_level
from pathways_workload.pod_names import implied_labels
from pathways_workload.sources.glog_time import GlogClock
from pathways_workload.sources.records import INCOMPLETE
from pathways_workload.sources.text_lines import CRI_LINE_RE, TextLine, parse_line
from pathways_workload.target import Workload
from pathways_workload.timestamps import format_timestamp_ns
from pathways_workload.window import Window

FORMATS = ("auto", "export", "kubectl")
_SNIFF_LINES = 10
_LOG_SUFFIXES = (".log", ".txt")
# The kubelet's folder of a pod's logs, NAMESPACE_POD_UID (no name holds an underscore).
_POD_DIR_RE = re.compile(r"([a-z0-9][-a-z0-9]*)_([a-z0-9][-a-z0-9.]*)_[0-9a-f-]+")
# A container's log in it: RESTARTS.log, or one the kubelet rotated, RESTARTS.log.TIME.
_CRI_FILE_RE = re.compile(r"([0-9]+)\.log(?:\.([0-9]{8}-[0-9]{6}))?")
# Its links in /var/log/containers: POD_NAMESPACE_CONTAINER-CONTAINERID.log.
_CONTAINER_LINK_RE = re.compile(
    r"([a-z0-9][-a-z0-9.]*)_([a-z0-9][-a-z0-9]*)_([a-z0-9][-a-z0-9]*)-[0-9a-f]{64}\.log"
)
# The JobSet controller's pods (Deployment jobset-controller-manager: POD-TEMPLATE-HASH-SUFFIX)
# and their namespace (kubernetes-sigs/jobset config/default/kustomization.yaml: namespace
# jobset-system, namePrefix jobset-), where triage reads the controller's logs.
_JOBSET_CONTROLLER_POD_RE = re.compile(r"jobset-controller-manager-[a-z0-9]{1,10}-[a-z0-9]{5}")
JOBSET_CONTROLLER_NAMESPACE = "jobset-system"
# kubectl's own error lines: `error: ...` (logs.go's parallelConsumeRequest writes a stream's
# error so among the logs under -f --ignore-errors; CheckErr prints others so) and
# `Error from server (REASON): ...` (cmd/util/helpers.go), on stderr, which `2>&1` mixes in.
_KUBECTL_ERROR_RE = re.compile(r"error: |Error from server(?: \([A-Za-z]+\))?: ")
# A CRI line's stream gives its severity, as GKE's agent gives it (a transcript's is unknown).
STREAM_SEVERITY = {"stderr": "ERROR", "stdout": "INFO", None: "DEFAULT"}
Entry = dict[str, Any]
Who = tuple[str, str]
Parts = dict[str, str]  # a split line's parts so far, by stream


def _quiet(note: str) -> None:
    """Where notes go when nobody listens."""


def _json_object(text: str) -> dict[str, Any] | None:
    """The line as a JSON object, when it is one (else None), read as exports are (numbers
    keep their text). Raises NotText or RecursionError for an object no entry can hold."""
    body = text.strip()
    if not (body.startswith("{") and body.endswith("}")):
        return None
    try:
        value = parse_entry(body.encode("utf-8"))
    except NotText:
        raise
    except ValueError:
        return None
    return dict(value) if isinstance(value, dict) else None


def refuse(name: str, line: int, what: str) -> InputFileError:
    return InputFileError(f"{name}:{line}: {what}; {INCOMPLETE}")


@dataclasses.dataclass(frozen=True)
class TextLogOptions:
    """What the flags say about text logs: the layout, the target, the window, now."""

    format: str = "auto"
    namespace: str = "default"
    project: str | None = None
    cluster_name: str | None = None
    location: str | None = None
    workloads: tuple[Workload, ...] = ()
    pod: str | None = None
    containers: tuple[str, ...] = ()
    window: Window | None = None
    now_ns: int = 0
    folders: tuple[str, ...] = ()
    tell: Callable[[str], None] = _quiet


@dataclasses.dataclass(frozen=True)
class TextRecord:
    """One entry made from a line: its line number, its JSON text, the entry."""

    line: int
    raw: bytes
    entry: Entry


def node_log_place(path: Path) -> tuple[str, str, str] | None:
    """(pod, container, namespace) of a file in a node's container log folders: the kubelet's
    `/var/log/pods/NAMESPACE_POD_UID/CONTAINER/RESTARTS.log` or its links
    `/var/log/containers/POD_NAMESPACE_CONTAINER-CONTAINERID.log`."""
    parts = path.parts
    name = parts[-1].removesuffix(".gz")
    if len(parts) >= 3 and _CRI_FILE_RE.fullmatch(name):
        pod_dir = _POD_DIR_RE.fullmatch(parts[-3])
        if pod_dir is not None:
            return pod_dir[2], parts[-2], pod_dir[1]
    link = _CONTAINER_LINK_RE.fullmatch(name)
    return (link[1], link[3], link[2]) if link is not None else None


def _log_turn(path: Path) -> tuple[str, str] | None:
    """(restarts, rotation time, `~` for the live log) of a container log in a node's
    /var/log/pods, or None for any other file."""
    match = _CRI_FILE_RE.fullmatch(path.name.removesuffix(".gz"))
    if match is None or node_log_place(path) is None:
        return None
    return match[1], match[2] or "~"


def _continued(path: Path, turn: tuple[str, str]) -> bool:
    """Whether a later file of the same container log (a later rotation, or the live log)
    sits beside this one, not empty."""
    try:
        beside = [other for other in path.parent.iterdir() if other.stat().st_size]
    except OSError:
        return False
    later = (_log_turn(other) for other in beside)
    return any(t is not None and t[0] == turn[0] and t[1] > turn[1] for t in later)


def _log_stem(name: str) -> str | None:
    """`jax-tpu` of `jax-tpu.log` (or `.txt`, maybe `.gz`); None for any other name."""
    name = name.removesuffix(".gz")
    for suffix in _LOG_SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return None


class TextLogs:
    """How this run reads text logs: the options, one glog clock, pod labels worked out once."""

    def __init__(self, options: TextLogOptions | None = None) -> None:
        self.options = options or TextLogOptions()
        self.clock = GlogClock(self.options.window, self.options.now_ns, self.options.tell)
        self._labels: dict[str, dict[str, str]] = {}
        self._namespaces: dict[str, str] = {}  # a pod's, when its file's path names it
        self._told: set[str] = set()
        # The parts of a split line a rotated container log ended with, for its next file.
        self._carried: dict[tuple[Path, str], Parts] = {}

    def tell_once(self, kind: str, note: str) -> None:
        """A note for stderr, the first of its kind in a run (however many files, and passes
        over them)."""
        if kind not in self._told:
            self._told.add(kind)
            self.options.tell(note)

    @property
    def forced(self) -> bool:
        return self.options.format == "kubectl"

    def is_text(self, name: str, head: bytes) -> bool:
        """Whether a file starting with `head` is text logs (refusing what is neither); its
        first lines are looked at, kubectl's own errors skipped."""
        if self.options.format != "auto":
            return self.forced
        body = head.lstrip()  # sniffing dropped a byte order mark
        if not body or body.startswith(b"{"):
            return False
        if body.startswith(b"[") and not body.startswith(b"[pod/"):
            return False
        first = head.count(b"\n", 0, len(head) - len(body)) + 1
        lines = (line.decode("utf-8", "replace").rstrip("\r") for line in body.split(b"\n"))
        texts = [text for text in lines if text.strip() and not _KUBECTL_ERROR_RE.match(text)]
        if any(parse_line(text).recognised for text in texts[:_SNIFF_LINES]):
            return True
        raise refuse(
            name,
            first,
            "not a JSON export ('[' or '{') or container logs (lines with a "
            "[pod/NAME/CONTAINER] prefix, an RFC 3339 time or a glog header); for container "
            "logs, record them with kubectl logs --timestamps (--logs_format=kubectl reads "
            "them anyway when a later line carries a time)",
        )

    def place_of(self, path: Path | None) -> Who | None:
        """(pod, container) from a file's place: a node's own log layouts wherever they are
        (`NS_POD_UID/CONTAINER/N.log`, `POD_NS_CONTAINER-ID.log`), else
        `<pod>/<container>.log` in a folder given."""
        node_layout = node_log_place(path) if path is not None else None
        if node_layout is not None:  # a node's folders mix namespaces: the path says whose
            pod, container, self._namespaces[pod] = node_layout
            return pod, container
        for folder in self.options.folders:
            root = Path(folder)
            if path is None or not root.is_dir() or not path.is_relative_to(root):
                continue
            parts = path.relative_to(root).parts
            stem = _log_stem(parts[-1])
            if len(parts) >= 2 and stem:
                return parts[-2], stem
        return None

    def records(self, name: str, path: Path | None, lines: Iterable[bytes]) -> Iterator[TextRecord]:
        """The entries of a text file's lines, in file order (lines waiting for a time later)."""
        return _Transcript(self, name, path, self.place_of(path)).read(lines)

    def carried(self, path: Path | None) -> Parts:
        """The parts of a split line that the file before this one of its container log (the
        kubelet's rotation of it, read first) ended with."""
        turn = _log_turn(path) if path is not None else None
        return self._carried.pop((path.parent, turn[0]), {}) if path and turn else {}

    def carry(self, path: Path | None, parts: Parts) -> bool:
        """Keep the parts of a split line a file ends with for the next file of its container
        log, when one follows (True); else they are a line of their own."""
        turn = _log_turn(path) if path is not None else None
        if path is None or turn is None or not _continued(path, turn):
            return False
        self._carried[(path.parent, turn[0])] = parts
        return True

    def labels_of(self, pod: str) -> dict[str, str]:
        if pod not in self._labels:
            self._labels[pod] = implied_labels(pod, self.options.workloads)
        return self._labels[pod]

    def namespace_of(self, pod: str) -> str:
        """A pod's namespace: its file's path's, else the JobSet controller's own for its
        pods, else `--namespace`'s."""
        if pod in self._namespaces:
            return self._namespaces[pod]
        if _JOBSET_CONTROLLER_POD_RE.fullmatch(pod):
            return JOBSET_CONTROLLER_NAMESPACE
        return self.options.namespace

    def entry(self, who: Who, time_ns: int, line: TextLine, insert_id: str) -> Entry:
        """The LogEntry-shaped dict of one line."""
        options = self.options
        scope = (
            ("project_id", options.project),
            ("location", options.location),
            ("cluster_name", options.cluster_name),
        )
        resource = {key: value for key, value in scope if value}
        resource.update(
            namespace_name=self.namespace_of(who[0]), pod_name=who[0], container_name=who[1]
        )
        entry: Entry = {
            "insertId": insert_id,
            "resource": {"type": "k8s_container", "labels": resource},
            "timestamp": format_timestamp_ns(time_ns),
            "severity": line.severity or STREAM_SEVERITY.get(line.stream),
            "textPayload": line.message,
        }
        structured = _json_object(line.message)
        if structured is not None:  # as GKE's agent stores a line that is one JSON object
            del entry["textPayload"]
            level = structured.pop("severity", None)
            if not line.glog:
                entry["severity"] = SEVERITY_NAMES[severity_level(level)]
            entry["jsonPayload"] = structured
        labels = dict(self.labels_of(who[0]))
        if line.stamp_ns is None and line.glog is None:  # it took a nearby line's time
            labels[TIME_GUESSED] = "guessed"
        if labels:
            entry["labels"] = labels
        if line.glog:
            entry["sourceLocation"] = {"file": line.glog.file, "line": line.glog.line}
        return entry


@dataclasses.dataclass
class _Container:
    """A container's last time, and its lines still waiting for one (with the file's then)."""

    last_ns: int | None = None
    waiting: list[tuple[int, TextLine, int | None]] = dataclasses.field(default_factory=list)


def _insert_id(who: Who, number: int, line: TextLine) -> str:
    """An ID from what the line is (its container, place in the file and text), not from
    the file's name: the same transcript given twice (a copy, its gzipped copy, standard
    input) holds the same entries, and a container's lines keep their file order."""
    container = hashlib.sha1("/".join(who).encode(), usedforsecurity=False).hexdigest()[:8]
    text = hashlib.sha1(line.message.encode(), usedforsecurity=False).hexdigest()[:8]
    return f"{container}-{number:010d}-{text}"


class _Transcript:
    """One text file read line by line."""

    def __init__(self, logs: TextLogs, name: str, path: Path | None, place: Who | None) -> None:
        self._logs = logs
        self._name = name
        self._path = path
        self._place = place
        self._prefixed: bool | None = None
        self._first_line = 0
        self._default: Who | None = None
        self._containers: dict[Who, _Container] = {}
        self._file_last: int | None = None
        self._file_first: int | None = None
        self._untimed = 0
        self._kubectl_lines: list[tuple[int, str]] = []  # kubectl's own, left out

    def read(self, lines: Iterable[bytes]) -> Iterator[TextRecord]:
        # The parts so far of a CRI line the runtime split (`P`), per stream: stdout and
        # stderr are written apart, so another stream's line may come between. A rotation
        # may fall between the parts: the file before passes them on.
        split, number = self._logs.carried(self._path), 0
        for number, raw in enumerate(lines, 1):
            text = self._decode(raw, number)
            cri = CRI_LINE_RE.fullmatch(text)
            if cri is not None:
                stream, part = cri[2], cri[4] or ""
                if cri[3] == "P":
                    split[stream] = split.get(stream, f"{cri[1]} {stream} F ") + part
                    continue
                if stream in split:  # the full line ends the parts (its own time is later)
                    text = split.pop(stream) + part
            if text.strip():
                yield from self._line(number, parse_line(text))
        if split and self._logs.carry(self._path, split):
            split = {}
        for rest in split.values():  # the file ended inside a split line
            yield from self._line(number, parse_line(rest))
        yield from self._finish()

    def _decode(self, raw: bytes, number: int) -> str:
        """A line's text; its first bad byte refused (a stream's copy ends after a NUL byte,
        maybe inside a character)."""
        nul = raw.find(b"\x00")
        try:
            text = raw[: nul if nul >= 0 else None].decode("utf-8")
        except UnicodeDecodeError as error:
            byte = raw[error.start]
            raise refuse(self._name, number, f"not UTF-8 text (byte 0x{byte:02x})") from None
        if nul >= 0:
            raise refuse(self._name, number, "a NUL byte, which container logs do not hold")
        return text.rstrip("\r\n")

    def _line(self, number: int, line: TextLine) -> Iterator[TextRecord]:
        if self._kubectl_error(number, line):
            return
        who = self._who(number, line)
        container = self._containers.setdefault(who, _Container())
        time_ns = line.stamp_ns
        if time_ns is None and line.glog is not None:
            time_ns = self._logs.clock.instant(line.glog)
        if time_ns is None:
            self._untimed += bool(line.message.strip())
            if container.last_ns is None:
                container.waiting.append((number, line, self._file_last))
                return
            time_ns = container.last_ns
        else:
            container.last_ns = self._file_last = time_ns
            self._file_first = time_ns if self._file_first is None else self._file_first
            for waiting, earlier, _ in container.waiting:
                yield from self._record(waiting, who, time_ns, earlier)
            container.waiting.clear()
        yield from self._record(number, who, time_ns, line)

    def _kubectl_error(self, number: int, line: TextLine) -> bool:
        """Whether the line is kubectl's own error among prefixed lines (or before the first):
        no prefix, time or glog header, and kubectl's wording. It is kept for a note."""
        if self._prefixed is False or line.recognised:
            return False
        if _KUBECTL_ERROR_RE.match(line.message) is None:
            return False
        self._kubectl_lines.append((number, line.message))
        return True

    def _finish(self) -> Iterator[TextRecord]:
        if self._kubectl_lines:
            first, text = self._kubectl_lines[0]
            count = len(self._kubectl_lines)
            said = (
                f"1 line of {self._name} is kubectl's own error, not a container's, and was "
                "left out (line"
                if count == 1
                else f"{count} lines of {self._name} are kubectl's own errors, not a "
                "container's, and were left out (the first, line"
            )
            self._logs.tell_once(f"kubectl {self._name}", f"note: {said} {first}: {text[:200]})")
        if self._file_first is None:
            if self._containers:
                raise refuse(
                    self._name,
                    self._first_line,
                    "no line carries a time (an RFC 3339 time or a glog header); "
                    "record the logs with kubectl logs --timestamps",
                )
            return
        for who, container in self._containers.items():
            for number, line, before in container.waiting:
                time_ns = self._file_first if before is None else before
                yield from self._record(number, who, time_ns, line)
        if self._untimed:
            self._logs.tell_once(
                "untimed",
                f"note: {self._untimed} lines of {self._name} (and maybe of other files) carry "
                "no time of their own and take the time of a line near them, so their order "
                "against other containers' lines is a guess; record the logs with kubectl logs "
                "--timestamps",
            )

    def _record(self, number: int, who: Who, time_ns: int, line: TextLine) -> Iterator[TextRecord]:
        if line.message.strip():
            try:
                entry = self._logs.entry(who, time_ns, line, _insert_id(who, number, line))
            except RecursionError:
                raise refuse(self._name, number, "its JSON object is nested too deeply") from None
            except NotText as error:
                raise refuse(self._name, number, str(error)) from None
            raw = output_line(entry).encode()  # numbers keep their text
            yield TextRecord(number, raw, entry)

    def _who(self, number: int, line: TextLine) -> Who:
        """The line's pod and container (from its prefix, else the file's)."""
        if self._prefixed is None:
            self._prefixed, self._first_line = line.pod is not None, number
        if self._prefixed != (line.pod is not None):
            has = "has no" if self._prefixed else "has a"
            raise refuse(
                self._name,
                number,
                f"this line {has} [pod/NAME/CONTAINER] prefix, unlike line {self._first_line}; "
                "which container logged it is unknown",
            )
        if line.pod is not None and line.container:
            return line.pod, line.container
        if line.pod is not None:
            return self._file_who(number, line.pod)
        if self._default is None:
            self._default = self._file_who(number)
        return self._default

    def _file_who(self, number: int, pod: str | None = None) -> Who:
        """The pod and container the file's place or the flags give (the prefix's pod first)."""
        options = self._logs.options
        what = "the prefix names no container" if pod else "no [pod/NAME/CONTAINER] prefix"
        pod = pod or (self._place[0] if self._place else options.pod)
        container = self._place[1] if self._place else None
        if container is None and len(options.containers) == 1:
            container = options.containers[0]
        if pod is None or container is None:
            raise refuse(
                self._name,
                number,
                f"container logs with {what}; say whose they are with --pod_prefix=POD and "
                "--container_names=CONTAINER (one name), or put the file at POD/CONTAINER.log "
                "in a folder",
            )
        return pod, container
