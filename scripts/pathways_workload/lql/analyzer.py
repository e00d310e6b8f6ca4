"""The text analyzer behind SEARCH(): case-folded tokens, as LOG_ANALYZER cuts them.

Text is folded like every string comparison, URL-encoded delimiters are
removed, and the rest is split on the LOG_ANALYZER delimiter characters.
A query's tokens must all be present (in any order); a part of the query in
backticks is a phrase whose tokens must be consecutive.
"""

from __future__ import annotations

import dataclasses
import re

from pathways_workload.lql import values

# Percent-encoded delimiters that LOG_ANALYZER treats as delimiters themselves.
ENCODED_DELIMITERS = re.compile(
    r"%(?:2526|2520|21|26|3b|7c|20|2b|3d|5d|5b|3a|0a|2c|28|29)", re.IGNORECASE
)
DELIMITERS = re.compile(r"[\[\]<>(){}|!;,'\"*&?+/:=@.\-$%\\_\s]+")


@dataclasses.dataclass(frozen=True)
class SearchQuery:
    """A parsed SEARCH query: tokens that must be present, phrases that must be consecutive."""

    tokens: frozenset[str]
    phrases: tuple[tuple[str, ...], ...]


def tokens(text: str) -> list[str]:
    """Cut text into folded tokens, in order."""
    folded = ENCODED_DELIMITERS.sub(" ", values.fold(text))
    return [token for token in DELIMITERS.split(folded) if token]


def parse_query(text: str) -> SearchQuery:
    """Parse a SEARCH query string.

    Raises:
        ValueError: a backtick is not closed, or the query has no token at all.
    """
    pieces = text.split("`")
    if len(pieces) % 2 == 0:
        raise ValueError("a backtick in the SEARCH query is not closed")
    required: set[str] = set()
    phrases: list[tuple[str, ...]] = []
    for position, piece in enumerate(pieces):
        cut = tokens(piece)
        required.update(cut)
        if position % 2 == 1 and len(cut) > 1:
            phrases.append(tuple(cut))
    if not required:
        raise ValueError("the SEARCH query has no token to search for")
    return SearchQuery(frozenset(required), tuple(phrases))


def matches(query: SearchQuery, token_lists: list[list[str]], present: frozenset[str]) -> bool:
    """Tell whether texts (as token lists, with `present` their union) satisfy a query."""
    if not query.tokens <= present:
        return False
    return all(
        any(_has_run(token_list, phrase) for token_list in token_lists) for phrase in query.phrases
    )


def _has_run(token_list: list[str], phrase: tuple[str, ...]) -> bool:
    """Tell whether `phrase` occurs as consecutive tokens of `token_list`."""
    size = len(phrase)
    return any(
        tuple(token_list[start : start + size]) == phrase
        for start in range(len(token_list) - size + 1)
    )
