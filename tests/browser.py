"""Headless Chromium for the HTML report's tests, kept off the network.

`open_page` loads a local file and returns the DOM after the page's script
ran, every console message the page produced (Chromium logs them to stderr
with `--enable-logging=stderr`), and optionally a screenshot. Without
Chromium the tests skip, except under CI (`CI=true`), where they fail.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

NAMES = ("chromium", "chromium-browser", "google-chrome")
OFFLINE = (
    "--headless",
    "--no-sandbox",  # the tests may run as root
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--proxy-server=http://127.0.0.1:9",
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--enable-logging=stderr",
)
TIMEOUT_S = 60
# Run in a page: a promise kept once the page has loaded.
LOADED = (
    "new Promise(done => document.readyState === 'complete' ? done() : "
    "addEventListener('load', () => done()))"
)
_CONSOLE_RE = re.compile(r":CONSOLE[:(]\d*\)?\] (.*)")


def chromium() -> str:
    """The Chromium binary; skips the test without one (fails it under CI)."""
    for name in NAMES:
        found = shutil.which(name)
        if found:
            return found
    if os.environ.get("CI") == "true":
        pytest.fail("chromium is missing: .ci/run installs it (apt-get install -y chromium)")
    pytest.skip("chromium is not installed (apt-get install -y chromium)")


@dataclasses.dataclass(frozen=True)
class Page:
    """What Chromium made of a page: its DOM after the script ran, and its console messages."""

    dom: str
    console: list[str]


def open_page(
    path: Path, screenshot: Path | None = None, size: tuple[int, int] = (1400, 1800)
) -> Page:
    """Load `path` in headless Chromium; with `screenshot`, save a PNG of the window too."""
    binary = chromium()
    with tempfile.TemporaryDirectory(prefix="chromium-") as profile:
        extra = [f"--screenshot={screenshot}"] if screenshot else ["--dump-dom"]
        try:
            done = subprocess.run(
                [
                    binary,
                    *OFFLINE,
                    f"--user-data-dir={profile}",
                    f"--window-size={size[0]},{size[1]}",
                    *extra,
                    path.resolve().as_uri(),
                ],
                capture_output=True,
                text=True,
                timeout=TIMEOUT_S,
                check=False,
            )
        except subprocess.TimeoutExpired:
            pytest.fail(
                f"Chromium did not finish {path.name} in {TIMEOUT_S} s: a script dialog "
                "(alert) blocks it"
            )
    assert done.returncode == 0, done.stderr[-2000:]
    console = [m.group(1) for m in map(_CONSOLE_RE.search, done.stderr.splitlines()) if m]
    return Page(done.stdout, console)


def measure(path: Path, expression: str, size: tuple[int, int] = (1400, 1800)) -> Any:
    """The value of a JavaScript expression in `path` once it has loaded, in a window of
    `size` (over DevTools: the page's policy does not apply to it)."""
    browser = DevTools()
    try:
        width, height = size
        metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}
        browser.call("Emulation.setDeviceMetricsOverride", metrics)
        browser.call("Page.navigate", {"url": path.resolve().as_uri()})
        return browser.evaluate(f"{LOADED}.then(() => {expression})")
    finally:
        browser.close()


def colour_count(path: Path, colour: tuple[int, int, int], box: tuple[int, int, int, int]) -> int:
    """How many pixels of the screenshot, within `box` (left, top, right, bottom), are
    within a few levels of `colour`."""
    with Image.open(path) as image:
        region = image.convert("RGB").crop(box)
        return sum(
            count
            for count, pixel in region.getcolors(maxcolors=region.width * region.height) or []
            if all(abs(a - b) <= 6 for a, b in zip(pixel, colour))
        )


class DevTools:
    """Headless Chromium driven over the DevTools protocol on a pipe (file descriptors 3
    and 4, messages ending in NUL), for figures a page measures in real time."""

    def __init__(self) -> None:
        binary = chromium()
        self._profile = tempfile.TemporaryDirectory(prefix="chromium-")
        to_browser, self._send_end = os.pipe()
        self._read_end, from_browser = os.pipe()

        def wire() -> None:  # in the child: the pipe's ends as descriptors 3 and 4
            read, write = os.dup(to_browser), os.dup(from_browser)
            os.dup2(read, 3)
            os.dup2(write, 4)

        self._process = subprocess.Popen(
            [binary, *OFFLINE, "--remote-debugging-pipe", f"--user-data-dir={self._profile.name}"],
            preexec_fn=wire,
            close_fds=False,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_browser)
        os.close(from_browser)
        self._pending, self._ids = b"", 0
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        attached = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})
        self._session = attached["sessionId"]

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """Send one command (to the page once attached) and return its result."""
        self._ids += 1
        message: dict[str, Any] = {"id": self._ids, "method": method, "params": params or {}}
        if getattr(self, "_session", None):
            message["sessionId"] = self._session
        os.write(self._send_end, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in self._pending:
                chunk = os.read(self._read_end, 1 << 16)
                assert chunk, "Chromium closed the DevTools pipe"
                self._pending += chunk
            raw, self._pending = self._pending.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self._ids:
                assert "error" not in reply, reply["error"]
                return reply["result"]

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (a promise is awaited)."""
        found = self.call(
            "Runtime.evaluate",
            {"expression": expression, "awaitPromise": True, "returnByValue": True},
        )
        return found["result"].get("value")

    def close(self) -> None:
        with contextlib.suppress(OSError, AssertionError):
            self._session = ""
            self.call("Browser.close")
        self._process.wait(timeout=30)
        os.close(self._send_end)
        os.close(self._read_end)
        self._profile.cleanup()
