"""A deck prints to PDF one slide per page (``coursebuild.deck_pdf``, ``make decks-pdf``): the presenter's backup.

The first chapter's deck is printed from the built site in the tests' Chromium; the PDF must hold one page per slide
the deck notebook makes (its ``/Type /Page`` objects counted in the file, the way a PDF reader counts them), every panel
drawn, each page the size reveal's print view asks for: the 1200 x 700 slide with reveal's 4% margin, in points.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from coursebuild.deck_pdf import print_decks
from coursebuild.slide_layout import SLIDE_HEIGHT_PX, SLIDE_WIDTH_PX
from tests.browser import browser_site as site
from tests.browser.test_decks import _deck_notebook, expected_slides

pytestmark = pytest.mark.browser

_PAGE = re.compile(rb"/Type\s*/Page(?![a-zA-Z])")
_MEDIA_BOX = re.compile(rb"/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)\s*\]")


def test_a_deck_prints_one_slide_per_page(built_site: Path, browser, tmp_path: Path) -> None:  # noqa: ANN001
    source = site.chapter_sources()[0]
    (printed,) = print_decks(built_site, tmp_path, [source.stem], browser=browser)
    slides = expected_slides(_deck_notebook(source))
    data = printed.pdf.read_bytes()
    assert data.startswith(b"%PDF-"), f"{printed.pdf} is not a PDF"
    pages = len(_PAGE.findall(data))
    assert pages == printed.pages == printed.slides == slides, (
        f"{printed.pdf}: {pages} pages in the file, {printed.pages} laid out, {printed.slides} slides in the deck, "
        f"{slides} in the notebook"
    )
    panels = sum(
        'class="lc-panel"' in "".join(o.get("data", {}).get("text/html", ""))
        for c in _deck_notebook(source)["cells"]
        if c["cell_type"] == "code"
        for o in c.get("outputs", [])
    )
    assert printed.panels == panels > 0, f"{printed.pdf}: {printed.panels} of the deck's {panels} panels drawn"
    boxes = {tuple(round(float(v)) for v in box) for box in _MEDIA_BOX.findall(data)}
    expected = (round(SLIDE_WIDTH_PX * 1.04 * 0.75), round(SLIDE_HEIGHT_PX * 1.04 * 0.75))  # px to pt: 3/4
    assert boxes == {expected}, f"{printed.pdf}: pages of {boxes} pt, reveal's print view asks for {expected}"


def test_printing_names_a_deck_the_site_does_not_hold(built_site: Path, tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no-such-deck"):
        print_decks(built_site, tmp_path, ["no-such-deck"])
