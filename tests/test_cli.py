"""The command line through main([...]): exit codes and the exact user-facing lines."""

from __future__ import annotations

import json

import pytest

from pathways_workload.lql import compile_filter
from tests.helpers import container_entry, run_cli

BASE = ("--project=pw-demo", "--cluster_name=pw-cluster", "--location=us-east5")


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (
            ("--action=errors", *BASE),
            "error: --action=errors needs the workload: pass --jobset_name, --lws_name, "
            "--job_name, --pod_prefix or --workload=KIND:NAME (--action=pods lists the candidates)",
        ),
        (
            ("--action=nope", *BASE, "--jobset_name=x"),
            "error: argument --action: unknown action 'nope'; choose one of preflight, errors, "
            "node-ooms, pod-events, interruptions, neighbors, elastic, summary, user-workload, "
            "proxy, pathways-rm, workers, colocated-python-sidecar, query, triage, versions, pods "
            "(see --help)",
        ),
        (
            (*BASE, "--jobset_name=x"),
            "error: the following arguments are required: --action (see --help)",
        ),
        (
            ("--action=errors", *BASE, "--jobset_name=x", "--start_time=yesterday"),
            "error: --start_time=yesterday: not an RFC 3339 time; use e.g. 2026-10-22T11:10:00Z",
        ),
        (
            ("--action=errors", *BASE, "--jobset_name=x", "--duration=0s"),
            "error: --duration=0s: must be longer than zero, e.g. 30m or 1h",
        ),
        (
            ("--action=errors", *BASE, "--workload=deployment:x"),
            "error: --workload='deployment:x': use KIND:NAME with KIND one of "
            "jobset, lws, job, pod",
        ),
        (
            ("--action=errors", *BASE, '--jobset_name=x") OR ("y'),
            "error: --jobset_name='x\") OR (\"y': not a valid name; use lowercase letters, digits, "
            "'-' and '.'",
        ),
        (
            ("--action=errors", *BASE, "--jobset_name=x", "--limit=0"),
            "error: argument --limit: '0' must be at least 1 (see --help)",
        ),
        (
            ("--action=errors", *BASE, "--jobset_name=x", "--min_severity=loud"),
            "error: argument --min_severity/--min-severity: 'loud' is not one of DEFAULT, "
            "DEBUG, INFO, NOTICE, WARNING, ERROR, CRITICAL, ALERT, EMERGENCY (see --help)",
        ),
        (
            ("--action=errors", "--jobset_name=x", "--issue_time=2026-10-22T11:40:00Z"),
            "error: printing gcloud commands needs --project=PROJECT_ID",
        ),
        (
            ("--action=errors", *BASE, "--jobset_name=x", "--filter=severity>=ERROR"),
            "error: --filter goes with --action=query",
        ),
        (("--action=query", *BASE), "error: --action=query needs --filter='<Logging query>'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv: tuple[str, ...], line: str) -> None:
    code, out, err = run_cli(*argv)
    assert code == 2
    assert out == ""
    assert err.splitlines()[-1] == line
    assert "Traceback" not in err


def test_bad_filter_names_the_column_with_a_caret() -> None:
    code, _, err = run_cli(
        "--action=query",
        *BASE,
        "--filter=severity>=ERROR AND (textPayload:x",
        "--issue_time=2026-10-22T11:40:00Z",
    )
    assert code == 2
    assert err.splitlines()[1].startswith("error: ")
    assert "^" in err.splitlines()[-1]


def test_filter_over_the_limit_is_refused() -> None:
    terms = ",".join(f"term number {i}" for i in range(1500))
    code, _, err = run_cli(
        "--action=workers",
        *BASE,
        "--jobset_name=x",
        f"--extra_terms={terms}",
        "--issue_time=2026-10-22T11:40:00Z",
    )
    assert code == 2
    assert "20,000" in err or "20000" in err


def test_hyphen_aliases_are_accepted() -> None:
    code, out, _ = run_cli(
        "--action=errors",
        "--project=pw-demo",
        "--cluster-name=pw-cluster",
        "--jobset-name=llama-train",
        "--issue-time=2026-10-22T11:40:00Z",
    )
    assert code == 0
    assert 'resource.labels.cluster_name="pw-cluster"' in out


def test_user_strings_cannot_widen_a_query() -> None:
    injected = 'a" OR severity>="DEFAULT'
    code, out, _ = run_cli(
        "--action=errors",
        *BASE,
        "--jobset_name=llama-train",
        "--issue_time=2026-10-22T11:40:00Z",
        "--format=json",
        f"--extra_terms={injected}",
    )
    assert code == 0
    compiled = compile_filter(json.loads(out)["filter"])
    assert not compiled.matches(container_entry("all is well", severity="INFO"))
    assert compiled.matches(container_entry(f"the marker {injected} here", severity="INFO"))
