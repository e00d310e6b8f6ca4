"""Conformance cases, as data: each filter's matches (or error) written from the documentation.

Every file in tests/fixtures/lql holds entries and cases; a case names the
documented rule it pins. For matching cases the raw-line fast path is checked
too: it must never reject a line whose entry matches.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pathways_workload.lql import LqlError, compile_filter

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "lql"


def _load_cases() -> list[Any]:
    """One pytest parameter per case, named after its file and case name."""
    params = []
    for path in sorted(FIXTURES.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for case in data["cases"]:
            params.append(pytest.param(data["entries"], case, id=f"{path.stem}:{case['name']}"))
    return params


CASES = _load_cases()


def _explain(case: dict[str, Any]) -> str:
    return f"filter {case['filter'][:200]!r}\nrule: {case['rule']}"


@pytest.mark.parametrize(("entries", "case"), CASES)
def test_case(entries: list[dict[str, Any]], case: dict[str, Any]) -> None:
    if "error" in case:
        with pytest.raises(LqlError) as raised:
            compile_filter(case["filter"])
        assert raised.value.kind == case["error"], f"{_explain(case)}\n{raised.value.render()}"
        return
    compiled = compile_filter(case["filter"])
    matched = sorted(entry["insertId"] for entry in entries if compiled.matches(entry))
    assert matched == sorted(case["match"]), _explain(case)


@pytest.mark.parametrize(("entries", "case"), [c for c in CASES if "match" in c.values[1]])
def test_fast_path_keeps_every_match(entries: list[dict[str, Any]], case: dict[str, Any]) -> None:
    compiled = compile_filter(case["filter"])
    for entry in entries:
        if not compiled.matches(entry):
            continue
        for ensure_ascii in (True, False):
            line = json.dumps(entry, ensure_ascii=ensure_ascii).encode("utf-8")
            assert compiled.may_match_raw(line), f"{_explain(case)}\nline: {line!r}"


def test_enough_cases() -> None:
    assert len(CASES) >= 150
