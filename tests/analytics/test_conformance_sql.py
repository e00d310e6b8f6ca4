"""The query language's conformance cases, compiled to SQL and run on DuckDB.

Each case's expected matches were written from the Logging documentation
(tests/fixtures/lql). The compiled SQL must select exactly those entries,
except where a mapping is knowingly inexact: those cases are listed below
with the reason, and are strict xfails, so a fix (or a regression into a
new difference) is noticed. The README's Log Analytics section lists the
same gaps.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pathways_workload.analytics import where
from pathways_workload.lql import LqlUnsupportedError

CASES_DIR = Path(__file__).parent.parent / "fixtures" / "lql"
NO_EXACT_MAPPING = "no exact mapping in the log view"
JSON_ELEMENTS = "JSON comparisons: an array in json_payload is not compared element by element"
MICROSECONDS = "nanosecond rounding: BigQuery timestamps keep microseconds"
OFFLINE_SEARCH = "SEARCH tokens: the DuckDB emulation ignores backtick phrase order"
JSON_ARRAY = "JSON arrays: ip_in_net reads one string, not the elements of an array"
JSON_TEXT = "JSON scalars: a global restriction reads a JSON column's numbers and booleans as text"
KNOWN_DIFFERENCES = {
    "json-key-with-escaped-quotes": NO_EXACT_MAPPING,
    "latency-greater": NO_EXACT_MAPPING,
    "latency-less-defaulted": NO_EXACT_MAPPING,
    "duration-by-length": NO_EXACT_MAPPING,  # a global restriction: no latency column to search
    "search-backtick-order": OFFLINE_SEARCH,
    "search-backtick-adjacent": OFFLINE_SEARCH,
    "array-any-element-equal": JSON_ELEMENTS,
    "array-not-equal-any-element": JSON_ELEMENTS,
    "nanosecond-after": MICROSECONDS,
    "inside-one-microsecond": MICROSECONDS,
    "nanosecond-equal": MICROSECONDS,
    "offset-with-colon": MICROSECONDS,
    "narrow-window": MICROSECONDS,
    "ipv4-subnet": JSON_ARRAY,
    "wider-subnet-holds-ranges": JSON_ARRAY,
    "not-of-false-is-true": JSON_ARRAY,
    "minus-negates": JSON_ARRAY,
    "or-of-functions": JSON_ARRAY,
    "number-is-not-an-address": JSON_ARRAY,
    "global-number-by-value": JSON_TEXT,
    "global-bool-not-substring": JSON_TEXT,
}


def _cases() -> list[Any]:
    found = []
    for path in sorted(CASES_DIR.glob("*.json")):
        for case in json.loads(path.read_text())["cases"]:
            if "match" in case:
                reason = KNOWN_DIFFERENCES.get(case["name"])
                marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
                found.append(
                    pytest.param(path.name, case, id=f"{path.stem}-{case['name']}", marks=marks)
                )
    return found


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from pathways_workload.analytics.offline import OfflineStore

    opened = {}
    for path in sorted(CASES_DIR.glob("*.json")):
        export = tmp_path_factory.mktemp("lql") / path.name
        export.write_text(json.dumps(json.loads(path.read_text())["entries"]))
        opened[path.name] = OfflineStore([str(export)]).__enter__()
    yield opened
    for store in opened.values():
        store.__exit__(None, None, None)


@pytest.mark.parametrize(("file_name", "case"), _cases())
def test_compiled_sql_selects_the_documented_matches(
    file_name: str, case: dict[str, Any], stores: dict[str, Any]
) -> None:
    try:
        predicate = where.compile_filter(case["filter"])
    except LqlUnsupportedError:
        pytest.fail(f"{case['filter']!r} has no SQL mapping")
    rows = stores[file_name].rows(f"SELECT insert_id FROM `p.d.v` AS log_entry WHERE {predicate}")
    assert sorted(row["insert_id"] for row in rows) == sorted(case["match"])


def _audit(insert_id: str, request: dict[str, Any]) -> dict[str, Any]:
    return {
        "insertId": insert_id,
        "logName": "projects/p/logs/cloudaudit.googleapis.com%2Factivity",
        "timestamp": "2026-10-22T11:00:00Z",
        "resource": {"type": "gce_instance", "labels": {"instance_id": "1"}},
        "protoPayload": {
            "@type": "type.googleapis.com/google.cloud.audit.AuditLog",
            "methodName": "v1.compute.instances.delete",
            "request": request,
            "response": request,
            "metadata": request,
        },
    }


@pytest.mark.parametrize("part", ["request", "response", "metadata"])
def test_audit_json_fields_match_values_as_the_engine_does(store_of: Any, part: str) -> None:
    """The AuditLog's JSON fields are JSON columns: a `:` test reads their values, not their
    key names, as the default engine does."""
    from pathways_workload.lql import compile_filter

    entries = [
        _audit("key-only", {"nodeName": "other"}),
        _audit("value", {"target": "gke-np-nodename-1"}),
        _audit("nested", {"spec": {"labels": ["a", "NodeName-2"]}}),
    ]
    text = f'protoPayload.{part}:"nodename"'
    engine = sorted(e["insertId"] for e in entries if compile_filter(text).matches(e))
    predicate = where.compile_filter(text)
    rows = store_of(entries).rows(f"SELECT insert_id FROM `p.d.v` AS log_entry WHERE {predicate}")
    assert engine == ["nested", "value"]
    assert sorted(row["insert_id"] for row in rows) == engine
