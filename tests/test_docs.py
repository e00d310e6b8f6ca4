"""The documentation's commands are real: every flag and action exists, every command parses,
and every command that names a bundled incident runs."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from pathways_workload.arguments import build_parser
from pathways_workload.lql import compile_filter
from pathways_workload.registry import ACTIONS
from tests.helpers import run_cli

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "SKILL.md", ROOT / "README.md", *sorted((ROOT / "references").glob("*.md"))]
ENTRY = "python3 scripts/debug_workload.py"
# Flags of other programs that the docs mention (Pathways components, xpk, gcloud, bq, the
# benchmarks).
FOREIGN_FLAGS = {
    "--num_elastic_slices",
    "--instance_type",
    "--instance_count",
    "--gcs_scratch_location",
    "--resource_manager_address",
    "--enable-debug-logs",
    "--deploy-stacktrace-sidecar",
    "--big",
    "--large",
    "--field-selector",
    "--event-ttl",
    "--enable-analytics",
    "--bucket",
    "--member",
    "--role",
    "--dry_run",
    "--parameter",
    "--hosts",
    "--slices",
    "--prefix",
    "--timestamps",
    "--all-containers",
    "--ignore-errors",
}
PLACEHOLDERS = {
    "{project}": "pw-demo",
    "{cluster_name}": "pw-cluster",
    "{location}": "us-east5",
    "{namespace}": "default",
    "{jobset_name}": "llama-train",
    "{lws_name}": "jetstream-pw",
    "{job_name}": "rl-actor",
    "{pod_prefix}": "llama-train-worker",
    "{start_time}": "2026-10-22T11:10:00Z",
    "{end_time}": "2026-10-22T12:10:00Z",
    "{issue_time}": "2026-10-22T11:40:00Z",
    "{node_name}": "gke-pw-cluster-tpu-np-1-8a1b2c3d-x9k2",
    "{container_name}": "pathways-worker",
    "{export_path}": "tests/fixtures/incidents",
}


def _option_strings() -> set[str]:
    return {option for action in build_parser()._actions for option in action.option_strings}


def _shell_blocks(text: str) -> list[str]:
    """The bodies of fenced blocks marked bash or sh (or unmarked)."""
    blocks, body, language = [], [], None
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            if language is None:
                language, body = line.strip()[3:], []
            else:
                if language in ("", "bash", "sh"):
                    blocks.append("\n".join(body))
                language = None
        elif language is not None:
            body.append(line)
    return blocks


def commands() -> list[tuple[str, str]]:
    """Every tool command in a shell block of the docs, continuations joined."""
    found = []
    for doc in DOCS:
        for block in _shell_blocks(doc.read_text()):
            text = block.replace("\\\n", " ")
            found += [
                (doc.name, line.strip())
                for line in text.splitlines()
                if ENTRY in line and not line.strip().startswith("#")
            ]
    return found


# Commands that replay an export run on this bundled incident.
DEMO = {
    "{export_path}": "tests/fixtures/incidents/host-oom-worker.json",
    "{jobset_name}": "gemma-train",
    "{issue_time}": "2026-11-17T13:30:00Z",
}


def _argv(command: str) -> list[str]:
    if "{export_path}" in command:
        for placeholder, value in DEMO.items():
            command = command.replace(placeholder, value)
    for placeholder, value in PLACEHOLDERS.items():
        command = command.replace(placeholder, value)
    assert "{" not in command, f"unknown placeholder in {command}"
    words = shlex.split(command.split(" && ")[-1])
    return words[words.index("scripts/debug_workload.py") + 1 :]


def test_the_docs_show_commands() -> None:
    assert len(commands()) > 40


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_flag_and_action_named_exists(doc: Path) -> None:
    text = doc.read_text()
    flags = set(re.findall(r"(?<![\w-])--[a-zA-Z][\w-]*", text)) - FOREIGN_FLAGS
    assert flags <= _option_strings(), flags - _option_strings()
    actions = set(re.findall(r"--action=([a-z-]+)", text))
    assert actions <= set(ACTIONS), actions - set(ACTIONS)


@pytest.mark.parametrize(("doc", "command"), commands())
def test_every_command_parses(doc: str, command: str) -> None:
    build_parser().parse_args(_argv(command))


@pytest.mark.parametrize(
    ("doc", "command"),
    [(d, c) for d, c in commands() if "tests/fixtures/incidents/" in c or "{export_path}" in c],
)
def test_commands_on_bundled_incidents_run(doc: str, command: str) -> None:
    code, out, err = run_cli(*_argv(command))
    assert code == 0, err
    assert out


def test_the_skill_action_table_is_the_registry() -> None:
    rows = re.findall(r"^\| `([a-z-]+)` \| (.+) \|$", (ROOT / "SKILL.md").read_text(), re.M)
    table = {name: text for name, text in rows if name in ACTIONS}
    assert table == {name: action.help for name, action in ACTIONS.items()}


def test_the_skill_stays_under_500_lines() -> None:
    assert len((ROOT / "SKILL.md").read_text().splitlines()) < 500


def _saved(record: dict[str, str], entries: list[dict[str, object]]) -> list[dict[str, object]]:
    """What a printed `gcloud logging read` command returns from these entries."""
    words = shlex.split(record["command"])
    limit = int(next(w for w in words if w.startswith("--limit=")).split("=", 1)[1])
    matched = sorted(
        (e for e in entries if compile_filter(record["filter"]).matches(e)),
        key=lambda e: str(e["timestamp"]),
        reverse="--order=desc" in words,
    )
    return matched[:limit]


def test_the_save_once_example_replays_what_it_printed(tmp_path: Path) -> None:
    """The playbook said: save a printed command's output and replay it with
    --min_severity=DEFAULT; the printed command had the default floor and --limit, so the
    replay showed a third of the RM's lines and said nothing of the rest."""
    text = (ROOT / "references" / "container-playbooks.md").read_text()
    block = next(b for b in _shell_blocks(text) if '--logs_file="{export_path}"' in b)
    printed, replayed = [
        c
        for d, c in commands()
        if d == "container-playbooks.md"
        and c in [line.strip() for line in block.replace("\\\n", " ").splitlines()]
    ]
    values = {**PLACEHOLDERS, **DEMO}
    for placeholder, value in values.items():
        printed = printed.replace(placeholder, value)
    code, out, err = run_cli(*_argv(printed), "--format=json")
    assert code == 0, err
    incident = json.loads(Path(ROOT / DEMO["{export_path}"]).read_text())
    saved = [e for line in out.splitlines() for e in _saved(json.loads(line), incident)]
    (tmp_path / "saved.json").write_text(json.dumps(saved))
    whole = run_cli(*_argv(replayed))
    assert whole[0] == 0 and whole[1], whole[2]
    argv = [a for a in _argv(replayed) if not a.startswith("--logs_file=")]
    assert run_cli(*argv, f"--logs_file={tmp_path / 'saved.json'}")[1] == whole[1]
