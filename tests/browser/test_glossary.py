"""The glossary is a page of the book; chapters link its terms, and hovering a link shows the definition.

Every term a chapter links with ``{term}`` must exist in ``book/glossary.md`` (Sphinx would warn, and the
build runs with ``-W``; this test says which), every chapter but the lab's own chapter 7 links at least
one, and on the built page hovering the first term link opens a sphinx-tippy card holding that term's
definition, drawn with the site's own Popper and Tippy (no outside request).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.browser import browser_site as site

GLOSSARY = site.BOOK / "glossary.md"
TERM_ROLE = re.compile(r"\{term\}`([^`]+)`")


def glossary_terms() -> dict[str, str]:
    """Return ``{term (lower case): definition}`` from the glossary directive of ``book/glossary.md``."""
    body = GLOSSARY.read_text(encoding="utf-8").split(":::{glossary}", 1)[1].split("\n:::", 1)[0]
    terms: dict[str, str] = {}
    current = None
    for line in body.splitlines():
        if line and not line.startswith(" "):
            current = line.strip().lower()
            terms[current] = ""
        elif current and line.strip():
            terms[current] += " " + line.strip()
    return {k: v.strip() for k, v in terms.items()}


def linked_terms(path: Path) -> list[str]:
    """Return the glossary terms a notebook links (``{term}`text <term>``` or ``{term}`term```), lower case."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    found = []
    for cell in cells:
        if cell["cell_type"] != "markdown":
            continue
        for role in TERM_ROLE.findall("".join(cell["source"])):
            target = re.search(r"<([^<>]+)>\s*$", role)
            found.append((target.group(1) if target else role).strip().lower())
    return found


def test_every_linked_term_is_defined_and_chapters_link_terms() -> None:
    terms = glossary_terms()
    assert len(terms) >= 25 and all(len(d) > 30 for d in terms.values()), terms
    undefined = {p.name: sorted(set(linked_terms(p)) - set(terms)) for p in site.chapter_sources()}
    assert {k: v for k, v in undefined.items() if v} == {}
    unlinked = [p.name for p in site.chapter_sources() if not linked_terms(p) and not p.name.startswith("07_")]
    assert unlinked == [], f"chapters that link no glossary term: {unlinked}"


@pytest.mark.parametrize("rel", [r for r in site.chapter_pages() if not r.startswith("book/07_")])
def test_hovering_a_term_shows_its_definition(built_site, open_page, rel: str) -> None:  # noqa: ANN001
    terms = glossary_terms()
    page, log = open_page(rel)
    links = page.locator("a.reference.internal:has(span.xref.std-term)")
    assert links.count() >= 1, f"{rel}: no glossary link on the page"
    href = links.first.get_attribute("href") or ""
    assert "glossary.html#term-" in href, href
    links.first.hover()
    page.wait_for_selector(".tippy-box", state="visible", timeout=10_000)
    card = " ".join(page.locator(".tippy-box").first.inner_text().split())
    term = next(t for t in terms if href.lower().endswith("#term-" + re.sub(r"[^a-z0-9]+", "-", t).strip("-")))
    words = lambda text: re.findall(r"[a-z0-9]+", text.lower())  # noqa: E731 - markup, quotes and ticks aside
    assert " ".join(words(terms[term])[:10]) in " ".join(words(card)), (term, card)
    scripts = page.evaluate("() => [...document.scripts].map(s => s.src).filter(s => /tippy|popper/.test(s))")
    assert scripts and all(s.startswith(page.url.split("/book/")[0]) for s in scripts), scripts
    assert not log.blocked, log.blocked


def test_a_definition_opens_on_keyboard_focus_and_on_tap(built_site, browser, base_url) -> None:  # noqa: ANN001
    """A reader without a mouse: Tab to a glossary link shows its card; so does a tap on a phone (touch screen)."""
    rel = next(r for r in site.chapter_pages() if not r.startswith("book/07_"))
    for touch in (False, True):
        context = browser.new_context(
            has_touch=touch,
            is_mobile=touch,
            viewport={"width": 390, "height": 844} if touch else {"width": 1280, "height": 900},
        )
        context.route(re.compile(r"^(?!https?://127\.0\.0\.1[:/]|data:|blob:|about:)"), lambda route: route.abort())
        page = context.new_page()
        try:
            page.goto(base_url + rel)
            link = page.locator("a.reference.internal:has(span.xref.std-term)").first
            if touch:
                link.scroll_into_view_if_needed()
                link.tap()
            else:
                for _ in range(600):  # the keyboard alone: Tab until the glossary link has the focus
                    page.keyboard.press("Tab")
                    if link.evaluate("el => el === document.activeElement"):
                        break
                else:
                    pytest.fail(f"{rel}: Tab never reached the glossary link")
            page.wait_for_selector(".tippy-box", state="visible", timeout=10_000)
        finally:
            context.close()
