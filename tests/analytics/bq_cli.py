"""The real `bq` CLI against the fake BigQuery: a throwaway config, nothing beyond loopback.

Printed commands run as printed, through a shell function `bq` that adds the
fake's address and an unused token (the fake checks none), so the rest of
each command, here-documents and `--parameter` words included, is the tool's.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.fake_bigquery import FakeBigQuery

BQ = shutil.which("bq")
CLOSED_PORT = "127.0.0.1:9"


def require_bq() -> str:
    """The bq CLI's path; skip without it, except in CI, which needs it."""
    if BQ is None:
        if os.environ.get("CI") == "true":
            pytest.fail("the bq CLI is not installed (CI needs it)")
        pytest.skip("the bq CLI is not installed on this machine")
    return BQ


def serve_discovery(fake: FakeBigQuery) -> None:
    """Let the fake answer bq's discovery request with the document bq ships."""
    root = Path(require_bq()).resolve().parent.parent
    shipped = root / "platform" / "bq" / "discovery_next" / "bigquery.json"
    fake.discovery = json.loads(shipped.read_text())


def bq_env(home: Path) -> dict[str, str]:
    """A throwaway bq: its own home and config, no metadata server, no proxy beyond loopback."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLOUDSDK_", "GOOGLE_"))}
    env.update(
        HOME=str(home),
        CLOUDSDK_CONFIG=str(home / "gcloud"),
        CLOUDSDK_CORE_CHECK_GCE_METADATA="false",
        CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK="true",
        CLOUDSDK_CORE_DISABLE_PROMPTS="1",
        NO_GCE_CHECK="True",
        GCE_METADATA_HOST=CLOSED_PORT,
        GCE_METADATA_IP=CLOSED_PORT,
        HTTP_PROXY=f"http://{CLOSED_PORT}",
        HTTPS_PROXY=f"http://{CLOSED_PORT}",
        NO_PROXY="127.0.0.1,localhost",
    )
    return env


def run_printed(script: str, fake: FakeBigQuery, home: Path) -> str:
    """Run printed shell with bash (errors stop it), `bq` talking to the fake; its stdout."""
    serve_discovery(fake)
    local = f"--api={fake.url} --oauth_access_token=unused --headless"
    wrapper = f'bq() {{ command bq {local} "$@"; }}\n'
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", wrapper + script],
        env=bq_env(home),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def json_arrays(text: str) -> list[list[dict[str, Any]]]:
    """The JSON arrays several `bq --format=json` commands printed one after another."""
    decoder, arrays, position = json.JSONDecoder(), [], 0
    while position < len(text):
        if text[position].isspace():
            position += 1
            continue
        value, position = decoder.raw_decode(text, position)
        arrays.append(value)
    return arrays
