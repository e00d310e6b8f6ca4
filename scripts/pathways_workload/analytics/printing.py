"""Print mode for Log Analytics: per stage one SQL query and a runnable `bq query` command.

Needs no optional package. The runner hands each stage's fetches to
`SqlPrinter.commands`, which writes the one query answering them all (rows
carry `fetch_index`, the position of the fetch they answer), as a `bq query`
command reading the SQL from a here-document (text), or as one JSON record
with the SQL and a one-line command (json). The SQL addresses the linked
dataset's view (`PROJECT.DATASET.VIEW`); with
`--log_view=PROJECT.LOCATION.BUCKET.VIEW` the same SQL is also given
addressed for the Log Analytics page, where queries are not billed as
BigQuery jobs. A stage built from node discovery reads the names from
`$NODES` (`chains`); a stage built from other results is described by its
print note, with the query-language filter to fill in.
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Sequence
from typing import Any, TextIO

from pathways_workload.analytics import chains, queries
from pathways_workload.analytics.dataset import Dataset
from pathways_workload.commands import ATTRIBUTION
from pathways_workload.exact_json import json_line
from pathways_workload.plan import Chain, PrintNote
from pathways_workload.query import Request
from pathways_workload.render.printed import note_text, write_grouping_note
from pathways_workload.sources.base import Fetch
from pathways_workload.window import Window

END_OF_SQL = "END_OF_SQL"
# Rows the recipe's name list may have (one per node).
MOST_NODES = 100_000


def bq_words(dataset: Dataset, max_rows: int, output_format: str = "json") -> list[str]:
    """The words of a `bq query` command before its parameters and SQL."""
    return [
        "bq",
        f"--project_id={dataset.required_billing()}",
        f"--location={dataset.required_location()}",
        f"--format={output_format}",
        "--quiet",
        "query",
        "--use_legacy_sql=false",
        f"--maximum_bytes_billed={dataset.max_bytes_billed}",
        f"--max_rows={max_rows}",
    ]


def bq_command(text: str, words: Sequence[str], shell: str = "") -> str:
    """A runnable one-line `bq query` command: `words` and the SQL quoted, `shell` as written."""
    quoted = " ".join(shlex.quote(word) for word in words)
    return f"{ATTRIBUTION} {quoted}{' ' + shell if shell else ''} {shlex.quote(text)}"


def bq_here_document(text: str, words: Sequence[str], shell: str = "", pipe: str = "") -> str:
    """A `bq query` command reading the SQL from a here-document; `shell` and `pipe` as written."""
    quoted = " ".join(shlex.quote(word) for word in words)
    return (
        f"{ATTRIBUTION} {quoted}{' ' + shell if shell else ''} <<'{END_OF_SQL}'{pipe}\n"
        f"{text.rstrip()}\n{END_OF_SQL}"
    )


GROUPED_IN_SQL = (
    "note: with --first_per_pod the queries below keep each source's first lines and its "
    "last two, in time order; this tool prints them as groups when it runs them"
)


@dataclasses.dataclass(frozen=True)
class SqlPrinter:
    """The printer of `--engine=analytics`: one query per stage; `full` selects every column."""

    dataset: Dataset
    full: bool

    def grouping_note(self, out: TextIO, err: TextIO, as_json: bool) -> None:
        write_grouping_note(out, err, as_json, GROUPED_IN_SQL)

    def note(self, note: PrintNote, request: Request, project: str) -> str:
        example = note.example(request) if note.example else None
        if example is None:
            return note_text(note, request)
        return note_text(
            note,
            request,
            f"{example.query.filter}\n(then print its SQL: this command with --action=query "
            "--filter='<the filter>')",
        )

    def commands(
        self,
        fetches: Sequence[Fetch],
        project: str,
        window: Window,
        out: TextIO,
        as_json: bool,
        chain: tuple[Chain, str] | None = None,
    ) -> None:
        """The one query answering the fetches, as a bq command (and for the page, if asked)."""
        if not fetches:
            return
        text = self._sql(fetches, project, self.dataset.table())
        words = bq_words(self.dataset, sum(fetch.limit for fetch in fetches))
        uses = chain is not None and any(chain[0].sentinel in f.query.filter for f in fetches)
        link, recipe, shell = None, None, ""
        if chain is not None and uses:
            link, recipe = chain
            text = chains.parametrized(text, link.sentinel)
            shell = chains.array_parameter(link.variable)
        page = self._page_sql(fetches, project, link)
        if as_json:
            command = bq_command(text, words, shell)
            out.write(json_line(_record(fetches, text, command, recipe, page)) + "\n")
            return
        lines = [
            "# one query; each row's fetch_index says which question it answers:",
            *(f"#   {index}: {fetch.query.purpose}" for index, fetch in enumerate(fetches)),
            bq_here_document(text, words, shell),
        ]
        if page is not None:
            lines.append(f"# the same query on the Log Analytics page ({self.dataset.log_view}):")
            lines += ["# " + line for line in page.rstrip().splitlines()]
        out.write("\n".join(lines) + "\n\n")

    def recipe(self, chain: Chain, fetches: Sequence[Fetch], project: str) -> str:
        """Shell setting the chain's variable to the node names the stage's query finds."""
        stage = queries.build(queries.questions_of(fetches), self._view(project), full=False)
        words = bq_words(self.dataset, MOST_NODES, output_format="csv")
        pipe = f" | tail -n +2 | {chains.NAME_GUARD}"
        command = bq_here_document(chains.node_names(stage), words, pipe=pipe)
        return f"{chain.variable}=$(\n{command}\n)"

    def write_recipe(self, chain: Chain, recipe: str, out: TextIO, as_json: bool) -> None:
        if not as_json:
            out.write(
                f"# ${chain.variable}: the names the query above finds, for the query below\n"
                f"{recipe}\n\n"
            )

    def _view(self, project: str, table: str | None = None) -> queries.View:
        return queries.View(table or self.dataset.table(), project)

    def _sql(self, fetches: Sequence[Fetch], project: str, table: str) -> str:
        return queries.build(queries.questions_of(fetches), self._view(project, table), self.full)

    def _page_sql(self, fetches: Sequence[Fetch], project: str, chain: Chain | None) -> str | None:
        table = self.dataset.page_table()
        if table is None:
            return None
        text = self._sql(fetches, project, table)
        return chains.parametrized(text, chain.sentinel) if chain else text


def _record(
    fetches: Sequence[Fetch], text: str, command: str, recipe: str | None, page: str | None
) -> dict[str, Any]:
    """Print mode's JSON record of one query."""
    record: dict[str, Any] = {
        "purpose": "; ".join(fetch.query.purpose for fetch in fetches),
        "fetches": [
            {
                "fetch_index": index,
                "name": fetch.name,
                "purpose": fetch.query.purpose,
                "filter": fetch.query.filter,
                "limit": fetch.limit,
                "order": fetch.order,
                "per_source": fetch.per_source,
                "source_last": fetch.source_last,
            }
            for index, fetch in enumerate(fetches)
        ],
        "sql": text,
        "command": command,
        "shell": f"{recipe}\n{command}" if recipe else command,
    }
    if page is not None:
        record["log_analytics_sql"] = page
    return record
