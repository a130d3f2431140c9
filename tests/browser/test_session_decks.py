"""The 60-minute plan's own deck presents its sections in order (the chapter decks' slide numbers the plans quote are
checked in ``test_decks.py``, which measures every slide of every deck once).

The plan's own deck (``slides/<plan deck>.slides.html``)
opens offline with no error, holds as many slides as :func:`coursebuild.session_deck.session_deck_notebook`
makes, starts each section on the slide :func:`~coursebuild.session_deck.session_deck_sections` says, reads
from the back row at 1280x720 and passes axe.
"""

from __future__ import annotations

import pytest

from coursebuild.session_deck import session_deck_notebook, session_deck_sections
from coursebuild.session_plans import deck_sections, load_plans
from coursebuild.slides import SLIDES_DIR, SUFFIX
from tests.browser.test_browser_pages import wait_for_panels
from tests.browser.test_decks import PROJECTOR, READY_TIMEOUT_MS, _checked

pytestmark = pytest.mark.browser

PLANS = load_plans()
_SLIDE_TEXT_JS = (
    "(n) => { const s = Reveal.getSlides()[n - 1]; return s ? s.textContent.replace(/\\s+/g, ' ') : null; }"
)


def _open(open_page, rel: str):  # noqa: ANN001, ANN202
    page, log = open_page(rel, viewport=PROJECTOR)
    page.wait_for_selector(".reveal.ready", state="attached", timeout=READY_TIMEOUT_MS)
    page.wait_for_function("() => window.Reveal && Reveal.getTotalSlides", timeout=READY_TIMEOUT_MS)
    return page, log


@pytest.mark.parametrize("key", [k for k, p in PLANS.items() if p.deck])
def test_the_plans_own_deck_presents_its_sections_in_order(built_site, open_page, key: str) -> None:  # noqa: ANN001
    plan = PLANS[key]
    rel = f"{SLIDES_DIR}/{plan.deck}{SUFFIX}"
    assert (built_site / rel).is_file(), f"{rel} was not built"
    page, log = _open(open_page, rel)
    wait_for_panels(page)
    deck = session_deck_notebook(plan)
    assert page.evaluate("() => Reveal.getTotalSlides()") == deck_sections(deck)[1]
    for _slot, section, first in session_deck_sections(plan, deck):
        text = page.evaluate(_SLIDE_TEXT_JS, first)
        assert text is not None and section.heading in text, f"{rel}: slide {first} is not {section.heading!r}"
    found = _checked(page, rel)
    bad = [s for s in found["measured"]["slides"] if s["tall"] or s["clipped"] or s["small"]]
    assert bad == [], f"{rel}: slides that do not read from the back row: {bad}"
    assert found["axe"] == {"light": []}, f"{rel}: {found['axe']}"
    assert not log.blocked and not log.failed and not log.console_errors + log.page_errors
