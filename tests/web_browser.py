"""A real browser for the web pages' tests (server/web, docs/web.md): Debian's chromium driven
by Playwright for Python, pointed at the installed browser (nothing is downloaded).

``CHROMIUM`` (env ``GAMENIGHT_CHROMIUM``) is the browser; where it or Playwright is missing
the tests that need it skip with the reason (``.ci/run`` installs chromium first)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import pytest

T = TypeVar("T")
CHROMIUM = os.environ.get("GAMENIGHT_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"


def why_no_browser(chromium: str = CHROMIUM) -> str | None:
    """Why the browser tests cannot run here (they skip saying it), or None."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed (pip install playwright)"
    if not os.path.exists(chromium):
        return f"no chromium at {chromium} (apt-get install chromium; .ci/run does it)"
    return None


def in_thread(fn: Callable[..., T], *args: Any) -> T:
    """Database work of a test body, in a thread of its own: Playwright's sync API runs an
    event loop in the test's thread, where Django refuses sync queries (and a connection
    made there would outlive the test). The thread's connection is closed after."""

    def run() -> T:
        from django.db import connections

        try:
            return fn(*args)
        finally:
            connections.close_all()

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(run).result()


@pytest.fixture
def browser() -> Iterator[Any]:
    """Chromium for one test (closed before the test database is flushed: Playwright's
    event loop must not be running then)."""
    reason = why_no_browser()
    if reason:
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
        )
        try:
            yield b
        finally:
            b.close()


NETWORK_FAILURES = ("net::ERR_CONNECTION_REFUSED", "net::ERR_CONNECTION_RESET",
                    "net::ERR_CONNECTION_CLOSED", "net::ERR_EMPTY_RESPONSE")
"""The browser's console lines for a server gone away (not an HTTP error status: those count)."""


class Watched:
    """A page with everything it logged: console errors, page errors, socket frames."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.errors: list[str] = []
        self.network: list[str] = []
        self.frames: list[str] = []
        self.sockets = 0
        page.on("console", self._console)
        page.on("pageerror", lambda exc: self.errors.append(f"pageerror: {exc}"))
        page.on("websocket", self._socket)

    def _console(self, msg: Any) -> None:
        if msg.type == "error":
            text = msg.text
            # (a connection refused, or reset by a daphne stopping with a request in flight, is
            # the browser's own message, logged whatever the page does with the failure; what
            # the page does is judged by its errors and by what it shows)
            if "WebSocket connection to" in text or any(e in text for e in NETWORK_FAILURES):
                self.network.append(text)
                return
            self.errors.append(f"console: {text}")

    def _socket(self, ws: Any) -> None:
        self.sockets += 1
        ws.on("framereceived", lambda payload: self.frames.append(
            payload if isinstance(payload, str) else payload.decode("utf-8", "replace")))

    def stats(self) -> dict[str, Any]:
        return dict(self.page.evaluate(
            "() => { const s = window.gnStats || {}; "
            "return {index: s.index, head: s.head, conn: s.conn, following: s.following, "
            "firstDraw: s.firstDraw, errors: s.errors || [], seq: s.seq, steps: s.steps, "
            "gaps: s.watcher ? s.watcher.gaps : 0, "
            "reconnects: s.watcher ? s.watcher.reconnects : 0}; }"
        ))

    def js_errors(self) -> list[str]:
        return self.errors + list(self.stats().get("errors") or [])


WAIT_MS = 120_000
"""Playwright's waits (milliseconds): only a hang takes this long. Its default, 30 s, is about
what a page may take on a loaded machine."""


PHONE = (390, 844)
"""A phone's viewport in CSS pixels (390x844: a common phone's)."""


def open_page(browser: Any, url: str | None, width: int = 1280, height: int = 800, *,
              touch: bool = False) -> Watched:
    """A page in a browser context of its own (cookies, storage, service workers), at
    ``url`` unless None. ``touch``: a phone (a touch screen, a mobile viewport, two device
    pixels a CSS pixel)."""
    phone = {"has_touch": True, "is_mobile": True, "device_scale_factor": 2} if touch else {}
    ctx = browser.new_context(viewport={"width": width, "height": height}, **phone)
    ctx.set_default_timeout(WAIT_MS)
    page = ctx.new_page()
    watched = Watched(page)
    if url is not None:
        page.goto(url)
    return watched


def sit_phone(browser: Any, server: Any, code: str, name: str,
              size: tuple[int, int] = PHONE, *, touch: bool = True) -> Watched:
    """A phone that opened a seat's join link (``code``), gave ``name``, took the seat (by a
    tap, or a click when not ``touch``) and is connected."""
    w = open_page(browser, f"{server.http}/join/{code}/", *size, touch=touch)
    w.page.fill("#name", name)
    if touch:
        w.page.tap("#open-seats button")
    else:
        w.page.click("#open-seats button")
    w.page.wait_for_selector("#play:not([hidden])")
    w.page.wait_for_function(
        "() => document.getElementById('conn').textContent === 'connected'")
    return w
