"""The Logging query language, evaluated offline exactly as Cloud Logging documents it.

    from pathways_workload.lql import compile_filter
    compiled = compile_filter('resource.type="k8s_container" severity>=ERROR')
    compiled.matches(entry)        # entry: a LogEntry in the API's JSON shape
    compiled.may_match_raw(line)   # cheap test of a raw JSON line before parsing it

Stages, one module each: `lexer` (text to tokens), `parser` (tokens to the
`nodes` tree, with the precedence table), `fields` (the LogEntry field table),
`compiler` (tree to a closure, with `checks`, `access`, `analyzer`,
`networks` and `values`), `prefilter` (tree to the byte strings a raw line must contain).

Choices where the documentation is silent (each pinned by a test in tests/lql):

- Global restrictions, and `:` on an object, search every scalar value of the
  entry, never the keys: strings by case-insensitive substring, numbers and
  booleans only when the term converts to an equal number or boolean.
- SEARCH cuts text with the LOG_ANALYZER delimiters; without a field, tokens
  may come from different fields, but a backtick phrase lies in one string.
  It reads text only: strings of text fields, payloads and labels, never a
  typed LogEntry field that JSON writes as a string (severity, timestamps,
  durations, int64).
  A query without tokens, or with an unclosed backtick, is a syntax error.
- log_id() compares URL-decoded log IDs, ignoring case like other strings.
- Arrays are transparent anywhere along a path; a comparison holds if it
  holds for any element (so `!=` holds if any element differs); an empty
  array matches nothing but is present for `:*`.
- `:*` is presence of the key in the entry's JSON (null included).
- Unquoted NULL_VALUE: `=` and `:` hold for null, `!=` for present non-null.
- Severity literals are names in any case or their numbers 0, 100 ... 800;
  an entry's severity that is not a level name reads as DEFAULT. Regular
  expressions never match typed fields (severity, timestamps, numbers).
- LogEntry field names match in any case and in camelCase or snake_case;
  protoPayload keys ignore case and underscores.
- A `-` before a term is NOT even when a space follows; right after an
  operator it must start a number (`f>-1`), other values starting with `-`
  must be quoted. Unquoted values may contain dots (`5.5`). `--` starts a
  comment only where a token may start (`a--b` is one word).
- Timestamps outside years 1 to 9999 do not convert (comparison false).
- ip_in_net reads an address (`10.1.2.3`, `1:2::3`) or CIDR range
  (`10.1.2.0/24`) with nothing around it (no spaces, zone, port or netmask
  form); host bits set in a range are ignored; an address of one IP version
  is never inside a subnet of the other (`::ffff:10.1.2.3` is not in
  `10.0.0.0/8`); the subnet must be a quoted string; on a typed LogEntry
  field (severity, timestamps, numbers, booleans) it is false.
- sample, cast, regexp_extract and source are "unsupported"; nesting deeper
  than 64 parentheses and NOTs is a "limit" error.
"""

from pathways_workload.lql.compiled import CompiledFilter, compile_filter
from pathways_workload.lql.diagnostics import (
    LqlError,
    LqlLimitError,
    LqlSyntaxError,
    LqlUndefinedFieldError,
    LqlUnsupportedError,
)

__all__ = [
    "CompiledFilter",
    "LqlError",
    "LqlLimitError",
    "LqlSyntaxError",
    "LqlUndefinedFieldError",
    "LqlUnsupportedError",
    "compile_filter",
]
