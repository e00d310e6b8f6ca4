"""A client that never calls pathwaysutils.initialize(): JAX knows no backend 'proxy'."""

from __future__ import annotations

from tests.corpus import beats
from tests.corpus.expect import act, at_of, errors_act, finish, ref
from tests.corpus.incident import Incident, Story
from tests.corpus.layouts import next_attempt, release
from tests.corpus.model import Run
from tests.corpus.wording import Line
from tests.logentry import Entry

STORY = Story(
    slug="missing-proxy-backend",
    seed=303,
    start="2026-11-18T08:30:00Z",
    title="JAX client without pathwaysutils.initialize(): backend 'proxy' unknown",
    scenario=3,
    layout="Cluster Toolkit (workload-container, python-sidecar)",
    summary=(
        "The Cluster Toolkit JobSet's workload-container never calls pathwaysutils.initialize(), "
        "so JAX raises Unable to initialize backend 'proxy': Backend 'proxy' is not in the list "
        "of known backends (traceback logged one line per entry) while every Pathways component "
        "starts normally; the JobSet restarts three times with the same error and then fails "
        "with ReachedMaxRestarts."
    ),
)
USER = "workload-container"
GUESS = (
    "the user program's own lines and traceback frames (only the final RuntimeError is verbatim)"
)
DOWNLOADING = Line(
    "Downloading tokenizer and dataset index for {run}", form="plain", stream="stdout", guess=GUESS
)
STARTING = Line("Starting SFT run {run} on {itype} x2", form="plain", stream="stdout", guess=GUESS)
UNKNOWN_BACKEND = (
    "Unable to initialize backend 'proxy': Backend 'proxy' is not in the list of known backends"
)
NO_PROXY = beats.traceback_line(
    (
        '  File "/app/sft/train.py", line 311, in <module>',
        "    main()",
        '  File "/app/sft/train.py", line 142, in main',
        '    mesh = jax.make_mesh((2, 8), ("data", "model"))',
        '  File "/usr/local/lib/python3.12/site-packages/jax/_src/mesh_utils.py", line 912, in '
        "make_mesh",
        "    devices = xla_bridge.devices()",
        '  File "/usr/local/lib/python3.12/site-packages/jax/_src/xla_bridge.py", line 1034, in '
        "backends",
        "    raise RuntimeError(err_msg)",
    ),
    f"RuntimeError: {UNKNOWN_BACKEND}: ['cpu', 'tpu', 'cuda']. (set JAX_PLATFORMS='' to "
    "automatically choose an available backend)",
    guess=GUESS,
)


def attempt(inc: Incident, run: Run, launch: int, reason: str) -> tuple[list[Entry], int]:
    """Pathways starts; the client fails at its first JAX call. Returns its traceback lines
    and when the JobSet stopped the attempt."""
    boot = beats.start_run(inc, run, launch, with_user=False)
    at = boot.started[(run.head.name, USER)] + inc.between(1.0, 2.0)
    inc.log(run.head, USER, at, beats.JAX_VERSIONS, jax=run.version.jax)
    inc.log(run.head, USER, at + inc.between(0.2, 0.5), DOWNLOADING, run=run.name)
    at = max(at, boot.ready) + inc.between(15.0, 35.0)
    inc.log(run.head, USER, at, STARTING, run=run.name, itype=run.instance_type)
    lines = beats.client_traceback(inc, run, at + inc.between(0.5, 1.5), NO_PROXY, per_line=True)
    beats.finish_exit(inc, run, at_of(lines[-1]) + inc.between(0.3, 0.8))
    stop = at_of(lines[-1]) + inc.between(2.0, 3.5)
    beats.steady(inc, run, boot, default=stop)
    beats.stop_run(inc, run, stop, dead=(f"{run.head.name}/{USER}",), reason=reason)
    return lines, stop


def build() -> Incident:
    inc = Incident(STORY)
    inc.new_kubelet = False
    version = release(jax="0.11.2", build="20261013_RC00", image="qwen-sft:2026-11-17")
    run = beats.standard(
        inc, "qwen-sft", version, layout="toolkit", sidecar=True, launch=930.0, decoy_crash=700.0
    )
    tracebacks, launch = [], run.launch
    for reason in (beats.RESTART,) * 3 + ("ReachedMaxRestarts",):
        lines, stop = attempt(inc, run, launch, reason)
        tracebacks.append(lines)
        if reason == beats.RESTART:
            run, launch = next_attempt(inc, run), stop + inc.between(15, 30)
    beats.node_noise(inc)
    failures = [
        ref(inc, lines[-1], "Unable to initialize backend 'proxy'", scenario=3, source="container")
        for lines in tracebacks
    ]
    return finish(
        inc,
        run,
        root=failures[0],
        failures=failures,
        method=[
            errors_act(first=ref(inc, tracebacks[0][0], "Traceback (most recent call last):")),
            act("user-workload", contains=[UNKNOWN_BACKEND]),
            act("pathways-rm", contains=["2/2 Pathways Slices Now Ready"]),
            act("summary", contains=[beats.RESTART, "ReachedMaxRestarts"]),
        ],
    )
