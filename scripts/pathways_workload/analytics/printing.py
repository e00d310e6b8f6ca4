"""Print mode for Log Analytics: per query its SQL and a runnable `bq query` command.

Needs no optional package. The SQL addresses the linked dataset's view
(`PROJECT.DATASET.VIEW`); with `--log_view=PROJECT.LOCATION.BUCKET.VIEW` the
same SQL is also printed addressed for the Log Analytics page, where
queries are not billed as BigQuery jobs.
"""

from __future__ import annotations

import dataclasses
import json
import shlex
from collections.abc import Sequence
from typing import TextIO

from pathways_workload.analytics import queries, sql
from pathways_workload.commands import ATTRIBUTION
from pathways_workload.errors import UsageError

DEFAULT_VIEW = "_Default"
DEFAULT_MAX_BYTES_BILLED = 50 * 10**9


@dataclasses.dataclass(frozen=True)
class Dataset:
    """Where the SQL runs: the linked dataset, its view and location, who pays, the cap."""

    dataset: str  # PROJECT.DATASET
    billing_project: str
    location: str | None = None
    view: str = DEFAULT_VIEW
    max_bytes_billed: int = DEFAULT_MAX_BYTES_BILLED
    log_view: str | None = None  # PROJECT.LOCATION.BUCKET.VIEW

    def table(self) -> str:
        """The view in the linked dataset, backquoted."""
        sql.table(self.dataset, "PROJECT.DATASET", "--analytics_dataset")
        return sql.table(f"{self.dataset}.{self.view}", "PROJECT.DATASET.VIEW", "--analytics_view")

    def page_table(self) -> str | None:
        """The log view as the Log Analytics page names it, if `--log_view` was given."""
        if self.log_view is None:
            return None
        return sql.table(self.log_view, "PROJECT.LOCATION.BUCKET.VIEW", "--log_view")

    def required_location(self) -> str:
        """The BigQuery location (a bq command and --execute need it).

        Raises:
            UsageError: --analytics_location was not given.
        """
        if not self.location:
            raise UsageError(
                "--analytics_location is required with --engine=analytics: the linked "
                "dataset's BigQuery location (e.g. US, EU, us-east5), not the cluster's"
            )
        return self.location


def bq_command(text: str, dataset: Dataset, max_rows: int) -> str:
    """A runnable, shell-quoted `bq query` command for the SQL, printing up to `max_rows` rows."""
    parts = [
        "bq",
        f"--project_id={dataset.billing_project}",
        f"--location={dataset.required_location()}",
        "query",
        "--use_legacy_sql=false",
        f"--maximum_bytes_billed={dataset.max_bytes_billed}",
        f"--max_rows={max_rows}",
        text,
    ]
    return f"{ATTRIBUTION} " + " ".join(shlex.quote(part) for part in parts)


def write_queries(
    purposes: Sequence[str],
    questions: Sequence[queries.Question],
    logs_project: str,
    dataset: Dataset,
    out: TextIO,
    as_json: bool,
) -> None:
    """Print the one query that answers `questions` (one stage), with its command."""
    text = queries.build(questions, queries.View(dataset.table(), logs_project), full=as_json)
    command = bq_command(text, dataset, sum(question.limit for question in questions))
    page_table = dataset.page_table()
    page_sql = (
        queries.build(questions, queries.View(page_table, logs_project), full=as_json)
        if page_table
        else None
    )
    purpose = "; ".join(purposes)
    if as_json:
        record = {"purpose": purpose, "sql": text, "command": command}
        if page_sql:
            record["log_analytics_sql"] = page_sql
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
        return
    out.write(f"# {purpose}\n{text}\n{command}\n")
    if page_sql:
        out.write(f"# the same query on the Log Analytics page ({dataset.log_view})\n{page_sql}\n")
    out.write("\n")
