"""The lab in one tap: the landing page's first screen has a "Do the lab" button, and chapter 7's Live opens the lab.

On a laptop's window (1280 x 720) and on a phone (390 x 844): the button is a real link with that name, drawn as a
button, wholly inside the first screen, reachable with Tab, and it leads to the lab notebook in the live site (or,
in a build without one, to the lab's download); nothing scrolls sideways. Chapter 7's Live button opens the lab
notebook, not the chapter. The lab notebook itself, opened in the live site on both screens, is
``tests/lite/test_lite_lab.py``'s.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from labcore.site import LAB_DOWNLOAD, LAB_NOTEBOOK, LIVE_DIR, lab_live_url

pytestmark = pytest.mark.browser

SCREENS = {"laptop": {"width": 1280, "height": 720}, "phone": {"width": 390, "height": 844}}


def _live(built_site: Path) -> bool:
    return (built_site / LIVE_DIR / "notebooks" / "index.html").is_file()


@pytest.mark.parametrize("screen", sorted(SCREENS))
def test_the_first_screen_has_a_do_the_lab_button_that_leads_to_the_lab(open_page, built_site, screen):
    viewport = SCREENS[screen]
    page, log = open_page("book/index.html", viewport=viewport)
    button = page.get_by_role("link", name="Do the lab", exact=False).and_(page.locator("a.lab-button"))
    assert button.count() == 1
    box = button.bounding_box()
    assert box and box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"], (screen, box)
    assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"], (screen, box)
    assert box["height"] >= 40, box  # a target a thumb can hit
    style = button.evaluate("el => [getComputedStyle(el).backgroundColor, getComputedStyle(el).display]")
    assert style[0] not in ("rgba(0, 0, 0, 0)", "transparent") and style[1] == "inline-block", style
    href = button.get_attribute("href")
    if _live(built_site):
        assert href == lab_live_url("../") and button.inner_text().strip() == "Do the lab"
        target = urlsplit(href)
        assert (built_site / "book" / target.path).resolve().is_file() and parse_qs(target.query)["path"] == [
            LAB_NOTEBOOK
        ]
        assert (built_site / LIVE_DIR / "files" / LAB_NOTEBOOK).is_file()
    else:
        assert href == "../" + LAB_DOWNLOAD and (built_site / LAB_DOWNLOAD).is_file()
    for _ in range(40):  # keyboard: Tab from the top of the page reaches it
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement.classList.contains('lab-button')"):
            break
    else:
        pytest.fail("Tab never reached the Do the lab button")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= viewport["width"]
    assert log.unexpected_errors() == [] and log.blocked == []


def test_chapter_7s_live_button_opens_the_lab_notebook(open_page, built_site):
    if not _live(built_site):
        pytest.skip("this build has no live site, so no Live buttons (COURSE_LITE=0)")
    page, _ = open_page("book/07_do_the_lab.html")
    live = page.locator(".article-header-buttons a", has_text="Live")
    assert live.count() == 1 and live.get_attribute("href") == lab_live_url("../")
    other, _ = open_page("book/04_the_cache.html")
    assert (
        other.locator(".article-header-buttons a", has_text="Live")
        .get_attribute("href")
        .endswith("path=04_the_cache.ipynb")
    )
