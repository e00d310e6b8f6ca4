"""Versions read from every Pathways image path and tag, mismatches between head and hosts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pathways_workload.triage.versions import collect
from tests.helpers import pulled_event, run_cli
from tests.test_incidents import INCIDENTS, expected, target_args

PATHWAYS = "us-docker.pkg.dev/cloud-tpu-v2-images/pathways"
RELEASE = "us-docker.pkg.dev/cloud-tpu-v2-images/cloud-pathways"
HEAD = "llama-train-pathways-head-0-0-a"


def pulled(image: str, container: str, pod: str = "llama-train-worker-0-0-b") -> dict[str, Any]:
    return pulled_event(image, container, pod)


def test_versions_are_read_from_the_xpk_image_path_too() -> None:
    found = collect(
        [
            pulled(f"{PATHWAYS}/server:jax-0.12.0", "pathways-rm", HEAD),
            pulled(f"{PATHWAYS}/proxy_server:jax-0.12.0", "pathways-proxy", HEAD),
            pulled(f"{PATHWAYS}/colocated_python_sidecar:latest", "colocated-python-sidecar"),
        ]
    )
    assert (found["server"], found["proxy"], found["sidecar"]) == ("jax-0.12.0",) * 2 + ("latest",)
    assert not found["mismatches"]


def test_head_and_hosts_on_different_server_images_is_a_mismatch() -> None:
    found = collect(
        [
            pulled(f"{RELEASE}/server:20261108-jax_0.12.0", "pathways-rm", HEAD),
            pulled(f"{PATHWAYS}/server:20261020-jax_0.11.2", "pathways-worker"),
        ]
    )
    assert found["server"] == "20261108-jax_0.12.0"
    assert found["mismatches"] == [
        f"the head runs server image {RELEASE}/server:20261108-jax_0.12.0, the TPU hosts run "
        f"{PATHWAYS}/server:20261020-jax_0.11.2"
    ]


def test_a_jax_version_outside_the_list_is_not_called_unsupported() -> None:
    found = collect([pulled(f"{PATHWAYS}/server:jax-0.13.0", "pathways-rm", HEAD)])
    (line,) = found["unknown_versions"]
    assert "not in the list known to this release" in line
    assert "unsupported" not in line


def _scaled(tmp_path: Path, name: str, copies: int) -> Path:
    """The incident as a bigger JobSet would log it: every worker's lines again under new pod
    names (the same start-up lines, at the same times)."""
    entries = json.loads((INCIDENTS / f"{name}.json").read_text())
    more = []
    for entry in entries:
        labels = entry["resource"]["labels"]
        if entry["resource"]["type"] != "k8s_container":
            continue
        if labels.get("container_name") != "pathways-worker":
            continue
        for copy in range(copies):
            twin = json.loads(json.dumps(entry))
            twin["resource"]["labels"]["pod_name"] = labels["pod_name"].replace(
                "-worker-", f"-worker-x{copy}-"
            )
            twin["insertId"] = f"{entry['insertId']}-x{copy}"
            more.append(twin)
    path = tmp_path / f"{name}-scaled.json"
    path.write_text(json.dumps(entries + more))
    return path


def test_a_thousand_workers_starting_do_not_hide_the_client_version(tmp_path: Path) -> None:
    planted = expected("jax-version-mismatch")["versions"]
    export = _scaled(tmp_path, "jax-version-mismatch", 150)
    code, out, err = run_cli(
        f"--logs_file={export}", "--jobset_name=gemma3-ft", "--action=versions", "--format=json"
    )
    assert code == 0, err
    report = json.loads(out)
    for key in ("server", "proxy", "jax", "build_labels"):
        assert report[key] == planted[key], key
    assert bool(report["mismatches"]) is planted["mismatch"] is True
    assert report["complete"] is False  # the workers' own read was cut, and it says so


def test_a_cut_read_is_said_in_the_text(tmp_path: Path) -> None:
    code, out, err = run_cli(
        f"--logs_file={INCIDENTS / 'host-oom-worker.json'}",
        "--jobset_name=gemma-train",
        "--action=versions",
        "--fetch_limit=20",
    )
    assert code == 0, err
    assert "not seen (unread?)" in out
    assert "- Incomplete: --fetch_limit=20 cut the read of the start-up and version lines" in out


def test_triage_says_a_version_not_seen_may_be_unread() -> None:
    """Triage's reads of start-up lines and events stopped at --fetch_limit (or at a server's
    short pages under the request budget) before the image lines: its Versions said
    "server not seen" as if the logs held none, where the versions action says "unread?"."""
    args = target_args("host-oom-worker")
    code, out, err = run_cli(*args, "--action=triage", "--fetch_limit=7", "--format=json")
    assert code == 0, err
    found = json.loads(out)["versions"]
    assert (found["server"], found["complete"]) == (None, False)
    code, out, err = run_cli(*args, "--action=triage", "--fetch_limit=7")
    assert code == 0, err
    assert "- server not seen (unread?), proxy not seen (unread?)" in out
    code, out, err = run_cli(*args, "--action=triage", "--format=json")
    assert code == 0, err
    assert json.loads(out)["versions"]["complete"] is True
