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
    # The commands name .venv and scripts/ relative to the skill folder: go there first.
    there = "" if _working_directory() == SKILL_FOLDER else f"cd {folder} && "
    return (
        f"error: missing Python packages ({', '.join(absent)}); install the skill first: "
        f"{there}python3 -m venv .venv && .venv/bin/pip install {folder}, then run "
        "`.venv/bin/python3 scripts/debug_workload.py ...`"
    )


def _working_directory() -> Path | None:
    """The resolved working directory, or None when it no longer exists."""
    try:
        return Path.cwd().resolve()
    except OSError:
        return None
