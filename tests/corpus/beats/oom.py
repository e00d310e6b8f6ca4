"""Host out-of-memory kills of a TPU worker: the kernel's report, the node's events, the fallout."""

from __future__ import annotations

from dataclasses import dataclass

from tests.corpus.beats.failures import peer_fallout
from tests.corpus.beats.periodic import Step, Training, steady, train
from tests.corpus.beats.pods import container_died
from tests.corpus.expect import Ref, act, earliest, errors_act, ref
from tests.corpus.incident import Incident
from tests.corpus.model import WORKER, Boot, Node, Pod, Run
from tests.corpus.wording import Event, KernelLine
from tests.logentry import Entry

KILLED = (
    "{kind}: Killed process {pid} ({victim}) total-vm:{total}kB, anon-rss:{rss}kB, "
    "file-rss:148220kB, shmem-rss:0kB, UID:0 pgtables:787620kB oom_score_adj:{adj}"
)
CGROUP_OOM, NODE_OOM = "Memory cgroup out of memory", "Out of memory"
KILLED_PROCESS = KernelLine(KILLED, planted=True)
INVOKED = KernelLine(
    "{trigger} invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj={adj}",
    planted=True,
    guess="kernel `... invoked oom-killer: ...` line before the `Killed process` line",
)
CGROUP_USAGE = KernelLine(
    "memory: usage 402653184kB, limit 402653184kB, failcnt 2231",
    planted=True,
    guess="kernel `memory: usage ...` line of a memory cgroup OOM",
)
MEM_INFO = KernelLine("Mem-Info:", planted=True, guess="kernel `Mem-Info:` line of a node-wide OOM")
OOM_KILLING = Event(
    "OOMKilling",
    KILLED,
    type="Warning",
    component="kernel-monitor",
    kind="Node",
    planted=True,
)
SYSTEM_OOM = Event(
    "SystemOOM",
    "System OOM encountered, victim process: {victim}, pid: {pid}",
    type="Warning",
    kind="Node",
    planted=True,
)


@dataclass(frozen=True)
class OomPlan:
    """How one TPU host runs out of memory (the rest of the OOM cascade is shared)."""

    resident: tuple[float, float]
    step_time: float
    pids: tuple[int, int]
    cgroup: bool
    trigger: str
    adj: int
    rss_kb: int


@dataclass
class WorkerKill:
    """What an OOM-killed worker leaves behind."""

    root: Entry
    event: Entry
    steps: list[Step]
    hosts: list[dict[str, str]]
    peers: list[Entry]
    rm: Entry
    client: Entry


def kernel_report(
    inc: Incident, node: Node, at: int, plan: OomPlan, pid: int
) -> tuple[Entry, Entry]:
    """The kernel's OOM report on the serial console, then node-problem-detector's event.

    Returns the `Killed process` line and the event."""
    inc.kernel(node, at - inc.between(0.002, 0.004), INVOKED, trigger=plan.trigger, adj=plan.adj)
    context = CGROUP_USAGE if plan.cgroup else MEM_INFO
    inc.kernel(node, at - inc.between(0.0005, 0.0015), context)
    figures = {"pid": pid, "victim": WORKER, "adj": plan.adj, "rss": plan.rss_kb}
    figures |= {"kind": CGROUP_OOM if plan.cgroup else NODE_OOM, "total": plan.rss_kb + 96881676}
    entry = inc.kernel(node, at, KILLED_PROCESS, **figures)
    return entry, inc.node_event(node, at + inc.between(2.2, 4.5), OOM_KILLING, **figures)


def oom_kill(
    inc: Incident, run: Run, boot: Boot, victim: Pod, at: int, plan: OomPlan
) -> WorkerKill:
    """Train until `at`, when the kernel OOM-kills the victim's pathways-worker; its peers,
    the RM and the client fail. A node-wide (not cgroup) OOM also has kubelet's SystemOOM."""
    growth = {victim.name: plan.resident}
    steady(inc, run, boot, {f"{victim.name}/{WORKER}": at}, default=at, memory=growth)
    steps = train(inc, run, boot.first_step, at, Training(step_time=plan.step_time))
    pid = inc.pid(*plan.pids)
    root, event = kernel_report(inc, victim.node, at, plan, pid)
    if not plan.cgroup:
        inc.node_event(victim.node, at + inc.between(1.0, 2.0), SYSTEM_OOM, victim=WORKER, pid=pid)
    container_died(inc, victim, WORKER, at + inc.between(0.02, 0.05), 137)
    hosts, peers, rm, client = peer_fallout(inc, run, victim, at)
    return WorkerKill(root, event, steps, hosts, peers, rm, client)


def oom_methods(inc: Incident, kill: WorkerKill, killed: str, *more: str) -> list[Ref]:
    """The method steps every OOM incident shares: peers fail first, the node shows the kill."""
    return [
        errors_act(first=ref(inc, earliest(kill.peers), "UNAVAILABLE")),
        act("node-ooms", contains=[killed, "(pathways-worker)", "OOMKilling", *more]),
    ]
