"""The user's own filter text (`--filter`), checked before the tool adds anything to it.

The text is compiled on its own first, so an error names the flag and its
line and column count within that text, with a caret under it. Once the tool
has put the text in parentheses and added its clauses, only a limit can
newly fail: that too is said in terms of the flag.
"""

from __future__ import annotations

from collections.abc import Iterator

from pathways_workload.errors import UsageError
from pathways_workload.lql import (
    LqlError,
    LqlLimitError,
    LqlUnsupportedError,
    compile_filter,
    diagnostics,
    lexer,
    nodes,
    parser,
    values,
)
from pathways_workload.lql.parser import MAX_FILTER_LENGTH, MAX_NESTING
from pathways_workload.target import Target
from pathways_workload.window import Window, as_given

# A top-level `timestamp OP "T"` that excludes the whole window: OP -> (T, window) -> excluded.
_EXCLUDES = {
    ">=": lambda nanos, window: nanos > window.end_ns,
    ">": lambda nanos, window: nanos >= window.end_ns,
    "<=": lambda nanos, window: nanos < window.start_ns,
    "<": lambda nanos, window: nanos <= window.start_ns,
}
# The LogEntry time fields, as a path names them (any case, camelCase or snake_case).
_TIME_FIELDS = frozenset({"timestamp", "receivetimestamp"})
# Operators a comparison on a missing field never satisfies.
_NEEDS_FIELD = frozenset({"=", ":", "=~"})
# What `wrap` puts around the user's text: a line of its own each.
OPENING = "(\n"
CLOSING = "\n)"


def check_text(flag: str, text: str) -> None:
    """Check the user's filter on its own.

    Raises:
        UsageError: the text is not UTF-8, not a valid filter, or has no condition.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise UsageError(
            f"{flag} has a byte that is not UTF-8 at {diagnostics.position(text, error.start)}: "
            "write the filter in UTF-8"
        ) from None
    try:
        compile_filter(text)
    except LqlUnsupportedError:
        pass  # valid, for Cloud Logging to evaluate: refused only offline (`check_evaluable`)
    except LqlError as error:
        raise UsageError(f"{flag}: {error.render()}") from None
    if lexer.tokenize(text)[0].kind == "eof":
        raise UsageError(
            f"{flag} has no condition (it is blank or only comments): give a Logging query, "
            f"e.g. {flag}='severity>=ERROR'"
        )
    _check_times(flag, text)


def _comparisons(text: str) -> Iterator[nodes.Comparison]:
    """Every comparison of the filter, however deep (outside calls to functions only Cloud
    Logging evaluates)."""
    pending: list[nodes.Node] = [parser.parse_all(text)[0]]
    while pending:
        node = pending.pop()
        if isinstance(node, nodes.Comparison):
            yield node
        elif isinstance(node, (nodes.And, nodes.Or)):
            pending += (node.right, node.left)
        elif isinstance(node, nodes.Not):
            pending.append(node.operand)


def _check_times(flag: str, text: str) -> None:
    """Refuse a time field compared with a value that is not a time: Cloud Logging refuses
    the whole filter (the offline engine would call the comparison false and match nothing)."""
    for term in _comparisons(text):
        value = term.value
        if (
            value is None
            or term.op in nodes.REGEX_OPERATORS
            or "".join(term.path.components).lower().replace("_", "") not in _TIME_FIELDS
            or (value.text == "NULL_VALUE" and not value.quoted)
            or values.parse_timestamp(value.text) is not None
        ):
            continue
        written = as_given(_as_written(value))
        error = diagnostics.LqlError(
            f"{written} at {diagnostics.position(text, value.start)} is not an RFC 3339 time, "
            "and Cloud Logging refuses a time field compared with anything else "
            '(INVALID_ARGUMENT: the value is of incorrect type); write e.g. "2026-10-22T11:10:00Z"',
            text,
            value.start,
        )
        raise UsageError(f"{flag}: {error.render()}")


def check_evaluable(flag: str, text: str) -> None:
    """Check that the offline engine can evaluate the user's filter (a few documented
    functions depend on what only Cloud Logging knows).

    Raises:
        UsageError: the text calls such a function.
    """
    try:
        compile_filter(text)
    except LqlUnsupportedError as error:
        hinted = LqlUnsupportedError(
            f"{error.message}: Cloud Logging evaluates it (--execute, or the printed command)",
            text,
            error.offset,
        )
        raise UsageError(f"{flag}: {hinted.render()}") from None
    except LqlError:
        pass  # check_text says what is wrong with it


def _top_level_terms(text: str) -> list[nodes.Node]:
    """The terms the filter ANDs at its top level (itself when it is not an AND); none when
    it uses what only Cloud Logging evaluates (`check_evaluable` refuses it offline)."""
    try:
        tree = parser.parse(text)
    except LqlUnsupportedError:
        return []
    return list(nodes.operands(tree)) if isinstance(tree, nodes.And) else [tree]


def check_window(flag: str, text: str, window: Window) -> None:
    """Check that no top-level `timestamp` comparison of the filter excludes the whole window
    (the window is ANDed with the filter). The text has passed `check_text`.

    Raises:
        UsageError: such a comparison, which leaves nothing to match.
    """
    for term in _top_level_terms(text):
        if not (
            isinstance(term, nodes.Comparison)
            and term.op in _EXCLUDES
            and term.value is not None
            and [part.lower() for part in term.path.components] == ["timestamp"]
        ):
            continue
        nanos = values.parse_timestamp(term.value.text)
        if nanos is not None and _EXCLUDES[term.op](nanos, window):
            side = (
                f"after the window's end ({window.end})"
                if ">" in term.op
                else f"before the window's start ({window.start})"
            )
            raise UsageError(
                f'{flag}: timestamp{term.op}"{as_given(term.value.text)}" is {side}, and the '
                "window is ANDed with it: nothing can match; set the window with --start_time "
                "and --end_time (or --issue_time)"
            )


def _dotted_pod_label(path: nodes.Path) -> tuple[str, str] | None:
    """For a `labels."k8s-pod/DOMAIN/NAME"` path whose domain has a dot, the key and the
    key as stored; else None.

    Cloud Logging stores those keys with the domain's dots turned into underscores
    (`k8s-pod/batch_kubernetes_io/job-name`), so the dotted spelling names no field.
    """
    if len(path.components) < 2 or path.components[0].lower() != "labels":
        return None
    key = ".".join(path.components[1:])  # unquoted, the key's dots split it into components
    domain, slash, name = key.removeprefix("k8s-pod/").partition("/")
    if not (key.startswith("k8s-pod/") and slash and "." in domain):
        return None
    return key, f"k8s-pod/{domain.replace('.', '_')}/{name}"


def check_label_keys(flag: str, text: str) -> None:
    """Check that no top-level comparison of the filter needs a dotted pod label key, which
    no entry has (some public examples spell the Job labels so). The text has passed
    `check_text`.

    Raises:
        UsageError: such a comparison, which leaves nothing to match.
    """
    for term in _top_level_terms(text):
        if not (isinstance(term, nodes.Comparison) and term.op in _NEEDS_FIELD):
            continue
        keys = _dotted_pod_label(term.path)
        if keys is not None:
            raise UsageError(
                f'{flag}: labels."{keys[0]}" matches nothing: Cloud Logging stores pod label '
                "keys with the dots of their domain turned into underscores; write "
                f'labels."{keys[1]}"'
            )


def _fixed_labels(target: Target) -> dict[str, tuple[str, str]]:
    """The resource labels the target flags fix in every clause they add around --filter:
    label -> (value, the flag as said). The namespace is fixed when --namespace is given or
    a workload flag is (its lines and pod events are the namespace's; its JobSet's events
    have no namespace label)."""
    fixed = {}
    if target.cluster_name:
        fixed["cluster_name"] = (target.cluster_name, f"--cluster_name={target.cluster_name}")
    if target.location:
        fixed["location"] = (target.location, f"--location={target.location}")
    if target.namespace_given or target.workloads:
        default = "" if target.namespace_given else " (the default)"
        fixed["namespace_name"] = (target.namespace, f"--namespace={target.namespace}{default}")
    return fixed


def check_scope(flag: str, text: str, target: Target) -> None:
    """Check that no top-level `resource.labels.X="..."` of the filter requires another
    cluster, location or namespace than the target flags, which are ANDed with it. The text
    has passed `check_text`.

    Raises:
        UsageError: such a comparison, which leaves nothing to match.
    """
    fixed = _fixed_labels(target)
    for term in _top_level_terms(text):
        if not (isinstance(term, nodes.Comparison) and term.op == "=" and term.value):
            continue
        _check_log_name(flag, term, target.project)
        path = term.path.components
        if len(path) != 3 or [part.lower() for part in path[:2]] != ["resource", "labels"]:
            continue
        value, said = fixed.get(path[2], (None, ""))
        if value is None or values.fold(term.value.text) == values.fold(value):
            continue
        raise UsageError(
            f"{flag}: {term.path.text}={_as_written(term.value)} contradicts {said}, which is "
            f"ANDed with it: nothing can match; pass {said.split('=')[0]}={term.value.text}, or "
            f"leave the condition out of {flag}"
        )


def _check_log_name(flag: str, term: nodes.Comparison, project: str | None) -> None:
    """Refuse `logName="projects/OTHER/logs/..."`: only --project's logs are read."""
    if not project or term.value is None or term.path.text.lower() != "logname":
        return
    owner, _, rest = term.value.text.removeprefix("projects/").partition("/logs/")
    if not term.value.text.startswith("projects/") or not rest or values.fold(owner) == project:
        return
    raise UsageError(
        f"{flag}: logName={_as_written(term.value)} names another project than "
        f"--project={project}, whose logs only are read: nothing can match; pass "
        f"--project={owner}, or leave the condition out of {flag}"
    )


def _as_written(value: nodes.Literal) -> str:
    return f'"{value.text}"' if value.quoted else value.text


def wrap(text: str) -> str:
    """The user's text in parentheses of its own, ready to AND with the tool's clauses."""
    return OPENING + text + CLOSING


def check_built(flag: str, text: str, built: str) -> None:
    """Check a filter built around `wrap(text)`, the text having passed `check_text`.

    Raises:
        UsageError: the built filter is too long, or nests too deep at a place in `text`.
    """
    excess = len(built) - MAX_FILTER_LENGTH
    if excess > len(text):  # the clauses around it alone are too long
        raise UsageError(
            f"the target flags make {len(built) - len(text):,} characters of clauses around "
            f"{flag}; Cloud Logging accepts at most {MAX_FILTER_LENGTH:,} in all: name fewer "
            "workloads (run once per group of them)"
        )
    if excess > 0:
        raise UsageError(
            f"{flag}: with the clauses the tool adds around it, the filter has "
            f"{len(built):,} characters; Cloud Logging accepts at most {MAX_FILTER_LENGTH:,}: "
            f"shorten {flag} by at least {excess:,}"
        )
    try:
        compile_filter(built)
    except LqlUnsupportedError:
        return
    except LqlLimitError as error:
        start = built.find(wrap(text)) + len(OPENING)
        if error.offset is None or not start <= error.offset <= start + len(text):
            raise  # the tool's own clauses: a bug
        offset = error.offset - start
        nested = LqlLimitError(
            f"parentheses and NOTs nest more than {MAX_NESTING - 1} deep at "
            f"{diagnostics.position(text, offset)}: the tool puts {flag} in one more pair of "
            f"parentheses, and at most {MAX_NESTING} levels are accepted",
            text,
            offset,
        )
        raise UsageError(f"{flag}: {nested.render()}") from None
