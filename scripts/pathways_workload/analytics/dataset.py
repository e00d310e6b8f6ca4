"""Where the SQL runs: the linked dataset and its view, its location, who pays, the byte cap.

Each value is checked where it is needed, so the error names the flag that
fixes it: printing and `--execute` need the dataset, the `bq` command and
`--execute` need the location; offline replay needs none of them.
"""

from __future__ import annotations

import dataclasses

from pathways_workload.analytics import sql
from pathways_workload.errors import UsageError

DEFAULT_VIEW = "_Default"
DEFAULT_MAX_BYTES_BILLED = 50 * 10**9
# Offline the table is the loaded export, whatever its name; this one stands in.
OFFLINE_TABLE = "`offline.export._Default`"


@dataclasses.dataclass(frozen=True)
class Dataset:
    """The `--analytics_*` flags, `--billing_project`, `--max_bytes_billed` and `--log_view`."""

    dataset: str | None  # PROJECT.DATASET
    billing_project: str | None
    location: str | None = None
    view: str = DEFAULT_VIEW
    max_bytes_billed: int = DEFAULT_MAX_BYTES_BILLED
    log_view: str | None = None  # PROJECT.LOCATION.BUCKET.VIEW

    def table(self) -> str:
        """The view in the linked dataset, backquoted.

        Raises:
            UsageError: --analytics_dataset is missing or malformed, or --analytics_view is.
        """
        if not self.dataset:
            raise UsageError(
                "--engine=analytics needs --analytics_dataset=PROJECT.DATASET, the BigQuery "
                "dataset linked to the log bucket (offline, with --logs_file, it is optional)"
            )
        sql.table(self.dataset, "PROJECT.DATASET", "--analytics_dataset")
        return sql.table(f"{self.dataset}.{self.view}", "PROJECT.DATASET.VIEW", "--analytics_view")

    def table_or_stand_in(self) -> str:
        """The view when --analytics_dataset is given, else the offline stand-in."""
        return self.table() if self.dataset else OFFLINE_TABLE

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

    def required_billing(self) -> str:
        """The project BigQuery jobs run in and bill to.

        Raises:
            UsageError: neither --billing_project nor --project was given.
        """
        if not self.billing_project:
            raise UsageError(
                "--engine=analytics needs --billing_project=PROJECT_ID (or --project), the "
                "project that runs and pays for the BigQuery jobs"
            )
        return self.billing_project
