"""Print mode for Log Analytics: SQL and bq commands, without the optional packages."""

from __future__ import annotations

import io
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from pathways_workload.analytics import queries
from pathways_workload.analytics.extra import require
from pathways_workload.analytics.printing import Dataset, write_queries
from pathways_workload.errors import UsageError

ROOT = Path(__file__).resolve().parent.parent.parent
WINDOW = 'timestamp>="2026-10-22T11:00:00Z" timestamp<="2026-10-22T12:00:00Z"'
QUESTIONS = [queries.Question(f"{WINDOW} severity>=ERROR", 200), queries.Question(WINDOW, 10)]


def printed(dataset: Dataset, as_json: bool = False) -> str:
    out = io.StringIO()
    write_queries(["errors", "everything"], QUESTIONS, "pw-demo", dataset, out, as_json)
    return out.getvalue()


def test_text_prints_the_sql_and_a_runnable_bq_command() -> None:
    text = printed(
        Dataset("pw-demo.logs", "pw-billing", "US", log_view="pw-demo.global._Default._Default")
    )
    lines = text.splitlines()
    assert lines[0] == "# errors; everything"
    command = text[text.index("CLOUDSDK_METRICS_ENVIRONMENT") : text.index("# the same query")]
    words = shlex.split(command)
    assert words[:4] == [
        "CLOUDSDK_METRICS_ENVIRONMENT=pathways-workload/0.1.0 (skill:pathways-workload)",
        "bq",
        "--project_id=pw-billing",
        "--location=US",
    ]
    assert words[4:8] == [
        "query",
        "--use_legacy_sql=false",
        "--maximum_bytes_billed=50000000000",
        "--max_rows=210",
    ]
    assert "FROM `pw-demo.logs._Default` AS log_entry" in words[8]
    assert "FROM `pw-demo.global._Default._Default` AS log_entry" in text


def test_json_prints_one_record_per_query_with_every_column() -> None:
    record = json.loads(printed(Dataset("pw-demo.logs", "pw-demo", "EU"), as_json=True))
    assert set(record) == {"purpose", "sql", "command"}
    assert "    labels," in record["sql"] and "proto_payload" in record["sql"]


def test_the_location_is_required_for_the_bq_command() -> None:
    with pytest.raises(UsageError, match=r"^--analytics_location is required"):
        printed(Dataset("pw-demo.logs", "pw-demo"))


@pytest.mark.parametrize(
    ("dataset", "flag"),
    [
        (Dataset("pw-demo", "pw-demo", "US"), "--analytics_dataset"),
        (Dataset("pw-demo.logs", "pw-demo", "US", view="a.b"), "--analytics_view"),
        (Dataset("pw-demo.logs", "pw-demo", "US", log_view="p.global.b"), "--log_view"),
    ],
)
def test_bad_addresses_name_their_flag(dataset: Dataset, flag: str) -> None:
    with pytest.raises(UsageError, match=f"^{re.escape(flag)}="):
        printed(dataset)


def test_print_mode_imports_no_optional_package() -> None:
    code = (
        "import io, sys\n"
        "from pathways_workload.analytics import printing, queries\n"
        'w = \'timestamp>="2026-10-22T11:00:00Z" timestamp<="2026-10-22T12:00:00Z"\'\n'
        "printing.write_queries(['x'], [queries.Question(w, 5)], 'p', "
        "printing.Dataset('p.d', 'p', 'US'), io.StringIO(), False)\n"
        "loaded = [m for m in ('sqlglot', 'duckdb', 'google.cloud.bigquery') if m in sys.modules]\n"
        "print(loaded)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT / "scripts",
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_a_missing_extra_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "duckdb", None)
    with pytest.raises(UsageError) as raised:
        require("duckdb")
    assert raised.value.exit_code == 2
    assert "pip install '.[analytics]'" in str(raised.value)
