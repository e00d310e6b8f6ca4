"""Print mode: per fetch its purpose, the gcloud command and a Logs Explorer link."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TextIO

from pathways_workload.commands import console_url, gcloud_command
from pathways_workload.sources.base import Fetch
from pathways_workload.window import Window


def write_commands(
    fetches: Sequence[Fetch], project: str, window: Window, out: TextIO, as_json: bool
) -> None:
    """Each fetch as a runnable command (its limit and order) and a link, or as JSON Lines."""
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
