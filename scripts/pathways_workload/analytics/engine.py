"""`--engine=analytics` for the command line: its printer, and its source offline or on BigQuery.

Importing this module imports no optional package: DuckDB, sqlglot and the
BigQuery client are imported when a query runs (`extra.require`), so print
mode works without the analytics extra.
"""

from __future__ import annotations

import contextlib
from typing import TextIO

from pathways_workload.analytics import queries, where
from pathways_workload.analytics.bigquery import BigQueryRunner
from pathways_workload.analytics.dataset import Dataset
from pathways_workload.analytics.offline import OfflineStore
from pathways_workload.analytics.printing import SqlPrinter
from pathways_workload.analytics.source import AnalyticsSource
from pathways_workload.errors import UsageError
from pathways_workload.lql import LqlError, LqlUnsupportedError
from pathways_workload.sources.inputs import ExportFile
from pathways_workload.sources.text_logs import TextLogs


def printer(dataset: Dataset, project: str | None, full: bool) -> SqlPrinter:
    """Print mode's printer; checks up front what every printed query needs.

    Raises:
        UsageError: a flag the printed SQL or bq command needs is missing or malformed.
    """
    if not project:
        raise UsageError("printing Log Analytics SQL needs --project=PROJECT_ID (whose logs)")
    dataset.table()
    dataset.page_table()
    dataset.required_location()
    dataset.required_billing()
    return SqlPrinter(dataset, full)


def check_user_filter(flag: str, text: str) -> None:
    """The user's filter mapped to SQL on its own, before the tool adds its clauses: an error
    names the flag, with the line and column counted within its text (other errors of the
    text are the query action's to report).

    Raises:
        UsageError: the filter has no exact Log Analytics mapping.
    """
    try:
        where.compile_filter(text)
    except LqlUnsupportedError as error:
        raise UsageError(f"{flag}: {error.render()}") from None
    except LqlError:
        return


def offline_source(
    paths: list[str],
    dataset: Dataset,
    project: str | None,
    full: bool,
    stack: contextlib.ExitStack,
    text: TextLogs | None = None,
    exports: list[ExportFile] | None = None,
) -> AnalyticsSource:
    """The exports (and text logs) loaded into DuckDB (closed with `stack`), queried with the
    same SQL; `exports` as already opened, when they were."""
    store = stack.enter_context(OfflineStore(paths, text=text, exports=exports))
    view = queries.View(dataset.table_or_stand_in(), project)
    return AnalyticsSource(store.rows, view, full)


def bigquery_source(
    dataset: Dataset, project: str | None, full: bool, err: TextIO
) -> AnalyticsSource:
    """The SQL run as BigQuery jobs on the linked dataset (a dry run first for each).

    Raises:
        UsageError: a flag --execute needs is missing or malformed.
    """
    if not project:
        raise UsageError("running Log Analytics queries needs --project=PROJECT_ID (whose logs)")
    view = queries.View(dataset.table(), project)
    dataset.required_location()
    dataset.required_billing()
    return AnalyticsSource(BigQueryRunner(dataset, err).rows, view, full)
