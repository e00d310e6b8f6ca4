"""Properties over generated input: only LqlError escapes, the fast path never drops a match,
and fusing comparisons on one field changes no answer."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from pathways_workload.lql import CompiledFilter, LqlError, compile_filter
from tests.lql import strategies

SETTINGS = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Characters that matter to the lexer, so random text reaches past the first token.
FILTER_ALPHABET = st.sampled_from([*'abcAND OR NOT()"\\.:=!<>~*-,\n\t`é5', "--", "SEARCH("])


def _compile_or_none(text: str) -> CompiledFilter | None:
    try:
        return compile_filter(text)
    except LqlError as error:
        assert error.kind in ("syntax", "limit", "undefined-field", "unsupported")
        assert "\n" not in error.message
        error.render().encode("utf-8")
        return None


@given(
    st.one_of(
        st.text(),
        st.lists(FILTER_ALPHABET, max_size=30).map("".join),
        st.text(st.characters(min_codepoint=0xD7F0, max_codepoint=0xE010, categories=None)),
    )
)
@SETTINGS
def test_any_text_compiles_or_raises_lql_error(text: str) -> None:
    _compile_or_none(text)


@given(strategies.filters())
@SETTINGS
def test_generated_filters_compile(text: str) -> None:
    compile_filter(text)


@given(strategies.filters(), st.one_of(strategies.log_entries(), strategies.json_values()))
@SETTINGS
def test_matching_never_raises(text: str, entry: Any) -> None:
    compiled = compile_filter(text)
    assert compiled.matches(entry) in (True, False)
    for line in strategies.raw_lines(entry) if isinstance(entry, dict) else []:
        assert compiled.may_match_raw(line) in (True, False)


@given(st.one_of(strategies.filters(), strategies.constrained_filters()), strategies.log_entries())
@SETTINGS
def test_fast_path_never_drops_a_match(text: str, entry: dict[str, Any]) -> None:
    compiled = compile_filter(text)
    for line in strategies.raw_lines(entry):
        try:
            parsed = json.loads(line)
        except UnicodeDecodeError:
            continue
        if compiled.matches(parsed):
            assert compiled.may_match_raw(line), line


@given(strategies.derived_cases())
@SETTINGS
def test_fast_path_keeps_matches_of_derived_filters(case: tuple[str, dict[str, Any]]) -> None:
    text, entry = case
    compiled = compile_filter(text)
    if compiled.matches(entry):
        for line in strategies.raw_lines(entry):
            assert compiled.may_match_raw(line), line


@given(
    st.sampled_from(strategies.FIELDS).flatmap(
        lambda field: st.tuples(strategies.comparisons(field), strategies.comparisons(field))
    ),
    st.sampled_from((" OR ", " AND ")),
    strategies.log_entries(),
)
@SETTINGS
def test_fused_comparisons_answer_like_separate_ones(
    pair: tuple[str, str], joiner: str, entry: dict[str, Any]
) -> None:
    first, second = (compile_filter(text).matches(entry) for text in pair)
    fused = compile_filter(f"({pair[0]}){joiner}({pair[1]})").matches(entry)
    assert fused == (first or second if joiner == " OR " else first and second)


@given(strategies.filters(), strategies.log_entries())
@SETTINGS
def test_not_is_the_complement(text: str, entry: dict[str, Any]) -> None:
    assert compile_filter(f"NOT ({text})").matches(entry) is not compile_filter(text).matches(entry)


@given(strategies.filters(), strategies.filters(), strategies.log_entries())
@SETTINGS
def test_or_binds_tighter_than_and(first: str, second: str, entry: dict[str, Any]) -> None:
    assume("\n" not in first + second)
    grouped = compile_filter(f"(insertId:*) AND ({first}) OR ({second})")
    explicit = compile_filter(f"(insertId:*) AND (({first}) OR ({second}))")
    assert grouped.matches(entry) == explicit.matches(entry)
