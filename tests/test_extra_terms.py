"""--extra_terms are OR-ed with an action's built-in terms: on node-ooms and interruptions they
add lines, and never drop what the built-in terms find."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import run_cli

INCIDENTS = Path(__file__).resolve().parent / "fixtures" / "incidents"
TERM = "zz-custom-kernel-notice"


def _with_kernel_line(tmp_path: Path, name: str) -> str:
    """The incident plus one kubelet line on a node that logged, holding only TERM."""
    entries: list[dict[str, Any]] = json.loads((INCIDENTS / f"{name}.json").read_text())
    model = next(e for e in entries if e["resource"]["type"] == "k8s_node")
    line = copy.deepcopy(model)
    line["insertId"] = "added-kernel-line"
    line["jsonPayload"]["MESSAGE"] = f"I1117 13:40:00.000000  1529 kubelet.go:1] {TERM}"
    path = tmp_path / "export.json"
    path.write_text(json.dumps([*entries, line]))
    return f"--logs_file={path}"


def _lines(*argv: str) -> list[str]:
    code, out, err = run_cli(*argv, "--format=json", "--limit=5000")
    assert code == 0, err
    return [json.loads(line)["insertId"] for line in out.splitlines()]


@pytest.mark.parametrize(
    ("action", "name", "workload"),
    [
        ("node-ooms", "host-oom-worker", "--jobset_name=gemma-train"),
        ("interruptions", "preemption-sigterm", "--jobset_name=mistral-pretrain"),
    ],
)
def test_extra_terms_add_to_the_built_in_terms(
    tmp_path: Path, action: str, name: str, workload: str
) -> None:
    export = _with_kernel_line(tmp_path, name)
    without = _lines(f"--action={action}", export, workload)
    assert without, "the incident has lines this action finds"
    unlikely = _lines(f"--action={action}", export, workload, "--extra_terms=zz-nowhere")
    assert unlikely == without
    if action == "node-ooms":  # its k8s_node query reads the cluster's kernel lines
        found = _lines(f"--action={action}", export, workload, f"--extra_terms={TERM}")
        assert set(found) == {*without, "added-kernel-line"}


@pytest.mark.parametrize("term", ["\ufeff", "\u200b", "\u00ad\u2060", "\ufeff "])
@pytest.mark.parametrize("flag", ["--extra_terms", "--extra_term"])
def test_a_term_searches_ignore_entirely_is_refused(flag: str, term: str) -> None:
    """Searches drop default-ignorable characters (a pasted byte-order mark, a zero-width
    space), so such a term is the empty string, which every line contains."""
    code, out, err = run_cli(
        "--action=errors",
        f"--logs_file={INCIDENTS / 'host-oom-worker.json'}",
        "--jobset_name=gemma-train",
        f"{flag}={term}",
    )
    assert (code, out) == (2, "")
    given = term.strip() if flag == "--extra_terms" else term  # the list flag strips its items
    assert err.splitlines()[-1].startswith(f"error: {flag}={given!r}: searches ignore")
