"""Triage's report as a page: the root cause first, the timeline, then the tables.

The root cause and every table read without JavaScript; the script adds
zooming, sorting and copying.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pathways_workload.render.entries import entry_line
from pathways_workload.render.html.escape import text
from pathways_workload.render.html.lanes import timeline_html
from pathways_workload.render.html.page import document, notes_html, section
from pathways_workload.render.html.tables import (
    cell,
    code_block,
    instant,
    link,
    raw_cell,
    table,
    time_cell,
)
from pathways_workload.render.html.triage_lanes import first_error, triage_timeline
from pathways_workload.render.markdown import (
    MOST_ROWS,
    latest_first,
    lead_line,
    survived_lines,
    unmatched_next,
)
from pathways_workload.reports import (
    COMPLETED_TEXT,
    GUESSED_TIME_TEXT,
    cause_heading,
    no_verdict,
)
from pathways_workload.tracebacks import headline
from pathways_workload.triage.timeline import FAILED_KINDS, cut_message

TIMELINE_HELP = (
    '<p class="meta">One lane per TPU host (by slice), head-pod container and node. Hover a mark '
    'for its line.<span class="js-only"> Click it to keep it; drag across the lanes or the axis '
    "to zoom in.</span></p>"
)
VERSION_NAMES = ("server", "proxy", "sidecar", "jax")
ROOT_FIELDS = (
    ("time", "timestamp"),
    ("host", "host"),
    ("pod", "pod"),
    ("container", "container"),
    ("node", "node"),
    ("found in", "source"),
    ("restart attempt", "restart_attempt"),
    ("next line was due", "due_at"),
)
SUMMARY_FIELDS = ("timestamp", "where", "host", "message", "scenario_slug")


def _first_line(message: object) -> str:
    """A message's telling line: a whole traceback's exception, else its first line."""
    return headline(str(message or "").strip())


def _brief(message: object) -> str:
    """A message's telling line as a summary shows it: cut to MESSAGE_LIMIT characters (the
    root cause's whole line is in its evidence; the JSON report has every line whole)."""
    return cut_message(_first_line(message))


def _where(failure: dict[str, Any]) -> str:
    """Where a failure happened: its container, the host that never logged, or its node."""
    if failure.get("pod") or failure.get("host"):
        return str(failure.get("where"))
    return f"node {failure.get('node')}" if failure.get("node") else str(failure.get("where"))


def _what(failure: dict[str, Any]) -> str:
    """What failed, as the failures table shows it: a hang says it went quiet before its
    last line (a routine line, not the failure)."""
    quiet = "went quiet; its last line: " if failure.get("source") == "hang" else ""
    return quiet + _brief(failure.get("message"))


def _clamped(message: str) -> str:
    """A message cell a few lines high (it scrolls)."""
    return raw_cell(f'<div class="clamp">{text(message)}</div>', "msg")


def _known(failure: dict[str, Any]) -> str:
    """The known failure, its cause and fix; else where to read on (as the text report
    says it; a cause known only by downstream lines says where instead)."""
    if failure.get("scenario") is None:
        if failure.get("downstream_only"):
            return ""
        where = unmatched_next(str(failure.get("source")))
        return f"<p>No known failure matches this line: {text(where)}</p>"
    return (
        f"<p><b>Known failure {text(failure['scenario'])} ({text(failure.get('scenario_slug'))})"
        f":</b> {text(failure.get('scenario_title'))}</p>"
        f"<p><b>Cause:</b> {text(failure.get('cause'))}</p>"
        f"<p><b>Fix:</b> {text(failure.get('fix'))} (references/special-scenarios.md)</p>"
    )


def _caveats(failure: dict[str, Any]) -> str:
    """What the cause's line cannot say: that its time was guessed, that only downstream
    lines were found."""
    guessed = (
        f'<p class="warn">{text(GUESSED_TIME_TEXT)}</p>' if failure.get("time_guessed") else ""
    )
    if not failure.get("downstream_only"):
        return guessed
    actions = ", ".join(f"<code>{text(action)}</code>" for action in failure.get("read_next", []))
    return guessed + (
        f'<p class="warn">Known only by downstream lines: nothing found says why. The reason is '
        f"in {text(failure.get('reason_in'))} ({actions}).</p>"
    )


def _next_steps(report: dict[str, Any]) -> str:
    """The generic next steps, when no known failure explains what was found."""
    steps = "".join(f"<li><code>{text(step)}</code></li>" for step in report.get("next") or [])
    return f"<p>Next, look closer with:</p><ul>{steps}</ul>" if steps else ""


def _completed(report: dict[str, Any]) -> str:
    """The JobSet's completion, when it completed: what followed it is its teardown."""
    event = report.get("completed")
    if not event:
        return ""
    said = COMPLETED_TEXT.format(when=event.get("timestamp"), message=event.get("message"))
    return f'<p class="completed">{text(said)}</p>'


def _last_lines(last: list[dict[str, Any]]) -> str:
    """Each container's last line, latest first: the first MOST_ROWS as the text report
    lists them, the others folded away (a JobSet of a thousand hosts has thousands)."""
    items = [
        f"<li><code>{text(r.get('timestamp'))}</code> {text(r.get('where'))}: "
        f"{text(_brief(r.get('message')))}</li>"
        for r in latest_first(last)
    ]
    shown, rest = "".join(items[:MOST_ROWS]), items[MOST_ROWS:]
    folded = (
        f"<details><summary>… and {len(rest)} more</summary><ul>{''.join(rest)}</ul></details>"
        if rest
        else ""
    )
    return (
        f"<p>No error and no hang found. Last line of {len(last)} containers (latest first):"
        f"</p><ul>{shown}</ul>{folded}"
    )


def _survived(report: dict[str, Any]) -> str:
    """The warnings and node events the run went on after, as the text report says them."""
    return "".join(f"<p>{text(line)}</p>" for line in survived_lines(report.get("survived") or []))


def _no_cause(report: dict[str, Any]) -> str:
    """No root cause: the JobSet's completion, or the last line of each container (or why
    there is no verdict), then the next steps."""
    if report.get("completed"):
        found = _completed(report)
    elif report.get("last_lines"):
        found = _last_lines(report["last_lines"])
    else:
        found = f"<p>{text(no_verdict(report))}</p>"
    return (
        f'<section class="cause" id="root-cause"><h2>{cause_heading(report)}</h2>'
        f"{found}{_survived(report)}{_next_steps(report)}</section>"
    )


def _root_cause(report: dict[str, Any]) -> str:
    root = report.get("root_cause")
    if not root:
        return _no_cause(report)
    fields = "".join(
        f"<dt>{text(name)}</dt><dd>{text(root[key])}</dd>"
        for name, key in ROOT_FIELDS
        if root.get(key) not in (None, "")
    )
    evidence = "".join(f"<pre>{text(entry_line(e))}</pre>" for e in root.get("evidence", []))
    traceback = "\n".join(root.get("traceback") or [])
    return (
        '<section class="cause" id="root-cause"><h2>Root cause</h2>'
        f'<pre class="line">{text(cut_message(str(root.get("message"))))}</pre><dl>{fields}</dl>'
        f"{_caveats(root)}{_known(root)}{_completed(report)}{_survived(report)}"
        f"{_next_steps(report)}"
        + (
            f"<details><summary>Traceback</summary><pre>{text(traceback)}</pre></details>"
            if traceback
            else ""
        )
        + f"<details><summary>Evidence ({len(root.get('evidence', []))} lines)</summary>"
        f"{evidence}</details>"
        '<p><button type="button" class="focus-root js-only">Show it on the timeline</button></p>'
        "</section>"
    )


def _versions(report: dict[str, Any]) -> str:
    """Versions on one line or two, Build labels after them, then any mismatch."""
    found = report.get("versions") or {}
    unseen = "not seen" if found.get("complete", True) else "not seen (unread?)"
    pairs = [(name, found.get(name) or unseen) for name in VERSION_NAMES]
    pairs += [
        (f"Build label ({container})", label)
        for container, label in sorted((found.get("build_labels") or {}).items())
    ]
    items = "".join(f"<span><b>{text(name)}</b> {text(value)}</span>" for name, value in pairs)
    problems = [f"MISMATCH: {p}" for p in found.get("mismatches") or []]
    problems += [f"UNKNOWN VERSION: {p}" for p in found.get("unknown_versions") or []]
    notes = "".join(f'<p class="warn">{text(problem)}</p>' for problem in problems)
    return section("versions", "Versions", f'<p class="versions">{items}</p>{notes}')


def _hosts_failed_in(lanes: Sequence[dict[str, Any]], attempt: object) -> int:
    """How many host lanes failed in the attempt: a first error, or a hang, OOM kill or
    interruption of its own (as the report's failing hosts count them)."""
    return sum(
        1
        for lane in lanes
        if lane["lane"] == "host"
        and any(
            e.get("kind") in FAILED_KINDS and e.get("attempt") == attempt
            for e in lane.get("events", [])
        )
    )


def _failures(report: dict[str, Any]) -> str:
    lanes = (report.get("timeline") or {}).get("lanes") or []
    rows = []
    for failure in report.get("failures") or []:
        attempt = failure.get("restart_attempt")
        hosts = _hosts_failed_in(lanes, attempt)
        known = failure.get("scenario_title") or "no known failure"
        rows.append(
            [
                cell(attempt if attempt is not None else "?"),
                time_cell(failure.get("timestamp")),
                cell(_where(failure)),
                _clamped(_what(failure)),
                cell(known),
                cell(hosts, kind="num"),
            ]
        )
    headers = ("attempt", "began", "where", "what", "known failure", "hosts failing")
    body = table(headers, rows) if rows else "<p>None.</p>"
    return section("failures", "Failures per restart attempt", body)


def _origin(first: dict[str, Any]) -> str:
    if not first:
        return ""
    if first.get("kind") == "root_cause":
        return "root cause"
    return "downstream" if first.get("downstream") else str(first.get("kind")).replace("_", " ")


def _index(value: object) -> str:
    return cell(value, sort=value if str(value).isdigit() else None, kind="num")


def _host_row(lane: dict[str, Any]) -> list[str]:
    first = first_error(lane)
    return [
        _index(lane.get("slice")),
        _index(lane.get("host")),
        time_cell(first.get("timestamp", "")),
        cell(_origin(first)),
        _clamped(_first_line(first.get("message"))),
        cell("quiet" if lane.get("quiet") else ""),
        time_cell(lane.get("last_line") or ""),
        cell(", ".join(lane.get("pods") or [])),
        cell(", ".join(lane.get("nodes") or [])),
    ]


HOST_HEADERS = ("slice", "host", "first error", "kind", "message", "quiet", "last line")


def _hosts(report: dict[str, Any]) -> str:
    lanes = (report.get("timeline") or {}).get("lanes") or []
    hosts = [lane for lane in lanes if lane["lane"] == "host"]
    shown = [lane for lane in hosts if lane.get("failed") or lane.get("quiet")]
    shown.sort(
        key=lambda lane: instant(first_error(lane).get("timestamp") or lane.get("last_line"))
    )
    missing = [report.get("failing_hosts_missing"), report.get("quiet_hosts_missing")]
    body = "".join(f'<p class="warn">{text(said)}</p>' for said in missing if said)
    if report.get("failing_hosts") and report.get("lead_host"):
        body += f'<p id="lead-host">{text(lead_line(report))}</p>'
    body += (
        '<p class="meta">Earliest first.<span class="js-only"> Click a heading to sort.</span></p>'
    )
    headers = (*HOST_HEADERS, "pods", "nodes")
    rows = map(_host_row, shown)
    body += table(headers, rows, sortable=True, scroll=len(shown) > 20, ident="hosts-table")
    title = f"Failing and quiet hosts: {len(shown)} of {len(hosts)}"
    return section("hosts", title, body if shown else "<p>None.</p>")


def _coverage(report: dict[str, Any]) -> str:
    """What the logs hold: lines read per component, which kinds of log are there, the gaps."""
    found = report.get("coverage") or {}
    rows = [
        [
            cell(row.get("component")),
            cell(row.get("pods"), kind="num"),
            cell(row.get("lines_read"), kind="num"),
            time_cell(row.get("first") or "-"),
            time_cell(row.get("last") or "-"),
        ]
        for row in found.get("components") or []
    ]
    kinds = "".join(
        f"<span><b>{text(row.get('kind'))}</b> "
        f"{'yes' if row.get('seen') else 'NO' if row.get('gap') else 'none'}</span>"
        for row in found.get("kinds") or []
    )
    gaps = "".join(f'<p class="warn">GAP: {text(gap)}</p>' for gap in found.get("gaps") or [])
    headers = ("component", "pods", "lines read", "first", "last")
    body = gaps + table(headers, rows) + f'<p class="versions">{kinds}</p>'
    return section("coverage", "What the logs hold", body)


def _checks(report: dict[str, Any]) -> str:
    rows = []
    for number, check in enumerate(report.get("checks") or []):
        command = code_block(check.get("command", ""), f"command-{number}")
        url = check.get("url")
        rows.append(
            [
                cell(check.get("purpose"), kind="purpose"),
                cell(check.get("count"), kind="num"),
                cell(check.get("requests"), kind="num"),
                cell(check.get("status")),
                raw_cell(command, kind="msg"),
                raw_cell(link(url, "Logs Explorer") if url else "", kind="nowrap"),
            ]
        )
    headers = ("purpose", "entries", "requests", "status", "command", "link")
    title = f"Checks run ({report.get('requests', '?')} requests)"
    return section("checks", title, table(headers, rows, ident="checks-table"))


def _summary(report: dict[str, Any]) -> dict[str, Any]:
    """What the page carries for tools: the window, the root cause in brief (its message cut
    as the page shows it), the restart attempts."""
    root = report.get("root_cause") or {}
    brief = {key: root.get(key) for key in SUMMARY_FIELDS}
    if root:
        brief["message"] = cut_message(str(root.get("message")))
    return {
        "window": report.get("window") or {},
        "root_cause": brief,
        "attempts": (report.get("timeline") or {}).get("attempts", []),
    }


def triage_page(report: dict[str, Any], notes: Sequence[str] = ()) -> str:
    """The triage report as one HTML document; `notes` are the run's notes (see
    `write_html`)."""
    workload = ", ".join(report.get("workload") or []) or "the workload"
    window = report.get("window") or {}
    span = (
        f"Window: {window['note']}"
        if "note" in window
        else f"Window {window.get('start')} .. {window.get('end')} (UTC)"
    )
    header = (
        f'<header><h1>Triage of {text(workload)}</h1><p class="meta">{text(span)}</p></header>'
        + notes_html(notes)
    )
    drawn = (
        f'<p class="warn">{text("No timeline. Window: " + window["note"])}</p>'
        if "note" in window
        else TIMELINE_HELP + timeline_html(triage_timeline(report))
    )
    timeline = section("timeline", "Timeline", drawn)
    body = (
        header
        + _root_cause(report)
        + _versions(report)
        + timeline
        + _failures(report)
        + _hosts(report)
        + _coverage(report)
        + _checks(report)
    )
    return document(f"Triage of {workload}", body, _summary(report))
