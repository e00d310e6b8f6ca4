"""Exports larger than DuckDB's memory limit load and query: DuckDB spills to its work folder.

The scan streams; the window functions then see only the matching rows.
(A question matching more rows than fit in the limit, such as the latest
line of a whole large export, still needs a larger `memory_limit`.)
"""

from __future__ import annotations

import gzip
import json
import tempfile
from pathlib import Path

import pytest

from pathways_workload.analytics import queries
from pathways_workload.analytics.offline import OfflineStore
from pathways_workload.analytics.source import AnalyticsSource
from pathways_workload.errors import InputFileError, UsageError
from pathways_workload.query import Query
from pathways_workload.sources.base import Fetch
from tests.helpers import container_entry

MEMORY_LIMIT = "96MB"
ENTRIES = 120_000
PADDING = "x" * 600


def test_an_export_larger_than_the_memory_limit_is_answered(tmp_path: Path) -> None:
    export = tmp_path / "big.jsonl.gz"
    with gzip.open(export, "wt", encoding="utf-8") as out:
        for index in range(ENTRIES):
            second, micros = divmod(index, 100)
            entry = container_entry(
                f"step {index} {PADDING}",
                pod=f"train-worker-{index % 64}-0-abcde",
                severity="ERROR" if index % 1000 == 7 else "INFO",
                timestamp=f"2026-10-22T11:{second // 60 % 60:02d}:{second % 60:02d}.{micros:06d}Z",
            )
            entry["insertId"] = f"id{index:07d}"
            out.write(json.dumps(entry) + "\n")
    raw_bytes = ENTRIES * (len(PADDING) + 500)
    assert raw_bytes > 96 * 2**20
    window = 'timestamp>="2026-10-22T11:00:00Z" timestamp<="2026-10-22T12:00:00Z"'
    with OfflineStore([str(export)], memory_limit=MEMORY_LIMIT) as store:
        assert store.rows_loaded == ENTRIES
        source = AnalyticsSource(store.rows, queries.View("`p.d._Default`", "pw-demo"), full=False)
        (errors,) = source.run([Fetch(Query("errors", f"{window} severity>=ERROR"), 500)])
    assert [e["insertId"] for e in errors.entries] == [
        f"id{i:07d}" for i in range(7, ENTRIES, 1000)
    ]


def test_duckdb_draws_no_progress_bar_on_stdout(tmp_path: Path) -> None:
    """DuckDB's progress bar, on by default, would be written into the tool's output."""
    export = tmp_path / "export.json"
    export.write_text("[]")
    with OfflineStore([str(export)]) as store:
        (row,) = store.rows("SELECT current_setting('enable_progress_bar') AS shown")
    assert row["shown"] is False


def test_running_out_of_memory_asks_for_a_narrower_window(tmp_path: Path) -> None:
    export = tmp_path / "export.json"
    stamps = [f"2026-10-22T11:00:{second % 60:02d}Z" for second in range(2000)]
    export.write_text(json.dumps([container_entry(PADDING, timestamp=t) for t in stamps]))
    window = 'timestamp>="2026-10-22T11:00:00Z" timestamp<="2026-10-22T12:00:00Z"'
    everything = [Fetch(Query("all", window), 2000, "desc")]
    view = queries.View("`p.d._Default`", "pw-demo")
    with pytest.raises(UsageError) as raised, OfflineStore([str(export)], "4MB") as store:
        AnalyticsSource(store.rows, view).run(everything)
    assert raised.value.exit_code == 2
    assert str(raised.value) == (
        f"DuckDB ran out of memory replaying {export} (its limit is 4MB): narrow the window "
        "(--duration, --start_time), or run the queries on BigQuery (--execute)"
    )


def test_work_folders_are_removed_when_the_export_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store copies the logs into its work folder; a corrupt export must not leave one."""
    work = tmp_path / "tmp"
    work.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(work))
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text("[]")
    bad.write_text('[{"timestamp": "2026-10-22T11:00:00Z",')
    with OfflineStore([str(good)]):
        assert len(list(work.iterdir())) == 1
    assert not list(work.iterdir())
    with pytest.raises(InputFileError), OfflineStore([str(bad)]):
        pass
    assert not list(work.iterdir())
