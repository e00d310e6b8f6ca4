"""One line of plain-text container logs taken apart: kubectl's prefix, a time, a glog header.

- `kubectl logs --prefix` writes `[pod/NAME/CONTAINER] ` before every line it
  copies (kubernetes `staging/src/k8s.io/kubectl/pkg/cmd/logs/logs.go`,
  addPrefixIfNeeded: `fmt.Sprintf("[pod/%s/%s] ", ...)`).
- `--timestamps` makes the kubelet write the time the runtime recorded the line
  and a space before it (`pkg/kubelet/kuberuntime/logs/logs.go`, in
  `types.RFC3339NanoFixed`: `2006-01-02T15:04:05.000000000Z07:00`). Whatever
  else RFC 3339 allows is read too, as in JSON exports: shorter or longer
  fractions (past nanoseconds cut), offsets, a lowercase `t` or `z`.
- A node's own container log files (`/var/log/pods/NS_POD_UID/CONTAINER/N.log`)
  are in the CRI logging format: the time, the stream, `F` for a full line or
  `P` for a part of one the runtime split, then the text (kubernetes
  `pkg/kubelet/kuberuntime/logs/logs.go`, parseCRILog:
  `2016-10-06T00:17:09.669794202Z stdout P log content 1`). The stream is kept
  (GKE's agent makes stderr lines ERROR and stdout lines INFO); the parts of a
  line are joined by the reader.
- A glog or absl header is `Lmmdd hh:mm:ss.uuuuuu threadid file:line] `, the
  thread id space-padded (golang/glog `glog.go`, google/glog `logging.h`); gRPC
  core writes nanoseconds in the same header. It carries no year. GKE's logging
  agent takes such a header apart: the letter becomes the severity, `file:line`
  the sourceLocation, and the payload keeps only the message; a transcript's
  lines are taken apart the same way.
"""

from __future__ import annotations

import dataclasses
import re

from pathways_workload.timestamps import NANOS_PER_SECOND, parse_timestamp_ns

# The prefix's space may have been trimmed off a line that was empty.
_PREFIX_RE = re.compile(r"\[pod/([^/\]\s]+)/([^/\]\s]*)\](?: |$)")
# A space after the time (the kubelet's), or a tab (a zap console line's own time).
_STAMP_RE = re.compile(
    r"([0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?"
    r"(?:[Zz]|[+-][0-9]{2}:[0-9]{2}))(?:[ \t]|$)"
)
# After a CRI line's time: its stream and whether it is a full line (F) or a part (P).
CRI_TAG_RE = re.compile(r"(stdout|stderr) ([FP])(?: |$)")
# A whole CRI line: time, stream, tag, text (to join the parts of a split line).
CRI_LINE_RE = re.compile(r"([0-9]{4}-[0-9]{2}-[0-9]{2}[Tt]\S*) (stdout|stderr) ([FP])(?: (.*))?")
# A zap console line's level after its own time and a tab (the JobSet controller's:
# `2026-02-27T19:51:30Z\tERROR\tadmission\t...`, kubernetes-sigs/jobset's troubleshooting doc).
ZAP_SEVERITIES = {
    "DEBUG": "DEBUG",
    "INFO": "INFO",
    "WARN": "WARNING",
    "ERROR": "ERROR",
    "DPANIC": "CRITICAL",
    "PANIC": "CRITICAL",
    "FATAL": "CRITICAL",
}
_ZAP_LEVEL_RE = re.compile(f"({'|'.join(ZAP_SEVERITIES)})\t")
# Microseconds as glog writes them, or nanoseconds as gRPC core's own header does
# (`E1128 21:14:25.331103432   11752 chttp2_server.cc:1059] `); GKE's agent reads any length.
_GLOG_RE = re.compile(
    r"([IWEF])([0-9]{2})([0-9]{2}) ([0-9]{2}):([0-9]{2}):([0-9]{2})\.([0-9]{1,9}) +[0-9]+ "
    r"([^\s:\]]+):([0-9]+)\] ?"
)
GLOG_SEVERITIES = {"I": "INFO", "W": "WARNING", "E": "ERROR", "F": "CRITICAL"}


@dataclasses.dataclass(frozen=True)
class GlogHeader:
    """A glog header: severity, month, day, time of day (ns) and where it was logged."""

    severity: str
    month: int
    day: int
    clock_ns: int
    file: str
    line: str


@dataclasses.dataclass(frozen=True)
class TextLine:
    """What one line says: its prefix's pod and container, its RFC 3339 time, its glog header."""

    message: str
    pod: str | None = None
    container: str | None = None
    stamp_ns: int | None = None
    glog: GlogHeader | None = None
    stream: str | None = None  # a CRI line's: stdout or stderr
    level: str | None = None  # a zap console line's own level, as a severity

    @property
    def severity(self) -> str | None:
        """What the line says of its severity: its glog letter, else its zap level."""
        return self.glog.severity if self.glog else self.level

    @property
    def recognised(self) -> bool:
        """Whether the line carries any of the three marks of container logs."""
        return self.pod is not None or self.stamp_ns is not None or self.glog is not None


def _glog(match: re.Match[str]) -> GlogHeader | None:
    letter, month, day, hour, minute, second, fraction, file, line = match.groups()
    if not (1 <= int(month) <= 12 and 1 <= int(day) <= 31):
        return None
    if int(hour) > 23 or int(minute) > 59 or int(second) > 60:
        return None
    seconds = int(hour) * 3600 + int(minute) * 60 + int(second)
    clock_ns = seconds * NANOS_PER_SECOND + int(fraction.ljust(9, "0"))
    return GlogHeader(GLOG_SEVERITIES[letter], int(month), int(day), clock_ns, file, line)


def glog_severity(text: str) -> str | None:
    """The severity the glog header that starts `text` gives, or None without one."""
    header = _GLOG_RE.match(text)
    glog = _glog(header) if header is not None else None
    return glog.severity if glog is not None else None


def _stamp(text: str) -> tuple[int | None, str]:
    """The leading RFC 3339 time (None when there is none) and the text after it."""
    match = _STAMP_RE.match(text)
    if match is None:
        return None, text
    try:
        return parse_timestamp_ns(match[1]), text[match.end() :]
    except ValueError:
        return None, text


def _zap_level(text: str, stream: str | None) -> str | None:
    """A zap console line's level, as a severity: right after the line's time and a tab, or,
    in a transcript (not a CRI line, whose stream gives it), after zap's own time and a tab
    where `--timestamps` put the kubelet's time before it."""
    zap = _ZAP_LEVEL_RE.match(text)
    own = _STAMP_RE.match(text) if zap is None and stream is None else None
    if own is not None and own[0].endswith("\t"):
        zap = _ZAP_LEVEL_RE.match(text, own.end())
    return ZAP_SEVERITIES[zap[1]] if zap is not None else None


def parse_line(text: str) -> TextLine:
    """Take a line (without its line break) apart; what it does not carry stays None."""
    pod = container = None
    prefix = _PREFIX_RE.match(text)
    if prefix is not None:
        pod, container = prefix[1], prefix[2] or None
        text = text[prefix.end() :]
    stamp_ns, text = _stamp(text)
    stream = None
    tag = CRI_TAG_RE.match(text) if stamp_ns is not None and prefix is None else None
    if tag is not None:
        stream, text = tag[1], text[tag.end() :]
    glog = None
    header = _GLOG_RE.match(text)
    if header is not None and (glog := _glog(header)) is not None:
        text = text[header.end() :]
    level = _zap_level(text, stream) if stamp_ns is not None and glog is None else None
    return TextLine(text, pod, container, stamp_ns, glog, stream, level)
