"""Open every page of the built book in headless Chromium, offline, and check it works.

The contract (see README "Tests"):
- every page named by ``_toc.yml`` exists in ``_build/html`` and loads over HTTP from
  127.0.0.1 with no request to any other host (all such requests are blocked and fail
  the test) and no failed local request;
- no console or page errors except the two every stock Jupyter Book 1 page logs;
- a page that embeds widget state loads the site's own widget manager exactly once
  (a page without widgets loads it not at all), and every widget view is rendered:
  no unrendered view, no error widget, no "Loading widget"/"Error displaying" text,
  every ``.lc-panel`` rendered with a non-zero size;
- every chapter notebook ``book/NN_slug.ipynb`` is in the toc and has at least one
  kernel-free ``.lc-static`` panel; in each, ArrowRight on the focused
  ``.lc-headline .noUi-handle`` changes the ``src`` of the visible ``img`` in it.
Chapters are discovered from the files on disk, so new chapters are covered as added.
"""

from __future__ import annotations

import pytest

import browser_site as site

pytestmark = pytest.mark.browser

WIDGET_VIEW = 'script[type="application/vnd.jupyter.widget-view+json"]'
WIDGET_STATE = 'script[type="application/vnd.jupyter.widget-state+json"]'
RENDER_TIMEOUT_MS = 20_000

_UNRENDERED_JS = """
() => {
  const views = [...document.querySelectorAll('%s')];
  return views.filter(v => {
    const prev = v.previousElementSibling;
    return !(prev && prev.classList.contains('widget-subarea') && prev.childElementCount > 0);
  }).length;
}
""" % WIDGET_VIEW

_VISIBLE_IMG_SRCS_JS = """
(panel) => [...panel.querySelectorAll('img')]
  .filter(img => {
    const r = img.getBoundingClientRect();
    const s = getComputedStyle(img);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && img.offsetParent !== null;
  })
  .map(img => img.getAttribute('src'))
"""


def _wait_for_widgets(page) -> int:  # noqa: ANN001
    """Wait until every widget view on the page is rendered; return how many are not."""
    if page.locator(WIDGET_VIEW).count() == 0:
        return 0
    try:
        page.wait_for_function(f"() => ({_UNRENDERED_JS})() === 0", timeout=RENDER_TIMEOUT_MS)
    except Exception:  # noqa: BLE001 - reported through the count below
        pass
    return page.evaluate(_UNRENDERED_JS)


def test_book_has_chapters() -> None:
    """The course has at least one chapter notebook (book/NN_slug.ipynb)."""
    assert site.chapter_sources(), f"no chapter notebooks matching {site.CHAPTER_RE.pattern} in {site.BOOK}"


def test_toc_lists_every_chapter() -> None:
    """Every chapter notebook on disk is a page of the book (none silently left out)."""
    docnames = set(site.toc_docnames())
    missing = [p.name for p in site.chapter_sources() if f"book/{p.stem}" not in docnames]
    assert not missing, f"chapters not reachable from _toc.yml: {missing}"


def test_site_root_opens_the_landing_page(built_site, open_page) -> None:  # noqa: ANN001
    """``_build/html/index.html`` (what the README points at) leads to the landing page."""
    root_doc = site.toc_docnames()[0]
    page, log = open_page("index.html")
    if not page.url.endswith(f"/{root_doc}.html"):
        page.wait_for_url(f"**/{root_doc}.html", timeout=10_000)
    page.wait_for_load_state("networkidle")
    assert not log.blocked, f"index.html tried to reach outside 127.0.0.1: {log.blocked}"
    assert not log.unexpected_errors(), f"index.html: console/page errors: {log.unexpected_errors()}"


@pytest.mark.parametrize("rel", site.page_paths())
def test_page_renders_offline_without_errors(built_site, open_page, rel: str) -> None:  # noqa: ANN001
    """Each page loads with no outside request, no unexpected error, and all widgets drawn."""
    assert (built_site / rel).is_file(), f"{rel} is in _toc.yml but not built: run `make book`"
    page, log = open_page(rel)
    unrendered = _wait_for_widgets(page)

    assert not log.blocked, f"{rel} tried to reach outside 127.0.0.1: {log.blocked}"
    assert not log.failed, f"{rel}: local requests failed: {log.failed}"
    assert not log.unexpected_errors(), f"{rel}: console/page errors: {log.unexpected_errors()}"

    embeds = page.locator(f'script[src*="{site.EMBED_JS}"]').count()
    has_state = page.locator(WIDGET_STATE).count() > 0
    assert embeds == (1 if has_state else 0), (
        f"{rel}: widget manager loaded {embeds} times (page {'has' if has_state else 'has no'} widget state)"
    )
    cdn_embeds = page.locator('script[src*="html-manager@"], script[src*="require.js"]').count()
    assert cdn_embeds == 0, f"{rel}: a CDN widget manager or require.js is still referenced"

    assert unrendered == 0, f"{rel}: {unrendered} widget view(s) not rendered after {RENDER_TIMEOUT_MS} ms"
    errors = page.locator(".jupyter-widgets-error-widget, .widget-error").count()
    assert errors == 0, f"{rel}: {errors} widget(s) show an error placeholder"
    text = page.inner_text("body")
    for placeholder in ("Loading widget", "Error displaying widget", "Could not render"):
        assert placeholder not in text, f"{rel}: page shows {placeholder!r}"

    empty = page.evaluate(
        """() => [...document.querySelectorAll('.lc-panel')]
              .filter(p => p.childElementCount === 0 || p.getBoundingClientRect().height === 0
                           && p.offsetParent !== null).length"""
    )
    assert empty == 0, f"{rel}: {empty} .lc-panel(s) rendered empty"


@pytest.mark.parametrize("rel", site.chapter_pages())
def test_chapter_headline_slider_changes_figure(built_site, open_page, rel: str) -> None:  # noqa: ANN001
    """Each chapter has a kernel-free panel whose headline slider changes its figure."""
    assert (built_site / rel).is_file(), f"chapter page {rel} not built: run `make book`"
    page, log = open_page(rel)
    _wait_for_widgets(page)
    panels = page.locator(".lc-static")
    count = panels.count()
    assert count >= 1, f"{rel}: no kernel-free headline panel (.lc-static) on this chapter page"

    for i in range(count):
        panel = panels.nth(i)
        panel.scroll_into_view_if_needed()
        handle = panel.locator(".lc-headline .noUi-handle").first
        assert handle.count() == 1, f"{rel}: .lc-static panel #{i} has no .lc-headline slider handle"
        before = panel.evaluate(_VISIBLE_IMG_SRCS_JS)
        assert before, f"{rel}: .lc-static panel #{i} shows no image"
        handle.focus()
        page.keyboard.press("ArrowRight")
        try:
            page.wait_for_function(
                f"([panel, before]) => JSON.stringify(({_VISIBLE_IMG_SRCS_JS})(panel)) !== JSON.stringify(before)",
                arg=[panel.element_handle(), before],
                timeout=3_000,
            )
        except Exception:  # noqa: BLE001 - reported by the assert below
            pass
        after = panel.evaluate(_VISIBLE_IMG_SRCS_JS)
        assert after and after != before, (
            f"{rel}: ArrowRight on the headline slider of .lc-static panel #{i} did not change the "
            f"visible figure (before {before}, after {after}); is the slider at its maximum by default?"
        )
    assert not log.unexpected_errors(), f"{rel}: errors while moving sliders: {log.unexpected_errors()}"
