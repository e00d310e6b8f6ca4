"""Log Analytics: the tool's queries as SQL on BigQuery, or offline on DuckDB.

Modules, one job each:
- `columns`: the log view's column layout (LogEntry key to column);
- `operands`, `comparisons`, `ip_ranges`, `where`: a query-language syntax
  tree to a WHERE predicate with the same meaning;
- `queries`: whole queries (window, project, dedup, order, limit; one per stage);
- `rows`: rows back to LogEntry-shaped dicts;
- `dataset`: where the SQL runs (the `--analytics_*` flags and the others);
- `printing`, `chains`: print mode (SQL, `bq query` commands, Log Analytics
  page SQL; node queries fed by node discovery through `@nodes`);
- `extra`: the optional packages, imported on use;
- `transpile`, `emulation`, `offline`: the same SQL on DuckDB;
- `bigquery`: `--execute` through google-cloud-bigquery;
- `source`: a Source running each stage's fetches as one query on either;
- `engine`: the printer and sources the command line picks.

`scripts/pathways_workload/analytics/` compiles the same query-language filters
the actions print into BigQuery SQL for a Log Analytics linked dataset, and runs
the same SQL offline on DuckDB (transpiled by sqlglot). Choose it for big
workloads and long windows; it needs a log bucket upgraded to Log Analytics and
a linked dataset (`gcloud logging buckets update _Default --location=global
--enable-analytics`, `gcloud logging links create LINK --bucket=_Default
--location=global`), and the roles BigQuery Data Viewer on the dataset and
BigQuery Job User on the billing project. Install its packages with
`pip install '.[analytics]'`; printing SQL needs none of them.

Mapping of the query language (each pinned by a test in `tests/analytics/`):
strings compare after NFKC case folding (`NORMALIZE_AND_CASEFOLD`), `:` is
`CONTAINS_SUBSTR`, `=~` is `REGEXP_CONTAINS` (RE2), severity by level, label
keys as `JSON_VALUE(labels, '$."k8s-pod/..."')`, `log_id()` on the decoded
`log_id` column, `SEARCH()` as BigQuery `SEARCH` with a lower-cased query,
`ip_in_net()` built from the Net functions (GoogleSQL has no subnet test of
its own), a missing field makes any comparison false (every comparison is wrapped in
`COALESCE(..., FALSE)`). Every query is bounded by the window, scoped to the
project's `log_name`, deduplicated by `(insert_id, timestamp)` and ordered by
`timestamp, insert_id`.

No exact mapping (stated in `tests/analytics/test_conformance_sql.py`):
Durations (`httpRequest.latency`), `metadata`, JSON keys holding quotes,
`protoPayload` fields of payloads other than AuditLog; numbers and arrays
inside `jsonPayload` compare by their JSON text (`jsonPayload.code=5` does not
match `5.0`, an array never equals one of its elements, and `ip_in_net` reads
no element of an array).

Only real BigQuery can settle (tests named `..._only_real_bigquery_can_settle`):
`CONTAINS_SUBSTR` normalisation against the query language's NFKC_Casefold
(offline, DuckDB only lower-cases); `SEARCH` tokens (offline, the query
language's tokenizer, without phrase order); JSON comparisons; which
address texts `NET.SAFE_IP_FROM_STRING` reads (offline, Python's
`ipaddress`); how nanosecond timestamps are rounded to BigQuery's microseconds (entries within one
microsecond are ordered by insert_id); and which error texts BigQuery sends
for missing roles. sqlglot parsing is not BigQuery validation: a dry run with
real credentials is (`bq query --dry_run --use_legacy_sql=false '<sql>'`).

Entries made from SQL rows hold every selected column under its LogEntry key
(records as objects, no null members), timestamps with six fractional digits,
`protoPayload` as the AuditLog with its `@type`; text output selects only the
columns a line prints (of `labels` only the node label).
"""
