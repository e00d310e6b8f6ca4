"""One self-contained HTML document: inline style and script, nothing fetched at view time.

The Content-Security-Policy allows no network at all and only the page's own
script (by its hash), so even markup that slipped into the page could neither
run nor load anything.
"""

from __future__ import annotations

import base64
import functools
import hashlib
from collections.abc import Sequence
from importlib import resources

from pathways_workload import __version__
from pathways_workload.render.html.escape import script_json, text

ASSETS = resources.files("pathways_workload.render.html") / "assets"


@functools.cache
def asset(name: str) -> str:
    """A stylesheet or script shipped with the package."""
    return (ASSETS / name).read_text(encoding="utf-8")


def _policy(script: str) -> str:
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return (
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
        f"script-src 'sha256-{digest}'; base-uri 'none'; form-action 'none'"
    )


def document(title: str, body: str, data: object) -> str:
    """The page: `body` (already escaped HTML), `data` as inline JSON for readers and tools."""
    script = asset("report.js")
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{text(_policy(script))}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="generator" content="pathways-workload {text(__version__)}">'
        f"<title>{text(title)}</title><style>{asset('report.css')}</style></head>\n"
        f"<body>\n{body}\n"
        f'<script type="application/json" id="report-data">{script_json(data)}</script>\n'
        f"<script>{script}</script>\n</body></html>\n"
    )


def notes_html(notes: Sequence[str]) -> str:
    """The run's notes and warnings, as the page shows them under its heading."""
    return "".join(f'<p class="warn">{text(note)}</p>' for note in notes)


def section(ident: str, title: str, body: str) -> str:
    """A titled part of the page; `body` is escaped HTML, `title` plain text."""
    return f'<section id="{text(ident)}"><h2>{text(title)}</h2>{body}</section>'
