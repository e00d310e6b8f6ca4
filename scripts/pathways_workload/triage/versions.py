"""Version evidence: image tags, Build labels and the client's JAX version, and mismatches.

Images are read from pod events (`Pulling`, `Pulled`) and lines that name
them, under any registry path ending in `/server`, `/proxy_server` or
`/colocated_python_sidecar` (the release notes' `…/cloud-pathways/…`, xpk's
and Google's examples' `…/pathways/…`, a mirror), with the tags the release
publishes: `YYYYMMDD-jax_X`, `jax-X` or `latest`. The server image runs on
the head (the RM) and on every TPU host: the two should be the same image.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from pathways_workload.describe import bare_message, container_of
from pathways_workload.sources.base import Entry
from pathways_workload.triage.hosts import HOST_CONTAINERS

# JAX versions the Pathways on Cloud GA release notes (2026-11-09) list as supported.
KNOWN_JAX = ("0.12.0.1", "0.12.0", "0.11.2", "0.11.1", "0.11.0", "0.10.2", "0.10.1")
KNOWN_AS_OF = "the Pathways on Cloud GA release notes of 2026-11-09"
IMAGE_KINDS = {"server": "server", "proxy_server": "proxy", "colocated_python_sidecar": "sidecar"}
_IMAGE_RE = re.compile(
    r"((?:[\w.-]+/)+(server|proxy_server|colocated_python_sidecar))"
    r":((?:\d{8}-jax_|jax-)\d+(?:\.\d+){2,3}|latest)(?![\w.-])"
)
Images = dict[tuple[str, str], str]  # (component, head or hosts) -> image
_FIELD_PATH_RE = re.compile(r"spec\.(?:init)?[cC]ontainers\{([^}]+)\}")
_TAG_JAX_RE = re.compile(r"jax[_-](\d+(?:\.\d+){2,3})")
_BUILD_RE = re.compile(r"Build label:\s*(\S+)")
_JAX_RE = re.compile(
    r"\bjax(?:==|\s+version\s*[:=]?\s*|\s*[:=]\s*|\s+)v?(\d+\.\d+\.\d+(?:\.\d+)?)",
    re.IGNORECASE,
)


def _container(entry: Entry) -> str | None:
    """The container an entry is about: its own, or the one a pod event names."""
    payload = entry.get("jsonPayload")
    involved = payload.get("involvedObject") if isinstance(payload, dict) else None
    path = involved.get("fieldPath") if isinstance(involved, dict) else None
    found = _FIELD_PATH_RE.fullmatch(path) if isinstance(path, str) else None
    return found.group(1) if found else container_of(entry)


def _images(entry: Entry, text: str) -> list[tuple[str, str, str]]:
    """(component, where it runs: head or hosts, image) for each Pathways image named."""
    if "server:" not in text and "sidecar:" not in text:  # every image name ends so
        return []
    role = "hosts" if _container(entry) in HOST_CONTAINERS else "head"
    return [
        (IMAGE_KINDS[kind], role, f"{repository}:{tag}")
        for repository, kind, tag in _IMAGE_RE.findall(text)
    ]


def tag_of(image: str | None) -> str | None:
    return image.rsplit(":", 1)[1] if image else None


def tag_jax(tag: str | None) -> str | None:
    """The JAX version an image tag was qualified for (`jax-0.12.0`, `20261108-jax_0.12.0`)."""
    found = _TAG_JAX_RE.search(tag or "")
    return found.group(1) if found else None


def _scan(entries: Iterable[Entry]) -> tuple[Images, dict[str, str], str | None]:
    """The first image of each component and role, Build labels, the client's JAX version."""
    images: Images = {}
    builds: dict[str, str] = {}
    jax = None
    for entry in entries:
        text = bare_message(entry)
        named = _images(entry, text)
        for kind, role, image in named:
            images.setdefault((kind, role), image)
        build = _BUILD_RE.search(text) if "Build label" in text else None
        if build:
            builds.setdefault(container_of(entry) or "?", build.group(1))
        if jax is None and not named and "jax" in text.lower():
            found = _JAX_RE.search(text)
            jax = found.group(1) if found else None
    return images, builds, jax


def collect(entries: Iterable[Entry]) -> dict[str, Any]:
    """Image tags per component, Build labels per container, the client's JAX version."""
    images, builds, jax = _scan(entries)
    chosen = {
        kind: images.get((kind, "head")) or images.get((kind, "hosts"))
        for kind in IMAGE_KINDS.values()
    }
    tags = {kind: tag for kind, image in chosen.items() if (tag := tag_of(image))}
    return {
        "server": tags.get("server"),
        "proxy": tags.get("proxy"),
        "sidecar": tags.get("sidecar"),
        "jax": jax,
        "images": {f"{kind} ({role})": image for (kind, role), image in sorted(images.items())},
        "build_labels": builds,
        "mismatches": mismatches(tags, images, jax),
        "unknown_versions": unknown_versions(tags, jax),
    }


def mismatches(tags: dict[str, str], images: Images, jax: str | None) -> list[str]:
    """Components built for different releases, or the head and the hosts on different images."""
    found = []
    if tags.get("server") and tags.get("proxy") and tags["server"] != tags["proxy"]:
        found.append(f"server image {tags['server']} and proxy image {tags['proxy']} differ")
    head, hosts = images.get(("server", "head")), images.get(("server", "hosts"))
    if head and hosts and head != hosts:
        found.append(f"the head runs server image {head}, the TPU hosts run {hosts}")
    for kind, tag in sorted(tags.items()):
        qualified = tag_jax(tag)
        if jax and qualified and qualified != jax:
            found.append(
                f"{kind} image {tag} is qualified for JAX {qualified}, the client runs JAX {jax}"
            )
    return found


def unknown_versions(tags: dict[str, str], jax: str | None) -> list[str]:
    """JAX versions outside the list this release knows (not necessarily unsupported)."""
    known = f"not in the list known to this release ({KNOWN_AS_OF}: {', '.join(KNOWN_JAX)})"
    found = [
        f"{kind} image {tag}: JAX {tag_jax(tag)} is {known}"
        for kind, tag in sorted(tags.items())
        if tag_jax(tag) and tag_jax(tag) not in KNOWN_JAX
    ]
    if jax and jax not in KNOWN_JAX:
        found.append(f"client JAX {jax} is {known}")
    return found
