"""Values: case folding, and conversions of text to the types fields hold.

Cloud Logging compares strings after NFKC_Casefold normalization. `fold`
approximates it: drop default-ignorable characters, NFKC, casefold, NFKC
again. For ASCII text that is exactly `str.lower`, which is the fast path.

The `parse_*` functions return None when text does not convert: the
documented rule is that a comparison whose value does not convert to the
field's type is false, not an error.
"""

from __future__ import annotations

import datetime
import math
import re
import types
import unicodedata

from pathways_workload import timestamps

# Default_Ignorable_Code_Point ranges (Unicode DerivedCoreProperties), which
# NFKC_Casefold removes.
DEFAULT_IGNORABLE_RANGES = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
DROP_DEFAULT_IGNORABLES = types.MappingProxyType(
    {code: None for low, high in DEFAULT_IGNORABLE_RANGES for code in range(low, high + 1)}
)

SEVERITY_LEVELS = types.MappingProxyType(
    {
        "DEFAULT": 0,
        "DEBUG": 100,
        "INFO": 200,
        "NOTICE": 300,
        "WARNING": 400,
        "ERROR": 500,
        "CRITICAL": 600,
        "ALERT": 700,
        "EMERGENCY": 800,
    }
)
SEVERITY_NUMBERS = frozenset(SEVERITY_LEVELS.values())
SEVERITY_NAMES = types.MappingProxyType({level: name for name, level in SEVERITY_LEVELS.items()})


def severity_level(value: object) -> int:
    """An entry's severity as a level: a name (any case), or a level's number as proto3 JSON
    may write the enum (`"severity": 500`, from a client's default JSON, or `"500"`, which
    protobuf's JSON parser reads as the same number); anything else is DEFAULT."""
    if isinstance(value, str):
        if value.isascii() and value.isdigit():
            value = int(value)
        else:
            return SEVERITY_LEVELS.get(value.upper(), 0)
    if isinstance(value, int) and not isinstance(value, bool) and value in SEVERITY_NUMBERS:
        return value
    return 0


NUMBER_PATTERN = re.compile(
    r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|(?i:nan|inf|infinity))"
)
INTEGER_PATTERN = re.compile(r"[+-]?[0-9]+")
MAX_INTEGER_DIGITS = 20
INT64_MIN = -(2**63)
UINT64_MAX = 2**64 - 1
MAX_DURATION_LENGTH = 64
DURATION_PATTERN = re.compile(r"([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+))(ns|us|µs|ms|s|m|h)")
DURATION_UNIT_NANOS = types.MappingProxyType(
    {
        "ns": 1,
        "us": 1_000,
        "µs": 1_000,
        "ms": 1_000_000,
        "s": 10**9,
        "m": 60 * 10**9,
        "h": 3600 * 10**9,
    }
)
# Timestamps in the shape the API writes them, with a date and time that are
# surely valid (days after the 28th take the general parser): their comparison
# key is their own text.
API_TIMESTAMP_PATTERN = re.compile(
    r"[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])"
    r"T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.([0-9]{1,9}))?Z"
)
API_TIMESTAMP_LENGTH = len("2024-01-01T00:00:00.123456789Z")
EPOCH_ORDINAL = datetime.date(1970, 1, 1).toordinal()
SECONDS_PER_DAY = 86_400
MAX_ORDINAL = datetime.date.max.toordinal()


def fold(text: str) -> str:
    """Normalize a string for case-insensitive comparison (NFKC_Casefold)."""
    if text.isascii():
        return text.lower()
    text = text.translate(DROP_DEFAULT_IGNORABLES)
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


def as_double(number: float) -> float:
    """A JSON number as a Struct holds it, a double: an integer past 2**53 rounds, one too
    large for a double is infinite."""
    if isinstance(number, float):
        return number
    try:
        return float(number)
    except OverflowError:
        return math.inf if number > 0 else -math.inf


def parse_number(text: str) -> float | None:
    """Convert text to a double: decimal and exponent forms, NaN and Infinity."""
    if NUMBER_PATTERN.fullmatch(text) is None:
        return None
    return float(text)


def parse_integer(text: str) -> int | None:
    """Convert text to a 64-bit integer (decimal digits with an optional sign)."""
    if INTEGER_PATTERN.fullmatch(text) is None:
        return None
    digits = text.lstrip("+-").lstrip("0") or "0"
    if len(digits) > MAX_INTEGER_DIGITS:
        return None
    value = -int(digits) if text.startswith("-") else int(digits)
    return value if INT64_MIN <= value <= UINT64_MAX else None


def parse_bool(text: str) -> bool | None:
    """Convert "true" or "false", in any case."""
    lowered = text.lower()
    if lowered == "true":
        return True
    if lowered == "false":
        return False
    return None


def parse_severity(text: str) -> int | None:
    """Convert a severity name (any case) or its number (0, 100, ... 800)."""
    level = SEVERITY_LEVELS.get(text.upper())
    if level is None:
        number = parse_integer(text)
        level = number if number in SEVERITY_NUMBERS else None
    return level


def parse_field_duration_ns(text: str) -> int | None:
    """Convert a duration such as "3.2s", "-5ms" or "0.008142579s" to nanoseconds."""
    match = DURATION_PATTERN.fullmatch(text) if len(text) <= MAX_DURATION_LENGTH else None
    if match is None:
        return None
    number, unit = match.groups()
    whole, _, fraction = number.lstrip("+-").partition(".")
    unit_nanos = DURATION_UNIT_NANOS[unit]
    scale: int = 10 ** len(fraction)
    nanos = int(whole or "0") * unit_nanos + int(fraction or "0") * unit_nanos // scale
    return -nanos if number.startswith("-") else nanos


def parse_timestamp(text: str) -> int | None:
    """Convert an RFC 3339 timestamp (or a date) to nanoseconds since the epoch."""
    try:
        return timestamps.parse_timestamp_ns(text)
    except ValueError:
        return None


def timestamp_key(text: object) -> str | None:
    """A key that orders timestamps as instants: `YYYY-MM-DDTHH:MM:SS.nnnnnnnnn` in UTC.

    Timestamps outside years 1 to 9999 (which protobuf Timestamps cannot hold),
    and anything that is not the text of a timestamp, give None.
    """
    if not isinstance(text, str):
        return None
    match = API_TIMESTAMP_PATTERN.fullmatch(text)
    if match is not None:
        if len(text) == API_TIMESTAMP_LENGTH:
            return text[:-1]
        return f"{text[:19]}.{(match.group(1) or '').ljust(9, '0')}"
    nanos = parse_timestamp(text)
    if nanos is None:
        return None
    seconds, fraction = divmod(nanos, timestamps.NANOS_PER_SECOND)
    days, seconds = divmod(seconds, SECONDS_PER_DAY)
    if not 1 <= EPOCH_ORDINAL + days <= MAX_ORDINAL:
        return None
    date = datetime.date.fromordinal(EPOCH_ORDINAL + days).isoformat()
    hours, seconds = divmod(seconds, 3600)
    minutes, seconds = divmod(seconds, 60)
    return f"{date}T{hours:02d}:{minutes:02d}:{seconds:02d}.{fraction:09d}"
