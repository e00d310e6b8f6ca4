"""The Python packages the tool needs before it can start, checked without importing them."""

from __future__ import annotations

import importlib.util
import shlex
from pathlib import Path

# Module name -> the distribution that provides it (what pip installs).
REQUIRED = {"tabulate": "tabulate", "re2": "google-re2", "isal": "isal"}
SKILL_FOLDER = Path(__file__).resolve().parent.parent.parent


def missing_message() -> str | None:
    """One line naming what is missing and the command that installs it, or None."""
    absent = sorted(
        dist for module, dist in REQUIRED.items() if not importlib.util.find_spec(module)
    )
    if not absent:
        return None
    folder = shlex.quote(str(SKILL_FOLDER))
    return (
        f"error: missing Python packages ({', '.join(absent)}); install the skill first: "
        f"python3 -m venv .venv && .venv/bin/pip install {folder}, then run "
        "`.venv/bin/python3 scripts/debug_workload.py ...`"
    )
