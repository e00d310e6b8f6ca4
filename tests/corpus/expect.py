"""What an incident's expected file says, written from what was planted, and the generator's
own checks of its plan (never of the tool under test)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from tests.corpus.clock import fmt_ts, parse_ts
from tests.corpus.incident import Incident
from tests.corpus.model import Pod, Run
from tests.corpus.wording import COMMON_GUESSES
from tests.logentry import DEMO, NODE_LABEL, Entry

Ref = dict[str, Any]
Host = dict[str, str]  # a failing host: pod, node, slice, host, first_error_time
DECOY_CRASH = ("shard_index < num_shards", "c4-validation-00007-of-00008")
# Noise in a workload container must not look like a failure, or an expectation about the
# earliest failure line would depend on the noise. Planted lines are exempt.
NOISE_FORBIDDEN = re.compile(
    r"oom|check failed|traceback|sigterm|sigkill|sigabrt|deadline_exceeded|data_loss|"
    r"unavailable|resource_exhausted|failed_precondition|already in use|permission|segfault|"
    r"segmentation|fatal|core dumped|unknown (command line )?flag|matches_prefix|"
    r"protocol version|initialize backend|aborted|exception|panic|hang_detected|internal:|"
    r"invalid_argument|not_found|cancelled|killed|crash|error|fail|goaway|semaphore",
    re.IGNORECASE,
)
NODE_NOISE_FORBIDDEN = re.compile(
    r"exit(code|_status|[ _]code)[=: ]*137\b|oom|out of memory", re.IGNORECASE
)
# What the generator treats as a crash line when it checks its own `errors` expectations.
CRASH_TERMS = re.compile(
    r"segfault|segmentation fault|check failed|traceback|out of memory|oom|"
    r"resource_exhausted|failed_precondition|deadline_exceeded|data_loss|unavailable|"
    r"address already in use|unknown command line flag|permission denied|"
    r"lifecycle matches_prefix|protocol version|unable to initialize backend|sigterm|"
    r"aborted|fatal",
    re.IGNORECASE,
)


def message_of(entry: Entry) -> str:
    """The text an output line shows for an entry (events as `reason: message`)."""
    if "textPayload" in entry:
        return str(entry["textPayload"])
    if "protoPayload" in entry:
        proto = entry["protoPayload"]
        return f"{proto['methodName']} {proto['resourceName']}"
    payload = entry.get("jsonPayload", {})
    if entry["logName"].endswith("/events") and "reason" in payload:
        return f"{payload['reason']}: {payload['message']}"
    return str(payload.get("message") or payload.get("MESSAGE") or "")


def at_of(entry: Entry) -> int:
    return parse_ts(entry["timestamp"])


def ref(inc: Incident, entry: Entry, contains: str, **extra: object) -> Ref:
    """Point at a planted entry the way expected files do (time, pod, container, node)."""
    message = message_of(entry)
    if contains not in message:
        raise AssertionError(f"{inc.story.slug}: {contains!r} not in {message!r}")
    resource = entry["resource"]
    labels = resource.get("labels", {})
    pod = container = node = None
    if resource["type"] == "k8s_container":
        pod, container = labels["pod_name"], labels["container_name"]
        node = entry["labels"][NODE_LABEL]
    elif resource["type"] == "k8s_pod":
        pod = labels["pod_name"]
        node = inc.pods[pod].node.name if pod in inc.pods else None
    elif resource["type"] == "k8s_node":
        node = labels["node_name"]
    elif resource["type"] == "gce_instance":
        node = entry.get("labels", {}).get(NODE_LABEL)
        if node is None:
            node = entry["protoPayload"]["resourceName"].rsplit("/", 1)[-1]
    found = {"timestamp": entry["timestamp"], "pod": pod, "container": container, "node": node}
    return {**found, "message_contains": contains, **extra}


def host_ref(pod: Pod, first: Entry | int) -> dict[str, str]:
    """A failing TPU host and when it first showed the failure."""
    stamp = first["timestamp"] if isinstance(first, dict) else fmt_ts(first)
    place = {"slice": str(pod.slice), "host": str(pod.host)}
    return {"pod": pod.name, "node": pod.node.name, **place, "first_error_time": stamp}


def failing_host(inc: Incident, first: Entry) -> dict[str, str]:
    """The failing host whose container logged `first`."""
    return host_ref(inc.pods[first["resource"]["labels"]["pod_name"]], first)


def by_first_error(hosts: Sequence[dict[str, str]]) -> list[dict[str, str]]:
    """Failing hosts in the order they first failed."""
    return sorted(hosts, key=lambda host: parse_ts(host["first_error_time"]))


def failing_from(pod: Pod, entry: Entry, hosts: Sequence[dict[str, str]]) -> list[dict[str, str]]:
    """The failing hosts: the one that failed first, then the others in time order."""
    return [host_ref(pod, entry), *by_first_error(hosts)]


def last_line(inc: Incident, pod: Pod, container: str) -> Entry:
    """The container's latest line so far."""
    lines = [
        entry
        for _, entry in inc.rows
        if entry["resource"]["labels"].get("pod_name") == pod.name
        and entry["resource"]["labels"].get("container_name") == container
    ]
    return max(lines, key=at_of)


def earliest(entries: Sequence[Entry]) -> Entry:
    return min(entries, key=at_of)


def unrelated_of(inc: Incident, *jobsets: str) -> list[str]:
    """The unrelated workloads: the JobSets named, then the TensorBoard pod."""
    return [f"jobset:{name}" for name in jobsets] + [
        f"pod:{name}" for name in inc.pods if name.startswith("tb-viewer")
    ]


def act(
    action: str,
    *,
    first: Ref | None = None,
    contains: list[str] | None = None,
    absent: list[str] | None = None,
    args: list[str] | None = None,
) -> Ref:
    """A method step: run the action; its first line, lines it shows, lines it must not show."""
    step: Ref = {"action": action, "args": args or []}
    if first is not None:
        step["first"] = {key: first[key] for key in ("pod", "container", "message_contains")}
    if contains:
        step["contains"] = contains
    if absent:
        step["absent"] = absent
    return step


def errors_act(*, first: Ref | None = None, contains: list[str] | None = None) -> Ref:
    """The `errors` step, which must never show the decoy JobSet's crash."""
    return act("errors", first=first, contains=contains, absent=list(DECOY_CRASH))


def release_versions(
    run: Run,
    *,
    mismatch: bool = False,
    jax: str | None = "from-image",
    sidecar: bool | None = None,
) -> Ref:
    """The versions the run's images and Build labels say (`jax=None`: no client logs it)."""
    labels = {
        "pathways-rm": run.version.server_label,
        "pathways-proxy": run.version.proxy_label,
        "pathways-worker": run.version.server_label,
    }
    return {
        "server": run.version.tag,
        "proxy": run.version.proxy_tag or run.version.tag,
        "sidecar": run.version.tag
        if (run.sidecar is not None if sidecar is None else sidecar)
        else None,
        "jax": run.version.jax if jax == "from-image" else jax,
        "build_labels": labels,
        "mismatch": mismatch,
    }


NO_VERSIONS: Ref = {
    "server": None,
    "proxy": None,
    "sidecar": None,
    "jax": None,
    "build_labels": {},
    "mismatch": False,
}


def guessed(inc: Incident) -> list[str]:
    """The guessed wordings the export contains: the common ones first, then its own."""
    common = [guess for guess in COMMON_GUESSES if guess in inc.guesses]
    return common + [guess for guess in inc.guesses if guess not in COMMON_GUESSES]


def quiet_first(pod: Pod, container: str, last: Entry) -> Ref:
    """The `hang` expectation: the container that went quiet first, and its last line's time."""
    return {
        "quiet_first": {
            "pod": pod.name,
            "container": container,
            "last_line_time": last["timestamp"],
        }
    }


def finish(
    inc: Incident,
    run: Run | None,
    *,
    root: Ref | None,
    method: list[Ref],
    failures: list[Ref] | None = None,
    workload: list[str] | None = None,
    unrelated: list[str] | None = None,
    versions: Ref | None = None,
    symptoms: list[Ref] | None = None,
    failing_hosts: list[dict[str, str]] | None = None,
    hang: Ref | None = None,
    pods: list[Pod] | None = None,
    extra: Ref | None = None,
) -> Incident:
    """Write down what was planted (the expected file), then check the plan.

    Left out, the workload is the run, the unrelated workloads its `-eval` decoy and the
    TensorBoard pod, the versions the run's, and the failures the root cause alone."""
    story = inc.story
    if run is not None:
        workload = workload or [f"{run.kind}:{run.name}"]
        unrelated = unrelated or unrelated_of(inc, f"{run.name}-eval")
        versions = versions or release_versions(run)
    workload_pods = pods if pods is not None else [p for p in inc.pods.values() if p.workload]
    nodes = list(dict.fromkeys(pod.node.name for pod in workload_pods))
    window = {"start_time": fmt_ts(inc.t0), "end_time": fmt_ts(inc.t1)}
    target = {"project": DEMO.project, "cluster_name": DEMO.name, "location": DEMO.location}
    target |= {"namespace": "default", "workload": workload, **window}
    inc.expected = {
        "title": story.title,
        "scenario": story.scenario,
        "summary": story.summary,
        "target": {**target, "issue_time": fmt_ts(inc.issue)},
        "unrelated_workloads": unrelated,
        "workload_pods": [pod.name for pod in workload_pods],
        "workload_nodes": nodes,
        "root_cause": root,
        "failures": failures if failures is not None else [root] if root else [],
        "symptoms": symptoms or [],
        "failing_hosts": failing_hosts or [],
        "versions": versions,
        "hang": hang,
        "method": method,
        "guessed": guessed(inc),
        **(extra or {}),
    }
    check(inc)
    return inc


def check(inc: Incident) -> None:
    """The plan's own checks: every entry in the window, unique ids, quiet noise, and the
    `errors` step's first line really the earliest crash."""
    seen: set[str] = set()
    for at, entry in inc.rows:
        if not inc.t0 <= at <= inc.t1:
            raise AssertionError(f"{inc.story.slug}: entry outside the window: {entry}")
        if entry["insertId"] in seen:
            raise AssertionError(f"{inc.story.slug}: duplicate insertId {entry['insertId']}")
        seen.add(entry["insertId"])
        if entry["insertId"] not in inc.planted:
            check_noise(inc, entry)
    for step in inc.expected["method"]:
        if step["action"] == "errors" and "first" in step:
            check_first_crash(inc, step["first"])


def check_noise(inc: Incident, entry: Entry) -> None:
    """Background lines must not look like a failure (workload containers) or an OOM (nodes)."""
    resource, message = entry["resource"], message_of(entry)
    if resource["type"] == "k8s_container":
        pod = inc.pods.get(resource["labels"]["pod_name"])
        if pod is not None and pod.workload:
            if NOISE_FORBIDDEN.search(message):
                raise AssertionError(f"{inc.story.slug}: noise looks like a failure: {message}")
            if entry.get("severity") in ("CRITICAL", "ALERT", "EMERGENCY"):
                raise AssertionError(f"{inc.story.slug}: critical noise: {message}")
    elif resource["type"] in ("k8s_node", "gce_instance") and NODE_NOISE_FORBIDDEN.search(message):
        raise AssertionError(f"{inc.story.slug}: node noise looks like an OOM: {message}")


def check_first_crash(inc: Incident, want: Ref) -> None:
    """The `errors` step's first line is the earliest crash line of the workload."""
    best: tuple[int, Entry] | None = None
    for at, entry in inc.rows:
        resource = entry["resource"]
        if resource["type"] != "k8s_container":
            continue
        pod = inc.pods.get(resource["labels"]["pod_name"])
        if pod is None or not pod.workload:
            continue
        hit = CRASH_TERMS.search(message_of(entry)) or entry.get("severity") == "CRITICAL"
        if hit and (best is None or at < best[0]):
            best = (at, entry)
    if best is None or want["message_contains"] not in message_of(best[1]):
        raise AssertionError(f"{inc.story.slug}: errors.first is not the earliest crash")
    if best[1]["resource"]["labels"]["pod_name"] != want["pod"]:
        raise AssertionError(f"{inc.story.slug}: errors.first pod mismatch")
