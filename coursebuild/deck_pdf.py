"""Print the built decks to PDF, one slide per page: a backup for a presenter whose laptop cannot run a deck.

Each deck is opened in headless Chromium (Playwright, the browser the tests use) in reveal.js's print view
(``?print-pdf``: every slide laid out as a page, fragments shown, a figure shrunk to fit its page by the deck's script,
``pdfMaxPagesPerSlide: 1`` in the deck's ``Reveal.initialize``) and printed at the page size reveal asks for.
The site is served from 127.0.0.1 while it prints (the decks load their scripts by URL)::

    python -m coursebuild.deck_pdf --site _build/html --out _build/decks-pdf            # every deck
    python -m coursebuild.deck_pdf --site _build/html --out /tmp/pdf 04_the_cache       # one deck

``make decks-pdf`` runs the first after ``make book``.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import sync_playwright

from .slides import SLIDES_DIR, SUFFIX

ROOT = Path(__file__).resolve().parent.parent
#: the browser: Debian's Chromium unless LC_CHROMIUM names another (as for the browser tests)
CHROMIUM = os.environ.get("LC_CHROMIUM", "/usr/bin/chromium")
#: a projector's window: the print view sizes its pages from the deck's slide size, whatever the window
WINDOW = {"width": 1280, "height": 720}
READY_TIMEOUT_MS = 60_000
#: true once reveal's print view has laid every slide out as a page (it dispatches ``pdf-ready`` then)
_PRINTED_JS = "() => document.querySelectorAll('.reveal .pdf-page').length > 0 && window.lcDeckPrinted === true"
#: true once every panel of the deck has drawn its chart (``lc-panels.js`` marks each target ready)
_PANELS_DRAWN_JS = """() => { const panels = document.querySelectorAll('div.lc-panel').length;
  return !panels || (window.lcPanels && window.lcPanels.length === panels
                     && window.lcPanels.every(p => p.target.dataset.ready === '1' && p.target.querySelector('svg'))); }"""
_LISTEN_JS = """() => { window.lcDeckPrinted = document.querySelectorAll('.reveal .pdf-page').length > 0;
  document.querySelector('.reveal').addEventListener('pdf-ready', () => { window.lcDeckPrinted = true; }); }"""


@dataclass(frozen=True, slots=True)
class PrintedDeck:
    """One deck printed: its PDF, how many pages the print view laid out, how many slides and drawn panels it has."""

    deck: str
    pdf: Path
    pages: int
    slides: int
    panels: int


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


@contextmanager
def serve(site: Path) -> Iterator[str]:
    """Serve ``site`` on 127.0.0.1 at a free port while the block runs; yield its base URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def deck_names(site: Path) -> list[str]:
    """Return the name of every deck in ``site`` (``04_the_cache``, ``session-60min``), sorted."""
    return sorted(p.name.removesuffix(SUFFIX) for p in (site / SLIDES_DIR).glob(f"*{SUFFIX}"))


def print_decks(
    site: Path, out: Path, names: list[str] | None = None, *, browser: object | None = None
) -> list[PrintedDeck]:
    """Print each deck of ``site`` named in ``names`` (default: all) to ``out/<deck>.pdf``; return what was printed.

    Raises ``FileNotFoundError`` naming a deck the site does not hold. ``browser`` is a Playwright browser to reuse
    (the tests pass theirs); without one, Chromium is launched for the call.
    """
    names = deck_names(site) if names is None else names
    missing = [n for n in names if not (site / SLIDES_DIR / f"{n}{SUFFIX}").is_file()]
    if missing:
        raise FileNotFoundError(f"no deck {missing} in {site / SLIDES_DIR} (decks there: {deck_names(site)})")
    out.mkdir(parents=True, exist_ok=True)
    if browser is None:
        with sync_playwright() as pw:
            launched = pw.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox"], headless=True)
            try:
                return print_decks(site, out, names, browser=launched)
            finally:
                launched.close()
    printed = []
    with serve(site) as base:
        for name in names:
            context = browser.new_context(viewport=WINDOW, service_workers="block")  # type: ignore[attr-defined]
            try:
                page = context.new_page()
                page.goto(f"{base}{SLIDES_DIR}/{name}{SUFFIX}?print-pdf", wait_until="load")
                page.wait_for_function(
                    "() => window.Reveal && Reveal.isReady && Reveal.isReady()", timeout=READY_TIMEOUT_MS
                )
                page.evaluate(_LISTEN_JS)
                page.wait_for_function(_PRINTED_JS, timeout=READY_TIMEOUT_MS)
                page.wait_for_function(_PANELS_DRAWN_JS, timeout=READY_TIMEOUT_MS)
                page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
                pages = page.evaluate("() => document.querySelectorAll('.reveal .pdf-page').length")
                slides = page.evaluate("() => Reveal.getTotalSlides()")
                panels = page.evaluate("() => document.querySelectorAll('.reveal .pdf-page div.lc-panel svg').length")
                pdf = out / f"{name}.pdf"
                page.pdf(path=str(pdf), prefer_css_page_size=True, print_background=True)
                printed.append(PrintedDeck(name, pdf, pages, slides, panels))
            finally:
                context.close()
    return printed


def main(argv: list[str] | None = None) -> int:
    """Print decks of a built site to PDF (see the module doc)."""
    parser = argparse.ArgumentParser(description="Print the course's reveal.js decks to PDF, one slide per page.")
    parser.add_argument("--site", type=Path, default=ROOT / "_build" / "html")
    parser.add_argument("--out", type=Path, default=ROOT / "_build" / "decks-pdf")
    parser.add_argument("decks", nargs="*", help="deck names (default: every deck of the site)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    printed = print_decks(args.site, args.out, args.decks or None)
    for deck in printed:
        print(f"{deck.pdf}: {deck.pages} pages, {deck.slides} slides, {deck.panels} panels drawn")
    print(f"decks-pdf: {len(printed)} decks in {args.out} ({time.perf_counter() - started:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
