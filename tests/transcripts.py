"""`kubectl logs` transcripts written from recorded exports, as kubectl prints them.

A transcript holds container lines only (no events, node or audit logs). Each
line is what the container wrote: a line GKE's agent took apart as glog gets
its header back (`Lmmdd hh:mm:ss.uuuuuu threadid file:line] `, thread id 1 as
the Pathways containers log it), and a payload of several lines is several
lines. `--timestamps` puts the time the runtime recorded the line first, with
nine fraction digits; `--prefix` puts `[pod/NAME/CONTAINER] ` before that.
Without `-f`, kubectl copies one container's log after another.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Iterator
from typing import Any

from pathways_workload.timestamps import NANOS_PER_SECOND, parse_timestamp_ns

Entry = dict[str, Any]
GLOG_LETTERS = {"INFO": "I", "WARNING": "W", "ERROR": "E", "CRITICAL": "F"}
_EPOCH = datetime.datetime(1970, 1, 1)


def _moment(entry: Entry) -> tuple[datetime.datetime, int]:
    seconds, fraction = divmod(parse_timestamp_ns(entry["timestamp"]), NANOS_PER_SECOND)
    return _EPOCH + datetime.timedelta(seconds=seconds), fraction


def kubelet_time(entry: Entry) -> str:
    """The entry's time as `kubectl logs --timestamps` prints it (RFC3339NanoFixed)."""
    moment, fraction = _moment(entry)
    return f"{moment:%Y-%m-%dT%H:%M:%S}.{fraction:09d}Z"


def glog_header(entry: Entry) -> str:
    """The glog header the container wrote before a line GKE's agent took apart."""
    moment, fraction = _moment(entry)
    where = entry["sourceLocation"]
    letter = GLOG_LETTERS[entry["severity"]]
    return (
        f"{letter}{moment:%m%d %H:%M:%S}.{fraction // 1000:06d} 1 {where['file']}:{where['line']}] "
    )


def written_lines(entry: Entry) -> list[str]:
    """The lines the container wrote for this entry."""
    text = entry["textPayload"]
    if "sourceLocation" in entry:
        text = glog_header(entry) + text
    return text.split("\n")


def container_entries(entries: Iterable[Entry]) -> dict[tuple[str, str], list[Entry]]:
    """Container lines by (pod, container) in name order, each container's in time order."""
    found: dict[tuple[str, str], list[Entry]] = {}
    for entry in entries:
        if entry["resource"]["type"] == "k8s_container":
            labels = entry["resource"]["labels"]
            found.setdefault((labels["pod_name"], labels["container_name"]), []).append(entry)
    ordered = sorted(found.items())
    return {
        key: sorted(lines, key=lambda e: (e["timestamp"], e["insertId"])) for key, lines in ordered
    }


def prefixed(entries: Iterable[Entry]) -> str:
    """`kubectl logs -l ... --all-containers --prefix --timestamps` of every container."""
    return "".join(_prefixed_lines(entries))


def _prefixed_lines(entries: Iterable[Entry]) -> Iterator[str]:
    for (pod, container), lines in container_entries(entries).items():
        for entry in lines:
            for line in written_lines(entry):
                yield f"[pod/{pod}/{container}] {kubelet_time(entry)} {line}\n"


def single(entries: Iterable[Entry], timestamps: bool) -> str:
    """One container's `kubectl logs POD -c CONTAINER` (with `--timestamps`, or without)."""
    out = []
    for entry in sorted(entries, key=lambda e: (e["timestamp"], e["insertId"])):
        stamp = f"{kubelet_time(entry)} " if timestamps else ""
        out.extend(f"{stamp}{line}\n" for line in written_lines(entry))
    return "".join(out)
