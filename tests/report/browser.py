"""Opening an HTML file in a real browser (Debian's headless Chromium) the way a reader would, offline: a
screenshot, the page's console messages, and every request it tried to make. Chromium is pointed at a proxy on
127.0.0.1 that records each request and answers 403 itself (nothing leaves the machine), so a page that
fetches anything (a font, a script, an image by URL) is seen doing so; the browser's own calls to its
vendor's services, which it makes for any page (a blank one too), are told apart by host."""

from __future__ import annotations

import re
import shutil
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# What Chromium asks its own services for whatever page it shows (its clock, component updates, accounts),
# seen with a blank page: the browser's traffic, not the page's (the proxy answers it too, nothing leaves).
BROWSER_SERVICES = re.compile(
    r"^(\w+) (https?://)?([a-z0-9-]+\.)*(google\.com|googleapis\.com|gstatic\.com)[:/]"
)


@dataclass
class Opened:
    screenshot: Path
    console: list[str]
    requests: list[str] = field(default_factory=list)


@contextmanager
def _recording_proxy() -> Iterator[tuple[int, list[str]]]:
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def _refuse(self) -> None:
            seen.append(f"{self.command} {self.path}")
            self.send_response(403)
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_GET = do_POST = do_HEAD = do_CONNECT = _refuse

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_port, seen
    finally:
        server.shutdown()
        server.server_close()


def open_page(page: Path, screenshot: Path, *, width: int = 1240, height: int = 1754) -> Opened:
    """Load `page` in headless Chromium and take a screenshot; its console lines and attempted requests."""
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (apt-get install chromium)")
    with _recording_proxy() as (port, seen):
        done = subprocess.run(
            [
                CHROMIUM,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-default-apps",
                "--disable-sync",
                "--no-first-run",
                "--no-default-browser-check",
                "--no-pings",
                "--disable-features=MediaRouter,OptimizationHints,Translate",
                f"--proxy-server=http://127.0.0.1:{port}",
                "--proxy-bypass-list=<-loopback>",
                "--enable-logging=stderr",
                "--v=0",
                f"--user-data-dir={screenshot.parent / 'chromium-profile'}",
                f"--window-size={width},{height}",
                f"--screenshot={screenshot}",
                page.resolve().as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        requests = [r for r in seen if not BROWSER_SERVICES.match(r)]
    assert screenshot.is_file(), done.stderr[-2000:]
    console = [line for line in done.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    return Opened(screenshot, console, requests)


def ink_share(png: Path) -> float:
    """The share of the picture's pixels that are not (near) white: 0 for a blank page."""
    from PIL import Image

    with Image.open(png) as image:
        grey = image.convert("L")
        histogram = grey.histogram()
    total = sum(histogram)
    return sum(histogram[:235]) / total if total else 0.0
