"""Print mode of `--engine=analytics`: one SQL query per stage as a bq command, no extra needed."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import sqlglot

from pathways_workload.analytics import sql
from pathways_workload.errors import UsageError
from pathways_workload.registry import ACTIONS
from tests.helpers import run_cli

ROOT = Path(__file__).resolve().parent.parent.parent
TARGET = (
    "--project=pw-demo",
    "--jobset_name=llama-train",
    "--start_time=2026-10-22T11:00:00Z",
    "--duration=1h",
)
ENGINE = (
    "--engine=analytics",
    "--analytics_dataset=pw-demo.pathways_logs",
    "--analytics_location=US",
)
NEEDS = {"query": ("--filter=severity>=ERROR",)}


def printed(*args: str) -> str:
    code, out, err = run_cli(*TARGET, *ENGINE, *args)
    assert code == 0, err
    return out


def test_text_prints_one_bq_command_per_stage_reading_the_sql_from_a_here_document() -> None:
    out = printed("--action=triage", "--billing_project=pw-billing")
    (first, *_) = printed("--action=triage", "--format=json").splitlines()
    rows = sum(fetch["limit"] for fetch in json.loads(first)["fetches"])
    records = printed("--action=triage", "--format=json").splitlines()
    assert out.count("<<'END_OF_SQL'") == len(records) == out.count("\nEND_OF_SQL\n")
    command = next(line for line in out.splitlines() if " bq " in line)
    words = shlex.split(command)
    assert words[:3] == [
        "CLOUDSDK_METRICS_ENVIRONMENT=pathways-workload/0.1.0 (skill:pathways-workload)",
        "bq",
        "--project_id=pw-billing",
    ]
    assert "--location=US" in words and "--format=json" in words
    assert words[words.index("query") + 1 :] == [
        "--use_legacy_sql=false",
        "--maximum_bytes_billed=50000000000",
        f"--max_rows={rows}",
        "<<END_OF_SQL",
    ]
    assert "FROM `pw-demo.pathways_logs._Default` AS log_entry" in out
    assert "STARTS_WITH(log_name, 'projects/pw-demo/logs/')" in out


@pytest.mark.parametrize(
    "action", [name for name, action in ACTIONS.items() if name != "preflight"]
)
def test_every_action_prints_valid_shell(action: str) -> None:
    out = printed(f"--action={action}", *NEEDS.get(action, ()))
    subprocess.run(["bash", "-n"], input=out, text=True, check=True)
    assert "END_OF_SQL" in out


def test_preflight_runs_and_prints_its_sql_when_it_has_no_credentials() -> None:
    code, out, err = run_cli(*TARGET, *ENGINE, "--action=preflight")
    assert code == 3
    assert err.splitlines()[-1].startswith("error: no usable Application Default Credentials")
    assert "roles/bigquery.dataViewer" in err and "<<'END_OF_SQL'" in out


def test_json_prints_one_record_per_stage_with_every_column() -> None:
    (record,) = [
        json.loads(line) for line in printed("--action=errors", "--format=json").splitlines()
    ]
    assert set(record) == {"purpose", "fetches", "sql", "command", "shell"}
    assert record["shell"] == record["command"]
    assert shlex.split(record["command"])[-1] == record["sql"]
    assert "    labels," in record["sql"] and "proto_payload" in record["sql"]
    (fetch,) = record["fetches"]
    assert (fetch["fetch_index"], fetch["name"], fetch["limit"], fetch["order"]) == (
        0,
        "crashes",
        200,
        "asc",
    )


def test_text_output_selects_only_the_columns_a_line_prints() -> None:
    out = printed("--action=errors")
    assert "    labels," not in out and "JSON_VALUE(labels, '$.\"compute.googleapis.com" in out


def test_node_queries_read_the_discovered_names_as_an_array_parameter() -> None:
    out = printed("--action=interruptions")
    assert "NODES=$(\n" in out and "SELECT DISTINCT node FROM (" in out
    assert '--parameter="nodes:ARRAY<STRING>:[$(for name in $NODES' in out
    assert "IN UNNEST(@nodes)" in out and "FROM UNNEST(@nodes) AS node), '|')" in out
    assert "nodes_from_discovery" not in out.lower()


def test_a_traceback_follow_up_is_described_with_its_filter() -> None:
    out = printed("--action=errors")
    assert '# resource.labels.pod_name="POD"' in out
    assert "# (then print its SQL: this command with --action=query --filter='<the filter>')" in out


def test_the_log_analytics_page_gets_the_same_sql_for_its_view() -> None:
    out = printed("--action=pod-events", "--log_view=pw-demo.global._Default._Default")
    assert "# the same query on the Log Analytics page (pw-demo.global._Default._Default):" in out
    assert "#   FROM `pw-demo.global._Default._Default` AS log_entry" in out
    record = json.loads(
        printed(
            "--action=pod-events", "--log_view=pw-demo.global._Default._Default", "--format=json"
        )
    )
    assert record["log_analytics_sql"] == record["sql"].replace(
        "`pw-demo.pathways_logs._Default`", "`pw-demo.global._Default._Default`"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("--analytics_dataset=pw-demo.pathways_logs",),
            "error: --analytics_location is required with --engine=analytics: the linked "
            "dataset's BigQuery location (e.g. US, EU, us-east5), not the cluster's",
        ),
        (
            ("--analytics_location=US",),
            "error: --engine=analytics needs --analytics_dataset=PROJECT.DATASET, the BigQuery "
            "dataset linked to the log bucket (offline, with --logs_file, it is optional)",
        ),
        (
            ("--analytics_dataset=pw-demo", "--analytics_location=US"),
            "error: --analytics_dataset='pw-demo': expected PROJECT.DATASET",
        ),
        (
            ("--analytics_dataset=p.d", "--analytics_location=US", "--analytics_view=a.b"),
            "error: --analytics_view='p.d.a.b': expected PROJECT.DATASET.VIEW",
        ),
        (
            ("--analytics_dataset=p.d", "--analytics_location=US", "--log_view=p.global.b"),
            "error: --log_view='p.global.b': expected PROJECT.LOCATION.BUCKET.VIEW",
        ),
        (
            ("--analytics_dataset=p.d", "--analytics_location=US", "--billing_project=x $(id)"),
            "error: --billing_project='x $(id)': not a Google Cloud project ID, e.g. my-project",
        ),
        (
            ("--analytics_dataset=p.d", "--analytics_location=U$S"),
            "error: --analytics_location='U$S': not a BigQuery location, e.g. US, EU or us-east5",
        ),
        (
            ("--analytics_dataset=p.d", "--analytics_location=US", f"--max_bytes_billed={2**63}"),
            f"error: --max_bytes_billed={2**63}: more than BigQuery takes (at most {2**63 - 1})",
        ),
    ],
)
def test_missing_or_bad_addresses_exit_2_naming_their_flag(
    args: tuple[str, ...], message: str
) -> None:
    code, out, err = run_cli(*TARGET, "--engine=analytics", *args, "--action=errors")
    assert (code, out) == (2, "")
    assert err.splitlines()[-1] == message


def test_analytics_flags_need_the_analytics_engine() -> None:
    code, _, err = run_cli(*TARGET, "--analytics_location=US", "--action=errors")
    assert code == 2
    assert err.splitlines()[-1] == "error: --analytics_location goes with --engine=analytics"


def test_print_mode_imports_no_optional_package() -> None:
    code = (
        "import io, sys\n"
        "from pathways_workload.cli import main\n"
        f"argv = {[*TARGET, *ENGINE, '--action=triage']!r}\n"
        "assert main(argv, out=io.StringIO(), err=io.StringIO()) == 0\n"
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


@pytest.mark.parametrize("module", ["duckdb", "sqlglot"])
def test_replay_without_the_extra_exits_2_with_the_install_command(
    module: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    export = tmp_path / "export.json"
    export.write_text("[]")
    monkeypatch.setitem(sys.modules, module, None)
    code, _, err = run_cli(
        *TARGET, "--engine=analytics", f"--logs_file={export}", "--action=errors"
    )
    assert code == 2
    assert err.splitlines()[-1] == (
        f"error: --engine=analytics needs the analytics extra ({module} is not installed): "
        "run pip install '.[analytics]' from the skill folder"
    )


def test_execute_without_the_extra_exits_2_with_the_install_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "google.cloud.bigquery", None)
    code, _, err = run_cli(*TARGET, *ENGINE, "--action=errors", "--execute")
    assert code == 2
    assert "pip install '.[analytics]'" in err.splitlines()[-1]


def test_the_billing_project_defaults_to_the_project_and_the_cap_is_passed_on() -> None:
    words = shlex.split(
        next(line for line in printed("--action=errors").splitlines() if " bq " in line)
    )
    assert "--project_id=pw-demo" in words and "--maximum_bytes_billed=50000000000" in words
    capped = printed("--action=errors", "--max_bytes_billed=1000000")
    assert "--maximum_bytes_billed=1000000" in capped


@pytest.mark.parametrize("char", ["\x00", "\x01", "\x1b", "\x7f", "\u0085", "\u2028", "\u2029"])
def test_control_characters_in_a_filter_are_escaped_in_the_sql(char: str) -> None:
    """Written raw they would reach the terminal, or be lost on the way to bq (a NUL: the
    literal, empty, would then match every entry); escaped, the SQL reads the same string."""
    code = f"\\u{ord(char):04x}"
    for fmt in ("text", "json"):
        out = printed("--action=query", f'--filter=textPayload:"a{code}b"', f"--format={fmt}")
        assert not any((c < " " and c != "\n") or c in "\x7f\u0085\u2028\u2029" for c in out)
        assert f"'a{code}b'" in out.replace("\\\\", "\\")
    literal = sqlglot.parse_one(f"SELECT 'a{code}b'", read="bigquery").expressions[0]
    assert literal.this == f"a{char}b"


@pytest.mark.parametrize(
    ("path", "table"),
    [
        ("my-proj.logs", "`my-proj.logs`"),
        ("google.com:my-proj.pathways_logs", "`google.com:my-proj.pathways_logs`"),
        ("a:b:c.d", None),
        ("Example.com:p.d", None),
        ("google.com:my-proj", None),
    ],
)
def test_a_domain_scoped_project_names_a_dataset(path: str, table: str | None) -> None:
    """`--project` takes example.com:project; so does --analytics_dataset's project part."""
    if table is None:
        with pytest.raises(UsageError):
            sql.table(path, "PROJECT.DATASET", "--analytics_dataset")
    else:
        assert sql.table(path, "PROJECT.DATASET", "--analytics_dataset") == table
