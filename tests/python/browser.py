# SPDX-License-Identifier: Apache-2.0
"""A small WebDriver client for headless Chromium (Debian's `chromium` and
`chromium-driver`), enough to open a page, run a script in it, read the
browser's console and take screenshots.

It speaks the W3C WebDriver protocol to chromedriver over HTTP on the loopback
interface, plus chromedriver's endpoints for the console log and for DevTools
commands (device emulation, full-page screenshots). Every wait is bounded.
"""

from __future__ import annotations

import base64
import contextlib
import json
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import TracebackType
from typing import Any

# Flags for a headless browser run as root on a machine without network: no
# sandbox (root), no GPU, and none of the background services that would keep
# trying to reach the network.
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
)
START_TIMEOUT_S = 30.0
REQUEST_TIMEOUT_S = 60.0


def find_chromium() -> tuple[str, str] | None:
    """The paths of chromium and chromedriver, or None when either is missing."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if browser is None or driver is None:
        return None
    return browser, driver


class WebDriverError(RuntimeError):
    """chromedriver answered with an error."""


class Browser:
    """One headless Chromium session; use as a context manager."""

    def __init__(self, browser: str, driver: str, profile: Path) -> None:
        self._browser = browser
        self._driver = driver
        self._profile = profile
        self._process: subprocess.Popen[bytes] | None = None
        self._base = ""
        self._session = ""

    def __enter__(self) -> Browser:
        try:
            self._start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def _start(self) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self._process = subprocess.Popen(
            [self._driver, f"--port={port}", "--allowed-ips=127.0.0.1"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self._base = f"http://127.0.0.1:{port}"
        end = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                if self._request("GET", "/status", timeout=2.0).get("ready"):
                    break
            except (OSError, WebDriverError):
                pass
            if time.monotonic() > end or self._process.poll() is not None:
                raise WebDriverError("chromedriver did not start")
            time.sleep(0.1)
        self._profile.mkdir(parents=True, exist_ok=True)
        options = {
            "binary": self._browser,
            "args": [*CHROMIUM_FLAGS, f"--user-data-dir={self._profile}"],
        }
        capabilities = {
            "browserName": "chrome",
            "goog:chromeOptions": options,
            "goog:loggingPrefs": {"browser": "ALL"},
        }
        value = self._request("POST", "/session", {"capabilities": {"alwaysMatch": capabilities}})
        self._session = str(value["sessionId"])

    def close(self) -> None:
        """End the session and chromedriver (which ends the browser)."""
        if self._session:
            with contextlib.suppress(OSError, WebDriverError):
                self._request("DELETE", f"/session/{self._session}", timeout=20.0)
            self._session = ""
        if self._process is not None:
            self._process.terminate()
            try:
                self._process.wait(10.0)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait(10.0)
            self._process = None

    def _request(
        self, method: str, path: str, body: Any = None, timeout: float = REQUEST_TIMEOUT_S
    ) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self._base + path,
            data=data,
            method=method,
            headers={"Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                answer = json.loads(response.read())
        except urllib.error.HTTPError as e:
            answer = json.loads(e.read() or b"{}")
            error = answer.get("value", {})
            raise WebDriverError(f"{error.get('error')}: {error.get('message')}") from None
        return answer.get("value")

    def _in_session(self, method: str, path: str, body: Any = None) -> Any:
        return self._request(method, f"/session/{self._session}{path}", body)

    def devtools(self, command: str, params: dict[str, Any]) -> Any:
        """A Chrome DevTools Protocol command."""
        return self._in_session("POST", "/goog/cdp/execute", {"cmd": command, "params": params})

    def emulate(self, width: int, height: int, *, mobile: bool = False) -> None:
        """Lay pages out for a screen of this size (a phone when `mobile`)."""
        self.devtools(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile},
        )

    def open(self, url: str) -> None:
        self._in_session("POST", "/url", {"url": url})

    def run(self, script: str, *args: Any) -> Any:
        """Run a script's body in the page and return what it returns."""
        return self._in_session("POST", "/execute/sync", {"script": script, "args": list(args)})

    def console(self) -> list[dict[str, Any]]:
        """Console messages since the last call (each with `level` and `message`)."""
        return list(self._in_session("POST", "/se/log", {"type": "browser"}))

    def screenshot(self, path: Path) -> None:
        """The visible part of the page, as PNG."""
        path.write_bytes(base64.b64decode(self._in_session("GET", "/screenshot")))

    def full_screenshot(self, path: Path, width: int, max_height: int) -> None:
        """The page from its top, at most `max_height` pixels of it, as PNG."""
        height = min(int(self.run("return document.documentElement.scrollHeight")), max_height)
        shot = self.devtools(
            "Page.captureScreenshot",
            {
                "format": "png",
                "captureBeyondViewport": True,
                "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1},
            },
        )
        path.write_bytes(base64.b64decode(shot["data"]))

    def region_screenshot(
        self, path: Path, x: float, y: float, width: float, height: float
    ) -> None:
        """A region of the page (page coordinates), as PNG."""
        clip = {"x": x, "y": y, "width": width, "height": height, "scale": 1}
        shot = self.devtools(
            "Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True, "clip": clip}
        )
        path.write_bytes(base64.b64decode(shot["data"]))
