"""Versions read from every Pathways image path and tag, mismatches between head and hosts."""

from __future__ import annotations

from typing import Any

from pathways_workload.triage.versions import collect
from tests.helpers import pulled_event

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
