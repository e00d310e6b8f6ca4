"""Large incidents, generated at test time: JobSets of 1,024 and 4,096 TPU hosts (and of 16,
for the HTML report's size budget).

Their pods started before the window (so it holds no start-up or Scheduled
lines), and only the window's entries are written, as a log sink writes them:
gzipped JSON Lines, shuffled within each minute. Each comes with what was
planted: the first host to fail (or go quiet), when, and the hosts that failed.

- cascade: one worker hits a fatal check; every other worker loses its peer
  in 3 to 8 lines; the RM and the client follow; the JobSet stops the attempt.
  In the late-peers cascade the JobSet stops the attempt 3 s after the crash,
  and the workers report the lost peer only when its 10 s timeout runs out,
  after their SIGTERM. The dense cascade's workers log three times as often (about 62,000
  entries in the hour), for the offline speed benchmark.
- silent hang: one worker (in a middle slice) logs its last line 35 minutes
  before the end; the client's steps stop seconds later; everyone else keeps
  logging to the end.
- unseen hang: one worker logs its last line before the window starts; the
  client's steps stop a minute into the window; everyone else keeps logging.
- restart hang: one worker hits a fatal check 20 minutes in and the JobSet
  restarts; the new attempt trains until one of its workers (in another slice)
  logs its last line 40 minutes in; the client's steps stop seconds later.
- slice hang: every worker of one slice logs its last line within two seconds,
  20 minutes before the end; the client's steps stop seconds later.
- pull fail: the JobSet starts two minutes into the window, its thousands of
  start-up events first; one worker's image cannot be pulled, so the others
  wait for it.
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from tests.corpus import beats
from tests.corpus.beats.failures import PIPE_CLOSED_RUNNING, lost_peer
from tests.corpus.clock import MS, fmt_ts, sec
from tests.corpus.incident import Incident, Story
from tests.corpus.layouts import next_attempt, release
from tests.corpus.model import WORKER, Boot, Pod, Run
from tests.corpus.specs.lost_connection_to_peer import CHIP_HALTED
from tests.corpus.writer import write_json_lines
from tests.logentry import Entry

PEER_LINES = (3, 8)
PERIODIC_WORKER = beats.EXECUTED


@dataclasses.dataclass(frozen=True)
class LargeSpec:
    """One large incident: its shape, what happens, and to which host (slice, host)."""

    name: str
    slices: int
    hosts: int
    kind: str  # "cascade", "silent-hang", "unseen-hang", "restart-hang", "slice-hang" or
    # "pull-fail"
    first: tuple[int, int]
    seed: int
    late_peers: bool = False
    worker_period: tuple[float, float] | None = None  # seconds between a worker's status lines


@dataclasses.dataclass(frozen=True)
class Planted:
    """What a large incident planted, for the tests' expectations."""

    jobset: str
    start: str
    end: str
    root_pod: str | None
    root_host: str  # "<slice>/<host>"
    root_time: str
    root_contains: str
    failing_pods: frozenset[str]
    quiet: bool

    def target(self) -> tuple[str, ...]:
        """The flags that select the incident's JobSet and window."""
        return (
            f"--jobset_name={self.jobset}",
            f"--start_time={self.start}",
            f"--end_time={self.end}",
        )


LARGE = {
    spec.name: spec
    for spec in (
        LargeSpec("cascade-16", 4, 4, "cascade", (2, 1), 2001),
        LargeSpec("cascade-1024", 16, 64, "cascade", (11, 37), 11037),
        LargeSpec("silent-hang-1024", 16, 64, "silent-hang", (7, 21), 7021),
        LargeSpec("unseen-hang-1024", 16, 64, "unseen-hang", (9, 5), 9005),
        # The first host of the first slice: its slice and index are the head pod's too.
        LargeSpec("first-host-hang-1024", 16, 64, "silent-hang", (0, 0), 1),
        LargeSpec("first-host-unseen-1024", 16, 64, "unseen-hang", (0, 0), 2),
        LargeSpec("cascade-4096", 64, 64, "cascade", (40, 12), 40012),
        LargeSpec("late-peers-1024", 16, 64, "cascade", (6, 33), 6033, late_peers=True),
        # As many entries (about 62,000) as the hour the offline speed goal names: a status
        # line every 30 to 40 s from every worker until the crash.
        LargeSpec("dense-cascade-1024", 16, 64, "cascade", (11, 37), 11037, worker_period=(30, 40)),
        LargeSpec("restart-hang-1024", 16, 64, "restart-hang", (12, 50), 12050),
        LargeSpec("pull-fail-1024", 16, 64, "pull-fail", (6, 40), 6040),
        LargeSpec("slice-hang-1024", 16, 64, "slice-hang", (7, 0), 7000),
    )
}
JOBSET = "big-train"


def _scene(spec: LargeSpec) -> tuple[Incident, Run]:
    """A JobSet of slices x hosts, not started yet."""
    story = Story(
        slug=spec.name,
        seed=spec.seed,
        start="2026-12-01T08:00:00Z",
        title=f"{spec.kind} of a {spec.slices}x{spec.hosts} JobSet",
        scenario=None,
        layout="xpk",
        summary=__doc__.splitlines()[0],
    )
    inc = Incident(story)
    run = beats.standard(
        inc, JOBSET, release(), slices=spec.slices, hosts=spec.hosts, itype="tpuv6e:8x8"
    )
    return inc, run


def _started(inc: Incident, run: Run) -> Boot:
    """The JobSet started ten minutes before the window (and trains, as its builder says)."""
    return beats.start_run(inc, run, inc.t0 - sec(600))


def _planted(
    inc: Incident,
    root_pod: str | None,
    root_host: str,
    root_time: str,
    root_contains: str,
    failing_pods: frozenset[str],
    quiet: bool,
) -> Planted:
    """What an incident of the JobSet planted, over its whole window."""
    root = (root_pod, root_host, root_time, root_contains)
    return Planted(JOBSET, fmt_ts(inc.t0), fmt_ts(inc.t1), *root, failing_pods, quiet)


def _pod(run: Run, where: tuple[int, int]) -> Pod:
    return run.workers[where[0]][where[1]]


def _cascade(inc: Incident, run: Run, spec: LargeSpec) -> Planted:
    boot = _started(inc, run)
    dead = _pod(run, spec.first)
    crash_at = inc.t0 + sec(1700) + inc.between(0, 20)
    steps_until = crash_at
    beats.train(inc, run, boot.first_step, steps_until, beats.Training(step_time=9.0))
    periods = {WORKER: spec.worker_period} if spec.worker_period else None
    beats.steady(inc, run, boot, default=crash_at, periods=periods)
    crash = beats.check_failure(inc, dead, WORKER, crash_at, CHIP_HALTED, trace_us=300)
    place = {"peer": f"{dead.node.name}:8471", "slice": dead.slice, "host": dead.host}
    at = crash_at + (sec(10) if spec.late_peers else 30 * MS)
    for pod in run.flat_workers():
        if pod is dead:
            continue
        line_at = at + inc.between(0.0, 0.5)
        for _ in range(inc.integer(*PEER_LINES)):
            row = PIPE_CLOSED_RUNNING if pod.slice == dead.slice else beats.PEER_LOST
            lost = lost_peer(inc, dead.node, pod.node, line_at) if row is beats.PEER_LOST else {}
            inc.log(pod, WORKER, line_at, row, **place, **lost)
            line_at += inc.between(0.05, 0.6)
    beats.worker_loss(inc, run, dead, crash_at)
    stop = crash_at + sec(3 if spec.late_peers else 6)
    beats.stop_run(
        inc,
        run,
        stop,
        dead=(f"{dead.name}/{WORKER}",),
        first_failed=f"{JOBSET}-worker-{dead.slice}",
    )
    return _planted(
        inc,
        dead.name,
        f"{dead.slice}/{dead.host}",
        crash["timestamp"],
        "Check failed",
        frozenset(p.name for p in run.flat_workers()),
        False,
    )


def _hang(inc: Incident, run: Run, spec: LargeSpec) -> Planted:
    boot = _started(inc, run)
    quiet_pod = _pod(run, spec.first)
    if spec.kind == "silent-hang":
        quiet_at = inc.t1 - sec(35 * 60) + inc.between(0, 10)
    else:
        quiet_at = inc.t0 - sec(150) + inc.between(0, 10)
    beats.steady(inc, run, boot, {quiet_pod.name: quiet_at - sec(1)})
    last = inc.log(quiet_pod, WORKER, quiet_at, PERIODIC_WORKER, **beats.worker_status(inc))
    stop = max(quiet_at, inc.t0) + sec(60) + inc.between(0, 5)
    beats.train(inc, run, boot.first_step, stop, beats.Training(step_time=9.0))
    unseen = spec.kind == "unseen-hang"
    return _planted(
        inc,
        None if unseen else quiet_pod.name,
        f"{quiet_pod.slice}/{quiet_pod.host}",
        fmt_ts(inc.t0) if unseen else last["timestamp"],
        "" if unseen else "Executed",
        frozenset(),
        True,
    )


def _restart_hang(inc: Incident, run: Run, spec: LargeSpec) -> Planted:
    boot = _started(inc, run)
    dead = _pod(run, (3, 10))
    crash_at = inc.t0 + sec(1200) + inc.between(0, 20)
    beats.train(inc, run, boot.first_step, crash_at, beats.Training(step_time=9.0))
    beats.steady(inc, run, boot, default=crash_at)
    beats.check_failure(inc, dead, WORKER, crash_at, CHIP_HALTED, trace_us=300)
    beats.worker_loss(inc, run, dead, crash_at)
    stop = crash_at + sec(6)
    beats.stop_run(inc, run, stop, dead=(f"{dead.name}/{WORKER}",))
    again = next_attempt(inc, run)
    boot = beats.start_run(inc, again, stop + inc.between(20, 35))
    quiet_pod = _pod(again, spec.first)
    quiet_at = inc.t0 + sec(2400) + inc.between(0, 10)
    beats.steady(inc, again, boot, {quiet_pod.name: quiet_at - sec(1)})
    last = inc.log(quiet_pod, WORKER, quiet_at, PERIODIC_WORKER, **beats.worker_status(inc))
    beats.train(inc, again, boot.first_step, quiet_at + sec(40), beats.Training(step_time=9.0))
    return _planted(
        inc,
        quiet_pod.name,
        f"{quiet_pod.slice}/{quiet_pod.host}",
        last["timestamp"],
        "Executed",
        frozenset(),
        True,
    )


def _slice_hang(inc: Incident, run: Run, spec: LargeSpec) -> Planted:
    """Which of the slice's hosts went quiet first depends on when each was due, so
    `root_host` is only the slice."""
    boot = _started(inc, run)
    quiet = run.workers[spec.first[0]]
    quiet_at = inc.t1 - sec(20 * 60)
    stops = {pod.name: quiet_at + inc.between(0, 2) for pod in quiet}
    beats.steady(inc, run, boot, {name: at - sec(1) for name, at in stops.items()})
    for pod in quiet:
        inc.log(pod, WORKER, stops[pod.name], PERIODIC_WORKER, **beats.worker_status(inc))
    beats.train(inc, run, boot.first_step, quiet_at + sec(30), beats.Training(step_time=9.0))
    return _planted(
        inc,
        None,
        str(spec.first[0]),
        fmt_ts(quiet_at),
        "Executed",
        frozenset(stops),
        True,
    )


def _pull_fail(inc: Incident, run: Run, spec: LargeSpec) -> Planted:
    dead = _pod(run, spec.first)
    at = inc.t0 + sec(120)
    run.workers[dead.slice or 0].remove(dead)
    boot = beats.start_run(inc, run, at, register=False)  # the RM waits for the missing host
    first = beats.pull_fails(inc, dead, at + sec(1))
    beats.steady(inc, run, boot)
    return _planted(
        inc,
        dead.name,
        f"{dead.slice}/{dead.host}",
        first["timestamp"],
        "Failed to pull image",
        frozenset({dead.name}),
        False,
    )


BUILDERS = {
    "cascade": _cascade,
    "silent-hang": _hang,
    "unseen-hang": _hang,
    "restart-hang": _restart_hang,
    "slice-hang": _slice_hang,
    "pull-fail": _pull_fail,
}


def build(spec: LargeSpec) -> tuple[Incident, Planted]:
    inc, run = _scene(spec)
    planted = BUILDERS[spec.kind](inc, run, spec)
    inc.rows = [row for row in inc.rows if inc.t0 <= row[0] <= inc.t1]
    return inc, planted


def _fingerprint() -> str:
    """Changes whenever the corpus engine does, so a cached export is never stale."""
    digest = hashlib.sha256()
    for path in sorted((Path(__file__).parent).rglob("*.py")):
        digest.update(path.read_bytes())
    digest.update((Path(__file__).parent.parent / "logentry.py").read_bytes())
    return digest.hexdigest()[:16]


def export(name: str) -> tuple[Path, Planted]:
    """The large incident as gzipped JSON Lines in a cache folder, written once per engine."""
    folder = Path(tempfile.gettempdir()) / "pathways-workload-large" / _fingerprint()
    folder.mkdir(parents=True, exist_ok=True)
    path, facts = folder / f"{name}.jsonl.gz", folder / f"{name}.planted.json"
    if not (path.exists() and facts.exists()):
        inc, planted = build(LARGE[name])
        partial = folder / f"{name}.{os.getpid()}.partial.gz"  # test workers may race
        write_json_lines(partial, inc)
        told = folder / f"{name}.{os.getpid()}.planted.partial"
        told.write_text(json.dumps(dataclasses.asdict(planted), default=sorted))
        told.replace(facts)
        partial.replace(path)
    record = json.loads(facts.read_text())
    return path, Planted(**{**record, "failing_pods": frozenset(record["failing_pods"])})


def _without_completion_index(entry: Entry) -> Entry:
    """The hosts of slices 0 to 3 without their completion index label, as Kubernetes before
    1.28 labels an Indexed Job's pods (it sets the index as an annotation only)."""
    found = entry.get("labels", {})
    if found.get("k8s-pod/jobset_sigs_k8s_io/job-index") in ("0", "1", "2", "3"):
        found.pop("k8s-pod/batch_kubernetes_io/job-completion-index", None)
    return entry


def _host(entry: Entry) -> tuple[str, str] | None:
    """(slice, host) of the JobSet's TPU host an entry comes from, if it is one's."""
    found = entry.get("labels", {})
    if found.get("k8s-pod/jobset_sigs_k8s_io/jobset-name") != JOBSET:
        return None
    return (
        found.get("k8s-pod/jobset_sigs_k8s_io/job-index", ""),
        found.get("k8s-pod/batch_kubernetes_io/job-completion-index", ""),
    )


def _second_host_quiet(entry: Entry) -> Entry | None:
    """Host 12/40 logs nothing after 08:40 either (it went quiet after the first one)."""
    if _host(entry) != ("12", "40"):
        return entry
    return None if str(entry.get("timestamp")) > "2026-12-01T08:40" else entry


def _quiet_earlier(entry: Entry) -> Entry | None:
    """Host 7/21 (the silent hang's quiet host) logs nothing after 08:21: its last line comes
    more than five minutes before the last step, its next one was due within them."""
    if _host(entry) != ("7", "21"):
        return entry
    return None if str(entry.get("timestamp")) > "2026-12-01T08:21" else entry


def _crash_later(entry: Entry) -> Entry:
    """Host 3/3's worker lines from 08:48 to 08:52 are a chip halting, 20 minutes after the
    steps stopped."""
    if _host(entry) != ("3", "3") or "textPayload" not in entry:
        return entry
    if not "2026-12-01T08:48" <= str(entry.get("timestamp")) < "2026-12-01T08:52":
        return entry
    text = "Check failed: !chip_halted TPU chip 2 halted with an uncorrectable HBM ECC error"
    return {**entry, "severity": "CRITICAL", "textPayload": text}


# Changes to a large incident's export, by name: each entry as the variant logs it (None:
# the variant does not log it).
VARIANTS: dict[str, Callable[[Entry], Entry | None]] = {
    "no-completion-index": _without_completion_index,
    "second-host-quiet": _second_host_quiet,
    "crash-later": _crash_later,
    "quiet-earlier": _quiet_earlier,
}


def variant(name: str, change: str) -> tuple[Path, Planted]:
    """The large incident with one of VARIANTS applied to each entry, cached as `export` is."""
    source, planted = export(name)
    path = source.with_name(f"{name}.{change}.jsonl.gz")
    if not path.exists():
        partial = source.with_name(f"{name}.{change}.{os.getpid()}.partial.gz")
        with (
            gzip.open(source, "rt", encoding="utf-8") as lines,
            gzip.open(partial, "wt", encoding="utf-8") as out,
        ):
            for line in lines:
                changed = VARIANTS[change](json.loads(line))
                if changed is not None:
                    out.write(json.dumps(changed) + "\n")
        partial.replace(path)
    return path, planted
