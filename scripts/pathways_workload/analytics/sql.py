"""GoogleSQL literals: strings, JSONPath keys, timestamps, table paths.

Every value the tool puts into SQL goes through one of these, so no filter
text or flag can close a quote or add a clause.
"""

from __future__ import annotations

import re

from pathways_workload.errors import UsageError
from pathways_workload.timestamps import format_timestamp_ns

_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ESCAPES = {"\\": "\\\\", "'": "\\'", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_TABLE_PART = re.compile(r"[A-Za-z0-9_.:-]+")
_DOMAIN = re.compile(r"[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?")
# An RE2 pattern's pieces, in order: quoted text, an escape, a character class, the
# opening of a named group in its `(?<name>` spelling, or any other character.
_RE2_PIECES = re.compile(
    r"\\Q.*?(?:\\E|\Z)|\\.|\[\^?\]?(?:\[:\^?[a-z]+:\]|\\.|[^\]\\])*\]?|\(\?<|.",
    re.DOTALL,
)
NANOS_PER_MICRO = 1_000


def string(value: str) -> str:
    """A single-quoted string literal, backslash-escaped: control characters and the line
    separators as `\\uXXXX`, so the literal is one line of printable text."""
    return "'" + "".join(_escaped(char) for char in value) + "'"


def _escaped(char: str) -> str:
    if char in _ESCAPES:
        return _ESCAPES[char]
    if char < " " or "\x7f" <= char <= "\x9f" or char in "\u2028\u2029":
        return f"\\u{ord(char):04x}"
    return char


def regex(pattern: str) -> str:
    """A string literal of an RE2 pattern, its named groups spelled `(?P<name>`: RE2 reads
    `(?<name>` only since 2023, and DuckDB's RE2 (offline) refuses it."""
    pieces = _RE2_PIECES.findall(pattern)
    return string("".join("(?P<" if piece == "(?<" else piece for piece in pieces))


def json_path(keys: tuple[str, ...]) -> str:
    """A JSONPath literal for `keys`, each key double-quoted unless it is a plain name.

    Raises:
        UsageError: a key holds a double quote or backslash, which the quoted
            JSONPath form cannot express without escapes BigQuery does not document.
    """
    parts = ["$"]
    for key in keys:
        if _PLAIN_KEY.fullmatch(key):
            parts.append(f".{key}")
        elif '"' in key or "\\" in key:
            raise UsageError(
                f"the key {key!r} has a quote or backslash, which a Log Analytics JSON path "
                "cannot address; use --engine=logging"
            )
        else:
            parts.append(f'."{key}"')
    return string("".join(parts))


def micros(nanos: int, round_up: bool = False) -> int:
    """Nanoseconds to whole microseconds (BigQuery TIMESTAMP precision), rounded down
    unless `round_up`."""
    return -(-nanos // NANOS_PER_MICRO) if round_up else nanos // NANOS_PER_MICRO


def timestamp(nanos: int, round_up: bool = False) -> str:
    """A TIMESTAMP literal of an instant, truncated to the microsecond (or rounded up to the
    next one, for a lower bound: no earlier instant may pass it)."""
    text = format_timestamp_ns(micros(nanos, round_up) * NANOS_PER_MICRO)
    date, _, clock = text.rstrip("Z").partition("T")
    seconds, _, fraction = clock.partition(".")
    fraction = (fraction + "000000")[:6]
    body = f"{date} {seconds}.{fraction}" if int(fraction) else f"{date} {seconds}"
    return f"TIMESTAMP {string(body + '+00')}"


def table(path: str, shape: str, flag: str) -> str:
    """A backquoted table path with as many dot-separated names as `shape` (e.g. PROJECT.DATASET).

    Raises:
        UsageError: the path does not have that many non-empty names of the allowed characters.
    """
    domain, _, rest = path.rpartition(":")  # a domain-scoped project: example.com:project
    names = rest.split(".")
    if domain:
        names[0] = f"{domain}:{names[0]}"
    if (
        len(names) != shape.count(".") + 1
        or not all(_TABLE_PART.fullmatch(n) for n in names)
        or (domain and not _DOMAIN.fullmatch(domain))
    ):
        raise UsageError(f"{flag}={path!r}: expected {shape}")
    return f"`{path}`"
