"""Open every page of the built book in headless Chromium, offline, and check it works.

The contract (see README "Tests"):
- every page named by ``_toc.yml`` exists in ``_build/html`` and loads over HTTP from
  127.0.0.1 with no request to any other host (all such requests are blocked and fail
  the test) and no failed local request;
- no console or page errors except the two every stock Jupyter Book 1 page logs;
- no raw markup in the visible text (a ``{glue`` role, a Markdown pipe table);
- no upscaled bitmap: every raster image is shown at most at its natural width;
- every control in the article belongs to a kernel-free panel (nothing that needs a kernel);
- the panels' scripts load only on pages with a panel, and every panel draws;
- a page loads at most ``PAGE_WEIGHT_LIMIT_BYTES`` more than a blank page of the theme,
  counting every file at its gzip size.
``test_panels.py`` moves every control of every panel.

Each page is loaded once, with an empty cache, by :func:`visit`, which records what these tests
check (its requests and their gzip sizes, errors, panels, scripts, controls, images and text), then
turns the page to a phone's width and records the panels wider than it; the tests that need a page in
another state (the dark theme, a page opened at a phone's width) open their own.
"""

from __future__ import annotations

import gzip
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from labcore.chapters import EXERCISES
from tests.browser import browser_site as site

pytestmark = pytest.mark.browser

RENDER_TIMEOUT_MS = 30_000
RAW_MARKUP = (
    re.compile(r"\{glue(:\w+)?\}"),
    re.compile(r"\{term\}"),
    re.compile(r"\|\s*:?[-\u2013\u2014]{1,}:?\s*\|"),
)  # a pipe table's rule, dashes typeset or not
_PROSE_TEXT_JS = (
    "() => [...document.querySelectorAll('article p, article li, article td, article h1, article h2, article h3')]"
    ".filter(e => !e.closest('pre, .highlight')).map(e => e.innerText).join('\\n')"
)

_UPSCALED_JS = """
() => [...document.querySelectorAll('article img')]
  .filter(img => img.complete && img.naturalWidth > 0 && !/\\.svg(\\?|$)/i.test(img.currentSrc || img.src))
  .filter(img => img.getBoundingClientRect().width > img.naturalWidth + 1)
  .map(img => `${img.getAttribute('src')}: shown ${Math.round(img.getBoundingClientRect().width)} px, natural ${img.naturalWidth} px`)
"""

_STRAY_CONTROLS_JS = """
() => [...document.querySelectorAll('article input, article select, article textarea')]
  // quizzes: every answer tested in test_quizzes.py; exercise boxes: every known answer in test_exercises.py
  .filter(el => !el.closest('.lc-panel') && !el.closest('.Quiz') && !el.closest('.course-exercise'))
  .map(el => el.outerHTML.slice(0, 120))
"""


#: the visible text of the article above each "Exercise N.M." label (folded solutions and hidden cells left out,
#: a panel's drawn readout included): what a reader has seen when they reach the exercise
_BEFORE_EXERCISES_JS = """
() => {
  const article = document.querySelector('article') || document.body;
  const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
  const seen = {}, parts = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || parent.closest('script, style, noscript') || !parent.checkVisibility()) continue;
    const label = /^Exercise (\\d+\\.\\d+)\\.$/.exec(node.textContent.trim());
    if (label && parent.closest('strong, b') && !(label[1] in seen)) seen[label[1]] = parts.join(' ');
    parts.push(node.textContent);
  }
  return seen;
}
"""


_AXE_RUN_JS = """async (tags) => {
  // resultTypes: only the violations are collected in full (axe's documented speed-up; passes are not read)
  const result = await axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']});
  return result.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
    .map(v => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', ')}`);
}"""


def axe_findings(page, themes: tuple[str, ...] = ("light", "dark")) -> dict[str, list[str]]:  # noqa: ANN001
    """Run axe-core's WCAG 2.0/2.1 A and AA rules on the loaded page in each of ``themes``."""
    if not site.AXE_JS.is_file():
        pytest.fail(f"{site.AXE_JS} is missing: run `npm ci` (make book does)", pytrace=False)
    page.add_script_tag(content=site.AXE_JS.read_text(encoding="utf-8"))
    found = {}
    for theme in themes:
        page.evaluate(f"() => document.documentElement.dataset.theme = '{theme}'")
        if page.locator("div.lc-panel").count():
            page.wait_for_function(
                f"() => window.lcPanels.every(p => p.theme === '{theme}' && p.target.dataset.ready === '1')",
                timeout=RENDER_TIMEOUT_MS,
            )
        # the theme's colours ease in (CSS transitions): judge them once every transition has finished (a deck's
        # looping animations, such as reveal.js's bouncing arrow, move things but change no colour)
        page.wait_for_function(
            "() => document.getAnimations().every(a => !(a instanceof CSSTransition) || a.playState !== 'running')",
            timeout=RENDER_TIMEOUT_MS,
        )
        found[theme] = page.evaluate(_AXE_RUN_JS, list(site.AXE_TAGS))
    return found


_FOCUSED_JS = """() => { const el = document.activeElement;
  return el ? {tag: el.tagName.toLowerCase(), type: el.type || '', panel: (el.closest('.lc-panel') || {dataset: {}}).dataset.panel || '',
               outline: getComputedStyle(el).outlineStyle, width: parseFloat(getComputedStyle(el).outlineWidth) || 0}
            : null; }"""


def keyboard_panel(page) -> dict | None:  # noqa: ANN001
    """Reach the page's first panel slider with Tab alone, move it with ArrowRight; return what was announced.

    Returns None on a page without a panel slider; else the panel, the slider's name and value before and after,
    whether focus was visible, and the live region's readout after the move.
    """
    slider = page.locator("div.lc-panel input[type=range]").first
    if not slider.count():
        return None
    page.evaluate("() => { document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0); }")
    focused = None
    for _ in range(400):
        page.keyboard.press("Tab")
        focused = page.evaluate(_FOCUSED_JS)
        if focused and focused["type"] == "range" and focused["panel"]:
            break
    else:
        return {"reached": False}
    active = page.locator(":focus")
    panel_div = page.locator(f"div.lc-panel[data-panel='{focused['panel']}']").first
    before = active.input_value()
    page.keyboard.press("ArrowRight")
    after = active.input_value()
    page.wait_for_function(
        "([div, before]) => div.querySelector('.lc-panel-live').textContent !== ''",
        arg=[panel_div.element_handle(), before],
        timeout=RENDER_TIMEOUT_MS,
    )
    name = active.evaluate("el => (el.closest('label') || el.parentElement).textContent")
    variant = panel_div.evaluate(
        "d => (JSON.parse(d.querySelector('script.lc-panel-spec').textContent).usermeta || {}).labcore_variant || ''"
    )
    return {
        "reached": True,
        "panel": focused["panel"],
        "variant": variant,
        "before": before,
        "after": after,
        "name": name,
        "focus_visible": focused["outline"] != "none" and focused["width"] >= 2,
        "announced": panel_div.locator(".lc-panel-live").text_content(),
    }


def wait_for_panels(page) -> int:  # noqa: ANN001
    """Wait until every ``.lc-panel`` on the page has drawn; return how many panels there are."""
    count = page.locator("div.lc-panel").count()
    if count:
        page.wait_for_function(
            "() => window.lcPanels && window.lcPanels.length === document.querySelectorAll('div.lc-panel').length"
            " && window.lcPanels.every(p => p.target.dataset.ready === '1')",
            timeout=RENDER_TIMEOUT_MS,
        )
    return count


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


@dataclass
class Visit:
    """What one load of a page with an empty cache showed, once its panels drew and the network went idle."""

    log: object  # conftest.PageLog
    panels: int
    drawn: int
    scripts: list[int]
    widget_states: int
    stray: list[str]
    upscaled: list[str]
    text: str
    gzip_sizes: dict[str, int]
    phone_wide: list  # the panels wider than a 390 px phone once the loaded page is turned to that width
    before_exercises: dict[str, str]  # per exercise label on the page: the visible text above it
    axe: dict[str, list[str]]  # per theme: axe-core's serious and critical findings
    keyboard: dict | None  # the first panel slider, reached and moved with the keyboard alone
    figure_alts: list[str]  # the text alternative of every figure of the article
    panel_names: list[str]  # every panel's accessible name (Vega gives its SVG the spec's description)

    @property
    def gzip_bytes(self) -> int:
        """Return the gzip size of everything the page loaded."""
        return sum(self.gzip_sizes.values())

    def largest(self, n: int) -> list[tuple[str, int]]:
        """Return the ``n`` largest files the page loaded, with their gzip sizes."""
        return sorted(self.gzip_sizes.items(), key=lambda kv: -kv[1])[:n]


#: every page visited in this module (one load per page, checked by several tests)
_VISITS: dict[str, Visit] = {}


def visit(open_page, rel: str) -> Visit:  # noqa: ANN001
    """Load ``rel`` once with an empty cache (a fresh context) and record what the tests check; later calls reuse it."""
    if rel not in _VISITS:
        sizes: dict[str, int] = {}
        page, log = open_page(rel, on_response=lambda r: r.ok and sizes.setdefault(r.url, len(gzip.compress(r.body()))))
        panels = wait_for_panels(page)
        page.wait_for_load_state("networkidle")
        _VISITS[rel] = Visit(
            log=log,
            panels=panels,
            drawn=page.evaluate(
                "() => [...document.querySelectorAll('div.lc-panel svg')].filter("
                "s => s.getBoundingClientRect().width > 100).length"
            ),
            scripts=[page.locator(f'script[src*="{s}"]').count() for s in site.PANEL_SCRIPTS],
            widget_states=page.locator('script[type="application/vnd.jupyter.widget-state+json"]').count(),
            stray=page.evaluate(_STRAY_CONTROLS_JS),
            upscaled=page.evaluate(_UPSCALED_JS),
            text=page.evaluate(_PROSE_TEXT_JS),
            gzip_sizes=dict(sizes),
            before_exercises=page.evaluate(_BEFORE_EXERCISES_JS),
            keyboard=keyboard_panel(page),
            axe=axe_findings(page),
            figure_alts=page.evaluate(
                "() => [...document.querySelectorAll('article .cell_output img')].map(i => i.alt)"
            ),
            panel_names=page.evaluate(
                "() => [...document.querySelectorAll('div.lc-panel svg[role]')].map("
                "s => s.getAttribute('aria-label') || '')"
            ),
            phone_wide=_wide_on_a_phone(page),
        )
    return _VISITS[rel]


PHONE = {"width": 390, "height": 844}
_WIDE_PANELS_JS = (
    "() => [...document.querySelectorAll('div.lc-panel')].map(p => ["
    "p.dataset.panel, Math.round(p.querySelector('svg').getBoundingClientRect().width)])"
    f".filter(([n, w]) => w > {PHONE['width']})"
)


def _wide_on_a_phone(page) -> list:  # noqa: ANN001
    """Turn the loaded page to a phone's width (as a phone does when rotated); return what is wider than the screen.

    The panels wider than it, by name, and the page itself when it scrolls sideways (``["page", width]``).
    """
    page.set_viewport_size(PHONE)
    try:  # the panels are container-width: Vega re-lays them out on the resize
        page.wait_for_function(f"() => ({_WIDE_PANELS_JS})().length === 0", timeout=5_000)
    except Exception:  # noqa: BLE001 - the test reports the panels still too wide
        pass
    wide = page.evaluate(_WIDE_PANELS_JS)
    width = page.evaluate("() => document.documentElement.scrollWidth")
    return wide + ([["page", width]] if width > PHONE["width"] else [])


@pytest.mark.parametrize("rel", site.page_paths())
def test_page_renders_offline_without_errors(built_site, open_page, rel: str) -> None:  # noqa: ANN001
    """Each page loads with no outside request, no unexpected error, no raw markup, every panel drawn."""
    assert (built_site / rel).is_file(), f"{rel} is in _toc.yml but not built: run `make book`"
    seen = visit(open_page, rel)
    log, panels = seen.log, seen.panels

    assert not log.blocked, f"{rel} tried to reach outside 127.0.0.1: {log.blocked}"
    assert not log.failed, f"{rel}: local requests failed: {log.failed}"
    assert not log.unexpected_errors(), f"{rel}: console/page errors: {log.unexpected_errors()}"

    scripts = seen.scripts
    assert scripts == [1 if panels else 0] * len(scripts), f"{rel}: panel scripts {scripts} for {panels} panel(s)"
    assert seen.widget_states == 0, (
        f"{rel}: embeds ipywidgets state, which needs a widget manager (or a kernel) to work"
    )

    stray = seen.stray
    assert not stray, f"{rel}: controls outside a kernel-free panel: {stray}"
    upscaled = seen.upscaled
    assert not upscaled, f"{rel}: bitmaps shown wider than they are: {upscaled}"

    text = seen.text
    for pattern in RAW_MARKUP:
        found = pattern.search(text)
        assert not found, f"{rel}: raw markup in the visible text: {found.group(0)!r}"
    drawn = seen.drawn
    assert drawn >= panels, f"{rel}: {panels - drawn} of {panels} panel(s) not drawn"


@pytest.mark.parametrize("rel", site.page_paths())
def test_live_buttons_lead_to_a_served_notebook(built_site, rel: str) -> None:  # noqa: ANN001
    """A Live button appears only where the site serves the page's live copy (no link that leads nowhere)."""
    html = (built_site / rel).read_text(encoding="utf-8")
    for target in re.findall(r'lite/notebooks/index\.html\?path=([^"&]+)', html):
        assert (built_site / "lite" / "files" / target).is_file(), f"{rel}: Live button to missing {target}"
    if rel.startswith("book/") and site.CHAPTER_RE.match(rel.split("/")[-1].replace(".html", ".ipynb")):
        assert "lite/notebooks/index.html?path=" in html, f"{rel}: chapter without a Live button"


def test_every_page_stays_light(built_site, open_page) -> None:  # noqa: ANN001
    """No page loads more than the limit above a blank page of the theme (gzip, as a static host sends)."""
    blank = visit(open_page, site.BLANK_PAGE).gzip_bytes
    heavy = []
    for rel in site.page_paths():
        seen = visit(open_page, rel)
        total, parts = seen.gzip_bytes, seen.largest(4)
        if total - blank > site.PAGE_WEIGHT_LIMIT_BYTES:
            heavy.append(
                f"{rel}: +{(total - blank) / 1e6:.2f} MB over the blank page; largest: "
                + ", ".join(f"{u.rsplit('/', 1)[-1]} {n / 1e3:.0f} kB" for u, n in parts)
            )
    assert not heavy, "\n".join(heavy)


@pytest.mark.parametrize("rel", site.chapter_pages())
def test_chapter_has_a_working_panel(built_site, open_page, rel: str) -> None:  # noqa: ANN001
    """Each chapter has at least one kernel-free panel, drawn as SVG."""
    assert visit(open_page, rel).panels >= 1, f"{rel}: no kernel-free panel on this chapter page"


def test_dark_theme_redraws_panels_and_darkens_figures(built_site, open_page) -> None:  # noqa: ANN001
    """Switching the theme to dark redraws every panel in the dark theme and inverts the figures' lightness."""
    rel = site.chapter_pages()[0]
    page, log = open_page(rel)
    wait_for_panels(page)
    page.evaluate("() => document.documentElement.dataset.theme = 'dark'")
    page.wait_for_function(
        "() => window.lcPanels.every(p => p.theme === 'dark' && p.target.dataset.ready === '1')",
        timeout=RENDER_TIMEOUT_MS,
    )
    filters = page.evaluate(
        "() => [...document.querySelectorAll('.cell_output img')].map(i => getComputedStyle(i).filter)"
    )
    assert filters and all("invert" in f for f in filters), filters
    fill = page.evaluate("() => getComputedStyle(document.querySelector('.lc-panel svg .readout_marks text')).fill")
    assert fill not in ("rgb(0, 0, 0)", "#000", "black"), f"readout text stays black on a dark page: {fill}"
    assert not log.unexpected_errors(), log.unexpected_errors()


def test_every_page_fits_a_phone(built_site, open_page) -> None:  # noqa: ANN001
    """At 390 px wide no page scrolls sideways and no panel is wider than the screen: every page turned to that
    width, and the page with the most panels opened there."""
    wide = {rel: visit(open_page, rel).phone_wide for rel in site.page_paths()}
    assert not any(wide.values()), f"wider than a 390 px phone: { {r: w for r, w in wide.items() if w} }"
    rel = max(site.chapter_pages(), key=lambda r: visit(open_page, r).panels)  # the most panels, opened at 390 px
    page, _log = open_page(rel, viewport=PHONE)
    wait_for_panels(page)
    assert page.evaluate(_WIDE_PANELS_JS) == [], f"{rel} opened on a phone: panels wider than 390 px"


@pytest.mark.parametrize("rel", site.page_paths())
def test_no_exercise_is_answered_above_it(built_site, open_page, rel: str) -> None:  # noqa: ANN001
    """Each exercise on the page is one labcore knows, and nothing the reader has seen above it gives its answer away."""

    page = Path(rel).stem
    ours = {e.label: e for e in EXERCISES if e.page == page}
    before = visit(open_page, rel).before_exercises
    assert sorted(before) == sorted(ours), f"{rel}: exercises on the page {sorted(before)}, in labcore {sorted(ours)}"
    given = {label: [text for text in ours[label].gives_away if text in above] for label, above in before.items()}
    assert not any(given.values()), (
        f"{rel}: answers shown above their exercise: { {k: v for k, v in given.items() if v} }"
    )


@pytest.mark.parametrize("rel", site.page_paths())
def test_every_page_is_accessible_in_both_themes(built_site, open_page, rel: str) -> None:  # noqa: ANN001
    """axe-core (WCAG 2.0/2.1 A and AA) finds nothing serious or critical, light or dark."""
    found = visit(open_page, rel).axe
    assert found == {"light": [], "dark": []}, f"{rel}: {found}"


@pytest.mark.parametrize("rel", site.chapter_pages())
def test_a_panel_works_with_the_keyboard_alone(built_site, open_page, rel: str) -> None:  # noqa: ANN001
    """Tab reaches the page's first panel slider, focus shows, ArrowRight moves it, and the live region announces
    exactly labcore's readout for the new state."""
    seen = visit(open_page, rel).keyboard
    if seen is None:
        pytest.skip(f"{rel} has no panel slider")
    assert seen["reached"], f"{rel}: Tab never reached a panel slider"
    assert seen["focus_visible"], f"{rel}: the focused slider shows no focus ring"
    assert seen["after"] != seen["before"], f"{rel}: ArrowRight did not move the slider"
    panel = site.labcore_panel(seen["panel"], seen["variant"])
    control = next(c for c in panel.controls if c.kind == "range")
    assert control.label in seen["name"], (control.label, seen["name"])
    value = min(control.values, key=lambda v: abs(v - float(seen["after"])))
    expected = panel.row(**{control.name: value})["readout"].replace("\n", ". ")
    assert seen["announced"] == expected, (seen["announced"], expected)


@pytest.mark.parametrize("rel", site.page_paths())
def test_every_figure_and_panel_says_its_point(built_site, open_page, rel: str) -> None:  # noqa: ANN001
    """Each figure's text alternative is its takeaway (titles and axes, labcore.plots.figure_alt), never a file
    name; each panel's is its title and what it reads at the chapter's setting (Panel.description)."""
    seen = visit(open_page, rel)
    bad = [a for a in seen.figure_alts if not a or re.search(r"\.(svg|png)$", a) or "_images/" in a]
    assert bad == [], f"{rel}: figures without a text alternative of their own: {bad[:3]}"
    assert len(seen.panel_names) >= seen.panels, f"{rel}: {seen.panels} panels, {len(seen.panel_names)} named"
    assert all(name.count(". At ") == 1 or ". At " in name for name in seen.panel_names), seen.panel_names[:2]
