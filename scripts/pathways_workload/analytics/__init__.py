"""Log Analytics: the tool's queries as SQL on BigQuery, or offline on DuckDB.

Modules, one job each:
- `columns`: the log view's column layout (LogEntry key to column);
- `operands`, `comparisons`, `where`: a query-language syntax tree to a
  WHERE predicate with the same meaning;
- `grouping`: the `--first_per_pod` group of a row, as SQL;
- `queries`: whole queries (window, project, dedup, shapes, one per stage);
- `rows`: rows back to LogEntry-shaped dicts;
- `printing`: print mode (SQL, `bq query` command, Log Analytics page SQL);
- `extra`: the optional packages, imported on use;
- `transpile`, `emulation`, `offline`: the same SQL on DuckDB;
- `bigquery`: `--execute` through google-cloud-bigquery;
- `source`: a Source running fetches through either.
"""
