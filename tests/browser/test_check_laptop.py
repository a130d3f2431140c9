"""The "check your laptop" page answers, in the learner's own browser, whether it can run the Live version.

Opened in Chromium as a learner opens it (service workers allowed, the site from 127.0.0.1): every check reads
Yes in text, the summary is announced, the page passes axe and fits a 390 px phone, and "Check again" works from
the keyboard. Opened from the machine's network address, as a room would open the instructor's laptop, the
service-worker check says No and why (the instructors' page's offline plan rests on it), and Chromium's flag for
an insecure origin that the plan names turns it to Yes.
"""

from __future__ import annotations

import functools
import http.server
import re
import socket
import threading
from collections.abc import Iterator

import pytest

from coursebuild.workshop import CHECK_PAGE, SERVE_COMMAND
from tests.browser import browser_site as site
from tests.browser.test_browser_pages import axe_findings

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
DONE = "() => !['', 'Checking…'].includes(document.getElementById('laptop-check-summary').textContent.trim())"
RESULTS = """() => [...document.querySelectorAll('#laptop-check-results li')].map(li => ({
  name: li.dataset.check, ok: li.dataset.ok, text: li.textContent}))"""


def _network_address() -> str | None:
    """Return this machine's address on its network (not loopback), or None when it has none."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # no packet is sent: this only picks the outgoing interface
            address = probe.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") else address


@pytest.fixture(scope="module")
def lan_url(built_site) -> Iterator[str]:  # noqa: ANN001
    """Serve the built site on the machine's network address, as the offline plan's command does."""
    address = _network_address()
    if address is None:
        pytest.skip("this machine has no network address besides loopback")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(built_site))
    handler.log_message = lambda *args: None  # type: ignore[method-assign]
    server = http.server.ThreadingHTTPServer((address, 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://{address}:{server.server_address[1]}/"
    finally:
        server.shutdown()


def _checked(browser, url: str, *, viewport: dict | None = None):  # noqa: ANN001, ANN202
    context = browser.new_context(viewport=viewport or {"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url + CHECK_PAGE, wait_until="load")
    page.wait_for_function(DONE, timeout=30_000)
    return context, page, [e for e in errors if not any(k in e for k in site.KNOWN_STOCK_ERRORS)]


def test_a_learners_chromium_reads_yes_on_every_check(built_site, browser, base_url: str) -> None:  # noqa: ANN001
    context, page, errors = _checked(browser, base_url)
    results = page.evaluate(RESULTS)
    assert [r["name"] for r in results] == [
        "Python in the tab (WebAssembly)",
        "The site's files in the notebooks (service worker)",
        "Keeping your files (browser storage)",
        "Memory for Python in a tab",
    ]
    assert all(r["ok"] == "true" for r in results), results
    assert "Yes: it keeps your files. It may use " in results[2]["text"] and " MiB here." in results[2]["text"]
    memory = page.evaluate("() => navigator.deviceMemory")
    assert f"the browser reports {memory:g} GB" in results[3]["text"]
    summary = page.locator("#laptop-check-summary")
    assert summary.inner_text() == "This browser can run the Live version." and summary.get_attribute("aria-live")
    assert not errors and axe_findings(page) == {"light": [], "dark": []}
    # "Check again" from the keyboard: Tab reaches it, Enter runs the checks again (the list is drawn anew)
    page.evaluate("() => document.querySelector('#laptop-check-results li').dataset.stale = '1'")
    page.locator("#laptop-check-results").click()  # where a reader's Tab starts: the results they just read
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.id") == "laptop-check-again"
    page.keyboard.press("Enter")
    page.wait_for_function("() => !document.querySelector('#laptop-check-results li[data-stale]')", timeout=10_000)
    page.wait_for_function(DONE, timeout=30_000)
    assert len(page.evaluate(RESULTS)) == 4
    context.close()


def test_the_check_fits_a_phone(built_site, browser, base_url: str) -> None:  # noqa: ANN001
    context, page, _ = _checked(browser, base_url, viewport={"width": 390, "height": 844})
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    context.close()


def test_from_the_instructors_network_address_the_service_worker_check_says_no(browser, lan_url: str) -> None:  # noqa: ANN001
    """Served over the room's network (http, not localhost), the browser refuses a service worker: Live cannot run."""
    context, page, errors = _checked(browser, lan_url)
    worker = next(r for r in page.evaluate(RESULTS) if "service worker" in r["name"])
    assert worker["ok"] == "false" and "not opened from https:// or from localhost" in worker["text"]
    assert page.locator("#laptop-check-summary").inner_text().startswith("This browser cannot run the Live version")
    assert not errors
    context.close()


def test_chromiums_insecure_origin_flag_named_by_the_offline_plan_turns_it_to_yes(browser, lan_url: str) -> None:  # noqa: ANN001
    origin = lan_url.rstrip("/")
    flagged = browser.browser_type.launch(
        executable_path=CHROMIUM, headless=True, args=[*ARGS, f"--unsafely-treat-insecure-origin-as-secure={origin}"]
    )
    try:
        context, page, _ = _checked(flagged, lan_url)
        worker = next(r for r in page.evaluate(RESULTS) if "service worker" in r["name"])
        assert worker["ok"] == "true", worker
        context.close()
    finally:
        flagged.close()


def test_the_instructors_page_gives_the_room_plan(built_site) -> None:  # noqa: ANN001
    """The serve command, the measured download per browser, the check page's link, the message and the fallback."""
    html = (built_site / "book" / "instructors.html").read_text(encoding="utf-8")
    text = " ".join(re.sub(r"<[^>]+>", "", html).split())
    assert SERVE_COMMAND in text
    assert 'href="check_laptop.html"' in html and "Subject: before the multi-LoRA workshop" in html
    assert "chrome://flags/#unsafely-treat-insecure-origin-as-secure" in html
    assert "A learner without a laptop" in html and "{glue" not in html
