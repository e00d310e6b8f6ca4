"""Version evidence: image tags, Build labels and the client's JAX version, and mismatches."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from pathways_workload.describe import container_of, message
from pathways_workload.sources.base import Entry

# JAX versions the Pathways on Cloud GA release supports.
SUPPORTED_JAX = ("0.12.0.1", "0.12.0", "0.11.2", "0.11.1", "0.11.0", "0.10.2", "0.10.1")
IMAGE_KINDS = (
    ("sidecar", "colocated_python_sidecar"),
    ("proxy", "proxy_server"),
    ("server", "/server"),
)
_IMAGE_RE = re.compile(r"([\w.-]+(?:/[\w.-]+)*/cloud-pathways/[\w.-]+):([\w.-]+)")
_TAG_JAX_RE = re.compile(r"jax[_-](\d+(?:\.\d+){2,3})")
_BUILD_RE = re.compile(r"Build label:\s*(\S+)")
_JAX_RE = re.compile(
    r"\bjax(?:==|\s+version\s*[:=]?\s*|\s*[:=]\s*|\s+)v?(\d+\.\d+\.\d+(?:\.\d+)?)",
    re.IGNORECASE,
)


def _image(entry: Entry) -> tuple[str, str] | None:
    found = _IMAGE_RE.search(message(entry))
    if not found:
        return None
    repository, tag = found.groups()
    for kind, marker in IMAGE_KINDS:
        if marker in repository:
            return kind, tag
    return None


def tag_jax(tag: str | None) -> str | None:
    """The JAX version an image tag was qualified for (`jax-0.12.0`, `20261108-jax_0.12.0`)."""
    found = _TAG_JAX_RE.search(tag or "")
    return found.group(1) if found else None


def collect(entries: Iterable[Entry]) -> dict[str, Any]:
    """Image tags per component, Build labels per container, the client's JAX version."""
    tags: dict[str, str] = {}
    builds: dict[str, str] = {}
    jax = None
    for entry in entries:
        image = _image(entry)
        if image and image[0] not in tags:
            tags[image[0]] = image[1]
        text = message(entry)
        build = _BUILD_RE.search(text)
        if build:
            builds.setdefault(container_of(entry) or "?", build.group(1))
        if jax is None and "cloud-pathways" not in text:
            found = _JAX_RE.search(text)
            jax = found.group(1) if found else None
    return {
        "server": tags.get("server"),
        "proxy": tags.get("proxy"),
        "sidecar": tags.get("sidecar"),
        "jax": jax,
        "build_labels": builds,
        "mismatches": mismatches(tags, jax),
        "unsupported": unsupported(tags, jax),
    }


def mismatches(tags: dict[str, str], jax: str | None) -> list[str]:
    """Components built for different releases."""
    found = []
    if tags.get("server") and tags.get("proxy") and tags["server"] != tags["proxy"]:
        found.append(f"server image {tags['server']} and proxy image {tags['proxy']} differ")
    for kind, tag in sorted(tags.items()):
        qualified = tag_jax(tag)
        if jax and qualified and qualified != jax:
            found.append(
                f"{kind} image {tag} is qualified for JAX {qualified}, the client runs JAX {jax}"
            )
    return found


def unsupported(tags: dict[str, str], jax: str | None) -> list[str]:
    """Versions outside the list the GA release supports."""
    found = [
        f"{kind} image {tag}: JAX {tag_jax(tag)} is not a supported version"
        for kind, tag in sorted(tags.items())
        if tag_jax(tag) and tag_jax(tag) not in SUPPORTED_JAX
    ]
    if jax and jax not in SUPPORTED_JAX:
        found.append(f"client JAX {jax} is not a supported version ({', '.join(SUPPORTED_JAX)})")
    return found
