"""The IFRT proxy crashes; the JAX client in its own Job sees writes no longer allowed."""

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
    slug="proxy-connection-terminated",
    seed=606,
    start="2026-11-19T15:30:00Z",
    title="IFRT proxy crashes; the separate JAX client Job sees writes no longer allowed",
    scenario=6,
    layout="headless JobSet + client in a plain Job (`main`)",
    summary=(
        "The JAX client runs in its own Job (rl-actor) against a headless Pathways JobSet "
        "(rl-pathways); the pathways-proxy hits a fatal Check failed and exits, the client logs "
        "Connection to IFRT proxy server was terminated and then FAILED_PRECONDITION: "
        "GrpcClientSession: writes no longer allowed and fails, and the JobSet restarts its "
        "Pathways pods (attempt 1) without a client."
    ),
)
CLIENT = "main"
UNKNOWN_HANDLE_TEXT = "Check failed: handle_it != handles_.end()"
UNKNOWN_HANDLE = Line(
    f"{UNKNOWN_HANDLE_TEXT} Unknown array handle 881273 in session 1",
    ("array_store.cc", 214),
    letter="F",
    planted=True,
    guess="the proxy's fatal `Check failed: handle_it != handles_.end() Unknown array handle ...` "
    "(array_store.cc)",
)
TERMINATED = Line(
    "Connection to IFRT proxy server was terminated: CANCELLED: Cancelled",
    ("rpc_helper.cc", 56),
    letter="E",
    form="raw",
    planted=True,
)
WRITES_REFUSED = beats.traceback_line(
    (
        '  File "/app/rl/actor.py", line 233, in <module>',
        "    run_actor_loop(cfg)",
        '  File "/app/rl/actor.py", line 190, in run_actor_loop',
        "    if params.is_deleted():",
    ),
    "jax.errors.JaxRuntimeError: INTERNAL: Internal error from proxy server during "
    "Array::IsDeleted(): UNAVAILABLE:Connection to IFRT proxy server was terminated: "
    "FAILED_PRECONDITION: GrpcClientSession: writes no longer allowed.",
    guess="the client program's frames and its plain `completed step:` lines",
)


def proxy_crashes(inc: Incident, run: Run, at: int) -> tuple[Entry, Entry, Entry]:
    """The proxy's fatal check; the client's session ends and the client Job fails.

    Returns the check, the client's terminated line and its traceback."""
    assert run.client is not None
    crash = beats.check_failure(inc, run.head, PROXY, at, UNKNOWN_HANDLE, trace_us=250)
    inc.log(run.head, PROXY, at + 3 * MS, beats.SIGABRT, tid=93, cpu=7)
    beats.container_died(inc, run.head, PROXY, at + inc.between(0.15, 0.3), 134)
    terminated_at = at + inc.between(0.015, 0.03)
    thread = inc.integer(30000, 40000)
    terminated = inc.log(run.client, CLIENT, terminated_at, TERMINATED, thread=thread)
    refused = beats.client_traceback(inc, run, at + inc.between(0.12, 0.2), WRITES_REFUSED)[0]
    beats.container_died(inc, run.client, CLIENT, at + inc.between(0.6, 0.9), 1)
    beats.backoff_limit(inc, "rl-actor", at + sec(2))
    return crash, terminated, refused


def build() -> Incident:
    inc = Incident(STORY)
    version = release(build="20261106_RC02", image="rl-actor:2026-11-19")
    run = fresh_jobset(
        inc, "rl-pathways", slices=2, hosts=2, version=version, headless=True, itype="tpuv6e:2x4"
    )
    client = client_job(inc, "rl-actor", new_node(inc, "cpu-np"), version.user_image)
    run.client, run.user, run.user_style, run.wrapper = client, CLIENT, "print", False
    decoy_start = inc.t0 + inc.between(40, 100)
    beats.decoy_jobset(inc, "rl-pathways", version, decoy_start, inc.t0 + sec(1320))
    beats.bystander(inc)
    boot = beats.start_run(inc, run, inc.t0 + sec(200))
    crash_at = inc.t0 + sec(1500) + inc.between(0, 20)
    plan = beats.Training(step_time=7.5, save_every=10_000)
    steps = beats.train(inc, run, boot.first_step, crash_at, plan)
    crash, terminated, refused = proxy_crashes(inc, run, crash_at)
    stop = crash_at + inc.between(1.5, 2.5)
    beats.steady(inc, run, boot, {f"{run.head.name}/{PROXY}": crash_at}, default=stop)
    beats.stop_run(inc, run, stop, dead=(f"{run.head.name}/{PROXY}",))
    restarted = next_attempt(inc, run)
    boot = beats.start_run(inc, restarted, stop + inc.between(15, 25), with_user=False)
    beats.steady(inc, restarted, boot)
    beats.node_noise(inc)
    root = ref(inc, crash, UNKNOWN_HANDLE_TEXT, scenario=None, source="container")
    writes, terminated_text = (
        "writes no longer allowed",
        "Connection to IFRT proxy server was terminated",
    )
    return finish(
        inc,
        run,
        workload=["jobset:rl-pathways", "job:rl-actor"],
        root=root,
        symptoms=[
            ref(inc, terminated, terminated_text),
            ref(inc, refused, f"GrpcClientSession: {writes}"),
        ],
        method=[
            errors_act(first=root, contains=[f"GrpcClientSession: {writes}"]),
            act(
                "proxy", contains=[UNKNOWN_HANDLE_TEXT, "IFRT proxy server started with status OK"]
            ),
            act("user-workload", contains=[terminated_text, writes]),
            act("summary", contains=[beats.RESTART, "BackoffLimitExceeded"]),
        ],
        extra={"last_step_before_failure": steps[-1][1]},
    )
