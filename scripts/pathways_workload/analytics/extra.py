"""The optional `analytics` extra: google-cloud-bigquery, duckdb and sqlglot, imported on use.

Print mode needs none of them; anything that runs SQL imports through
`require`, which turns a missing package into the install command.
"""

from __future__ import annotations

import importlib
from typing import Any

from pathways_workload.errors import UsageError

INSTALL = "pip install '.[analytics]'"


def require(module: str) -> Any:
    """Import a module of the analytics extra.

    Raises:
        UsageError: it is not installed (exit 2, with the install command).
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        raise UsageError(
            f"--engine=analytics needs the analytics extra ({module} is not installed): "
            f"run {INSTALL} from the skill folder"
        ) from None
