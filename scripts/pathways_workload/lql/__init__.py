"""The Logging query language, evaluated offline exactly as Cloud Logging documents it.

    from pathways_workload.lql import compile_filter
    compiled = compile_filter('resource.type="k8s_container" severity>=ERROR')
    compiled.matches(entry)        # entry: a LogEntry in the API's JSON shape
    compiled.may_match_raw(line)   # cheap test of a raw JSON line before parsing it

Stages, one module each: `lexer` (text to tokens), `parser` (tokens to the
`nodes` tree, with the precedence table), `fields` (the LogEntry field table),
`compiler` (tree to a closure, with `checks`, `access`, `analyzer` and
`values`), `prefilter` (tree to the byte strings a raw line must contain).
"""

from pathways_workload.lql.compiled import CompiledFilter, compile_filter
from pathways_workload.lql.errors import (
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
