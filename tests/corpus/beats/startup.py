"""Start-up of a Pathways deployment: every component's first lines, registration, readiness.

`start_run` schedules every pod of a run and logs the normal start-up of the RM, the proxy,
each worker, the sidecars and the JAX client, in the order Pathways does it.
"""

from __future__ import annotations

from tests.corpus.beats.pods import job_created_events, start_pod
from tests.corpus.clock import US, date_line, sec
from tests.corpus.incident import Incident
from tests.corpus.model import PROXY, RM, WORKER, Boot, Pod, Run
from tests.corpus.wording import (
    BUILD_GUESS,
    MAXTEXT_GUESS,
    PROXY_GUESS,
    REGISTRATION_GUESS,
    Line,
)
from tests.logentry import DEMO

ABSL_PRELUDE = Line(
    "WARNING: All log messages before absl::InitializeLog() is called are written to STDERR",
    form="plain",
)
BUILD_LABEL = Line("Build label: {label}", ("build_info.cc", 43), guess=BUILD_GUESS)
ARGV = Line("argv[{index}]: '{arg}'", ("server_main.cc", 219), guess=BUILD_GUESS)
RM_SERVING = Line("Pathways Server serving on [::]:29001", ("server_lib.cc", 1473))
CONNECTING = Line(
    "Connecting to resource manager at {address}:29001", ("proxy_server.cc", 98), guess=PROXY_GUESS
)
PROXY_STARTED = Line("IFRT proxy server started with status OK", ("proxy_server.cc", 125))
MEGASCALE_STARTING = Line("Initializing MegaScale transport.", ("megascale_context.cc", 398))
MEGASCALE_STARTED = Line("MegaScale transport initialized.", ("megascale_context.cc", 412))
TPU_SYSTEM = Line("tpu::System initialized", ("tpu_system.cc", 77))
WORKER_SERVING = Line("Pathways Server serving on [::]:29005", ("server_lib.cc", 1473))
REGISTERED = Line(
    "Registered with resource manager at {address}:29001 as slice {slice} host {host}",
    ("resource_manager_client.cc", 96),
    guess=REGISTRATION_GUESS,
)
REGISTERED_WORKER = Line(
    "Registered worker {node}:29005 for slice {slice} (host {host} of {hosts})",
    ("resource_manager.cc", 612),
    guess=REGISTRATION_GUESS,
)
PLACED = Line(
    "Transition slice {slice} unplaced -> placed", ("placement.cc", 233), guess=REGISTRATION_GUESS
)
SLICES_READY = Line(
    "*** {ready}/{slices} Pathways Slices Now Ready ***", ("multi_job_allocator.cc", 1063)
)
SIDECAR_LISTENING = Line(
    "Colocated Python sidecar listening on [::]:50051",
    form="plain",
    stream="stdout",
    guess="the colocated Python sidecar's start-up line (`python-sidecar`, "
    "`colocated-python-sidecar`)",
)
SESSION_ACCEPTED = Line(
    "Starting new IFRT session 1 for peer 'ipv4:{ip}:{port}' with metadata=version {{ "
    "protocol_version: 14 }}",
    ("grpc_service_impl.cc", 120),
    guess=PROXY_GUESS,
)
XPK_START = Line("XPK Start: {date}", form="plain", stream="stdout")
PATHWAYSUTILS = Line(
    "WARNING:absl:pathwaysutils: Detected Pathways-on-Cloud backend. Applying changes.",
    form="plain",
)
JAX_VERSIONS = Line("jax {jax}, jaxlib {jax}", form="plain", stream="stdout")
NO_TENSORFLOW = Line(
    "WARNING:absl:Tensorflow library not found, tensorflow.io.gfile operations will use native "
    "shim calls. GCS paths (i.e. 'gs://...') cannot be accessed.",
    form="plain",
)
JAX_VERSION = Line(
    "System Information: Jax Version: {jax}", ("max_utils.py", 711), guess=MAXTEXT_GUESS
)
JAXLIB_VERSION = Line(
    "System Information: Jaxlib Version: {jax}", ("max_utils.py", 712), guess=MAXTEXT_GUESS
)
CONFIG_PARAM = Line("Config param {key}: {value}", ("pyconfig.py", 1192), guess=MAXTEXT_GUESS)
MAXTEXT_CONFIG = (
    ("per_device_batch_size", "2.0"),
    ("max_target_length", "8192"),
    ("steps", "20000"),
    ("checkpoint_period", "100"),
    ("enable_checkpointing", "True"),
)
NO_CHECKPOINT = Line(
    "No existing checkpoints found, not restoring checkpoint.", ("checkpointing.py", 276)
)
RESTORING = Line(
    "Restoring checkpoint from gs://{project}-ckpt/{run}/checkpoints/{step}.",
    ("checkpointing.py", 301),
)
WAITING_FOR_RM = Line(
    "Waiting for resource manager at {address}:29001 (attempt {attempt})",
    ("resource_manager_client.cc", 71),
    letter="W",
    guess="worker `Waiting for resource manager at ... (attempt N)`",
)
WAITING_FOR_DEVICES = Line(
    "Waiting for the Pathways backend to report its devices",
    ("max_utils.py", 402),
    guess="the client's `Waiting for the Pathways backend to report its devices` line",
)


def prelude(
    inc: Incident, pod: Pod, container: str, at: int, binary: str, args: list[str], label: str
) -> int:
    """What every Pathways binary prints first: the absl notice, Build label, argv echo."""
    inc.log(pod, container, at, ABSL_PRELUDE)
    at += inc.between(0.002, 0.03)
    inc.log(pod, container, at, BUILD_LABEL, label=label)
    for index, arg in enumerate([binary, *args]):
        at += inc.between(0.00003, 0.0003)
        inc.log(pod, container, at, ARGV, index=index, arg=arg)
    return at


def rm_prelude(inc: Incident, run: Run, at: int, slices: int) -> int:
    """pathways-rm's first lines, with its flags."""
    args = [
        "--server_port=29001",
        "--node_type=resource_manager",
        f"--instance_count={slices}",
        f"--instance_type={run.instance_type}",
        f"--gcs_scratch_location={run.scratch}",
    ]
    return prelude(inc, run.head, RM, at, "/usr/pathways/server", args, run.version.server_label)


def rm_start(inc: Incident, run: Run, at: int, slices: int) -> int:
    """pathways-rm start-up up to `serving on [::]:29001`. Returns the serving time."""
    at = rm_prelude(inc, run, at, slices) + inc.between(0.9, 2.4)
    inc.log(run.head, RM, at, RM_SERVING)
    return at


def proxy_start(inc: Incident, run: Run, at: int, rm_serving: int | None) -> int:
    """pathways-proxy start-up; it serves once the RM does (never, for None). Returns when it
    started serving, or when it began to wait."""
    args = [
        "--server_port=29000",
        f"--resource_manager_address={run.head_addr}:29001",
        f"--gcs_scratch_location={run.scratch}",
    ]
    if run.elastic:
        args.append(f"--num_elastic_slices={run.elastic}")
    binary, label = "/usr/pathways/proxy_server", run.version.proxy_label
    at = prelude(inc, run.head, PROXY, at, binary, args, label)
    inc.log(run.head, PROXY, at + inc.between(0.01, 0.05), CONNECTING, address=run.head_addr)
    if rm_serving is None:
        return at
    at = max(at + inc.between(0.8, 1.6), rm_serving + inc.between(0.05, 0.3))
    inc.log(run.head, PROXY, at, PROXY_STARTED)
    return at


def worker_prelude(inc: Incident, run: Run, pod: Pod, at: int) -> int:
    """pathways-worker's first lines, with its flags."""
    args = [
        "--server_port=29005",
        f"--resource_manager_address={run.head_addr}:29001",
        f"--gcs_scratch_location={run.scratch}",
    ]
    return prelude(inc, pod, WORKER, at, "/usr/pathways/server", args, run.version.server_label)


def worker_start(inc: Incident, run: Run, pod: Pod, at: int) -> int:
    """pathways-worker start-up up to `serving on [::]:29005`. Returns the serving time."""
    at = worker_prelude(inc, run, pod, at)
    for row, gap in (
        (MEGASCALE_STARTING, (0.3, 1.5)),
        (MEGASCALE_STARTED, (0.2, 0.9)),
        (TPU_SYSTEM, (1.5, 4.5)),
        (WORKER_SERVING, (0.2, 0.8)),
    ):
        at += inc.between(*gap)
        inc.log(pod, WORKER, at, row)
    return at


def register_worker(inc: Incident, run: Run, pod: Pod, at: int, hosts: int) -> int:
    """The worker registers with the RM, which logs it. Returns the RM's time."""
    place = {"slice": pod.slice, "host": pod.host}
    inc.log(pod, WORKER, at, REGISTERED, address=run.head_addr, **place)
    at += inc.between(0.0004, 0.004)
    inc.log(run.head, RM, at, REGISTERED_WORKER, node=pod.node.name, hosts=hosts, **place)
    return at


def sidecar_start(inc: Incident, pod: Pod, container: str, at: int) -> int:
    inc.log(pod, container, at, ABSL_PRELUDE)
    at += inc.between(0.8, 2.5)
    inc.log(pod, container, at, SIDECAR_LISTENING)
    return at


def user_start(inc: Incident, run: Run, at: int) -> int:
    """The JAX client's start-up lines (xpk wrapper, absl notices, versions, config)."""
    pod, container = run.client, run.user
    assert pod is not None and container is not None
    jax = run.client_jax or run.version.jax
    if run.logs_wrapper:
        inc.log(pod, container, at, XPK_START, date=date_line(at))
        at += inc.between(2.0, 5.0)
    inc.log(pod, container, at, PATHWAYSUTILS)
    at += inc.between(0.01, 0.2)
    if run.user_style in ("print", "json"):
        inc.log(pod, container, at, JAX_VERSIONS, jax=jax)
        return at
    inc.log(pod, container, at, NO_TENSORFLOW)
    at += inc.between(0.3, 1.2)
    run.client_thread = inc.integer(130_000_000_000_000, 140_999_999_999_999)
    inc.log(pod, container, at, JAX_VERSION, jax=jax)
    inc.log(pod, container, at + 40 * US, JAXLIB_VERSION, jax=jax)
    at += inc.between(0.1, 0.4)
    for key, value in MAXTEXT_CONFIG:
        at += inc.between(0.00005, 0.0004)
        inc.log(pod, container, at, CONFIG_PARAM, key=key, value=value)
    return at


def connect_client(inc: Incident, run: Run, at: int) -> int:
    """The proxy accepts the client's session."""
    assert run.client is not None
    port = inc.integer(33000, 60999)
    inc.log(run.head, PROXY, at, SESSION_ACCEPTED, ip=run.client.node.ip, port=port)
    return at


def start_run(
    inc: Incident,
    run: Run,
    at: int,
    *,
    register: bool = True,
    with_user: bool = True,
    restore_step: int | None = None,
    skip: tuple[str, ...] = (),
) -> Boot:
    """Schedule and start every pod of a run and log each component's normal start-up.

    Without `register`, workers do not register (and no slice gets ready); `skip` names
    worker pods whose server does not start; without `with_user`, the client's lines are
    left to the caller."""
    boot = Boot()
    job_created_events(inc, run, at)
    for pod in run.pods():
        lead = inc.between(0.2, 1.5) if pod is run.head else inc.between(0.3, 3.0)
        for container, started in start_pod(inc, pod, at + lead).items():
            boot.started[(pod.name, container)] = started
    start_head(inc, run, boot)
    registered = start_workers(inc, run, boot, register=register, skip=skip)
    if not register:
        return boot
    place_slices(inc, run, boot, registered)
    if with_user and run.user and run.client is not None:
        start_client(inc, run, boot, restore_step)
    return boot


def start_head(inc: Incident, run: Run, boot: Boot) -> None:
    """The RM, then the proxy, on the head pod."""
    head = run.head.name
    started = boot.started[(head, RM)] + inc.between(0.2, 0.9)
    boot.rm_serving = rm_start(inc, run, started, len(run.workers))
    boot.steady_from[(head, RM)] = boot.rm_serving
    started = boot.started[(head, PROXY)] + inc.between(0.2, 0.9)
    boot.proxy_ok = proxy_start(inc, run, started, boot.rm_serving)
    boot.steady_from[(head, PROXY)] = boot.proxy_ok


def start_workers(
    inc: Incident, run: Run, boot: Boot, *, register: bool, skip: tuple[str, ...]
) -> dict[int, int]:
    """Every worker serves (and registers), then the sidecars start.

    Returns when each slice's last worker registered."""
    registered: dict[int, int] = {}
    hosts = len(run.workers[0])
    for pod in run.flat_workers():
        if pod.name in skip:
            continue
        key = (pod.name, WORKER)
        serving = worker_start(inc, run, pod, boot.started[key] + inc.between(0.2, 0.9))
        boot.steady_from[key] = serving
        if register:
            at = max(serving, boot.rm_serving) + inc.between(0.05, 0.4)
            boot.steady_from[key] = register_worker(inc, run, pod, at, hosts)
            index = pod.slice or 0
            registered[index] = max(registered.get(index, 0), boot.steady_from[key])
        start_sidecar(inc, run, boot, pod)
    start_sidecar(inc, run, boot, run.head)
    return registered


def start_sidecar(inc: Incident, run: Run, boot: Boot, pod: Pod) -> None:
    """The run's colocated Python sidecar, if this pod has it."""
    if run.sidecar and run.sidecar in pod.all_containers():
        key = (pod.name, run.sidecar)
        boot.steady_from[key] = sidecar_start(
            inc, pod, run.sidecar, boot.started[key] + inc.between(0.2, 0.8)
        )


def place_slices(inc: Incident, run: Run, boot: Boot, registered: dict[int, int]) -> None:
    """The RM places each slice once its workers registered, then all slices are ready."""
    placed = 0
    for index in sorted(registered):
        at = registered[index] + inc.between(0.1, 0.5)
        inc.log(run.head, RM, at, PLACED, slice=index)
        placed = max(placed, at)
    slices = len(run.workers)
    boot.ready = placed + inc.between(0.05, 0.3)
    boot.slices_ready, boot.workers_connected = slices, len(run.flat_workers())
    inc.log(run.head, RM, boot.ready, SLICES_READY, ready=slices, slices=slices)


def start_client(inc: Incident, run: Run, boot: Boot, restore_step: int | None) -> None:
    """The client starts, opens its proxy session and looks for a checkpoint."""
    assert run.client is not None and run.user is not None
    started = boot.started[(run.client.name, run.user)] + inc.between(0.5, 2.0)
    user_at = user_start(inc, run, started)
    boot.session = connect_client(inc, run, max(boot.ready, user_at) + inc.between(0.4, 2.0))
    boot.sessions = 1
    at = boot.session + inc.between(0.3, 1.2)
    if run.user_style == "maxtext":
        if restore_step is None:
            inc.log(run.client, run.user, at, NO_CHECKPOINT)
        else:
            place = {"project": DEMO.project, "run": run.name, "step": restore_step}
            inc.log(run.client, run.user, at, RESTORING, **place)
    boot.first_step = at + inc.between(40.0, 95.0)


def client_connects(inc: Incident, run: Run, boot: Boot) -> tuple[int, int]:
    """The client starts and opens its proxy session, with or without devices behind it.

    Returns when its start-up lines ended and when the session opened."""
    assert run.client is not None and run.user is not None
    user_at = user_start(
        inc, run, boot.started[(run.client.name, run.user)] + inc.between(0.5, 2.0)
    )
    session = connect_client(inc, run, max(user_at, boot.proxy_ok) + inc.between(0.5, 1.5))
    boot.sessions = 1
    return user_at, session


def waiting_for_devices(inc: Incident, run: Run, user_at: int) -> None:
    """The client waits for the backend's devices, which do not come."""
    assert run.client is not None and run.user is not None
    inc.log(run.client, run.user, user_at + inc.between(3, 5), WAITING_FOR_DEVICES)


def waits_for_rm(inc: Incident, run: Run, pod: Pod, at: int) -> None:
    """A worker starts, then waits every two minutes for an RM that never serves."""
    at = worker_start(inc, run, pod, at)
    attempt = 1
    while True:
        at += inc.between(110.0, 130.0)
        if at >= inc.t1 - sec(2):
            return
        inc.log(pod, WORKER, at, WAITING_FOR_RM, address=run.head_addr, attempt=attempt)
        attempt += 1
