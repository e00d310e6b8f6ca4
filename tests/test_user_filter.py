"""The user's own filter: only problems inside the user's text are blamed on the flag."""

from __future__ import annotations

import pytest

from pathways_workload import user_filter
from pathways_workload.errors import UsageError
from pathways_workload.lql import LqlLimitError
from tests.helpers import run_cli
from tests.test_cli_hardening import INCIDENT


def test_nesting_in_the_tools_clauses_is_not_blamed_on_the_flag() -> None:
    built = "(" * 70 + user_filter.wrap("a") + ")" * 70
    with pytest.raises(LqlLimitError):
        user_filter.check_built("--filter", "a", built)


def test_nesting_in_the_users_text_is_blamed_on_the_flag() -> None:
    text = "insertId=1\n" + "(" * 64 + "a" + ")" * 64
    with pytest.raises(UsageError) as raised:
        user_filter.check_built("--filter", text, user_filter.wrap(text) + "\nseverity>=INFO")
    assert str(raised.value).startswith(
        "--filter: parentheses and NOTs nest more than 63 deep at line 2, column 64: "
    )


def test_a_filter_within_the_limits_passes() -> None:
    text = 'textPayload:"x"'
    user_filter.check_text("--filter", text)
    built = "severity>=INFO\n" + user_filter.wrap(text) + '\ninsertId="i1"'
    user_filter.check_built("--filter", text, built)


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('httpRequest.latency>"1s"', "at column 1"),
        ('severity>=ERROR\nhttpRequest.latency>"1s"', "at line 2, column 1"),
    ],
)
@pytest.mark.parametrize("mode", ["print", "replay"])
def test_a_filter_without_a_log_analytics_mapping_is_named_within_its_own_text(
    text: str, where: str, mode: str
) -> None:
    """Counted within the user's text (not the filter the tool built around it), naming
    --filter, as every other filter error does."""
    analytics = ("--engine=analytics",)
    if mode == "print":
        analytics += ("--analytics_dataset=pw-demo.logs", "--analytics_location=US")
    source = (f"--logs_file={INCIDENT}",) if mode == "replay" else ("--project=pw-demo",)
    code, out, err = run_cli(
        "--action=query",
        *source,
        *analytics,
        "--issue_time=2026-11-17T13:30:00Z",
        f"--filter={text}",
    )
    assert (code, out) == (2, "")
    message, line, caret = err.splitlines()[-3:]
    assert message.startswith("error: --filter: 'httpRequest.latency' " + where)
    assert (line, caret) == ('httpRequest.latency>"1s"', "^")


@pytest.mark.parametrize(
    ("bound", "side"),
    [
        ('timestamp>="2026-11-17T14:00:00.5Z"', "after the window's end (2026-11-17T14:00:00Z)"),
        ('timestamp>"2026-11-17T14:00:00Z"', "after the window's end (2026-11-17T14:00:00Z)"),
        ('timestamp<="2026-11-17T12:59:59Z"', "before the window's start (2026-11-17T13:00:00Z)"),
        ('timestamp<"2026-11-17T13:00:00Z"', "before the window's start (2026-11-17T13:00:00Z)"),
    ],
)
@pytest.mark.parametrize("mode", ["print", "replay"])
def test_a_filter_timed_outside_the_window_is_refused(bound: str, side: str, mode: str) -> None:
    """The window is ANDed with --filter: a filter whose own times exclude all of it can
    match nothing (a filter copied with its timestamps, run without the window flags)."""
    source = f"--logs_file={INCIDENT}" if mode == "replay" else "--project=pw-demo"
    window = ("--start_time=2026-11-17T13:00:00Z", "--end_time=2026-11-17T14:00:00Z")
    code, out, err = run_cli("--action=query", source, *window, f"--filter=severity>=ERROR {bound}")
    assert (code, out) == (2, "")
    assert err.splitlines()[-1] == (
        f"error: --filter: {bound} is {side}, and the window is ANDed with it: nothing can "
        "match; set the window with --start_time and --end_time (or --issue_time)"
    )


@pytest.mark.parametrize(
    "text",
    [
        'timestamp>="2026-11-17T14:00:00Z" timestamp<="2026-11-17T15:00:00Z"',
        'timestamp<"2026-11-17T13:00:00.000000001Z"',
        'timestamp>="2026-11-18T00:00:00Z" OR severity>=ERROR',
    ],
)
def test_a_filter_timed_to_meet_the_window_runs(text: str) -> None:
    code, _, err = run_cli(
        "--action=query",
        f"--logs_file={INCIDENT}",
        "--start_time=2026-11-17T13:00:00Z",
        "--end_time=2026-11-17T14:00:00Z",
        f"--filter={text}",
    )
    assert code == 0, err


@pytest.mark.parametrize(
    ("text", "key"),
    [
        (
            'labels."k8s-pod/batch.kubernetes.io/job-name"="gemma-train-worker-1"',
            "k8s-pod/batch.kubernetes.io/job-name",
        ),
        (
            'labels.k8s-pod/jobset.sigs.k8s.io/jobset-name:"gemma-train" "Check failed"',
            "k8s-pod/jobset.sigs.k8s.io/jobset-name",
        ),
    ],
)
@pytest.mark.parametrize("mode", ["print", "replay"])
def test_a_dotted_pod_label_key_is_refused(text: str, key: str, mode: str) -> None:
    """Cloud Logging stores pod label keys with the dots of their domain turned into
    underscores, so a filter that requires the dotted spelling (as some public examples
    write it) matches nothing, however much evidence there is."""
    source = f"--logs_file={INCIDENT}" if mode == "replay" else "--project=pw-demo"
    code, out, err = run_cli(
        "--action=query", source, "--issue_time=2026-11-17T13:30:00Z", f"--filter={text}"
    )
    underscored = key.replace(".", "_")
    assert (code, out) == (2, "")
    assert err.splitlines()[-1] == (
        f'error: --filter: labels."{key}" matches nothing: Cloud Logging stores pod label '
        f'keys with the dots of their domain turned into underscores; write labels."{underscored}"'
    )


@pytest.mark.parametrize(
    "text",
    [
        'labels."k8s-pod/batch_kubernetes_io/job-name"="gemma-train-worker-1"',
        'labels."k8s-pod/batch.kubernetes.io/job-name"="x" OR severity>=CRITICAL',
        'NOT labels."k8s-pod/batch.kubernetes.io/job-name"="x"',
        'labels."jobset.sigs.k8s.io/restart-attempt"="0"',
    ],
)
def test_a_filter_that_can_match_without_a_dotted_pod_label_key_runs(text: str) -> None:
    """Only a dotted key every match needs is refused: the underscore form, a dotted key
    in an OR or under NOT, and the verbatim JobSet labels of pod events all run."""
    code, _, err = run_cli(
        "--action=query",
        f"--logs_file={INCIDENT}",
        "--issue_time=2026-11-17T13:30:00Z",
        f"--filter={text}",
    )
    assert code == 0, err


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ('severity>=ERROR timestamp>="yesterday"', '"yesterday"'),
        ('severity>=CRITICAL OR receiveTimestamp<"2026-02-30"', '"2026-02-30"'),
        ('NOT timestamp="2026-11-17 13:30 UTC"', '"2026-11-17 13:30 UTC"'),
        ("timestamp>=1794922200", "1794922200"),
    ],
)
@pytest.mark.parametrize("mode", ["print", "replay"])
def test_a_time_that_is_not_one_is_refused_with_a_caret(text: str, written: str, mode: str) -> None:
    """Cloud Logging refuses a filter that compares a time field with a value that is not a
    time (400 INVALID_ARGUMENT "The value ... is of incorrect type"), wherever it stands:
    replay must not answer "nothing matched" instead."""
    source = f"--logs_file={INCIDENT}" if mode == "replay" else "--project=pw-demo"
    code, out, err = run_cli(
        "--action=query", source, "--issue_time=2026-11-17T13:30:00Z", f"--filter={text}"
    )
    assert (code, out) == (2, "")
    start = text.index(written)
    assert err.splitlines()[-3:] == [
        f"error: --filter: {written} at column {start + 1} is not an RFC 3339 time, and Cloud "
        "Logging refuses a time field compared with anything else (INVALID_ARGUMENT: the value "
        'is of incorrect type); write e.g. "2026-10-22T11:10:00Z"',
        text,
        " " * start + "^",
    ]


@pytest.mark.parametrize(
    "text",
    [
        'timestamp>="2026-11-17"',
        'timestamp>="2026-11-17T15:00:00+02:00" receiveTimestamp<="2026-11-17 14:00:00"',
        'timestamp=~"T13:"',
        "timestamp:*",
        'jsonPayload.timestamp>="yesterday"',
    ],
)
def test_a_time_field_compared_with_a_time_runs(text: str) -> None:
    code, _, err = run_cli(
        "--action=query",
        f"--logs_file={INCIDENT}",
        "--issue_time=2026-11-17T13:30:00Z",
        f"--filter={text}",
    )
    assert code == 0, err


@pytest.mark.parametrize(
    ("flags", "text", "said", "fix"),
    [
        (
            ("--jobset_name=gemma-train",),
            'resource.labels.namespace_name="team-a" severity>=ERROR',
            "--namespace=default (the default)",
            "--namespace=team-a",
        ),
        (
            ("--namespace=team-b",),
            'resource.labels.namespace_name="team-a"',
            "--namespace=team-b",
            "--namespace=team-a",
        ),
        (
            ("--cluster_name=pw-cluster",),
            'severity>=ERROR resource.labels.cluster_name="other-cluster"',
            "--cluster_name=pw-cluster",
            "--cluster_name=other-cluster",
        ),
        (
            ("--location=us-east5",),
            'resource.labels.location="us-central1"',
            "--location=us-east5",
            "--location=us-central1",
        ),
    ],
)
@pytest.mark.parametrize("mode", ["print", "replay"])
def test_a_filter_that_contradicts_a_target_flag_is_refused(
    flags: tuple[str, ...], text: str, said: str, fix: str, mode: str
) -> None:
    """The target flags are ANDed with --filter: a filter that requires another namespace,
    cluster or location than theirs can match nothing (the namespace applies, `default`
    unless given, whenever a workload flag is)."""
    source = f"--logs_file={INCIDENT}" if mode == "replay" else "--project=pw-demo"
    code, out, err = run_cli(
        "--action=query", source, "--issue_time=2026-11-17T13:30:00Z", *flags, f"--filter={text}"
    )
    term = next(word for word in text.split(" ") if word.startswith("resource."))
    assert (code, out) == (2, "")
    assert err.splitlines()[-1] == (
        f"error: --filter: {term} contradicts {said}, which is ANDed with it: nothing can "
        f"match; pass {fix}, or leave the condition out of --filter"
    )


@pytest.mark.parametrize(
    "text",
    [
        'resource.labels.namespace_name="DEFAULT"',
        'resource.labels.namespace_name="kube-system"',
        'resource.labels.namespace_name="kube-system" OR severity>=ERROR',
        'NOT resource.labels.namespace_name="default"',
    ],
)
def test_a_filter_the_target_flags_leave_room_for_runs(text: str) -> None:
    """Only a top-level equality the flags given contradict is refused: `=` ignores case,
    a namespace without a workload flag or --namespace is not fixed, and an OR or NOT
    leaves room."""
    code, _, err = run_cli(
        "--action=query",
        f"--logs_file={INCIDENT}",
        "--issue_time=2026-11-17T13:30:00Z",
        f"--filter={text}",
        *(("--namespace=default",) if "DEFAULT" in text else ()),
    )
    assert code == 0, err


@pytest.mark.parametrize("mode", ["print", "replay"])
def test_a_filter_on_another_projects_log_name_is_refused(mode: str) -> None:
    """Cloud Logging reads --project's logs only: a filter that requires another project's
    logName matches nothing there (and offline, the project's entries only are read)."""
    source = (f"--logs_file={INCIDENT}",) if mode == "replay" else ()
    code, out, err = run_cli(
        "--action=query",
        "--project=pw-demo",
        *source,
        "--issue_time=2026-11-17T13:30:00Z",
        '--filter=logName="projects/pw-other/logs/stderr"',
    )
    assert (code, out) == (2, "")
    assert err.splitlines()[-1] == (
        'error: --filter: logName="projects/pw-other/logs/stderr" names another project than '
        "--project=pw-demo, whose logs only are read: nothing can match; pass "
        "--project=pw-other, or leave the condition out of --filter"
    )


@pytest.mark.parametrize(
    ("text", "column", "problem"),
    [
        ('sample(insertId, 0.5) thud="x"', 23, "unknown field 'thud'"),
        ('cast(timestamp, STRING)=~"x" textPayload.x:*', 30, "unknown field 'textPayload.x'"),
        ('sample(insertId, 0.5) timestamp>="yesterday"', 34, "is not an RFC 3339 time"),
    ],
)
def test_what_cloud_logging_refuses_beside_a_function_only_it_evaluates_is_refused(
    text: str, column: int, problem: str
) -> None:
    """Printed, such a filter would only earn Cloud Logging's INVALID_ARGUMENT."""
    code, out, err = run_cli("--action=query", "--project=pw-demo", f"--filter={text}")
    assert (code, out) == (2, "")
    assert problem in err.splitlines()[-3]
    assert err.splitlines()[-2:] == [text, " " * (column - 1) + "^"]
