"""Fixtures for the real-browser tests over the built book (``_build/html``).

The site is served by a throwaway ``http.server`` bound to 127.0.0.1 on a free port
(JupyterLite pages do not work from ``file://``) and opened in Debian's headless
Chromium through Playwright.  Every request that would leave 127.0.0.1 is aborted and
recorded, so a page that needs a CDN fails its test.

Nothing here skips: a missing build or browser is a failure that says what to run.
Deselect the whole folder with ``pytest -m "not browser"``.
"""

from __future__ import annotations

import functools
import http.server
import os
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import sync_playwright

from tests.browser import browser_site as site

CHROMIUM = os.environ.get("LC_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test in this folder ``browser`` (so ``-m "not browser"`` drops them)."""
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.browser)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serve the site silently; answer the browser's automatic favicon probe with 204."""

    def do_GET(self) -> None:  # noqa: N802
        if self.path.split("?")[0] == "/favicon.ico":
            self.send_response(204)
            self.end_headers()
            return
        super().do_GET()

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


@pytest.fixture(scope="session")
def built_site() -> Path:
    """Return ``_build/html``; fail (not skip) with the command to run when it is missing."""
    index = site.SITE / "index.html"
    if not index.is_file():
        pytest.fail(
            f"{index} does not exist: build the book first with `make book` "
            "(or deselect these tests with -m 'not browser')",
            pytrace=False,
        )
    return site.SITE


@pytest.fixture(scope="session")
def base_url(built_site: Path) -> Iterator[str]:
    """Serve the built site on 127.0.0.1 at a free port; yield its base URL."""
    handler = functools.partial(_QuietHandler, directory=str(built_site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """Launch Debian's Chromium once per test module (closed before other browser users start)."""
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"{CHROMIUM} not found: install it with `apt-get install -y chromium chromium-driver` "
            "(make test does this)",
            pytrace=False,
        )

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class PageLog:
    """What a page did while it was open: console errors, page errors, blocked requests."""

    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)

    def unexpected_errors(self) -> list[str]:
        """Return the console/page errors other than the known stock Jupyter Book ones."""
        errors = self.console_errors + self.page_errors
        return [e for e in errors if not any(k in e for k in site.KNOWN_STOCK_ERRORS)]


_NOT_LOCAL = re.compile(r"^(?!(https?|wss?)://127\.0\.0\.1[:/]|data:|blob:|about:|file:)")


_TIMEOUT_MS = 90_000
_IDLE_TIMEOUT_MS = 15_000


def _is_local(url: str) -> bool:
    parts = urlsplit(url)
    if parts.scheme in {"data", "blob", "about", "file"}:
        return True
    return parts.scheme in {"http", "https", "ws"} and parts.hostname == "127.0.0.1"


@pytest.fixture
def open_page(browser, base_url: str):  # noqa: ANN001
    """Return ``open_page(rel_path) -> (page, PageLog)``; the page is loaded and settled."""

    contexts = []

    def _open(rel: str, *, viewport: dict | None = None, on_response=None):  # noqa: ANN202, ANN001
        context = browser.new_context(viewport=viewport or {"width": 1280, "height": 900}, service_workers="block")
        contexts.append(context)
        log = PageLog()

        def _block(route) -> None:  # noqa: ANN001
            if route.request.url not in log.blocked:
                log.blocked.append(route.request.url)
            route.abort("blockedbyclient")

        # The regex is matched inside the browser, so local requests are not slowed
        # down by a round trip through Python; every other request is aborted.
        context.route(_NOT_LOCAL, _block)
        page = context.new_page()
        page.on(
            "request",
            lambda r: _is_local(r.url) or r.url in log.blocked or log.blocked.append(r.url),
        )
        page.on(
            "response",
            lambda r: (
                r.status >= 400
                and not r.url.endswith("/favicon.ico")
                and log.failed.append(f"{r.url} (HTTP {r.status})")
            ),
        )
        if on_response is not None:
            page.on("response", on_response)
        page.on("console", lambda m: m.type == "error" and log.console_errors.append(m.text))
        page.on("pageerror", lambda e: log.page_errors.append(str(e)))
        page.on(
            "requestfailed",
            lambda r: _is_local(r.url) and log.failed.append(f"{r.url} ({r.failure})"),
        )
        page.set_default_timeout(_TIMEOUT_MS)
        response = page.goto(base_url + rel, wait_until="load")
        assert response is not None and response.ok, f"{rel}: HTTP {response and response.status}"
        try:  # let late requests (fonts, MathJax parts) happen; a busy machine may never idle
            page.wait_for_load_state("networkidle", timeout=_IDLE_TIMEOUT_MS)
        except PlaywrightTimeoutError:
            pass
        return page, log

    yield _open
    for context in contexts:
        context.close()
