"""Every signature carries its evidence: each example line is matched by its signature,
fetched by the queries that rely on it, and weighed as the rules say."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pathways_workload import examples, filters, scenarios, terms
from pathways_workload.examples import Example, Term
from pathways_workload.plan import Results
from pathways_workload.query import SEVERITIES, Request
from pathways_workload.registry import ACTIONS
from pathways_workload.sources.base import Fetch
from pathways_workload.triage.evidence import BENIGN, SYMPTOMS, Symptom, classify, symptom_of
from tests.example_entries import REQUEST, entry_of

ROOT = Path(__file__).resolve().parent.parent
# The fetches whose answers triage weighs as evidence.
EVIDENCE_FETCHES = ("crashes", "events", "node_events", "instances", "controller")
# Which actions read each catalogue's terms (and so must fetch its examples).
TERM_ACTIONS = {
    "CRASH_TERMS": ("errors", "triage"),
    "STALL_TERMS": ("triage",),
    "STARTUP_TERMS": ("triage",),
    "VERSION_TERMS": ("versions", "triage"),
    "USER_TERMS": ("user-workload",),
    "PROXY_TERMS": ("proxy",),
    "RM_TERMS": ("pathways-rm",),
    "WORKER_TERMS": ("workers",),
    "SIDECAR_TERMS": ("colocated-python-sidecar",),
    "SIDECAR_WAITING_TERMS": ("colocated-python-sidecar",),
    "ELASTIC_TERMS": ("elastic",),
    # Triage reads only the controller's lines that name the workload (test_agent_report).
    "SUMMARY_CONTROLLER_TERMS": ("summary",),
    "SCHEDULING_FAILURES": ("summary",),
    "NODE_OOM_REASONS": ("node-ooms", "triage"),
    "NODE_OOM_TERMS": ("node-ooms", "triage"),
    "NODE_PRESSURE_REASONS": ("node-ooms", "triage"),
    "INTERRUPTION_METHODS": ("interruptions", "triage"),
    "NODEPOOL_METHODS": ("interruptions", "triage"),
    "NODE_INTERRUPTION_REASONS": ("interruptions", "triage"),
    "NODE_INTERRUPTION_TERMS": ("interruptions",),
    "SCHEDULED_REASON": ("node-ooms",),
}
REASON_CATALOGUES = (
    "SCHEDULING_FAILURES",
    "NODE_OOM_REASONS",
    "NODE_PRESSURE_REASONS",
    "NODE_INTERRUPTION_REASONS",
    "SCHEDULED_REASON",
)
METHOD_CATALOGUES = ("INTERRUPTION_METHODS", "NODEPOOL_METHODS")
# The action that reads each kind of line an example can be.
COMPONENT_ACTIONS = {
    **dict.fromkeys(terms.USER_CONTAINERS, ("user-workload",)),
    **dict.fromkeys(terms.PROXY_CONTAINERS, ("proxy",)),
    **dict.fromkeys(terms.RM_CONTAINERS, ("pathways-rm",)),
    **dict.fromkeys(terms.WORKER_CONTAINERS, ("workers",)),
    **dict.fromkeys(terms.SIDECAR_CONTAINERS, ("colocated-python-sidecar",)),
    examples.POD_EVENT: ("pod-events",),
    examples.JOBSET_EVENT: ("pod-events",),
    examples.NODE_EVENT: ("node-ooms", "interruptions"),
    examples.SERIAL_CONSOLE: ("node-ooms",),
    examples.KUBELET: ("node-ooms",),
    examples.AUDIT: ("interruptions",),
    examples.NODEPOOL: ("interruptions",),
    examples.CONTROLLER: ("summary",),
}
SCENARIO_EXAMPLES = [
    (scenario, example) for scenario in scenarios.SCENARIOS for example in scenario.examples
]
TERMS = [(name, term) for name, catalogue in terms.CATALOGUES.items() for term in catalogue]
SYMPTOM_EXAMPLES = [(rule, example) for rule in SYMPTOMS for example in rule.examples]


def fetches_of(action: str, request: Request = REQUEST) -> list[Fetch]:
    """Every fetch of every stage of an action, at the action's severity floor."""
    request = ACTIONS[action].request_for(request)
    fetches = [
        fetch for stage in ACTIONS[action].stages for fetch in stage.build(request, Results())
    ]
    if action == "triage":
        return [fetch for fetch in fetches if fetch.name in (*EVIDENCE_FETCHES, "startup")]
    return fetches


def fetched_by(action: str, entry: dict[str, object]) -> bool:
    return any(filters.compile_checked(f.query.filter).matches(entry) for f in fetches_of(action))


def all_examples() -> list[Example]:
    """Every example of every table."""
    found = [example for _, example in SCENARIO_EXAMPLES]
    found += [term.example for _, term in TERMS]
    return found + [example for _, example in SYMPTOM_EXAMPLES] + list(BENIGN)


def test_every_example_names_its_kind_severity_and_source() -> None:
    for example in all_examples():
        assert example.source.strip(), example
        assert example.severity in SEVERITIES, example
        assert example.container in examples.KINDS or example.container in COMPONENT_ACTIONS
        assert example.line.strip(), example


def test_every_known_failure_has_a_slug_and_examples() -> None:
    slugs = [scenario.slug for scenario in scenarios.SCENARIOS]
    assert len(set(slugs)) == len(slugs)
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", slug) for slug in slugs)
    numbers = [scenario.number for scenario in scenarios.SCENARIOS]
    assert numbers == list(range(1, len(numbers) + 1))
    assert all(scenario.examples for scenario in scenarios.SCENARIOS)


@pytest.mark.parametrize("scenario", scenarios.SCENARIOS, ids=lambda s: s.slug)
def test_every_signature_of_a_known_failure_is_shown_by_an_example(
    scenario: scenarios.Scenario,
) -> None:
    lines = [example.line.lower() for example in scenario.examples]
    for text in scenario.substrings:
        assert any(text.lower() in line for line in lines), text
    for reason in scenario.reasons:
        assert any(example.reason == reason for example in scenario.examples), reason
    for method in scenario.methods:
        assert any(example.line == method for example in scenario.examples), method


@pytest.mark.parametrize(
    ("scenario", "example"), SCENARIO_EXAMPLES, ids=[e.line[:50] for _, e in SCENARIO_EXAMPLES]
)
def test_a_known_failure_matches_and_fetches_its_examples(
    scenario: scenarios.Scenario, example: Example
) -> None:
    entry = entry_of(example)
    assert scenarios.match(entry) is scenario
    assert fetched_by("triage", entry), "triage does not fetch it"
    actions = COMPONENT_ACTIONS[example.container]
    assert any(fetched_by(action, entry) for action in actions), actions


def test_every_catalogue_is_the_tuple_its_builders_use() -> None:
    assert set(terms.CATALOGUES) == set(TERM_ACTIONS)
    for name, catalogue in terms.CATALOGUES.items():
        texts = examples.texts(catalogue)
        assert getattr(terms, name) in (texts, texts[0]), name
        assert len(set(texts)) == len(texts), name


def _term_filter(name: str, term: Term) -> str:
    if name in REASON_CATALOGUES:
        return filters.one_of("jsonPayload.reason", (term.text,))
    if name in METHOD_CATALOGUES:
        return filters.one_of("protoPayload.methodName", (term.text,))
    return filters.message_has_any((term.text,))


@pytest.mark.parametrize(("name", "term"), TERMS, ids=[f"{n}:{t.text}" for n, t in TERMS])
def test_a_term_finds_its_example_and_the_actions_that_use_it_fetch_it(
    name: str, term: Term
) -> None:
    example = term.example
    entry = entry_of(example)
    assert filters.compile_checked(_term_filter(name, term)).matches(entry)
    # At INFO the term, not the severity floor, must be what selects a container line.
    quiet = entry_of(example, "INFO") if example.container not in examples.KINDS else entry
    for action in TERM_ACTIONS[name]:
        assert fetched_by(action, quiet), action


@pytest.mark.parametrize(
    ("rule", "example"),
    SYMPTOM_EXAMPLES,
    ids=[f"{r.text}:{e.line[:40]}" for r, e in SYMPTOM_EXAMPLES],
)
def test_a_symptom_example_triggers_the_symptom_rules(rule: Symptom, example: Example) -> None:
    entry = entry_of(example)
    assert rule.matches(entry)
    assert symptom_of(entry) is not None
    item = classify(entry)
    assert item is None or item.symptom


@pytest.mark.parametrize("example", BENIGN, ids=[e.line[:50] for e in BENIGN])
def test_a_benign_line_is_no_evidence_of_a_cause(example: Example) -> None:
    item = classify(entry_of(example))
    assert item is None or not item.decisive


def test_the_reference_describes_every_known_failure() -> None:
    text = (ROOT / "references" / "special-scenarios.md").read_text()
    headings = [line.replace("`", "") for line in text.splitlines() if line.startswith("## ")]
    for scenario in scenarios.SCENARIOS:
        assert f"## {scenario.number}. {scenario.title}" in headings, scenario.title
        assert f"(`{scenario.slug}`)" in text, scenario.slug
