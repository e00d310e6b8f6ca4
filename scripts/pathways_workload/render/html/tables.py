"""HTML tables whose cells are escaped text, code with a copy button, or links."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pathways_workload.render.html.escape import text
from pathways_workload.sources.base import instant_ns

_NEVER = 1 << 63


def cell(value: object, sort: object = None, kind: str = "") -> str:
    """A cell of text; `sort` is the value sorting uses when it is not the text."""
    order = f' data-sort="{text(sort)}"' if sort is not None else ""
    classes = f' class="{kind}"' if kind else ""
    shown = "" if value is None else value
    return f"<td{classes}{order}>{text(shown)}</td>"


def instant(stamp: object) -> int:
    """A timestamp's instant, for ordering whatever its spelling (0 to 9 fraction digits, an
    offset); one that does not parse comes last."""
    found = instant_ns(str(stamp))
    return _NEVER if found is None else found


def time_cell(stamp: object) -> str:
    """A time, sorted by its instant (its text sorts `…33Z` after `…33.7Z`)."""
    return cell(stamp or "", sort=f"t{instant(stamp):020d}" if stamp else None, kind="ts")


def raw_cell(markup: str, kind: str = "") -> str:
    """A cell of markup built from escaped parts."""
    classes = f' class="{kind}"' if kind else ""
    return f"<td{classes}>{markup}</td>"


def code_block(code: str, ident: str) -> str:
    """Code with a button that copies it (shown when the script runs)."""
    return (
        f'<button type="button" class="copy js-only" data-for="{text(ident)}">Copy</button>'
        f'<pre id="{text(ident)}"><code>{text(code)}</code></pre>'
    )


def link(url: str, label: str) -> str:
    return f'<a href="{text(url)}" target="_blank" rel="noopener noreferrer">{text(label)}</a>'


def table(
    headers: Sequence[str],
    rows: Iterable[Sequence[str]],
    sortable: bool = False,
    scroll: bool = False,
    ident: str = "",
) -> str:
    """A table of header names and rows of cells (from `cell` and `raw_cell`)."""
    head = "".join(f"<th>{text(name)}</th>" for name in headers)
    body = "".join(f"<tr>{''.join(row)}</tr>" for row in rows)
    attributes = f' id="{text(ident)}"' if ident else ""
    attributes += ' class="sortable"' if sortable else ""
    markup = f"<table{attributes}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    return f'<div class="scroll">{markup}</div>' if scroll else markup
