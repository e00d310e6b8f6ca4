"""A fetch written for a person: the `gcloud logging read` command and the Logs Explorer link."""

from __future__ import annotations

import shlex
import urllib.parse
from collections.abc import Iterable
from typing import Any

from pathways_workload import USAGE_TOKENS
from pathways_workload.describe import resource_labels
from pathways_workload.query import Query
from pathways_workload.sources.base import Result
from pathways_workload.visible_text import CONTROLS
from pathways_workload.window import Window

ATTRIBUTION = f"CLOUDSDK_METRICS_ENVIRONMENT={shlex.quote(USAGE_TOKENS)}"
CONSOLE_URL = "https://console.cloud.google.com/logs/query"


def shell_word(text: str) -> str:
    """`text` quoted for a POSIX shell; with a character the text output does not write as
    itself (`visible_text.CONTROLS`), in ANSI-C quotes (`$'...'`) with that character as its
    UTF-8 bytes (`\\xNN`), so that the command as printed is the command as meant."""
    if not CONTROLS.search(text):
        return shlex.quote(text)

    def escaped(char: str) -> str:
        if char in "\\'":
            return "\\" + char
        if CONTROLS.fullmatch(char):
            return "".join(f"\\x{byte:02x}" for byte in char.encode("utf-8"))
        return char

    return "$'" + "".join(map(escaped, text)) + "'"


def gcloud_command(
    query: Query, project: str, limit: int, order: str, output_format: str = "json"
) -> str:
    """The `gcloud logging read` command for a query, safe to paste into a shell."""
    return " ".join(
        [
            ATTRIBUTION,
            "gcloud",
            "logging",
            "read",
            shell_word(query.filter),
            f"--project={shlex.quote(project)}",
            f"--order={order}",
            f"--limit={limit}",
            shlex.quote(f"--format={output_format}"),
        ]
    )


def console_url(query: Query, project: str, window: Window) -> str:
    """A Logs Explorer link for the same filter and window."""
    encoded = urllib.parse.quote(query.filter, safe="")
    return (
        f"{CONSOLE_URL};query={encoded};startTime={window.start};endTime={window.end}"
        f"?project={urllib.parse.quote(project, safe='')}"
    )


def status_of(result: Result) -> str:
    """`ok`, `empty`, `truncated` (the limit cut it) or `answered` (cut once its question
    was answered: what was left is not needed)."""
    if result.truncated:
        return "answered" if result.answered else "truncated"
    return "ok" if result.entries else "empty"


def project_of(results: Iterable[Result]) -> str | None:
    """The project the entries were read from (`resource.labels.project_id`), if any says."""
    for result in results:
        for entry in result.entries:
            project = resource_labels(entry).get("project_id")
            if isinstance(project, str) and project:
                return project
    return None


def checks_run(
    results: Iterable[Result], project: str | None, window: Window
) -> list[dict[str, Any]]:
    """Every query that ran: its purpose, its command and Logs Explorer link, how many entries
    and requests it took, and whether it was complete.

    Without a project (offline, no --project), the project the entries came from.
    """
    results = list(results)
    project = project or project_of(results) or "PROJECT_ID"
    checks = []
    for result in results:
        fetch = result.fetch
        command = gcloud_command(fetch.query, project, fetch.limit, fetch.order)
        checks.append(
            {
                "purpose": fetch.query.purpose,
                "command": command,
                "url": console_url(fetch.query, project, window),
                "count": len(result.entries),
                "requests": result.requests,
                "status": status_of(result),
            }
        )
    return checks
