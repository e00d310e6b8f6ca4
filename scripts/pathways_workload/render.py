"""Write entries, groups and printed commands to stdout, as text or JSON Lines."""

from __future__ import annotations

import json
import shlex
import urllib.parse
from collections.abc import Callable
from typing import TextIO

from pathways_workload import __version__
from pathways_workload.describe import message, severity, where
from pathways_workload.executor import Stream
from pathways_workload.query import Query
from pathways_workload.sources.base import Entry, Fetch
from pathways_workload.window import Window

USAGE_TOKENS = f"pathways-workload/{__version__} (skill:pathways-workload)"
ATTRIBUTION = f"CLOUDSDK_METRICS_ENVIRONMENT={shlex.quote(USAGE_TOKENS)}"
CONSOLE_URL = "https://console.cloud.google.com/logs/query"
Marker = Callable[[Entry], str]


def entry_line(entry: Entry, marker: Marker | None = None) -> str:
    """`TIMESTAMP SEVERITY WHERE: MESSAGE`, continuation lines indented."""
    text = message(entry).rstrip("\n")
    head, *rest = text.split("\n") if text else [""]
    mark = marker(entry) if marker else ""
    line = f"{entry.get('timestamp', '?')} {severity(entry)} {where(entry)}{mark}: {head}"
    return "\n".join([line, *("    " + part for part in rest)])


def write_stream(stream: Stream, out: TextIO, as_json: bool, marker: Marker | None = None) -> None:
    """Entries as text lines (group boundaries marked) or as JSON Lines exactly as read."""
    if as_json:
        for entry in stream.entries:
            out.write(json.dumps(entry, ensure_ascii=False) + "\n")
        return
    if stream.groups is None:
        for entry in stream.entries:
            out.write(entry_line(entry, marker) + "\n")
        return
    for group in stream.groups:
        out.write(f"== {group.where}: {len(group.entries)} of {group.total} matching lines ==\n")
        for entry in group.entries:
            out.write(entry_line(entry, marker) + "\n")


def gcloud_command(query: Query, project: str, limit: int, order: str) -> str:
    """The `gcloud logging read` command for a query, safe to paste into a shell."""
    return " ".join(
        [
            ATTRIBUTION,
            "gcloud",
            "logging",
            "read",
            shlex.quote(query.filter),
            f"--project={shlex.quote(project)}",
            f"--order={order}",
            f"--limit={limit}",
            "--format=json",
        ]
    )


def console_url(query: Query, project: str, window: Window) -> str:
    """A Logs Explorer link for the same filter and window."""
    encoded = urllib.parse.quote(query.filter, safe="")
    return (
        f"{CONSOLE_URL};query={encoded};startTime={window.start};endTime={window.end}"
        f"?project={urllib.parse.quote(project, safe='')}"
    )


def write_commands(
    fetches: list[Fetch], project: str, window: Window, out: TextIO, as_json: bool
) -> None:
    """Print mode: per query its purpose, the command (its limit and order) and a link."""
    for fetch in fetches:
        query = fetch.query
        command = gcloud_command(query, project, fetch.limit, fetch.order)
        url = console_url(query, project, window)
        if as_json:
            record = {
                "purpose": query.purpose,
                "filter": query.filter,
                "command": command,
                "url": url,
            }
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
        else:
            out.write(f"# {query.purpose}\n{command}\n# Logs Explorer: {url}\n\n")
