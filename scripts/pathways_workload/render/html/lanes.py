"""The swimlane timeline as HTML and inline SVG: lanes of marks over a time axis.

Every mark is placed in percent of the window, so the drawing scales with
the page and reads without JavaScript; it carries its time (`data-t`, in
nanoseconds from the window's start) so the page's script can zoom down to
microseconds by placing it again. A mark's `<title>` is its full line (the
browser shows it on hover). Groups of lanes that can collapse (a slice of
hosts) are `<details>` elements whose summary draws the group in one lane.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Sequence

from pathways_workload.render.html.escape import text

SECOND = 10**9
DAY = 86_400 * SECOND
# Axis steps, in nanoseconds: the smallest giving at most MAX_TICKS ticks over the view.
TICK_STEPS: tuple[int, ...] = tuple(
    [m * 10**e for e in range(3, 9) for m in (1, 2, 5)]
    + [s * SECOND for s in (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600)]
    + [h * 3600 * SECOND for h in (2, 3, 6, 12, 24)]
    + [d * DAY for d in (2, 7, 14, 28, 91, 182, 364)]
)
MAX_TICKS = 8
# Attempt labels take turns on this many rows.
LABEL_ROWS = 3
# A tick label further right (percent of the width) would be cut.
LAST_TICK = 94
SYMBOLS = (
    '<path id="s-root" d="M0-7L7 0L0 7L-7 0Z"/>'
    '<path id="s-first" d="M0-5L5 0L0 5L-5 0Z"/>'
    '<circle id="s-error" r="3"/>'
    '<circle id="s-symptom" r="2.5"/>'
    '<path id="s-oom" d="M0-6L6 5H-6Z"/>'
    '<rect id="s-interruption" x="-4.5" y="-4.5" width="9" height="9"/>'
    '<rect id="s-event" x="-2.5" y="-2.5" width="5" height="5"/>'
    '<circle id="s-quiet" r="4"/>'
    '<path id="s-last" d="M0-5V5"/>'
)


@dataclasses.dataclass(frozen=True)
class Mark:
    """One thing that happened: its time (ns from the window's start), kind and full line.

    A mark with `until` is a span (a quiet host's silence, a slice's spread of errors).
    `symbol` is the shape (one of SYMBOLS, without `s-`), `kind` its CSS classes.
    """

    at: int
    symbol: str
    kind: str
    line: str
    until: int | None = None
    mark_id: str = ""


@dataclasses.dataclass(frozen=True)
class Lane:
    """One row: a label (with its full name on hover), its marks, its CSS classes and key."""

    key: str
    label: str
    title: str
    marks: Sequence[Mark]
    kind: str = ""


@dataclasses.dataclass(frozen=True)
class Group:
    """Lanes shown together under a title; `summary` marks make it collapsible."""

    key: str
    title: str
    lanes: Sequence[Lane]
    summary: Sequence[Mark] | None = None
    note: str = ""
    open: bool = True


@dataclasses.dataclass(frozen=True)
class Timeline:
    """The window (absolute ns), the groups of lanes, and the boundaries between attempts."""

    start_ns: int
    end_ns: int
    groups: Sequence[Group]
    boundaries: Sequence[tuple[int, str]] = ()
    focus: int | None = None  # the root cause, in ns from the start
    legend: Sequence[tuple[str, str, str]] = ()  # (symbol, CSS classes, meaning) per mark kind
    kind: str = ""  # CSS classes of the whole timeline
    # When the workload completed (ns from the start) and the completion's full line.
    completed: tuple[int, str] | None = None

    @property
    def span(self) -> int:
        return max(1, self.end_ns - self.start_ns)


def _percent(at: int, span: int) -> str:
    return f"{100 * at / span:.4f}".rstrip("0").rstrip(".") + "%"


def mark_svg(mark: Mark, span: int) -> str:
    """One mark: a symbol at its time, or a bar for a span."""
    title = f"<title>{text(mark.line)}</title>"
    ident = f' id="{text(mark.mark_id)}"' if mark.mark_id else ""
    if mark.until is not None:
        width = _percent(max(0, mark.until - mark.at), span)
        return (
            f'<rect{ident} class="m {text(mark.kind)}" x="{_percent(mark.at, span)}" y="30%" '
            f'width="{width}" height="40%" data-t="{mark.at}" data-u="{mark.until}">'
            f"{title}</rect>"
        )
    return (
        f'<use{ident} href="#s-{text(mark.symbol)}" class="m {text(mark.kind)}" '
        f'x="{_percent(mark.at, span)}" y="50%" data-t="{mark.at}">{title}</use>'
    )


def _plot(marks: Sequence[Mark], span: int) -> str:
    """A lane's drawing; spans first, so symbols stay on top."""
    ordered = sorted(marks, key=lambda m: (m.until is None, m.kind.startswith("root"), m.at))
    body = "".join(mark_svg(mark, span) for mark in ordered)
    return f'<svg class="ls"><line class="bl" x1="0" x2="100%" y1="50%" y2="50%"/>{body}</svg>'


def lane_html(lane: Lane, span: int) -> str:
    return (
        f'<div class="lane {text(lane.kind)}" data-lane="{text(lane.key)}">'
        f'<span class="ll" title="{text(lane.title)}">{text(lane.label)}</span>'
        f"{_plot(lane.marks, span)}</div>"
    )


def group_html(group: Group, span: int) -> str:
    lanes = "".join(lane_html(lane, span) for lane in group.lanes)
    key = text(group.key)
    if group.summary is None:
        title = f'<div class="gt">{text(group.title)}</div>' if group.title else ""
        return f'<div class="group" data-group="{key}">{title}{lanes}</div>'
    label = f"{text(group.title)} <small>{text(group.note)}</small>"
    return (
        f'<details class="group" data-group="{key}"{" open" if group.open else ""}>'
        f'<summary class="lane sum"><span class="ll" title="{text(group.title)}: '
        f'{text(group.note)}">{label}</span>{_plot(group.summary, span)}</summary>'
        f"{lanes}</details>"
    )


def tick_step(span: int) -> int:
    """The axis step for a view of `span` nanoseconds (past a few years, an even share)."""
    return next((step for step in TICK_STEPS if span / step <= MAX_TICKS), span // MAX_TICKS + 1)


def tick_label(moment_ns: int, step: int) -> str:
    """A tick's time of day (UTC), as precise as the step needs."""
    seconds, fraction = divmod(moment_ns, SECOND)
    clock = datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc)
    if step >= DAY:
        return clock.strftime("%Y-%m-%d")
    if step >= 2 * 3600 * SECOND:  # a view of more than a day: the date too
        return clock.strftime("%m-%d %H:%M")
    if step >= 60 * SECOND:
        return clock.strftime("%H:%M")
    if step >= SECOND:
        return clock.strftime("%H:%M:%S")
    digits = 3 if step >= 10**6 else 6 if step >= 10**3 else 9
    return clock.strftime("%H:%M:%S") + "." + f"{fraction:09d}"[:digits]


def axis_html(timeline: Timeline) -> str:
    """The time axis over the whole window (the script redraws it when zooming)."""
    step = tick_step(timeline.span)
    first = -(-timeline.start_ns // step) * step
    moments = range(first, timeline.end_ns + 1, step)
    ticks = "".join(
        f'<span class="tick" style="left:{_percent(moment - timeline.start_ns, timeline.span)}">'
        f"{tick_label(moment, step)}</span>"
        for moment in moments
        if 100 * (moment - timeline.start_ns) / timeline.span <= LAST_TICK
    )
    return (
        '<div class="axis"><span class="ll axis-label">UTC</span>'
        f'<div class="ticks">{ticks}</div></div>'
    )


def _boundaries(timeline: Timeline) -> str:
    """Dashed lines where restart attempts began, labels staggered so close ones stay legible;
    a solid line where the workload completed (its line on hover)."""
    lines = "".join(
        f'<div class="bd" style="left:{_percent(at, timeline.span)}" data-t="{at}">'
        f'<span style="top:{(number % LABEL_ROWS) * 13}px">{text(label)}</span></div>'
        for number, (at, label) in enumerate(timeline.boundaries)
    )
    if timeline.completed is not None:
        at, line = timeline.completed
        lines += (
            f'<div class="bd done" style="left:{_percent(at, timeline.span)}" data-t="{at}" '
            f'title="{text(line)}"><span style="top:{LABEL_ROWS * 13}px">completed</span></div>'
        )
    return f'<div class="bounds" aria-hidden="true">{lines}</div>'


def legend_html(
    legend: Sequence[tuple[str, str, str]], attempts: bool, completed: bool = False
) -> str:
    """What each mark means, drawn with the marks' own symbols (and the lines across the
    lanes: restart attempts, the completion)."""
    items = "".join(
        f'<span class="key"><svg width="16" height="16"><use href="#s-{text(symbol)}" '
        f'class="{text(classes)}" x="8" y="8"/></svg>{text(label)}</span>'
        for symbol, classes, label in legend
    )
    attempt = '<span class="key"><i class="bd-key"></i>restart attempt</span>' if attempts else ""
    done = '<span class="key"><i class="bd-key done"></i>completed</span>' if completed else ""
    return f'<div class="legend">{items}{attempt}{done}</div>'


def timeline_html(timeline: Timeline) -> str:
    """The whole timeline: symbols, controls, axis, groups of lanes and attempt boundaries."""
    start_ms, sub_ms = divmod(timeline.start_ns, 10**6)
    focus = f' data-focus="{timeline.focus}"' if timeline.focus is not None else ""
    groups = "".join(group_html(group, timeline.span) for group in timeline.groups)
    return (
        f'<svg class="defs" width="0" height="0" aria-hidden="true"><defs>{SYMBOLS}</defs></svg>'
        f"{legend_html(timeline.legend, bool(timeline.boundaries), bool(timeline.completed))}"
        f'<div class="tl {text(timeline.kind)}" data-start-ms="{start_ms}" '
        f'data-start-sub="{sub_ms}" data-span="{timeline.span}"{focus}>'
        f'<div class="controls js-only"></div>{axis_html(timeline)}'
        f'<div class="lanes">{groups}{_boundaries(timeline)}</div></div>'
    )
