"""--project takes what gcloud's --project takes, and a project number gets the way to its ID."""

from __future__ import annotations

import json

import pytest

from tests.helpers import run_cli

NUMBER = "123456789012"
PRINT = ("--action=errors", "--jobset_name=llama-train", "--start_time=2026-10-22T11:00:00Z")


@pytest.mark.parametrize("project", ["google.com:pw-demo", "1legacy", "pw"])
def test_print_mode_takes_what_gcloud_takes_as_a_project(project: str) -> None:
    """gcloud's --project takes a domain-scoped ID and a legacy ID starting with a digit."""
    code, out, err = run_cli(*PRINT, f"--project={project}", "--format=json")
    assert code == 0, err
    (record,) = [json.loads(line) for line in out.splitlines()]
    assert f"--project={project}" in record["command"]
    assert record["url"].endswith(f"?project={project.replace(':', '%3A')}")


@pytest.mark.parametrize("project", ["My-Project", "x $(id)", "-pw", "pw-", "a" * 64])
def test_what_gcloud_refuses_as_a_project_is_refused(project: str) -> None:
    code, out, err = run_cli(*PRINT, f"--project={project}")
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        f"error: --project={project!r}: not a Google Cloud project ID, e.g. my-project"
    ]


@pytest.mark.parametrize(
    "source",
    [
        (),
        ("--execute",),
        ("--logs_file=-",),
        ("--engine=analytics", "--analytics_dataset=p.d", "--analytics_location=US"),
    ],
)
def test_a_project_number_is_refused_with_the_way_to_its_id(source: tuple[str, ...]) -> None:
    """`gcloud logging` refuses a project number, and an export or Log Analytics names the
    project by its ID: nothing the tool prints or reads could use the number."""
    code, out, err = run_cli(*PRINT, f"--project={NUMBER}", *source)
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        f"error: --project={NUMBER}: a project number; gcloud logging, exports and Log "
        "Analytics name a project by its ID: pass the ID, which `gcloud projects describe "
        f"{NUMBER} --format='value(projectId)'` prints"
    ]
