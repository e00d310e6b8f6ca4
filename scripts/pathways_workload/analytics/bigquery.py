"""`--execute` for Log Analytics: the SQL as a BigQuery job on the linked dataset.

google-cloud-bigquery with Application Default Credentials (none when
`CLOUDSDK_AUTH_DISABLE_CREDENTIALS` is true, as for gcloud). Each query is
first a dry run (free), whose bytes are printed; a query over
`--max_bytes_billed` stops there. The job itself carries
`maximum_bytes_billed`, so BigQuery refuses anything above it at no charge.
Transient errors (429, 5xx, a 403 for a rate or quota, connection) are
retried with backoff; another 403, and
a dataset or table BigQuery cannot find, exit 3 naming the roles and the
set-up commands; anything else that keeps failing exits 4.
"""

from __future__ import annotations

import dataclasses
import os
import re
import time
from collections.abc import Callable
from typing import Any, TextIO

from pathways_workload import USAGE_TOKENS
from pathways_workload.analytics.dataset import Dataset
from pathways_workload.analytics.extra import require
from pathways_workload.errors import AccessError, CloudLoggingError, ToolError, UsageError
from pathways_workload.sources import credentials
from pathways_workload.sources.retry import Backoff, GaveUp, retrying

SCOPE = "https://www.googleapis.com/auth/bigquery"
DATA_VIEWER = "BigQuery Data Viewer (roles/bigquery.dataViewer)"
JOB_USER = "BigQuery Job User (roles/bigquery.jobUser)"
TRANSIENT_STATUS = frozenset({429, 500, 502, 503, 504})
# 403 reasons that mean "too much, too fast" rather than "not allowed".
QUOTA_REASONS = frozenset({"rateLimitExceeded", "quotaExceeded"})
_MISSING = re.compile(r"not found: (dataset|table)", re.IGNORECASE)
# gcloud's override of the BigQuery endpoint; the client wants it without the API path.
ENDPOINT_ENV = "CLOUDSDK_API_ENDPOINT_OVERRIDES_BIGQUERY"
_API_PATH = "/bigquery/v2"


def endpoint() -> str | None:
    """The BigQuery endpoint override (without `/bigquery/v2/`), or None."""
    value = os.environ.get(ENDPOINT_ENV, "").strip().rstrip("/").removesuffix(_API_PATH)
    return value or None


@dataclasses.dataclass
class BigQueryRunner:
    """Runs SQL on BigQuery; `endpoint` points the client elsewhere (a test server)."""

    dataset: Dataset
    err: TextIO
    endpoint: str | None = dataclasses.field(default_factory=endpoint)
    backoff: Backoff = dataclasses.field(default_factory=Backoff)
    sleep: Callable[[float], object] = time.sleep
    _client: Any = None

    def rows(self, text: str) -> list[dict[str, Any]]:
        """Dry-run the SQL, then run it; rows as dicts of column values."""
        bigquery = require("google.cloud.bigquery")
        client = self._connect(bigquery)
        location = self.dataset.required_location()
        dry = self._call(
            lambda: client.query(
                text,
                job_config=bigquery.QueryJobConfig(dry_run=True, use_query_cache=False),
                location=location,
                retry=None,
                job_retry=None,
            )
        )
        self._check_size(int(dry.total_bytes_processed or 0))
        config = bigquery.QueryJobConfig(
            maximum_bytes_billed=self.dataset.max_bytes_billed,
            labels={"tool": "pathways-workload"},
        )
        result = self._call(
            lambda: _every_row(
                client.query_and_wait(
                    text, job_config=config, location=location, retry=None, job_retry=None
                )
            )
        )
        return [dict(row.items()) for row in result]

    def _connect(self, bigquery: Any) -> Any:
        if self._client is None:
            info = require("google.api_core.client_info").ClientInfo(user_agent=USAGE_TOKENS)
            options = {"api_endpoint": self.endpoint} if self.endpoint else None
            self._client = bigquery.Client(
                project=self.dataset.required_billing(),
                credentials=self._credentials(),
                location=self.dataset.required_location(),
                client_info=info,
                client_options=options,
            )
        return self._client

    def _credentials(self) -> Any:
        if credentials.disabled():
            return require("google.auth.credentials").AnonymousCredentials()
        auth = require("google.auth")
        try:
            found, _ = auth.default(scopes=[SCOPE])
        except (OSError, require("google.auth.exceptions").DefaultCredentialsError) as error:
            said = credentials.one_line(str(error))
            raise AccessError(
                f"no usable Application Default Credentials ({said}): {credentials.LOGIN_FIX} "
                f"(the account needs {DATA_VIEWER} on the dataset {self.dataset.dataset} and "
                f"{JOB_USER} on project {self.dataset.billing_project})"
            ) from None
        return found

    def _check_size(self, processed: int) -> None:
        self.err.write(f"dry run: the query will process {_size(processed)} ({processed} bytes)\n")
        if processed > self.dataset.max_bytes_billed:
            raise UsageError(
                f"the query would process {_size(processed)}, more than "
                f"--max_bytes_billed={self.dataset.max_bytes_billed}: narrow the window "
                "(--duration) or raise --max_bytes_billed"
            )

    def _call(self, call: Callable[[], Any]) -> Any:
        exceptions = require("google.api_core.exceptions")
        try:
            return retrying(call, _is_transient, self.backoff, self._on_retry, self.sleep)
        except GaveUp as gave_up:
            raise CloudLoggingError(
                f"BigQuery kept failing after {gave_up.attempts} tries "
                f"({credentials.one_line(str(gave_up.error))}): wait a minute and rerun, "
                "or narrow the window (--duration)"
            ) from None
        except exceptions.GoogleAPICallError as error:
            raise _failure(error, self.dataset) from None
        except (ValueError, KeyError, IndexError) as error:  # an answer the client cannot read
            raise CloudLoggingError(
                f"BigQuery gave an answer that is not what its API returns "
                f"({type(error).__name__}: {credentials.one_line(str(error))[:200]}): "
                "is a proxy in the way? Rerun later"
            ) from None

    def _on_retry(self, error: Exception, wait: float, attempt: int) -> None:
        self.err.write(
            f"BigQuery: {credentials.one_line(str(error))[:200]}; retrying in {wait:.0f}s "
            f"(attempt {attempt + 1})\n"
        )


def _every_row(rows: Any) -> list[Any]:
    """Every row of a result, page after page; a page token seen before is a loop (exit 4)."""
    found: list[Any] = []
    seen: set[str] = set()
    for page in rows.pages:
        found.extend(page)
        token = rows.next_page_token
        if token is not None and token in seen:
            raise CloudLoggingError(
                f"BigQuery's pages ran in a loop (page token {token[:40]!r} came back) after "
                f"{len(found)} rows: rerun later"
            )
        seen.add(token)
    return found


def _is_transient(error: Exception) -> bool:
    code = getattr(error, "code", None)
    if isinstance(code, int) and code in TRANSIENT_STATUS:
        return True
    if code == 403 and _reasons(error) & QUOTA_REASONS:  # BigQuery's 403 for rates and quotas
        return True
    return type(error).__name__ in ("ConnectionError", "ChunkedEncodingError", "Timeout")


def _reasons(error: Exception) -> set[str]:
    """The `reason` of each of an API error's details."""
    details = getattr(error, "errors", None) or []
    return {str(item.get("reason")) for item in details if isinstance(item, dict)}


def _failure(error: Any, dataset: Dataset) -> ToolError:
    """The tool's error for a BigQuery answer that retrying cannot fix."""
    message = credentials.one_line(getattr(error, "message", "") or str(error))
    code = getattr(error, "code", None)
    not_found = code == 404 or "may not exist" in message or _MISSING.search(message) is not None
    if code in (401, 403) or not_found:
        return AccessError(f"BigQuery said: {message}. {access_fix(dataset)}")
    if "bytes billed" in message.lower():
        return UsageError(
            f"BigQuery said: {message}; raise --max_bytes_billed or narrow the window"
        )
    return CloudLoggingError(f"BigQuery failed: {message}")


def access_fix(dataset: Dataset) -> str:
    """Both causes of a denied or missing dataset, and what fixes each."""
    project, _, link = (dataset.dataset or "PROJECT.DATASET").partition(".")
    return (
        f"Either the account lacks access: grant {DATA_VIEWER} on the dataset "
        f"{dataset.dataset} and {JOB_USER} on the billing project {dataset.billing_project}; "
        "or the log bucket has no linked dataset (or it is in another location than "
        f"--analytics_location={dataset.location}): upgrade the bucket and link it with "
        f"`gcloud logging buckets update _Default --location=global --enable-analytics "
        f"--project={project}` and `gcloud logging links create {link} --bucket=_Default "
        f"--location=global --project={project}`"
    )


def _size(count: int) -> str:
    for unit, scale in (("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if count >= scale:
            return f"{count / scale:.1f} {unit}"
    return f"{count} B"
