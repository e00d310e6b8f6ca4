"""Write the recorded-incident corpus: every spec's export and expected file, and the README."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from tests.corpus.incident import Incident
from tests.corpus.writer import readme, write_incident

FOLDER = Path(__file__).resolve().parent.parent / "fixtures" / "incidents"
SPECS = (
    "elastic_restore_failure",
    "host_oom_worker",
    "missing_proxy_backend",
    "preemption_sigterm",
    "topology_mismatch",
    "proxy_connection_terminated",
    "cached_executable_metadata_edited",
    "lost_connection_to_peer",
    "alts_handshake_failure",
    "gcs_lifecycle_prefix_limit",
    "jax_version_mismatch",
    "image_pull_backoff",
    "port_collision",
    "megascale_hang_detected",
    "proxy_transfer_stall",
    "silent_hang",
    "healthy_run",
    "jobset_name_too_long",
    "co_tenant_oom",
    "two_failures",
    "proxy_disconnect_only",
    "client_timeout_workers_follow",
    "compilation_service_crash",
    "user_code_import_error",
    "finished_run",
    "kueue_preemption",
    "client_job_finished",
)


def build(name: str) -> Incident:
    """Plant the incident of one spec module."""
    spec = importlib.import_module(f"tests.corpus.specs.{name}")
    incident: Incident = spec.build()
    return incident


def write_corpus(folder: Path, log: TextIO | None = None) -> None:
    """Write every incident and the README into `folder`."""
    incidents = []
    for name in SPECS:
        inc = build(name)
        size = write_incident(folder, inc)
        incidents.append(inc)
        if log is not None:
            print(f"{inc.story.slug:36s} {len(inc.rows):5d} entries {size / 1e6:6.2f} MB", file=log)
    (folder / "README.md").write_text(readme(incidents), encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--out", type=Path, default=FOLDER, help="folder to write (default: %(default)s)"
    )
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    write_corpus(args.out, sys.stderr)
    return 0
