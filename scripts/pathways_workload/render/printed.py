"""Print mode: per fetch its purpose, the gcloud command and a Logs Explorer link.

A fetch built from what an earlier stage learns (the workload's nodes) is
printed as a runnable loop: the earlier stage's recipe sets a shell variable
(one name per word), and the loop runs the command once per chunk of names,
each chunk small enough to keep the filter under Cloud Logging's length limit.

The runner prints through a `Printer`; `GcloudPrinter` writes these gcloud
commands, and another engine brings its own (the command line picks it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TextIO

from pathways_workload.commands import console_url, gcloud_command, shell_word
from pathways_workload.exact_json import json_line
from pathways_workload.filters import FILTER_BUDGET
from pathways_workload.plan import Chain, PrintNote
from pathways_workload.query import Request
from pathways_workload.sources.base import Fetch
from pathways_workload.window import Window

# Per name in a chunk, at most: a 63-character GCE instance name quoted with ` OR `,
# or escaped (every character doubled, at worst) with `|`.
QUOTED_COST, REGEX_COST = 70, 130
QUOTED_LIST = """  QUOTED="($(printf '"%s" OR ' $CHUNK | sed 's/ OR $//'))\""""
REGEX_LIST = """  REGEX=$(printf '%s|' $CHUNK | sed 's/[.-]/\\\\&/g; s/|$//')"""


def _costs(text: str, sentinel: str) -> tuple[int, int]:
    """A chained filter's length without the sentinels, and the most one name adds to it."""
    quoted, regex = f'"{sentinel}"', f"({sentinel})"
    uses_quoted, uses_regex = text.count(quoted), text.count(regex)
    fixed = len(text) - uses_quoted * len(quoted) - uses_regex * len(regex)
    return fixed, uses_quoted * QUOTED_COST + uses_regex * REGEX_COST


def one_name_length(filter_text: str, sentinel: str) -> int:
    """The most characters a chained filter can have with a single name in it."""
    fixed, per_name = _costs(filter_text, sentinel)
    return fixed + per_name


def _chained(command: str, chain: Chain, filter_text: str) -> str:
    """The command as a loop over chunks of the chain's variable.

    The variable is spliced in between the filter's quotes, which reopen as they were
    opened: as ANSI-C quotes (`$'...'`) when the filter has a character written as its bytes.
    """
    quoted, regex = f'"{chain.sentinel}"', f"({chain.sentinel})"
    reopen = "$'" if shell_word(filter_text).startswith("$'") else "'"
    body = command.replace(quoted, f'\'"$QUOTED"{reopen}').replace(regex, f'(\'"$REGEX"{reopen})')
    if chain.sentinel in body:
        raise ValueError(f"print mode cannot chain a filter that uses {chain.sentinel} so")
    fixed, per_name = _costs(filter_text, chain.sentinel)
    uses_quoted, uses_regex = command.count(quoted), command.count(regex)
    chunk = max(1, (FILTER_BUDGET - fixed) // per_name)
    lines = [f"printf '%s\\n' ${chain.variable} | xargs -r -n {chunk} | while read -r CHUNK; do"]
    lines += [QUOTED_LIST] if uses_quoted else []
    lines += [REGEX_LIST] if uses_regex else []
    return "\n".join([*lines, f"  {body}", "done"])


def _write_one(
    fetch: Fetch, project: str, window: Window, chain: tuple[Chain, str] | None
) -> tuple[str, dict[str, str]]:
    query = fetch.query
    command = gcloud_command(query, project, fetch.limit, fetch.order)
    url = console_url(query, project, window)
    record = {"purpose": query.purpose, "filter": query.filter, "command": command, "url": url}
    if chain is None or chain[0].sentinel not in query.filter:
        record["shell"] = command
        return f"# {query.purpose}\n{command}\n# Logs Explorer: {url}\n\n", record
    how, recipe = chain
    loop = _chained(command, how, query.filter)
    record["shell"] = f"{recipe}\n{loop}"
    text = (
        f"# {query.purpose} (once per chunk of ${how.variable})\n{loop}\n"
        f'# Logs Explorer, with "{how.sentinel}" replaced by the names: {url}\n\n'
    )
    return text, record


def write_commands(
    fetches: Sequence[Fetch],
    project: str,
    window: Window,
    out: TextIO,
    as_json: bool,
    chain: tuple[Chain, str] | None = None,
) -> None:
    """Each fetch as a runnable command (its limit and order) and a link, or as JSON Lines.

    `chain` is an earlier stage's chain and its recipe, for fetches built from its names.
    """
    for fetch in fetches:
        text, record = _write_one(fetch, project, window, chain)
        out.write(json_line(record) + "\n" if as_json else text)


def write_recipe(chain: Chain, recipe: str, out: TextIO, as_json: bool) -> None:
    """The lines that set the chain's variable, for the commands printed after them."""
    if not as_json:
        out.write(
            f"# ${chain.variable}: the names the queries above find, for the queries below\n"
            f"{recipe}\n\n"
        )


GROUPED_BY_THE_TOOL = (
    "note: --first_per_pod groups lines by pod and container only when this tool runs the "
    "queries (--execute or --logs_file); the commands below return the first "
    "--fetch_limit lines ungrouped"
)


def write_grouping_note(
    out: TextIO, err: TextIO, as_json: bool, note: str = GROUPED_BY_THE_TOOL
) -> None:
    """--first_per_pod in print mode: what the printed commands return of the groups."""
    if as_json:
        err.write(note + "\n")
    else:
        out.write(f"# {note}\n\n")


def note_text(note: PrintNote, request: Request, command: str = "") -> str:
    """A print note as comment lines: its instructions, then its example command, if any."""
    lines = [*note.lines(request), *command.splitlines()]
    return "\n".join("# " + line for line in lines)


class Printer(Protocol):
    """How print mode writes an action's stages: commands, chain recipes and notes."""

    def grouping_note(self, out: TextIO, err: TextIO, as_json: bool) -> None: ...

    def note(self, note: PrintNote, request: Request, project: str) -> str: ...

    def commands(
        self,
        fetches: Sequence[Fetch],
        project: str,
        window: Window,
        out: TextIO,
        as_json: bool,
        chain: tuple[Chain, str] | None = None,
    ) -> None: ...

    def recipe(self, chain: Chain, fetches: Sequence[Fetch], project: str) -> str: ...

    def write_recipe(self, chain: Chain, recipe: str, out: TextIO, as_json: bool) -> None: ...


class GcloudPrinter:
    """Print mode of the Logging engine: `gcloud logging read` commands and Logs Explorer links."""

    def grouping_note(self, out: TextIO, err: TextIO, as_json: bool) -> None:
        write_grouping_note(out, err, as_json)

    def note(self, note: PrintNote, request: Request, project: str) -> str:
        example = note.example(request) if note.example else None
        if example is None:
            return note_text(note, request)
        command = gcloud_command(example.query, project, example.limit, example.order)
        return note_text(note, request, command)

    def commands(
        self,
        fetches: Sequence[Fetch],
        project: str,
        window: Window,
        out: TextIO,
        as_json: bool,
        chain: tuple[Chain, str] | None = None,
    ) -> None:
        write_commands(fetches, project, window, out, as_json, chain)

    def recipe(self, chain: Chain, fetches: Sequence[Fetch], project: str) -> str:
        return chain.recipe(fetches, project)

    def write_recipe(self, chain: Chain, recipe: str, out: TextIO, as_json: bool) -> None:
        write_recipe(chain, recipe, out, as_json)
