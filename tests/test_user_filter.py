"""The user's own filter: only problems inside the user's text are blamed on the flag."""

from __future__ import annotations

import pytest

from pathways_workload import user_filter
from pathways_workload.errors import UsageError
from pathways_workload.lql import LqlLimitError


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
