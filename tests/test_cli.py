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
            "jobset, lws, job, pod; for the pods of a Deployment or another controller, "
            "give their name prefix: --workload=pod:x-",
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
    assert err.splitlines()[0].startswith("error: ")
    assert "^" in err.splitlines()[-1]


def test_extra_terms_over_the_limit_are_blamed() -> None:
    terms = ",".join(f"term number {i}" for i in range(1500))
    code, out, err = run_cli(
        "--action=workers",
        *BASE,
        "--jobset_name=x",
        f"--extra_terms={terms}",
        "--issue_time=2026-10-22T11:40:00Z",
    )
    assert (code, out) == (2, "")
    line = err.splitlines()[-1]
    assert line.startswith("error: --extra_terms/--extra_term: with these terms a query has ")
    assert line.endswith(
        " characters; Cloud Logging accepts at most 20,000: search for fewer or shorter terms"
    )


QUERY = ("--action=query", *BASE, "--issue_time=2026-10-22T11:40:00Z")


@pytest.mark.parametrize(
    ("flag", "lines"),
    [
        ("--filter=(a", ["error: --filter: missing ')' for '(' at column 1", "(a", "^"]),
        (
            "--filter=a)",
            ["error: --filter: unexpected ')' at column 2: there is no '(' to close", "a)", " ^"],
        ),
        (
            '--filter=textPayload:"abc',
            [
                "error: --filter: unterminated string starting at column 13",
                'textPayload:"abc',
                "            ^",
            ],
        ),
        (
            "--filter=thud=1",
            [
                "error: --filter: unknown field 'thud' at column 1: a field path starts with a "
                "LogEntry field such as textPayload, jsonPayload, labels, resource, severity or "
                "timestamp",
                "thud=1",
                "^",
            ],
        ),
        (
            "--filter=severity>=ERROR\n  textPayload:(x OR",
            [
                "error: --filter: expected a value after 'OR' at line 2, column 18, but the "
                "filter ends",
                "  textPayload:(x OR",
                "                 ^",
            ],
        ),
        (
            "--filter=labels.a=~unquoted",
            [
                "error: --filter: the regular expression at column 11 must be in double quotes: "
                'write =~"unquoted"',
                "labels.a=~unquoted",
                "          ^",
            ],
        ),
        (
            '--filter=ip_in_net(httpRequest.remoteIp, "10.0.0.0/40")',
            [
                "error: --filter: '10.0.0.0/40' at column 33 is not an IP address or CIDR range, "
                'such as "10.1.2.3", "10.1.2.0/24" or "1:2::/48"',
                'ip_in_net(httpRequest.remoteIp, "10.0.0.0/40")',
                "                                ^",
            ],
        ),
        (
            "--filter=" + "x" * 20_001,
            [
                "error: --filter: the filter has 20,001 characters; Cloud Logging accepts at "
                "most 20,000"
            ],
        ),
        (
            '--filter=textPayload:"\udcff"',
            [
                "error: --filter has a byte that is not UTF-8 at column 14: write the filter "
                "in UTF-8"
            ],
        ),
    ],
)
def test_filter_errors_point_into_the_users_own_text(flag: str, lines: list[str]) -> None:
    code, out, err = run_cli(*QUERY, flag)
    assert (code, out) == (2, "")
    assert err.splitlines() == lines
    assert "Traceback" not in err


BLANK_FILTER = (
    "error: --filter has no condition (it is blank or only comments): give a Logging query, "
    "e.g. --filter='severity>=ERROR'"
)


@pytest.mark.parametrize("text", ["", "   ", "\n\t", "-- nothing but a comment"])
def test_blank_filter_has_its_own_message(text: str) -> None:
    code, out, err = run_cli(*QUERY, f"--filter={text}")
    assert (code, out) == (2, "")
    assert err.splitlines() == [BLANK_FILTER]


def test_filter_pushed_past_the_length_limit_by_the_window() -> None:
    # 19,974 characters of the user's; "(\n" and "\n)\n" around them, and the two
    # 33-character window clauses joined by a newline, add 72; the cluster and location
    # clauses of the target flags (41 and 35 characters, each with its newline) add 78:
    # 20,124 in all.
    text = 'textPayload:"' + "x" * 19_960 + '"'
    code, out, err = run_cli(*QUERY, f"--filter={text}")
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        "error: --filter: with the clauses the tool adds around it, the filter has 20,124 "
        "characters; Cloud Logging accepts at most 20,000: shorten --filter by at least 124"
    ]


def test_filter_pushed_past_the_nesting_limit_by_its_parentheses() -> None:
    text = "(" * 64 + "a" + ")" * 64
    code, out, err = run_cli(*QUERY, f"--filter={text}")
    assert (code, out) == (2, "")
    message, shown, caret = err.splitlines()
    assert message == (
        "error: --filter: parentheses and NOTs nest more than 63 deep at column 64: the tool "
        "puts --filter in one more pair of parentheses, and at most 64 levels are accepted"
    )
    # The line is cut around the caret; the caret is under the 64th '(' of the user's text.
    assert shown.startswith("...") and shown.endswith("...")
    assert shown[caret.index("^") :].startswith("(a)")


def test_a_filter_that_fits_is_wrapped_and_runs() -> None:
    code, out, err = run_cli(*QUERY, "--filter=a -- a comment on the last line", "--format=json")
    assert code == 0, err
    assert json.loads(out)["filter"].startswith("(\na -- a comment on the last line\n)\n")


@pytest.mark.parametrize(
    ("flag", "line"),
    [
        (
            "--extra_terms=ok,a\x01b",
            "error: --extra_terms='a\\x01b': control characters cannot be searched for; "
            "remove them",
        ),
        (
            "--extra_terms=\udcff",
            "error: --extra_terms='\\udcff': it has a byte that is not UTF-8; write it in UTF-8",
        ),
        (
            "--extra_term=a,\x7f",
            "error: --extra_term='a,\\x7f': control characters cannot be searched for; remove them",
        ),
        ("--extra_term=", "error: --extra_term= is empty: give it a value, or leave the flag out"),
    ],
)
def test_extra_terms_that_cannot_be_searched_name_the_flag(flag: str, line: str) -> None:
    code, out, err = run_cli("--action=errors", *BASE, "--jobset_name=x", flag)
    assert (code, out) == (2, "")
    assert err.splitlines()[-1] == line


def test_extra_term_over_the_limit_is_blamed() -> None:
    code, out, err = run_cli(
        "--action=errors", *BASE, "--jobset_name=x", "--extra_term=" + "y" * 20_000
    )
    assert (code, out) == (2, "")
    assert err.splitlines()[-1].startswith(
        "error: --extra_terms/--extra_term: with these terms a query has "
    )


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
