"""The client's proxy session ends and nothing in the window says why: only downstream lines."""

from __future__ import annotations

from tests.corpus import beats
from tests.corpus.clock import MS, sec
from tests.corpus.expect import act, errors_act, finish, ref
from tests.corpus.incident import Incident, Story
from tests.corpus.layouts import client_job, fresh_jobset, new_node, next_attempt, release
from tests.corpus.model import PROXY, Run
from tests.corpus.wording import Line
from tests.logentry import Entry

STORY = Story(
    slug="proxy-disconnect-only",
    seed=2121,
    start="2026-11-28T09:00:00Z",
    title="The client's proxy session ends; no line in the window says why",
    scenario=6,
    layout="headless JobSet + client in a plain Job (`main`)",
    summary=(
        "A JAX client in its own Job (sft-actor) trains against a headless Pathways JobSet "
        "(sft-pathways). The pathways-proxy process ends without writing a line and its "
        "container exits with code 1. The client logs what real clients log then: IFRT proxy "
        "server disconnected: UNAVAILABLE: Socket closed (W), Connection to IFRT proxy server "
        "was terminated (E), FAILED_PRECONDITION: GrpcClientSession: writes no longer allowed., "
        "a run of Failed to destroy LoadedExecutable lines and a final JaxRuntimeError; the "
        "client Job fails and the JobSet restarts its Pathways pods. Every line found is "
        "downstream: the earliest one is the root-cause candidate, flagged downstream-only."
    ),
)
CLIENT = "main"
CLIENT_GUESS = (
    "the client's frames, and the file and text after `Failed to destroy LoadedExecutable` and "
    "`GrpcClientSession: writes no longer allowed.`"
)
DISCONNECTED_TEXT = "IFRT proxy server disconnected: UNAVAILABLE: Socket closed"
DISCONNECTED = Line(DISCONNECTED_TEXT, ("grpc_client.cc", 107), letter="W", planted=True)
TERMINATED = Line(
    "Connection to IFRT proxy server was terminated: UNAVAILABLE: Socket closed",
    ("rpc_helper.cc", 56),
    letter="E",
    planted=True,
)
WRITES_REFUSED = Line(
    "FAILED_PRECONDITION: GrpcClientSession: writes no longer allowed.",
    ("grpc_client_session.cc", 183),
    letter="E",
    planted=True,
    guess=CLIENT_GUESS,
)
NOT_DESTROYED = Line(
    "Failed to destroy LoadedExecutable: UNAVAILABLE: Connection to IFRT proxy server was "
    "terminated: UNAVAILABLE: Socket closed",
    ("executable.cc", 512),
    letter="E",
    planted=True,
    guess=CLIENT_GUESS,
)
FINAL = beats.traceback_line(
    (
        '  File "/app/sft/actor.py", line 141, in <module>',
        "    main()",
        '  File "/app/sft/actor.py", line 118, in main',
        "    loss = float(metrics['loss'])",
    ),
    "jax.errors.JaxRuntimeError: UNAVAILABLE: Connection to IFRT proxy server was terminated: "
    "UNAVAILABLE: Socket closed",
    guess=CLIENT_GUESS,
)


def session_ends(inc: Incident, run: Run, at: int) -> list[Entry]:
    """The proxy exits silently; the client's lines as its session dies. Returns them."""
    assert run.client is not None
    beats.container_died(inc, run.head, PROXY, at, 1)
    at += inc.between(0.01, 0.02)
    thread = inc.integer(30000, 40000)
    lines = [inc.log(run.client, CLIENT, at, DISCONNECTED, thread=thread)]
    lines.append(inc.log(run.client, CLIENT, at + 1 * MS, TERMINATED, thread=thread))
    lines.append(inc.log(run.client, CLIENT, at + 4 * MS, WRITES_REFUSED, thread=thread))
    later = at + 6 * MS
    for _ in range(inc.integer(40, 80)):
        later += inc.between(0.0005, 0.003)
        inc.log(run.client, CLIENT, later, NOT_DESTROYED, thread=thread)
    lines += beats.client_traceback(inc, run, later + inc.between(0.05, 0.1), FINAL, per_line=True)
    beats.container_died(inc, run.client, CLIENT, later + inc.between(0.4, 0.7), 1)
    beats.backoff_limit(inc, "sft-actor", later + sec(2))
    return lines


def build() -> Incident:
    inc = Incident(STORY)
    version = release(build="20261106_RC02", image="sft-actor:2026-11-27")
    run = fresh_jobset(
        inc, "sft-pathways", slices=2, hosts=2, version=version, headless=True, itype="tpuv6e:2x4"
    )
    client = client_job(inc, "sft-actor", new_node(inc, "cpu-np"), version.user_image)
    run.client, run.user, run.user_style, run.wrapper = client, CLIENT, "print", False
    beats.decoy_jobset(
        inc, "sft-pathways", version, inc.t0 + inc.between(40, 100), inc.t0 + sec(1300)
    )
    beats.bystander(inc)
    boot = beats.start_run(inc, run, inc.t0 + sec(210))
    ends_at = inc.t0 + sec(1520) + inc.between(0, 20)
    plan = beats.Training(step_time=6.5, save_every=10_000)
    steps = beats.train(inc, run, boot.first_step, ends_at, plan)
    lines = session_ends(inc, run, ends_at)
    stop = ends_at + inc.between(1.5, 2.5)
    beats.steady(inc, run, boot, {f"{run.head.name}/{PROXY}": ends_at}, default=stop)
    beats.stop_run(inc, run, stop, dead=(f"{run.head.name}/{PROXY}",))
    restarted = next_attempt(inc, run)
    boot = beats.start_run(inc, restarted, stop + inc.between(15, 25), with_user=False)
    beats.steady(inc, restarted, boot)
    beats.node_noise(inc)
    root = ref(
        inc, lines[0], DISCONNECTED_TEXT, scenario=6, source="container", downstream_only=True
    )
    writes = "GrpcClientSession: writes no longer allowed"
    return finish(
        inc,
        run,
        workload=["jobset:sft-pathways", "job:sft-actor"],
        root=root,
        symptoms=[ref(inc, lines[1], "Connection to IFRT proxy server was terminated")],
        method=[
            errors_act(first=root, contains=[writes, "Socket closed"]),
            act("user-workload", contains=[DISCONNECTED_TEXT, writes, "Failed to destroy"]),
            act("proxy", absent=["Check failed"]),
            act("summary", contains=[beats.RESTART, "BackoffLimitExceeded"]),
        ],
        extra={"last_step_before_failure": steps[-1][1]},
    )
