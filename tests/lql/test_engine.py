"""Engine decisions where the documentation is silent, and robustness on odd entries."""

from __future__ import annotations

from typing import Any

import pytest

from pathways_workload.lql import CompiledFilter, LqlError, compile_filter


def matches(text: str, entry: Any) -> bool:
    return compile_filter(text).matches(entry)


def test_interface() -> None:
    compiled = compile_filter('severity>=ERROR textPayload:"x"')
    assert isinstance(compiled, CompiledFilter)
    assert compiled.text == 'severity>=ERROR textPayload:"x"'
    assert repr(compiled) == "CompiledFilter('severity>=ERROR textPayload:\"x\"')"


@pytest.mark.parametrize(
    "text",
    ["http_request.status=503", 'insert_id="i1"', "HTTPREQUEST.STATUS>=500", "trace_sampled=true"],
)
def test_log_entry_fields_in_proto_spelling_and_any_case(text: str) -> None:
    entry = {"insertId": "i1", "httpRequest": {"status": 503}, "traceSampled": True}
    assert matches(text, entry)


def test_proto_payload_keys_ignore_case_and_underscores() -> None:
    entry = {"protoPayload": {"methodName": "delete", "status": {"code": 7}}}
    assert matches('protoPayload.method_name="delete"', entry)
    assert matches("protoPayload.STATUS.Code=7", entry)
    assert not matches(
        'jsonPayload.method_name="delete"', {"jsonPayload": {"methodName": "delete"}}
    )


def test_arrays_along_a_path() -> None:
    entry = {"jsonPayload": {"items": [{"name": "a"}, {"name": "b"}, [{"name": "c"}]]}}
    assert matches('jsonPayload.items.name="b"', entry)
    assert matches('jsonPayload.items.name="c"', entry)
    assert matches("jsonPayload.items.name:*", entry)
    assert not matches("jsonPayload.items.other:*", entry)
    assert not matches('jsonPayload.items.name!="x" jsonPayload.items.size:*', entry)


def test_has_on_an_object_searches_its_scalars() -> None:
    entry = {"jsonPayload": {"a": {"b": ["Needle here"], "n": 5}}, "labels": {"env": "prod"}}
    assert matches('jsonPayload:"needle"', entry)
    assert matches("jsonPayload.a:5", entry)
    assert matches('labels:"PROD"', entry)
    assert not matches('jsonPayload:"a"', entry)
    assert not matches('jsonPayload.a="needle here"', entry)


def test_presence_of_empty_containers() -> None:
    assert matches("labels:*", {"labels": {}})
    assert matches("jsonPayload.tags:*", {"jsonPayload": {"tags": []}})
    assert not matches("jsonPayload.tags=5", {"jsonPayload": {"tags": []}})
    assert not matches("labels:*", {"labels": None})


@pytest.mark.parametrize("entry", [[], None, "text", 5, [{"severity": "ERROR"}]])
def test_anything_but_an_object_is_an_empty_entry(entry: Any) -> None:
    assert matches("severity<INFO", entry)
    assert matches('trace=""', entry)
    assert not matches("textPayload:*", entry)
    assert not matches('"x"', entry)


def test_values_of_unexpected_types() -> None:
    assert matches("severity=ERROR", {"severity": 500})  # proto3 JSON's number for the enum
    assert matches("severity=DEFAULT", {"severity": 450})  # not a level
    assert matches("severity=DEFAULT", {"severity": 5.5})
    assert matches("severity=DEFAULT", {"severity": True})
    assert matches("severity=DEFAULT", {"severity": "WARN"})
    assert matches("severity=error", {"severity": "eRRoR"})
    assert not matches('timestamp>="2020-01-01"', {"timestamp": 1_700_000_000})
    assert not matches("NOT timestamp:*", {"timestamp": 1_700_000_000})
    assert matches("textPayload=5", {"textPayload": 5.0})
    assert matches('textPayload:"b"', {"textPayload": ["a", "b"]})
    assert matches("sourceLocation.line=42", {"sourceLocation": {"line": 42.0}})
    assert not matches("sourceLocation.line=42", {"sourceLocation": {"line": 42.5}})
    assert matches("jsonPayload.n>1e300", {"jsonPayload": {"n": 10**400}})
    assert matches('httpRequest.latency="1500ms"', {"httpRequest": {"latency": "1.5s"}})


def test_null_value() -> None:
    assert matches("jsonPayload.x!=NULL_VALUE", {"jsonPayload": {"x": 0}})
    assert not matches("jsonPayload.x!=NULL_VALUE", {"jsonPayload": {"x": None}})
    assert not matches("jsonPayload.x!=NULL_VALUE", {"jsonPayload": {}})
    assert matches('jsonPayload.x="NULL_VALUE"', {"jsonPayload": {"x": "null_value"}})
    assert not matches('jsonPayload.x="NULL_VALUE"', {"jsonPayload": {"x": None}})


def test_regex_on_text_with_lone_surrogates() -> None:
    entry = {"textPayload": "bad \ud800 text"}
    assert matches('textPayload=~"text$"', entry)
    assert matches('textPayload:"bad"', entry)
    assert matches('"text"', entry)


def test_regex_with_a_lone_surrogate_is_a_syntax_error() -> None:
    with pytest.raises(LqlError) as raised:
        compile_filter('textPayload=~"\\ud800"'.replace("\\\\", "\\"))
    assert raised.value.kind == "syntax"
    with pytest.raises(LqlError) as raised:
        compile_filter('textPayload=~"a\ud800"')
    assert raised.value.kind == "syntax"
    assert "lone surrogate" in raised.value.message


def test_regex_errors_are_checked_on_every_field_type() -> None:
    with pytest.raises(LqlError) as raised:
        compile_filter('severity=~"("')
    assert raised.value.kind == "syntax"
    assert raised.value.message.startswith("invalid regular expression '(' at column 11: ")


def test_deeply_nested_entries() -> None:
    nested: Any = "needle"
    for _ in range(5000):
        nested = {"a": [nested]}
    entry = {"jsonPayload": nested}
    assert matches('"needle"', entry)
    assert matches('SEARCH("needle")', entry)
    assert matches('jsonPayload:"needle"', entry)


def test_several_whole_entry_searches_in_one_filter() -> None:
    entry = {"textPayload": "alpha beta", "labels": {"k": "gamma-delta"}}
    assert matches('"alpha" "gamma" SEARCH("delta") NOT "omega" SEARCH("beta alpha")', entry)
    assert not matches('"alpha" SEARCH("gamma-del")', entry)


def test_log_id_ignores_case_and_decodes() -> None:
    entry = {"logName": "projects/p/logs/cloudaudit.googleapis.com%2Factivity"}
    assert matches('log_id("CloudAudit.googleapis.com/Activity")', entry)
    assert not matches('log_id("cloudaudit.googleapis.com")', entry)
    assert not matches('log_id("x")', {"logName": "x"})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('SEARCH("`open")', "a backtick in the SEARCH query is not closed (at column 8)"),
        ('SEARCH("-- ..")', "the SEARCH query has no token to search for (at column 8)"),
    ],
)
def test_search_query_errors(text: str, message: str) -> None:
    with pytest.raises(LqlError) as raised:
        compile_filter(text)
    assert (raised.value.kind, raised.value.message) == ("syntax", message)


def test_search_on_a_typed_field_finds_nothing() -> None:
    assert not matches('SEARCH(severity, "error")', {"severity": "ERROR"})
    assert matches('SEARCH(resource.type, "container")', {"resource": {"type": "k8s_container"}})


def test_compile_rejects_non_text() -> None:
    with pytest.raises(LqlError) as raised:
        compile_filter(b"severity>=ERROR")  # type: ignore[arg-type]
    assert raised.value.message == "a filter is text, not bytes"


def test_constant_comparisons_fold() -> None:
    assert not matches('severity="nonsense" OR timestamp>"never"', {})
    assert matches('NOT severity="nonsense"', {})
    assert not matches('severity>=ERROR timestamp>"never"', {"severity": "ERROR"})


def test_deep_nesting_is_a_limit_error() -> None:
    with pytest.raises(LqlError) as raised:
        compile_filter("(" * 150 + "a" + ")" * 150)
    assert raised.value.kind == "limit"
    assert raised.value.column == 65
    with pytest.raises(LqlError) as raised:
        compile_filter("NOT " * 200 + "a")
    assert raised.value.kind == "limit"
    assert matches("(" * 33 + "NOT " * 31 + '"a"' + ")" * 33, {"textPayload": "b"})


def test_long_chains_near_the_length_limit() -> None:
    chain = " OR ".join(f"x{index}" for index in range(2300))
    compiled = compile_filter(chain)
    assert compiled.matches({"textPayload": "x2299"})
    assert compiled.may_match_raw(b'{"textPayload": "x2299"}')
    assert not compiled.may_match_raw(b'{"textPayload": "y"}')
    levels = "severity=(" + " OR ".join(["DEBUG"] * 1500 + ["ERROR"]) + ")"
    assert matches(levels, {"severity": "ERROR"})
    terms = "textPayload:(" + " ".join(f"t{index}" for index in range(3000)) + ")"
    assert not matches(terms, {"textPayload": "t1 t2"})


def test_ip_in_net_reads_addresses_and_ranges_strictly() -> None:
    def inside(value: object, subnet: str = "10.0.0.0/8") -> bool:
        return matches(f'ip_in_net(jsonPayload.ip, "{subnet}")', {"jsonPayload": {"ip": value}})

    assert inside("10.200.0.1") and inside("10.1.2.0/24") and inside("10.0.0.0/8")
    assert not inside("10.0.0.0/7")
    # A range written with host bits set is its network, in the field and in the subnet.
    assert inside("10.1.2.3/24") and inside("10.1.2.77", "10.1.2.3/24")
    # Not addresses: spaces, leading zeros, netmask forms, zones, objects, numbers, null.
    for value in (" 10.1.2.3", "010.1.2.3", "10.0.0.0/255.0.0.0", "10.1.2.3:80", "", None):
        assert not inside(value), value
    assert not inside({"ip": "10.1.2.3"}) and not inside(167837953)
    assert not inside("fe80::1%eth0", "fe80::/10") and inside("fe80::1", "fe80::/10")


def test_ip_in_net_never_mixes_ip_versions() -> None:
    assert not matches('ip_in_net(labels.ip, "::/0")', {"labels": {"ip": "10.1.2.3"}})
    assert not matches('ip_in_net(labels.ip, "10.0.0.0/8")', {"labels": {"ip": "::ffff:10.1.2.3"}})
    assert not matches('ip_in_net(labels.ip, "0.0.0.0/0")', {"labels": {"ip": "1:2::3"}})
    assert matches('ip_in_net(labels.ip, "::ffff:0:0/96")', {"labels": {"ip": "::ffff:10.1.2.3"}})


def test_ip_in_net_on_typed_fields_and_in_any_case() -> None:
    assert not matches('ip_in_net(severity, "10.0.0.0/8")', {"severity": "10.1.2.3"})
    assert not matches('ip_in_net(httpRequest.status, "0.0.0.0/0")', {"httpRequest": {"status": 1}})
    entry = {"httpRequest": {"remoteIp": "10.1.2.3"}}
    assert matches('IP_IN_NET(httpRequest.remote_ip, "10.1.2.3")', entry)
    assert matches('ip_in_net(httpRequest.remoteIp, "10.1.2.3") NOT "nowhere"', entry)


def test_json_integers_compare_as_the_doubles_a_struct_holds() -> None:
    """An integer past 2**53 read from an export stayed exact while the filter's number is a
    double, so `=` said it was not equal to itself and `!=` held; one too large for a double
    is infinite, not an overflow."""
    entry = {"jsonPayload": {"id": 9007199254740993, "huge": 10**400}}
    for text in (
        "jsonPayload.id=9007199254740993",
        "jsonPayload.id=9007199254740992",
        "jsonPayload.id:9007199254740993",
        "9007199254740993",
        "jsonPayload.huge>1e300",
        "jsonPayload.huge=Infinity",
    ):
        assert compile_filter(text).matches(entry), text
    assert not compile_filter("jsonPayload.id!=9007199254740993").matches(entry)
