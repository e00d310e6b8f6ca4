"""Real lines, each through the crash sweep, the known-failure match and the symptom rules.

Only lines seen in public sources take part (guesses are left out). What each
must give is written down here from what the line is, per table it comes from.
"""

from __future__ import annotations

import pytest

from pathways_workload import examples, scenarios, terms
from pathways_workload.examples import Example
from pathways_workload.triage.evidence import BENIGN, SYMPTOMS, classify, symptom_of
from tests.example_entries import entry_of
from tests.test_examples import fetched_by

# Known failures whose lines are reports from the survivors: the client's view of a proxy
# that went away, a peer that vanished (also the head's services), the signal Kubernetes sent.
DOWNSTREAM = {
    "sigterm",
    "proxy-connection-terminated",
    "lost-peer",
    "compilation-service-crash",
    "jax-coordination",
}
# The infrastructure records of scenario 4: an interruption or node pool operation sends the
# SIGTERM, so it is a cause, not the downstream signal.
INTERRUPTIONS = {examples.AUDIT, examples.NODE_EVENT, examples.NODEPOOL}
# Pod events that send it too: the scheduler preempting the pod for one of higher priority.
SENDER_EVENTS = {"Preempted"}
# Event reasons that are downstream whatever the failure they belong to.
DOWNSTREAM_EVENTS = {"FailedScheduling"}
# A transfer stall is no crash: triage and the proxy and workers actions read it, not the sweep.
NOT_CRASHES = {"transfer-stall"}

REAL_FAILURE_LINES = [
    (scenario, example)
    for scenario in scenarios.SCENARIOS
    for example in scenario.examples
    if not example.guessed
]
REAL_SYMPTOMS = [example for rule in SYMPTOMS for example in rule.examples if not example.guessed]
REAL_BENIGN = [example for example in BENIGN if not example.guessed]
REAL_CRASH_LINES = [t.example for t in terms.CRASH_CATALOGUE if not t.example.guessed]


def _role(scenario: scenarios.Scenario, example: Example) -> str:
    # What sends a SIGTERM causes it, unless a downstream rule claims it (NodeNotReady).
    sends = example.container in INTERRUPTIONS or example.reason in SENDER_EVENTS
    sender = sends and symptom_of(entry_of(example)) is None
    if (scenario.slug in DOWNSTREAM and not sender) or example.reason in DOWNSTREAM_EVENTS:
        return "symptom"
    return "incidental" if scenario.incidental else "cause"


@pytest.mark.parametrize(
    ("scenario", "example"),
    REAL_FAILURE_LINES,
    ids=[f"{s.slug}:{e.line[:40]}" for s, e in REAL_FAILURE_LINES],
)
def test_a_real_failure_line_is_swept_matched_and_weighed(
    scenario: scenarios.Scenario, example: Example
) -> None:
    entry = entry_of(example)
    if example.container not in examples.KINDS and scenario.slug not in NOT_CRASHES:
        assert fetched_by("errors", entry), "the crash sweep misses it"
    assert fetched_by("triage", entry), "triage misses it"
    assert scenarios.match(entry) is scenario
    item = classify(entry)
    assert item is not None
    role = "symptom" if item.symptom else ("cause" if item.decisive else "incidental")
    assert role == _role(scenario, example)


@pytest.mark.parametrize("example", REAL_CRASH_LINES, ids=[e.line[:50] for e in REAL_CRASH_LINES])
def test_the_crash_sweep_finds_every_real_crash_line(example: Example) -> None:
    assert fetched_by("errors", entry_of(example))


@pytest.mark.parametrize("example", REAL_SYMPTOMS, ids=[e.line[:50] for e in REAL_SYMPTOMS])
def test_a_real_downstream_line_is_a_symptom_never_a_cause(example: Example) -> None:
    entry = entry_of(example)
    assert symptom_of(entry) is not None
    item = classify(entry)
    assert item is None or (item.symptom and not item.decisive)


@pytest.mark.parametrize("example", REAL_BENIGN, ids=[e.line[:50] for e in REAL_BENIGN])
def test_a_real_routine_line_is_no_evidence(example: Example) -> None:
    entry = entry_of(example)
    assert classify(entry) is None
    assert symptom_of(entry) is None
    matched = scenarios.match(entry)
    assert matched is None or matched.slug == "elastic-recovery", matched


# XLA's error pages (openxla/xla@11903d4 docs/errors/error_0101.md and error_1000.md;
# tensorflow/tensorflow@3457ee4 third_party/xla/docs/errors/error_1000.md) show how TPU HBM
# runs out besides the compile-time `memory space hbm` and the buffer allocation: a program
# too big to load, the compiler's early abort, and the TensorCore and SparseCore breakdown.
HBM_LINES = (
    "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Error loading program 'jit_train_step': "
    "Attempting to reserve 29.49G at the bottom of memory. That was not possible. There are "
    "147.64M free, 0B reserved, and 147.64M reservable.",
    "RESOURCE_EXHAUSTED: Compilation failure: Aborting compilation early because it's unlikely "
    "to have enough memory. Requires 3.84T, has 90.96G available.",
    "RESOURCE_EXHAUSTED: TPU TensorCore Hbm usage: 34.82G, SparseCore Hbm usage 174.10G, "
    "exceeding available bytes: 95.74G",
)


@pytest.mark.parametrize("line", HBM_LINES, ids=[line[:60] for line in HBM_LINES])
def test_every_hbm_exhaustion_wording_of_xlas_error_pages_is_hbm_exhausted(line: str) -> None:
    entry = entry_of(Example(line, "XLA error pages", terms.CLIENT))
    matched = scenarios.match(entry)
    assert matched is not None and matched.slug == "hbm-exhausted", matched
    item = classify(entry)
    assert item is not None and item.decisive


# Cloud Storage's refusal, as public reports show it: ansible-collections/google.cloud issue
# #575 (google-cloud-storage), spaceml-org/STARCOP issue #6 (gcsfs), googleapis/google-cloud-
# python issue #9065 (an older wording without the permission sentence).
GCS_DENIED_LINES = (
    "google.api_core.exceptions.Forbidden: 403 GET https://storage.googleapis.com/storage/v1/b/"
    "gke-on-prem-release?projection=noAcl&prettyPrint=false: MYSERVICEACCOUNT@email does not "
    "have storage.buckets.get access to the Google Cloud Storage bucket. Permission "
    "'storage.buckets.get' denied on resource (or it may not exist).",
    "does not have storage.objects.get access to the Google Cloud Storage object. Permission "
    "'storage.objects.get' denied on resource (or it may not exist).",
    "google.api_core.exceptions.Forbidden: 403 GET https://www.googleapis.com/storage/v1/b/"
    "my-bucket?projection=noAcl: my-service-acc@my-project.iam.gserviceaccount.com does not "
    "have storage.buckets.get access to my-bucket.",
)


@pytest.mark.parametrize("line", GCS_DENIED_LINES, ids=[line[:60] for line in GCS_DENIED_LINES])
def test_a_cloud_storage_refusal_is_a_known_failure_and_a_cause(line: str) -> None:
    entry = entry_of(Example(line, "public reports", terms.CLIENT))
    assert fetched_by("triage", entry)
    matched = scenarios.match(entry)
    assert matched is not None and matched.slug == "gcs-permission", matched
    item = classify(entry)
    assert item is not None and item.decisive


# XLA's error pages (openxla/xla docs/errors/error_0200.md scenario 3.A, error_03xx.md): a
# core that halts on a launch group mismatch is the hosts' programs disagreeing (or, under a
# single controller, the runtime's scheduling), not the chip failing.
LAUNCH_GROUP_LINES = (
    "jax.errors.JaxRuntimeError: INTERNAL: Core halted unexpectedly: INTERNAL: Accelerator "
    "device halted prematurely, perhaps due to an on-device check-failure. Node 0 halted "
    "unexpectedly at tag:pc TensorCoreSequencer:1:0x1d9 (from TensorCoreSequencer:1:0x309): "
    "scheckne: An unexpected leader shows up in the launch group with a different launch id "
    "than the current group leader.",
    "An unexpected peer shows up in the launch group with a different launch id than the "
    "current group leader.",
)

# Mosaic compile failures of Pallas TPU kernels (openxla/xla docs/errors/error_2xxx.md), also
# when the error comes back through the IFRT proxy with its `compile: ` prefix.
MOSAIC_LINES = (
    "jax.errors.JaxRuntimeError: INTERNAL: Mosaic failed to compile TPU kernel: failed to "
    "legalize operation 'arith.mulf'",
    "compile: INVALID_ARGUMENT: Mosaic failed to compile TPU kernel: Static device assignment "
    "is undefined",
)


@pytest.mark.parametrize(
    ("line", "slug", "action"),
    [
        *((line, "launch-group-mismatch", "triage") for line in LAUNCH_GROUP_LINES),
        *((line, "mosaic-compile", "errors") for line in MOSAIC_LINES),
    ],
    ids=["halted", "peer", "mosaic-direct", "mosaic-through-the-proxy"],
)
def test_an_xla_error_page_line_is_its_known_failure(line: str, slug: str, action: str) -> None:
    entry = entry_of(Example(line, "XLA error pages", terms.CLIENT))
    assert fetched_by(action, entry)
    matched = scenarios.match(entry)
    assert matched is not None and matched.slug == slug, matched
    item = classify(entry)
    assert item is not None and item.decisive
