"""Shared fixtures: exports loaded into DuckDB once per module."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pathways_workload.analytics.offline import OfflineStore


@pytest.fixture
def store_of(tmp_path: Path) -> Iterator[Any]:
    """Load a list of entries into an OfflineStore (closed after the test)."""
    opened: list[OfflineStore] = []

    def load(entries: list[dict[str, Any]], memory_limit: str = "256MB") -> OfflineStore:
        path = tmp_path / f"export-{len(opened)}.json"
        path.write_text(json.dumps(entries), encoding="utf-8")
        store = OfflineStore([str(path)], memory_limit=memory_limit).__enter__()
        opened.append(store)
        return store

    yield load
    for store in opened:
        store.__exit__(None, None, None)
