"""The SQL each query-language construct compiles to, and the gaps that only BigQuery can settle."""

from __future__ import annotations

from typing import Any

import pytest

from pathways_workload.analytics import queries, sql, where
from pathways_workload.errors import UsageError
from pathways_workload.lql import LqlSyntaxError, LqlUnsupportedError, compile_filter
from tests.helpers import container_entry

WINDOW = 'timestamp>="2026-10-22T11:00:00Z" timestamp<="2026-10-22T12:00:00Z"'


def test_label_keys_with_slashes_and_dots_use_the_quoted_json_path() -> None:
    predicate = where.compile_filter('labels."k8s-pod/jobset_sigs_k8s_io/jobset-name"="Train"')
    assert "JSON_VALUE(labels, '$.\"k8s-pod/jobset_sigs_k8s_io/jobset-name\"')" in predicate
    assert "NORMALIZE_AND_CASEFOLD(" in predicate and "= 'train'" in predicate


def test_regex_is_re2_regexp_contains_unfolded() -> None:
    predicate = where.compile_filter('resource.labels.pod_name=~"^Train-\\\\d"')
    assert "REGEXP_CONTAINS(JSON_VALUE(resource.labels, '$.pod_name'), '^Train-\\\\d')" in predicate


def test_substring_is_contains_substr_and_missing_fields_read_false() -> None:
    predicate = where.compile_filter('NOT jsonPayload.message:"OOM"')
    assert predicate == (
        "NOT COALESCE(CONTAINS_SUBSTR(JSON_QUERY(json_payload, '$.message'), 'OOM'), FALSE)"
    )


def test_severity_compares_by_level_and_default_includes_absent() -> None:
    assert where.compile_filter("severity>=ERROR") == (
        "severity IN ('ERROR', 'CRITICAL', 'ALERT', 'EMERGENCY')"
    ).join(["COALESCE(", ", FALSE)"])
    below = where.compile_filter("severity<INFO")
    assert "severity IS NULL OR severity NOT IN ('INFO'" in below


def test_log_id_compares_the_decoded_log_id_column() -> None:
    predicate = where.compile_filter('log_id("cloudaudit.googleapis.com%2Factivity")')
    assert (
        "NORMALIZE_AND_CASEFOLD(log_id, NFKC) = 'cloudaudit.googleapis.com/activity'" in predicate
    )


def test_timestamps_are_microsecond_literals() -> None:
    predicate = where.compile_filter('receiveTimestamp>"2026-10-22T11:00:00.123456789Z"')
    assert "TIMESTAMP '2026-10-22 11:00:00.123456+00'" in predicate


def test_global_restriction_and_search_cover_the_whole_row() -> None:
    """A global restriction is `:` on each column, typed: severity by level, never as text."""
    predicate = where.compile_filter('"hbm"')
    assert "CONTAINS_SUBSTR(text_payload, 'hbm')" in predicate
    assert "CONTAINS_SUBSTR(json_payload, 'hbm')" in predicate
    assert "CONTAINS_SUBSTR(log_entry" not in predicate and "severity" not in predicate
    assert "(severity IS NOT NULL AND severity IN ('WARNING'))" in where.compile_filter("warning")
    searched = where.compile_filter('SEARCH("Out Of Memory")')
    assert "log_entry.text_payload, log_entry.json_payload" in searched
    assert "'out of memory')" in searched
    assert "severity" not in searched and "timestamp" not in searched


def test_a_json_key_with_a_quote_is_unsupported_with_a_caret() -> None:
    """No documented JSON path holds a quote or backslash: said at the path, so the user's
    --filter is named with a caret under it (it was a bare error without either)."""
    for text, column in (('severity>=ERROR jsonPayload."a\\"b"="x"', 16), ('labels."k\\\\v":*', 0)):
        with pytest.raises(LqlUnsupportedError) as raised:
            where.compile_filter(text)
        assert "quote or backslash" in raised.value.render()
        assert raised.value.render().splitlines()[-1] == " " * column + "^"


def test_a_path_without_a_column_is_unsupported_with_a_caret() -> None:
    with pytest.raises(LqlUnsupportedError) as raised:
        where.compile_filter('severity>=ERROR httpRequest.latency>"1s"')
    assert "no exact Log Analytics mapping" in raised.value.render()
    assert raised.value.render().splitlines()[-1] == " " * 16 + "^"


def test_every_query_is_window_bounded_and_project_scoped() -> None:
    text = queries.build(
        [queries.Question(f"{WINDOW} severity>=ERROR", 10)],
        queries.View("`p.d._Default`", "pw-demo"),
        full=False,
    )
    assert "WHERE timestamp >= TIMESTAMP '2026-10-22 11:00:00+00'" in text
    assert "AND timestamp <= TIMESTAMP '2026-10-22 12:00:00+00'" in text
    assert "STARTS_WITH(log_name, 'projects/pw-demo/logs/')" in text
    assert "PARTITION BY insert_id, timestamp" in text
    assert " labels," not in text and "JSON_VALUE(labels" in text


def test_the_window_is_rounded_inwards_to_microseconds(store_of: Any) -> None:
    """The start is rounded up and the end down: an entry 1 ns before a start inside a
    microsecond is outside the window, as the default engine says (it was returned)."""
    start, end = "2026-10-22T11:30:00.123456001Z", "2026-10-22T11:30:00.200000999Z"
    bounded = f'timestamp>="{start}" timestamp<="{end}"'
    text = queries.build([queries.Question(bounded, 10)], queries.View("`p.d.v`", None), full=False)
    assert "WHERE timestamp >= TIMESTAMP '2026-10-22 11:30:00.123457+00'" in text
    assert "AND timestamp <= TIMESTAMP '2026-10-22 11:30:00.200000+00'" in text
    before = container_entry("before", timestamp="2026-10-22T11:30:00.123456Z")
    inside = container_entry("inside", timestamp="2026-10-22T11:30:00.123457Z")
    rows = store_of([before, inside]).rows(text)
    assert [row["text_payload"] for row in rows] == ["inside"]
    assert not compile_filter(bounded).matches(before)


def test_an_unbounded_filter_is_refused() -> None:
    with pytest.raises(UsageError, match="bounded in time"):
        queries.build([queries.Question("severity>=ERROR", 10)], queries.View("`p.d.v`", "p"), True)


def test_user_strings_cannot_close_their_quotes() -> None:
    assert sql.string("it's \\ fine\n") == "'it\\'s \\\\ fine\\n'"


def test_contains_substr_normalisation_only_real_bigquery_can_settle(store_of: Any) -> None:
    """Offline, text folds as the query language folds it (NFKC casefold, both sides): it
    only lower-cased, so fullwidth text and even an entry's own `ß` were missed. Whether
    BigQuery's CONTAINS_SUBSTR folds the same way only BigQuery can settle."""
    entries = [container_entry("ＦＵＬＬＷＩＤＴＨ oom"), container_entry("plain OOM")]
    entries += [container_entry("Straße"), container_entry("fine")]
    store = store_of(entries)
    predicate = where.compile_filter('textPayload:"fullwidth"')
    assert "CONTAINS_SUBSTR(COALESCE(text_payload, ''), 'fullwidth')" in predicate
    select = "SELECT text_payload FROM `p.d.v` AS log_entry WHERE "
    assert store.rows(select + predicate) == [{"text_payload": "ＦＵＬＬＷＩＤＴＨ oom"}]
    equal = where.compile_filter('textPayload="Straße"')
    assert store.rows(select + equal) == [{"text_payload": "Straße"}]


def test_search_tokens_only_real_bigquery_can_settle(store_of: Any) -> None:
    """The query is lower-cased for BigQuery's LOG_ANALYZER; offline tokens are the engine's."""
    store = store_of([container_entry("RESOURCE_EXHAUSTED: Out of HBM"), container_entry("fine")])
    predicate = where.compile_filter('SEARCH(textPayload, "`Out of HBM`")')
    assert "SEARCH(text_payload, '`out of hbm`')" in predicate
    rows = store.rows(f"SELECT text_payload FROM `p.d.v` AS log_entry WHERE {predicate}")
    assert [row["text_payload"] for row in rows] == ["RESOURCE_EXHAUSTED: Out of HBM"]


def test_json_comparisons_by_type_only_real_bigquery_can_settle(store_of: Any) -> None:
    """A JSON number compares as a double (5.0 is 5, 10 is above 5), a string as a string
    ("10" is below "5"), a boolean as a boolean, as the query language says; the SQL asks
    BigQuery for the value's JSON type."""
    rows = []
    for insert_id, value in (("double", 5.0), ("ten", 10), ("text", "10"), ("yes", True)):
        entry = container_entry("x")
        del entry["textPayload"]
        entry["insertId"], entry["jsonPayload"] = insert_id, {"code": value}
        rows.append(entry)
    store = store_of(rows)

    def matched(text: str) -> set[str]:
        predicate = where.compile_filter(text)
        found = store.rows(f"SELECT insert_id FROM `p.d.v` AS log_entry WHERE {predicate}")
        return {row["insert_id"] for row in found}

    assert "CASE JSON_TYPE(JSON_QUERY(json_payload" in where.compile_filter("jsonPayload.code>5")
    assert matched("jsonPayload.code=5") == {"double"}
    assert matched("jsonPayload.code>5") == {"ten"}
    assert matched('jsonPayload.code<"5"') == {"text"}
    assert matched("jsonPayload.code=true") == {"yes"}
    assert matched('jsonPayload.code=~"1"') == {"text"}


def test_nanosecond_rounding_only_real_bigquery_can_settle(store_of: Any) -> None:
    """Entries 0.8 µs apart share a microsecond offline; insert_id breaks the tie."""
    late = container_entry("late", timestamp="2026-10-22T11:30:00.0000019Z")
    early = container_entry("early", timestamp="2026-10-22T11:30:00.0000011Z")
    late["insertId"], early["insertId"] = "a-late", "b-early"
    store = store_of([early, late])
    text = queries.build(
        [queries.Question(WINDOW, 10)], queries.View("`p.d._Default`", "pw-demo"), True
    )
    assert [row["insert_id"] for row in store.rows(text)] == ["a-late", "b-early"]


def test_ip_in_net_is_built_from_the_net_functions() -> None:
    predicate = where.compile_filter('ip_in_net(httpRequest.remoteIp, "10.1.2.7/24")')
    assert (
        "NET.SAFE_IP_FROM_STRING(REGEXP_EXTRACT(COALESCE(http_request.remote_ip, '')" in predicate
    )
    assert "NET.IP_TRUNC(" in predicate and "NET.IP_FROM_STRING('10.1.2.0')" in predicate
    assert "BETWEEN 24 AND 32" in predicate


def test_ip_in_net_on_a_typed_field_is_false_and_a_bad_subnet_is_a_syntax_error() -> None:
    assert where.compile_filter('ip_in_net(severity, "10.0.0.0/8")') == "FALSE"
    with pytest.raises(LqlSyntaxError, match="not an IP address or CIDR range"):
        where.compile_filter('ip_in_net(jsonPayload.ip, "10.0.0.0/33")')


@pytest.mark.parametrize(
    ("address", "subnet", "inside"),
    [
        ("10.1.2.3", "10.1.2.0/24", True),
        ("10.1.2.3/16", "10.1.2.0/24", False),
        ("10.1.2.0/25", "10.1.2.0/24", True),
        ("10.1.2.0/33", "0.0.0.0/0", False),
        ("::ffff:10.1.2.3", "10.0.0.0/8", False),
        ("1:2::3:4", "1:2::/48", True),
        ("10.1.2.3", "1:2::/48", False),
        ("10.1.2.3:80", "10.0.0.0/8", False),
    ],
)
def test_ip_in_net_agrees_with_the_engine_on_duckdb(
    store_of: Any, address: str, subnet: str, inside: bool
) -> None:
    entry = container_entry("x")
    entry["jsonPayload"] = {"ip": address}
    store = store_of([entry])
    text = f'ip_in_net(jsonPayload.ip, "{subnet}")'
    assert compile_filter(text).matches(entry) is inside
    rows = store.rows(
        f"SELECT insert_id FROM `p.d.v` AS log_entry WHERE {where.compile_filter(text)}"
    )
    assert bool(rows) is inside


def test_address_reading_only_real_bigquery_can_settle(store_of: Any) -> None:
    """Offline, NET.SAFE_IP_FROM_STRING is Python's reading: IPv4 octets with leading zeros fail."""
    entry = container_entry("x")
    entry["jsonPayload"] = {"ip": "010.001.002.003"}
    store = store_of([entry])
    predicate = where.compile_filter('ip_in_net(jsonPayload.ip, "10.0.0.0/8")')
    assert store.rows(f"SELECT insert_id FROM `p.d.v` AS log_entry WHERE {predicate}") == []


def test_a_json_key_named_star_is_refused_offline(store_of: Any) -> None:
    """DuckDB reads `$."*"` as every value of the object, quoted or not: the filter matched
    entries whose key `*` does not exist (a widened query). Refused, as keys with quotes are."""
    entry = container_entry("x")
    entry["jsonPayload"] = {"a": "zzz"}
    store = store_of([entry])
    predicate = where.compile_filter('jsonPayload."*":"zzz"')
    assert '$."*"' in predicate
    with pytest.raises(UsageError, match=r"JSON key named '\*'.*use --engine=logging"):
        store.rows(f"SELECT insert_id FROM `p.d.v` AS log_entry WHERE {predicate}")


@pytest.mark.parametrize(
    "text", ['jsonPayload."":*', 'labels."":*', 'jsonPayload."".a:"zzz"', "jsonPayload:*"]
)
def test_an_empty_json_key_is_refused_offline(store_of: Any, text: str) -> None:
    """sqlglot drops an empty key from a path: `$.""` became `$`, the whole object, so
    `jsonPayload."":*` matched every entry with a payload. Refused, naming the key; a
    string that merely looks like such a path is searched."""
    entry = container_entry('$.""')
    entry["jsonPayload"] = {"a": "zzz"}
    store = store_of([entry])
    predicate = where.compile_filter(f'{text} OR textPayload:"$.\\"\\""')
    select = f"SELECT insert_id FROM `p.d.v` AS log_entry WHERE {predicate}"
    if '""' not in text:
        assert len(store.rows(select)) == 1
        return
    assert not compile_filter(text).matches(entry)
    with pytest.raises(UsageError, match=r"JSON key named '' \(empty\).*use --engine=logging"):
        store.rows(select)


@pytest.mark.parametrize(
    "pattern", ["(?<signal>SIG)TERM", "(?<a>S)(?<b>I)G", "\\(?<x", "[(?<]x", "\\Q(?<x\\E"]
)
def test_named_groups_agree_with_the_engine_on_duckdb(store_of: Any, pattern: str) -> None:
    """RE2 reads a named group as `(?<name>...)` too, and the engine did; DuckDB's RE2 refused
    it, so the offline query failed as an internal error (exit 70). The SQL spells named
    groups `(?P<name>`, which every RE2 reads; an escaped, quoted or bracketed `(?<` stays."""
    entries = [container_entry(text) for text in ("SIGTERM received", "(<x", "?x", "(?<x")]
    store = store_of(entries)
    text = 'textPayload=~"{}"'.format(pattern.replace("\\", "\\\\"))
    predicate = where.compile_filter(text)
    rows = store.rows(f"SELECT text_payload FROM `p.d.v` AS log_entry WHERE {predicate}")
    matched = [entry["textPayload"] for entry in entries if compile_filter(text).matches(entry)]
    assert sorted(row["text_payload"] for row in rows) == sorted(matched)
    assert matched
