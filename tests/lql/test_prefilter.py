"""The raw-line fast path on crafted lines: it may say yes wrongly, never no wrongly."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pathways_workload import filters, scenarios, terms
from pathways_workload.lql import compile_filter


def line_of(entry: dict[str, Any], ensure_ascii: bool = True) -> bytes:
    return json.dumps(entry, ensure_ascii=ensure_ascii).encode("utf-8")


@pytest.mark.parametrize(
    ("text", "entry"),
    [
        # Escapes: the text of the entry is not in the line as written.
        ('textPayload:"café"', {"textPayload": "CAFÉ au lait"}),
        ('textPayload:"a/b"', {"textPayload": "x a/b y"}),
        ('textPayload:"fullwidth"', {"textPayload": "ＦＵＬＬＷＩＤＴＨ"}),
        ('textPayload:"file"', {"textPayload": "ﬁle"}),
        ('textPayload:"strasse"', {"textPayload": "Straße"}),
        ('"kelvin 5 k"', {"textPayload": "kelvin 5 \u212a"}),
        # Severity: satisfied by an absent severity, so nothing is required.
        ("severity<INFO", {"textPayload": "x"}),
        ("severity!=ERROR", {"textPayload": "x"}),
        ("severity=DEFAULT", {"severity": "DEFAULT"}),
        ("severity>=error", {"severity": "Critical"}),
        # Numbers and booleans match other spellings than the filter's.
        ("jsonPayload.code=5.0", {"jsonPayload": {"code": 5}}),
        ("jsonPayload.code=5", {"jsonPayload": {"code": 5.0}}),
        ('jsonPayload.code="5"', {"jsonPayload": {"code": 5}}),
        ("jsonPayload.n=1000", {"jsonPayload": {"n": 1e3}}),
        ("jsonPayload.n=10000000000000000", {"jsonPayload": {"n": 1e16}}),
        ("jsonPayload.flag=TRUE", {"jsonPayload": {"flag": True}}),
        ("137", {"jsonPayload": {"exitCode": 137.0}}),
        ("jsonPayload.x=NULL_VALUE", {"jsonPayload": {"x": None}}),
        # Other types on typed fields.
        ('httpRequest.status="503"', {"httpRequest": {"status": 503}}),
        ('sourceLocation.line="0042"', {"sourceLocation": {"line": "42"}}),
        ('timestamp="2026-10-22T13:10:00+02:00"', {"timestamp": "2026-10-22T11:10:00Z"}),
        # A severity written as the enum's number (proto3 JSON's other form) is that level.
        ("severity>=WARNING", {"severity": 400}),
        ("severity=ERROR", {"severity": "500"}),
        ('severity:WARNING textPayload:"x"', {"severity": 400, "textPayload": "x"}),
        # Global restrictions search typed fields by their type.
        ("WARNING", {"severity": 400}),
        ("warning", {"severity": "0400"}),
        ('"2026-10-22T13:10:00+02:00"', {"timestamp": "2026-10-22T11:10:00Z"}),
        ('"5000ms"', {"httpRequest": {"latency": "5s"}}),
        # A severity that names no level reads as DEFAULT, whatever its text.
        ("DEFAULT", {"severity": "WARN", "textPayload": "x"}),
        ('"default"', {"severity": ""}),
        ('httpRequest:"5000ms"', {"httpRequest": {"latency": "5s"}}),
        # Case and mixed fields.
        ('textPayload:"OOM"', {"textPayload": "oomkilled"}),
        ('labels.env="PROD"', {"labels": {"env": "prod"}}),
        ('"hello" "world"', {"textPayload": "hello", "labels": {"a": "WORLD"}}),
        ('SEARCH("Hello World")', {"textPayload": "world, hello"}),
        ('log_id("a/b")', {"logName": "projects/p/logs/a%2Fb"}),
        ('textPayload:"" jsonPayload:*', {"jsonPayload": {}}),
        ('textPayload="a\\"b"', {"textPayload": 'a"b'}),
        ('textPayload:"tab\\there"', {"textPayload": "tab\there"}),
        ('textPayload:": secret \\""', {"textPayload": 'Error: secret "x" not found'}),
        ('textPayload:"C:\\\\dir\\\\file.txt"', {"textPayload": "at C:\\dir\\file.txt"}),
    ],
)
def test_matching_lines_pass(text: str, entry: dict[str, Any]) -> None:
    compiled = compile_filter(text)
    assert compiled.matches(entry)
    for ensure_ascii in (True, False):
        assert compiled.may_match_raw(line_of(entry, ensure_ascii))


@pytest.mark.parametrize(
    ("text", "entry"),
    [
        ('textPayload:"check failed"', {"textPayload": "all good"}),
        ("severity>=ERROR", {"severity": "INFO"}),
        ("severity>=ERROR", {"textPayload": "no severity"}),
        ('resource.type="k8s_container" textPayload:"x"', {"resource": {"type": "gce_instance"}}),
        ('textPayload:("a1" OR "b2") OR severity=CRITICAL', {"textPayload": "c3"}),
        ('SEARCH("alpha")', {"textPayload": "beta"}),
        ('"needle"', {"jsonPayload": {"hay": ["stack"]}}),
        ("WARNING", {"severity": "ERROR", "textPayload": "ok"}),
        # A term JSON must escape is looked for by its longest piece written as is: a quote
        # in a crash term once let every line of the export through.
        ('textPayload:": secret \\""', {"textPayload": "all good"}),
        ('textPayload:(": secret \\"" OR "check failed")', {"textPayload": "all good"}),
    ],
)
def test_lines_that_cannot_match_are_rejected(text: str, entry: dict[str, Any]) -> None:
    compiled = compile_filter(text)
    assert not compiled.matches(entry)
    assert not compiled.may_match_raw(line_of(entry))


def test_undecidable_lines_pass() -> None:
    compiled = compile_filter('textPayload:"needle"')
    assert compiled.may_match_raw('{"textPayload": "caf\u00e9"}'.encode())
    assert compiled.may_match_raw(b'{"textPayload": "\\u0041"}')
    assert compiled.may_match_raw(b'{"textPayload": "a\\/b"}')
    assert not compiled.may_match_raw(b'{"textPayload": "a/b"}')


def test_other_inputs() -> None:
    compiled = compile_filter('textPayload:"needle"')
    assert compiled.may_match_raw(bytearray(b'{"textPayload": "NEEDLE"}'))
    assert not compiled.may_match_raw(bytearray(b'{"textPayload": "hay"}'))
    assert compiled.may_match_raw('{"textPayload": "hay"}')  # type: ignore[arg-type]


def test_unconstrained_filters_pass_everything() -> None:
    for text in (
        "",
        'NOT textPayload:"x"',
        'textPayload=~"x"',
        "timestamp>=2026-01-01",
        'ip_in_net(jsonPayload.ip, "10.0.0.0/8")',
        'ip_in_net(jsonPayload.ip, "10.0.0.0/8") OR textPayload:"x"',
    ):
        compiled = compile_filter(text)
        assert compiled.required == ()
        assert compiled.may_match_raw(b'{"textPayload": "anything"}')


def test_ip_in_net_leaves_the_other_terms_groups() -> None:
    compiled = compile_filter('ip_in_net(jsonPayload.ip, "10.0.0.0/8") textPayload:"refused"')
    assert compiled.required == (frozenset({b"refused"}),)
    assert compiled.may_match_raw(b'{"jsonPayload": {"ip": "10.1.2.3"}, "textPayload": "Refused"}')


def test_required_groups_of_a_crash_sweep() -> None:
    compiled = compile_filter(
        'resource.type="k8s_container" labels."k8s-pod/jobset_sigs_k8s_io/jobset-name"="My-Run" '
        'timestamp>="2026-10-22T11:00:00Z" '
        '(textPayload:("Check failed" OR "SIGSEGV") OR jsonPayload.message:"Check failed") '
        "OR severity>=CRITICAL"
    )
    assert set(compiled.required) == {
        frozenset({b"k8s_container"}),
        frozenset({b"my-run"}),
        frozenset({b"check failed", b"sigsegv", b"critical", b"alert", b"emergency"}),
    }


TOOL_TERMS = sorted(
    {
        *scenarios.SIGNATURES,
        *terms.CRASH_TERMS,
        *terms.STALL_TERMS,
        *terms.STARTUP_TERMS,
        *terms.USER_TERMS,
        *terms.PROXY_TERMS,
        *terms.RM_TERMS,
        *terms.WORKER_TERMS,
        *terms.SIDECAR_TERMS,
        *terms.NODE_OOM_TERMS,
        *terms.NODE_INTERRUPTION_TERMS,
    }
)


@pytest.mark.parametrize("term", TOOL_TERMS)
def test_every_term_the_tool_searches_for_narrows_the_raw_lines(term: str) -> None:
    """A term the prefilter cannot look for lets every line of an export through to be
    parsed, for the whole OR it is in (a quote in a known failure's signature doubled
    triage's time on a 1,024-host export)."""
    assert compile_filter(filters.message_has_any([term])).required, term


def test_an_or_of_few_groups_gives_every_union() -> None:
    """Events of a workload's pods OR of its JobSet: the workload's name is in every line of
    the workload, its two resource types only in events; the union of the longest terms
    (the name, twice) let every line through, the union of the types does not."""
    compiled = compile_filter(
        '(resource.type="k8s_pod" labels.owner="a-long-workload-name") OR '
        '(resource.type="k8s_cluster" jsonPayload.involvedObject.name="a-long-workload-name")'
    )
    assert frozenset({b"k8s_pod", b"k8s_cluster"}) in compiled.required
    line = {"resource": {"type": "k8s_container"}, "labels": {"owner": "a-long-workload-name"}}
    assert not compiled.matches(line)
    assert not compiled.may_match_raw(line_of(line))
    event = {"resource": {"type": "k8s_pod"}, "labels": {"owner": "A-Long-Workload-Name"}}
    assert compiled.matches(event)
    assert compiled.may_match_raw(line_of(event))
