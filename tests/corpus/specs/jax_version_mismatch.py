"""A JAX 0.5.1 client against Pathways images built for JAX 0.12.0."""

from __future__ import annotations

from tests.corpus import beats
from tests.corpus.expect import (
    act,
    errors_act,
    finish,
    ref,
    release_versions,
)
from tests.corpus.incident import Incident, Story
from tests.corpus.layouts import next_attempt, release
from tests.corpus.model import Run
from tests.logentry import Entry

STORY = Story(
    slug="jax-version-mismatch",
    seed=1111,
    start="2026-11-23T12:00:00Z",
    title="JAX 0.5.1 client against Pathways images for JAX 0.12.0",
    scenario=11,
    layout="xpk",
    summary=(
        "The client image runs JAX 0.5.1 (logged as System Information: Jax Version: 0.5.1) while "
        "the server and proxy images are 20261108-jax_0.12.0; backend initialization fails with "
        "IFRT Proxy client and server failed to agree on the protocol version (client = [1, 1], "
        "server = [3, 14]) and the JobSet restarts twice with the same error before "
        "ReachedMaxRestarts. The message also contains Unable to initialize backend 'proxy', "
        "which is not scenario 3."
    ),
)
DISAGREE = "failed to agree on the protocol version"
NO_PROTOCOL = beats.traceback_line(
    (
        '  File "/app/finetune.py", line 88, in <module>',
        "    mesh = create_mesh(cfg)",
        '  File "/usr/local/lib/python3.11/site-packages/jax/_src/xla_bridge.py", line 872, in '
        "devices",
        "    return get_backend(backend).devices()",
    ),
    "RuntimeError: Unable to initialize backend 'proxy': INVALID_ARGUMENT: IFRT Proxy client and "
    f"server {DISAGREE}; supported versions: client = [1, 1], server = [3, 14] (set "
    "JAX_PLATFORMS='' to automatically choose an available backend)",
    guess="traceback frames of the user program (the protocol-version message is verbatim)",
)


def attempt(inc: Incident, run: Run, launch: int, reason: str) -> tuple[Entry, int]:
    """The JobSet starts; the client cannot agree on a protocol and exits.

    Returns its traceback and when the attempt was stopped."""
    boot = beats.start_run(inc, run, launch, with_user=False)
    started = beats.user_start(
        inc, run, boot.started[(run.head.name, "jax-tpu")] + inc.between(0.5, 2.0)
    )
    failed_at = max(started, boot.ready) + inc.between(1.0, 3.0)
    failure = beats.client_traceback(inc, run, failed_at, NO_PROTOCOL)[0]
    beats.finish_exit(inc, run, failed_at + inc.between(0.5, 1.0))
    stop = failed_at + inc.between(2.0, 3.0)
    beats.steady(inc, run, boot, default=stop)
    beats.stop_run(inc, run, stop, dead=(f"{run.head.name}/jax-tpu",), reason=reason)
    return failure, stop


def build() -> Incident:
    inc = Incident(STORY)
    run = beats.standard(
        inc, "gemma3-ft", release(image="gemma3-ft:jax0.5.1"), launch=1000.0, decoy_crash=900.0
    )
    run.client_jax = "0.5.1"
    failures, launch = [], run.launch
    for reason in (beats.RESTART, beats.RESTART, "ReachedMaxRestarts"):
        failure, stop = attempt(inc, run, launch, reason)
        failures.append(ref(inc, failure, DISAGREE, scenario=11, source="container"))
        if reason == beats.RESTART:
            run, launch = next_attempt(inc, run), stop + inc.between(15, 30)
    beats.node_noise(inc)
    return finish(
        inc,
        run,
        root=failures[0],
        failures=failures,
        versions=release_versions(run, mismatch=True, jax="0.5.1"),
        method=[
            errors_act(first=failures[0]),
            act("user-workload", contains=[DISAGREE, "Jax Version: 0.5.1"]),
            act("pod-events", contains=["server:20261108-jax_0.12.0", "gemma3-ft:jax0.5.1"]),
            act("summary", contains=[beats.RESTART, "ReachedMaxRestarts"]),
        ],
    )
