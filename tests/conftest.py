"""Shared test setup: import path, and a guard that keeps every test on loopback."""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

# google-auth must never probe the metadata server from a test.
os.environ["NO_GCE_CHECK"] = "true"
os.environ["GCE_METADATA_HOST"] = "127.0.0.1:9"
os.environ["GCE_METADATA_IP"] = "127.0.0.1:9"

_LOOPBACK_PREFIXES = ("127.", "::1", "localhost")
_real_connect = socket.socket.connect


def _loopback_only_connect(self: socket.socket, address: Any) -> Any:
    """Refuse any connection that would leave this machine."""
    host = address[0] if isinstance(address, tuple) else str(address)
    if self.family == socket.AF_UNIX or str(host).startswith(_LOOPBACK_PREFIXES):
        return _real_connect(self, address)
    raise OSError(f"test tried to reach {host!r}: only loopback is allowed")


@pytest.fixture(autouse=True)
def _stay_on_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket.socket, "connect", _loopback_only_connect)
