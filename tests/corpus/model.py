"""What an incident is made of: nodes, pods, image versions and Pathways deployments."""

from __future__ import annotations

from dataclasses import dataclass, field

from tests.corpus.clock import NS
from tests.logentry import DEMO

NAMESPACE = "default"
REGISTRY = "us-docker.pkg.dev/cloud-tpu-v2-images/cloud-pathways"
USER_REGISTRY = f"us-east5-docker.pkg.dev/{DEMO.project}/ml"
PATHWAYS_CONTAINERS = ("pathways-rm", "pathways-proxy", "pathways-worker")
SIDECARS = ("colocated-python-sidecar", "python-sidecar")
RM, PROXY, WORKER = PATHWAYS_CONTAINERS


@dataclass
class Node:
    """A GKE node (and its VM): what its journald, serial console and audit entries carry."""

    name: str
    pool: str
    instance_id: str
    boot_id: str
    kubelet_pid: int
    containerd_pid: int
    uptime0: float
    ip: str
    reboots: list[tuple[int, float]] = field(default_factory=list)

    def uptime(self, at: int, since: int) -> float:
        """Kernel uptime in seconds at `at`, given the uptime at `since` and any reboots."""
        base = self.uptime0
        for rebooted, up in self.reboots:
            if rebooted <= at:
                base, since = up, rebooted
        return base + (at - since) / NS


@dataclass
class Pod:
    """A pod: where it runs, the labels its lines and its events carry, its containers."""

    name: str
    namespace: str
    node: Node
    uid: str
    labels: dict[str, str]
    event_labels: dict[str, str]
    containers: list[str]
    init: list[str]
    images: dict[str, str]
    role: str = "other"
    slice: int | None = None
    host: int | None = None
    job: str | None = None
    workload: bool = False

    def all_containers(self) -> list[str]:
        return [*self.init, *self.containers]

    def field_path(self, container: str) -> str:
        """How a kubelet event names the container (`spec.containers{NAME}`)."""
        kind = "initContainers" if container in self.init else "containers"
        return f"spec.{kind}{{{container}}}"


@dataclass(frozen=True)
class Version:
    """The images of one Pathways release and the user's image."""

    tag: str
    jax: str
    build: str
    user_image: str
    proxy_tag: str | None = None

    @property
    def server_image(self) -> str:
        return f"{REGISTRY}/server:{self.tag}"

    @property
    def proxy_image(self) -> str:
        return f"{REGISTRY}/proxy_server:{self.proxy_tag or self.tag}"

    @property
    def sidecar_image(self) -> str:
        return f"{REGISTRY}/colocated_python_sidecar:{self.tag}"

    @property
    def server_label(self) -> str:
        return f"cloud-pathways-server_{self.build}"

    @property
    def proxy_label(self) -> str:
        return f"cloud-pathways-proxy_{self.build}"


@dataclass(frozen=True)
class JobSetShape:
    """Everything a JobSet restart keeps: its size, nodes, images and layout."""

    slices: int
    hosts: int
    head_node: Node
    worker_nodes: list[list[Node]]
    version: Version
    layout: str = "xpk"
    headless: bool = False
    sidecar: bool = False
    instance_type: str = "tpuv6e:4x4"
    elastic: int = 0
    workload: bool = True
    namespace: str = NAMESPACE


@dataclass
class Run:
    """One Pathways deployment: a JobSet attempt, or one LeaderWorkerSet group.

    `user_style` is how the client logs: `maxtext` (absl), `print`, `json` or `serve`.
    """

    kind: str
    name: str
    attempt: int
    head: Pod
    workers: list[list[Pod]]
    version: Version
    instance_type: str
    head_addr: str
    scratch: str
    user: str | None
    client: Pod | None
    sidecar: str | None
    user_style: str = "maxtext"
    elastic: int = 0
    uid: str = ""
    layout: str = "xpk"
    shape: JobSetShape | None = None
    launch: int = 0
    client_thread: int = 1
    client_jax: str | None = None
    wrapper: bool | None = None

    def flat_workers(self) -> list[Pod]:
        return [pod for row in self.workers for pod in row]

    def pods(self) -> list[Pod]:
        pods = [self.head, *self.flat_workers()]
        if self.client is not None and self.client is not self.head:
            pods.append(self.client)
        return pods

    @property
    def logs_wrapper(self) -> bool:
        """Whether xpk's `echo XPK Start/End` wrapper runs around the user command."""
        return self.layout == "xpk" if self.wrapper is None else self.wrapper


@dataclass
class Boot:
    """When a run's components started, served and got ready (what later beats build on)."""

    steady_from: dict[tuple[str, str], int] = field(default_factory=dict)
    started: dict[tuple[str, str], int] = field(default_factory=dict)
    rm_serving: int = 0
    proxy_ok: int = 0
    ready: int = 0
    session: int = 0
    first_step: int = 0
    slices_ready: int = 0
    workers_connected: int = 0
    sessions: int = 0
