"""What shares the cluster with the workload: a decoy JobSet, a bystander, node chatter.

Every incident has an unrelated JobSet whose name starts with the workload's and that
crashes (so a prefix match or an unscoped sweep shows up), a TensorBoard Deployment, and
periodic kubelet and kernel lines on every node.
"""

from __future__ import annotations

from tests.corpus.beats.attempts import stop_run
from tests.corpus.beats.failures import check_failure, traceback_line
from tests.corpus.beats.periodic import steady
from tests.corpus.beats.pods import start_pod
from tests.corpus.beats.startup import start_run
from tests.corpus.clock import NS, sec
from tests.corpus.dice import K8S_CHARS
from tests.corpus.expect import DECOY_CRASH
from tests.corpus.incident import Incident
from tests.corpus.layouts import fresh_jobset, jobset, new_node, plain_pod
from tests.corpus.model import WORKER, JobSetShape, Node, Pod, Run, Version
from tests.corpus.wording import NODE_GUESS, KernelLine, KubeletLine, Line
from tests.logentry import DEMO

EVAL_STEP = Line("eval step {step}/400: eval_loss={loss:.4f}", ("evaluate.py", 142))
EVAL_CHECK = Line(
    f"Check failed: {DECOY_CRASH[0]} (7 vs. 4) eval shard out of range",
    ("input_pipeline.cc", 311),
    letter="F",
    planted=True,
)
EVAL_TRACEBACK = traceback_line(
    (
        '  File "/app/evaluate.py", line 212, in <module>',
        "    main()",
        '  File "/app/evaluate.py", line 188, in main',
        "    batch = next(eval_iter)",
    ),
    "FileNotFoundError: [Errno 2] No such file or directory: "
    f"'gs://{DEMO.project}-data/eval/{DECOY_CRASH[1]}.array_record'",
)
TENSORBOARD = "tensorboard"
TENSORBOARD_IMAGE = f"us-docker.pkg.dev/{DEMO.project}/tools/tensorboard:2.19.0"
TENSORBOARD_UP = Line(
    "TensorBoard 2.19.0 at http://0.0.0.0:6006/ (Press CTRL+C to quit)", form="plain"
)
TENSORBOARD_RELOAD = Line(
    f"Reloading event files under gs://{DEMO.project}-ckpt/ (found {{runs}} runs)",
    form="plain",
    stream="stdout",
)
TENSORBOARD_NO_PROFILE = Line(
    "W1 TensorBoard: profile plugin is not installed; Profile tab disabled", form="plain"
)
PORT_GUESS = "port 8080 as the worker's metrics port; the exporter DaemonSet and its lines"
EXPORTER, EXPORTER_IMAGE = (
    "exporter",
    "us-docker.pkg.dev/pw-demo/tools/custom-metrics-exporter:0.4.2",
)
SERVING = Line(
    "serving metrics on :8080 (hostNetwork)", form="plain", stream="stdout", guess=PORT_GUESS
)
SCRAPED = Line(
    "scraped {series} TPU runtime series", form="plain", stream="stdout", guess=PORT_GUESS
)
WARMER, WARMER_IMAGE = "warmer", "us-docker.pkg.dev/pw-demo/data/cache-warmer:1.3"
LOADED = Line(
    "loaded shard {shard}/96 into the in-memory cache (resident {resident:.1f} GiB)",
    form="plain",
    stream="stdout",
    guess="the co-tenant's `loaded shard ...` lines",
)
PROBE = KubeletLine(
    '"SyncLoop (probe)" probe="readiness" status="ready" pod="{namespace}/{pod}"',
    ("kubelet.go", 2542),
)
HOUSEKEEPING = KubeletLine(
    '"Housekeeping took longer than expected" err="housekeeping took too long" '
    'expected="1s" actual="1.{millis}s"',
    ("kubelet.go", 2463),
)
IMAGE_GC = KubeletLine(
    '"Image garbage collection skipped: usage below the high threshold"',
    ("image_gc_manager.go", 362),
    guess=NODE_GUESS,
)
BRIDGE_PORT = KernelLine("cbr0: port {port}(veth{veth}) entered forwarding state")
LINK_READY = KernelLine("IPv6: ADDRCONF(NETDEV_CHANGE): veth{veth}: link becomes ready")
APPARMOR = KernelLine(
    'audit: type=1400 audit({seconds}.{millis}:{serial}): apparmor="STATUS" '
    'operation="profile_replace" name="cri-containerd.apparmor.d"'
)


def standard(
    inc: Incident,
    name: str,
    version: Version,
    *,
    slices: int = 2,
    hosts: int = 2,
    sidecar: bool = False,
    layout: str = "xpk",
    launch: float = 170.0,
    decoy_crash: float = 1380.0,
    itype: str = "tpuv6e:2x4",
    elastic: int = 0,
) -> Run:
    """The usual scene: the workload (launched about `launch` s in), a `<name>-eval` JobSet
    that crashes about `decoy_crash` s in, and a TensorBoard pod."""
    run = fresh_jobset(
        inc,
        name,
        slices=slices,
        hosts=hosts,
        version=version,
        sidecar=sidecar,
        layout=layout,
        itype=itype,
        elastic=elastic,
    )
    start = inc.t0 + inc.between(40, 110)
    decoy_jobset(inc, name, version, start, inc.t0 + sec(decoy_crash) + inc.between(0, 30))
    bystander(inc)
    run.launch = inc.t0 + sec(launch) + inc.between(0, 30)
    return run


def decoy_jobset(inc: Incident, base: str, version: Version, start: int, crash: int) -> Run:
    """An unrelated JobSet named `<base>-eval` that evaluates, then crashes at `crash`."""
    crash += inc.between(0.001, 0.999)
    shape = JobSetShape(
        slices=1,
        hosts=1,
        head_node=new_node(inc, "cpu-np"),
        worker_nodes=[[new_node(inc, "tpu-np-9")]],
        version=version,
        instance_type="tpuv6e:2x2",
        workload=False,
    )
    run = jobset(inc, f"{base}-eval", shape)
    boot = start_run(inc, run, start)
    assert run.client is not None and run.user is not None
    at, step = boot.first_step, 1
    while True:
        at += inc.between(50.0, 80.0)
        if at >= crash:
            break
        inc.log(run.client, run.user, at, EVAL_STEP, step=step, loss=inc.uniform(2.1, 2.6))
        step += 1
    steady(inc, run, boot, default=crash)
    check_failure(inc, run.workers[0][0], WORKER, crash, EVAL_CHECK, trace_us=400)
    inc.log(run.client, run.user, crash + inc.between(0.15, 0.4), EVAL_TRACEBACK)
    first_failed = f"{run.name}-worker-0"
    stop_run(
        inc, run, crash + inc.between(2.0, 4.0), reason="FailedJobs", first_failed=first_failed
    )
    return run


def bystander(inc: Incident) -> None:
    """Another workload in the namespace: a TensorBoard Deployment on a CPU node."""
    node = new_node(inc, "cpu-np")
    replica_set = inc.token(10, K8S_CHARS)
    pod = plain_pod(
        inc,
        f"tb-viewer-{replica_set}-{inc.suffix()}",
        node,
        TENSORBOARD,
        TENSORBOARD_IMAGE,
        owner=("Deployment", "tb-viewer"),
        labels={"app": "tb-viewer", "pod-template-hash": replica_set},
    )
    started = start_pod(inc, pod, inc.t0 + inc.between(10.0, 90.0))[TENSORBOARD]
    inc.log(pod, TENSORBOARD, started + inc.between(1, 3), TENSORBOARD_UP)
    at = started + sec(5)
    while True:
        at += inc.between(100.0, 300.0)
        if at >= inc.t1 - sec(1):
            break
        inc.log(pod, TENSORBOARD, at, TENSORBOARD_RELOAD, runs=inc.integer(3, 40))
    inc.log(pod, TENSORBOARD, inc.t0 + inc.between(400, 900), TENSORBOARD_NO_PROFILE)


def exporter_on(inc: Incident, node: Node) -> Pod:
    """The exporter DaemonSet's pod on the node: it serves on the host's port 8080."""
    pod = plain_pod(
        inc,
        f"custom-metrics-exporter-{inc.suffix()}",
        node,
        EXPORTER,
        EXPORTER_IMAGE,
        owner=("DaemonSet", "custom-metrics-exporter"),
        namespace="monitoring",
        labels={"app": "custom-metrics-exporter"},
    )
    started = start_pod(inc, pod, inc.t0 + inc.between(20, 60))[EXPORTER]
    inc.log(pod, EXPORTER, started + inc.between(0.5, 1.0), SERVING)
    at = started + sec(60)
    while at < inc.t1 - sec(10):
        inc.log(pod, EXPORTER, at, SCRAPED, series=inc.integer(1200, 1500))
        at += inc.between(240, 420)
    return pod


def cache_warmer(inc: Incident, node: Node) -> Pod:
    """A cache-warming Deployment's pod of another team, scheduled onto the node."""
    replica_set = inc.token(10, K8S_CHARS)
    return plain_pod(
        inc,
        f"cache-warmer-{replica_set}-{inc.suffix()}",
        node,
        WARMER,
        WARMER_IMAGE,
        owner=("Deployment", "cache-warmer"),
        namespace="team-data",
        labels={"app": "cache-warmer", "pod-template-hash": replica_set},
    )


def load_shards(
    inc: Incident, tenant: Pod, at: int, until: int, shard: int, gap: tuple[float, float]
) -> int:
    """The co-tenant's cache-warming progress until `until`. Returns the next shard."""
    while at < until:
        inc.log(tenant, WARMER, at, LOADED, shard=shard, resident=shard * 11.2)
        shard += 1
        at += inc.between(*gap)
    return shard


def node_noise(inc: Incident) -> None:
    """Periodic kubelet and kernel lines on every node the incident has."""
    for node in list(inc.nodes.values()):
        at = inc.t0 + inc.between(2.0, 80.0)
        while at < inc.t1 - sec(3):
            here, pick = inc.cluster.pods_on(node, at), inc.chance()
            if here and pick < 0.55:
                pod = inc.pick(here)
                inc.kubelet(node, at, PROBE, namespace=pod.namespace, pod=pod.name)
            elif pick < 0.8:
                inc.kubelet(node, at, HOUSEKEEPING, millis=inc.integer(100, 900))
            else:
                inc.kubelet(node, at, IMAGE_GC)
            at += inc.between(600.0, 1200.0)
        at = inc.t0 + inc.between(30.0, 400.0)
        while at < inc.t1 - sec(3):
            veth = inc.hex(8)
            lines = (
                (BRIDGE_PORT, {"port": inc.integer(2, 12), "veth": veth}),
                (LINK_READY, {"veth": veth}),
                (APPARMOR, {"millis": inc.integer(100, 999), "serial": inc.integer(200, 900)}),
            )
            row, fields = inc.pick(lines)
            inc.kernel(node, at, row, seconds=at // NS, **fields)
            at += inc.between(800.0, 1800.0)
