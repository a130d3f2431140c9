"""The instructor pages: the cheat sheet and each plan's handout and answer key print on one page; the instructors' page links every chapter.

Printing is Chromium's own (Playwright ``page.pdf()``, which uses the print media type and the page's
``@page`` rules), on A4 and on US Letter. The same print of the instructors' page, which does not load
``lc-print.css``, takes several pages: the check can fail.
"""

from __future__ import annotations

import re

import pytest

from coursebuild.session_plans import load_plans
from tests.browser import browser_site as site

pytestmark = pytest.mark.browser

CHEAT_SHEET = "book/cheat_sheet.html"
INSTRUCTORS = "book/instructors.html"
HANDOUTS = [f"book/{plan.handout}{suffix}.html" for plan in load_plans().values() for suffix in ("", "_key")]


def _pages(pdf: bytes) -> int:
    """Count the pages of a PDF (its page objects)."""
    return len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", pdf))


def _print(open_page, rel: str, paper: str) -> tuple[int, object]:  # noqa: ANN001
    page, log = open_page(rel)
    page.wait_for_function("() => !window.MathJax || !MathJax.startup || MathJax.startup.promise", timeout=30_000)
    page.evaluate("() => window.MathJax && MathJax.startup ? MathJax.startup.promise : null")
    assert not log.blocked and not log.unexpected_errors(), (log.blocked, log.unexpected_errors())
    return _pages(page.pdf(format=paper, print_background=False)), page


@pytest.mark.parametrize("paper", ["A4", "Letter"])
@pytest.mark.parametrize("rel", HANDOUTS)
def test_each_handout_and_answer_key_prints_on_one_page(built_site, open_page, rel: str, paper: str) -> None:  # noqa: ANN001
    """A plan's handout and its answer key each fit one sheet, their last exercise on it."""
    pages, page = _print(open_page, rel, paper)
    assert pages == 1, f"{rel} prints on {pages} {paper} pages"
    page.emulate_media(media="print")
    last = page.locator("article p strong").last
    assert (
        last.is_visible()
        and last.inner_text().rstrip(".")
        == load_plans()[rel.split("_", 1)[1].split(".")[0].removesuffix("_key")].exercises[-1]
    )


@pytest.mark.parametrize("paper", ["A4", "Letter"])
def test_cheat_sheet_prints_on_one_page(built_site, open_page, paper: str) -> None:  # noqa: ANN001
    """The cheat sheet fits one sheet, with its last section on it and none of the site's chrome."""
    pages, page = _print(open_page, CHEAT_SHEET, paper)
    assert pages == 1, f"the cheat sheet prints on {pages} {paper} pages"
    page.emulate_media(media="print")
    hidden = page.evaluate(
        "() => ['.bd-header', '.bd-sidebar-primary', '.bd-footer', '.prev-next-area']"
        ".map(s => document.querySelector(s)).filter(e => e && getComputedStyle(e).display !== 'none')"
        ".map(e => e.className)"
    )
    assert hidden == [], f"theme chrome on the printed cheat sheet: {hidden}"
    last = page.locator("article section h2").last
    assert last.is_visible() and "Decision rules" in last.inner_text()


def test_the_check_can_fail_a_long_page(built_site, open_page) -> None:  # noqa: ANN001
    """The instructors' page (no one-page print stylesheet) prints on more than one page."""
    pages, _page = _print(open_page, INSTRUCTORS, "A4")
    assert pages > 1, "a page without lc-print.css printed on one page: the page count proves nothing"


def test_instructors_page_links_every_chapter(built_site) -> None:  # noqa: ANN001
    """Every chapter appears in the instructors' page (deck timings and misconceptions), each link to a built page."""
    html = (built_site / INSTRUCTORS).read_text(encoding="utf-8")
    linked = set(re.findall(r'href="(\d\d_[a-z0-9_]+\.html)', html))
    chapters = {p.stem + ".html" for p in site.chapter_sources()}
    assert chapters <= linked, f"chapters the instructors' page does not link: {sorted(chapters - linked)}"
    assert all((built_site / "book" / name).is_file() for name in linked)
