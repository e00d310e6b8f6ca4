"""The workload labels a pod's name implies, for logs that carry no labels (kubectl transcripts).

Names follow fixed layouts:
- a JobSet's Job is `<jobset>-<replicated job>-<job index>` (jobset
  `pkg/util/placement/placement.go`, GenJobName), and an Indexed Job's pod
  `<job>-<completion index>-<5 random characters>` (kubernetes
  `pkg/controller/job/indexed_job_utils.go`, podGenerateNameWithIndex);
- a plain Job's pod is `<job>-<5 random characters>`, or the indexed form;
- a LeaderWorkerSet's leader is `<lws>-<group>` and its workers
  `<lws>-<group>-<worker>` from 1 (the LWS documentation: a leader StatefulSet
  named after the LWS, a worker StatefulSet per group).

The workload flags settle where a name ends (`--jobset_name=my-pathways` makes
`my-pathways-worker-0-0-x7k2p` its pod), the longest name given first; a pod
of JobSet X whose replicated job would be `<word>-<a launcher's replicated
job>` (`X-eval-pathways-head-0-0-q42xh`) is taken as JobSet `X-<word>`'s. A
pod no flag names is taken apart only at a replicated job the Pathways
launchers use, the longest first (`pathways-worker` before `worker`). A name
Kubernetes had to cut short (generated names keep 58 characters before the
random part) matches no layout and implies nothing.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence

from pathways_workload import labels
from pathways_workload.describe import (
    container_of,
    entry_labels,
    involved_object,
    message,
    owner_of,
    pod_of,
)
from pathways_workload.selectors import REPLICATED_JOB_NAMES
from pathways_workload.sources.base import Entry
from pathways_workload.target import Workload

_SUFFIX = r"[a-z0-9]{5}"
_GENERATED = re.compile(rf"(?P<stem>.+)-{_SUFFIX}")
_INDEXED_POD = rf"(?P<job_index>[0-9]+)-(?P<pod_index>[0-9]+)-{_SUFFIX}"
_JOBSET_REST = re.compile(rf"(?P<rjob>[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)-{_INDEXED_POD}")
_JOB_REST = re.compile(rf"(?:(?P<pod_index>[0-9]+)-)?{_SUFFIX}")
_LWS_REST = re.compile(r"(?P<group>[0-9]+)(?:-(?P<worker>[1-9][0-9]*))?")
_LAUNCHER_JOBS = "|".join(sorted(REPLICATED_JOB_NAMES, key=len, reverse=True))
_KNOWN_JOBSET_POD = re.compile(
    rf"(?P<jobset>[a-z0-9](?:[-a-z0-9]*?[a-z0-9])?)-(?P<rjob>{_LAUNCHER_JOBS})-{_INDEXED_POD}"
)
# A replicated job `eval-pathways-head` of JobSet X is more likely `pathways-head` of X-eval.
_LONGER_JOBSET = re.compile(rf"[a-z0-9](?:[-a-z0-9]*[a-z0-9])?-(?:{_LAUNCHER_JOBS})")


def _jobset(jobset: str, rjob: str, job_index: str, pod_index: str) -> dict[str, str]:
    return {
        labels.JOBSET_NAME: jobset,
        labels.JOBSET_REPLICATED_JOB: rjob,
        labels.JOBSET_JOB_INDEX: job_index,
        labels.JOB_NAME: f"{jobset}-{rjob}-{job_index}",
        labels.JOB_COMPLETION_INDEX: pod_index,
        labels.OWNER_TYPE: "JobSet",
        labels.OWNER_NAME: jobset,
    }


def _job(job: str, pod_index: str | None) -> dict[str, str]:
    implied = {labels.JOB_NAME: job, labels.OWNER_TYPE: "Job", labels.OWNER_NAME: job}
    if pod_index is not None:
        implied[labels.JOB_COMPLETION_INDEX] = pod_index
    return implied


def _lws(lws: str, group: str, worker: str | None) -> dict[str, str]:
    return {
        labels.LWS_NAME: lws,
        labels.LWS_GROUP_INDEX: group,
        labels.LWS_WORKER_INDEX: worker or "0",
        labels.OWNER_TYPE: "LeaderWorkerSet",
        labels.OWNER_NAME: lws,
    }


def _own_replicated_job(rjob: str) -> bool:
    """Whether a replicated job name is not a longer JobSet's launcher replicated job."""
    return rjob in REPLICATED_JOB_NAMES or not _LONGER_JOBSET.fullmatch(rjob)


def sibling_job(job: str, jobset: str, replicated_jobs: Collection[str]) -> bool:
    """Whether Job `job`, named like one of JobSet `jobset`'s, is more likely a sibling
    JobSet's: its replicated job is none that `jobset`'s pods carry (`replicated_jobs`, when
    known) and reads as `<word>-<a launcher's replicated job>` (`X-pathways-worker-0` is
    JobSet `X-pathways`'s `worker` when X's own pods run `worker`)."""
    match = re.fullmatch(rf"{re.escape(jobset)}-(?P<rjob>.+)-[0-9]+", job)
    if match is None or not replicated_jobs or match["rjob"] in replicated_jobs:
        return False
    return bool(_LONGER_JOBSET.fullmatch(match["rjob"]))


def lws_groups(lws: str, entries: Iterable[Entry]) -> set[str]:
    """The groups of LeaderWorkerSet `lws` the entries show: its pods' lines (their
    group-index label) and its leader pods `<lws>-<group>`, which no other object names, by
    their events or their leader StatefulSet's (`create Pod <lws>-<group> in StatefulSet
    <lws> successful`, Kubernetes' `recordPodEvent`)."""
    groups: set[str] = set()
    name = re.escape(lws)
    leader = re.compile(rf"{name}-(?P<group>[0-9]+)")
    made = re.compile(rf"\bPod {name}-(?P<group>[0-9]+) in StatefulSet {name} ")
    for entry in entries:
        found = entry_labels(entry)
        group = found.get(labels.LWS_GROUP_INDEX)
        if found.get(labels.LWS_NAME) == lws and isinstance(group, str):
            groups.add(group)
        if match := leader.fullmatch(pod_of(entry) or ""):
            groups.add(match["group"])
        if involved_object(entry) == ("StatefulSet", lws) and (
            match := made.search(message(entry))
        ):
            groups.add(match["group"])
    return groups


def sibling_lws(entry: Entry, lws: str, groups: Collection[str]) -> str | None:
    """The LeaderWorkerSet `<lws>-<group>` whose leader pod (`<lws>-<group>-<n>`) or leader
    StatefulSet (`<lws>-<group>`) an event is more likely about than `lws`'s worker pod or
    worker StatefulSet of that name, or None: `lws` showed other groups (`groups`), not this
    one. An event names only the pod and its StatefulSet, which the two share."""
    kind, name = involved_object(entry) or ("", "")
    match = re.fullmatch(rf"{re.escape(lws)}-(?P<group>[0-9]+)(?P<worker>-[1-9][0-9]*)?", name)
    if match is None or not groups or match["group"] in groups:
        return None
    if kind != ("Pod" if match["worker"] else "StatefulSet"):
        return None
    return f"{lws}-{match['group']}"


def _siblings(
    workloads: Sequence[Workload], events: Sequence[Entry], seen: Iterable[Entry]
) -> list[tuple[Entry, str, str]]:
    """Each event a sibling LeaderWorkerSet's pods are more likely to have (`sibling_lws`),
    with the workload's LeaderWorkerSet and the sibling; the workload's groups are those
    `seen` (its lines) and the events show. A sibling that is itself one of the workloads,
    or a pod a --pod_prefix workload names, is not one."""
    names = {w.name for w in workloads if w.kind == "lws"}
    if not names:
        return []
    prefixes = tuple(w.name for w in workloads if w.kind == "pod")
    groups = {lws: lws_groups(lws, [*seen, *events]) for lws in sorted(names)}
    found = []
    for entry in events:
        if prefixes and (pod_of(entry) or "").startswith(prefixes):
            continue
        siblings = ((lws, sibling_lws(entry, lws, known)) for lws, known in groups.items())
        match = next(((lws, s) for lws, s in siblings if s is not None and s not in names), None)
        if match is not None:
            found.append((entry, *match))
    return found


def without_sibling_lws(
    workloads: Sequence[Workload], events: Sequence[Entry], seen: Iterable[Entry] = ()
) -> list[Entry]:
    """The events without those a sibling LeaderWorkerSet's pods are more likely to have."""
    foreign = {id(entry) for entry, _, _ in _siblings(workloads, events, seen)}
    return [entry for entry in events if id(entry) not in foreign]


def _as_workload(pod: str, workload: Workload) -> dict[str, str] | None:
    """The labels if the pod belongs to this named workload by its name's layout."""
    if not pod.startswith(workload.name + "-"):
        return None
    rest = pod[len(workload.name) + 1 :]
    match = _JOBSET_REST.fullmatch(rest)
    if workload.kind == "jobset" and match and _own_replicated_job(match["rjob"]):
        return _jobset(workload.name, match["rjob"], match["job_index"], match["pod_index"])
    if workload.kind == "job" and (match := _JOB_REST.fullmatch(rest)):
        return _job(workload.name, match["pod_index"])
    if workload.kind == "lws" and (match := _LWS_REST.fullmatch(rest)):
        return _lws(workload.name, match["group"], match["worker"])
    return None


def implied_labels(pod: str, workloads: Sequence[Workload] = ()) -> dict[str, str]:
    """The `k8s-pod/...` and owner labels the pod's name implies (empty when it implies none)."""
    for workload in sorted(workloads, key=lambda w: len(w.name), reverse=True):
        found = _as_workload(pod, workload)
        if found is not None:
            return found
    match = _KNOWN_JOBSET_POD.fullmatch(pod)
    if match is None:
        return {}
    return _jobset(match["jobset"], match["rjob"], match["job_index"], match["pod_index"])


def generated_stem(pod: str) -> str | None:
    """A pod name without the random five characters Kubernetes ends a generated name with
    (a Job's pods: a restart's new pod has the same stem), or None when it has none."""
    found = _GENERATED.fullmatch(pod)
    return found.group("stem") if found else None


def mixed_owner_notes(workloads: Sequence[Workload], entries: Iterable[Entry]) -> list[str]:
    """A note for each pod-name prefix whose pods' lines came from more than one object:
    `--pod_prefix=train` also takes the pods of JobSet `train-2`, and reads them as one."""
    prefixes = [w.name for w in workloads if w.kind == "pod"]
    if not prefixes:
        return []
    owners: dict[str, set[str]] = {prefix: set() for prefix in prefixes}
    for entry in entries:
        pod, owner = pod_of(entry), owner_of(entry)
        if not pod or owner is None or not container_of(entry):
            continue
        for prefix in prefixes:
            if pod.startswith(prefix):
                owners[prefix].add(":".join(owner))
    return [
        f'note: the pod-name prefix "{prefix}" matched the pods of {len(found)} workloads '
        f"({', '.join(sorted(found))}), read here as one; to look at one alone, name it with "
        "--jobset_name, --lws_name or --job_name (--action=pods lists each pod's owner)"
        for prefix, found in owners.items()
        if len(found) > 1
    ]


def sibling_lws_notes(workloads: Sequence[Workload], entries: Iterable[Entry]) -> list[str]:
    """A note for each sibling LeaderWorkerSet whose events the workload's event filters
    also match (`sibling_lws`): entry actions list them, reports leave them out."""
    found: dict[tuple[str, str], set[str]] = {}
    for entry, lws, sibling in _siblings(workloads, list(entries), ()):
        kind, name = involved_object(entry) or ("", "")
        found.setdefault((lws, sibling), set()).add(f"{kind} {name}")
    return [
        f"note: the events of {', '.join(sorted(objects))} are likely LeaderWorkerSet "
        f"{sibling}'s, whose names LeaderWorkerSet {lws}'s group {sibling[len(lws) + 1 :]} "
        "would have (no pod of that group showed); entry actions list them, reports leave "
        f"them out; to read them, pass --lws_name={sibling}"
        for (lws, sibling), objects in sorted(found.items())
    ]


def replicated_jobs(jobset: str, entries: Iterable[Entry]) -> set[str]:
    """The replicated jobs JobSet `jobset`'s pods run, by their lines' label or the name of
    a pod its events are about."""
    found: set[str] = set()
    unlabelled: set[str] = set()
    for entry in entries:
        if owner_of(entry) != ("jobset", jobset):
            continue
        rjob = entry_labels(entry).get(labels.JOBSET_REPLICATED_JOB)
        if isinstance(rjob, str):
            found.add(rjob)
        else:
            unlabelled.add(pod_of(entry) or "")
    for pod in unlabelled:
        implied = implied_labels(pod, [Workload("jobset", jobset)])
        if rjob := implied.get(labels.JOBSET_REPLICATED_JOB):
            found.add(rjob)
    return found


def sibling_job_notes(workloads: Sequence[Workload], entries: Iterable[Entry]) -> list[str]:
    """A note for each JobSet whose Job events are likely a sibling JobSet's (`sibling_job`):
    entry actions list them, triage leaves them out."""
    entries = list(entries)
    named = {about[1] for e in entries if (about := involved_object(e)) and about[0] == "Job"}
    notes = []
    for jobset in sorted({w.name for w in workloads if w.kind == "jobset"}):
        if not any(name.startswith(f"{jobset}-") for name in named):
            continue
        replicated = replicated_jobs(jobset, entries)
        jobs = {name for name in named if sibling_job(name, jobset, replicated)}
        if jobs:
            notes.append(
                f"note: the events of Job {', '.join(sorted(jobs))} are likely another "
                f"JobSet's (named {jobset}-...): {jobset}'s pods run replicated jobs "
                f"{', '.join(sorted(replicated))}; entry actions list them, triage leaves "
                "them out"
            )
    return notes
