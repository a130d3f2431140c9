"""Open every chapter's reveal.js deck from the built site, offline, and check that it presents.

For each deck (``_build/html/slides/<chapter>.slides.html``, written by ``coursebuild/slides.py``), served
from 127.0.0.1 with every other request blocked (the ``open_page`` fixture):

- it loads with no outside request, no failed local request and no console or page error;
- reveal.js starts and shows as many slides as the notebook's slide metadata asks for;
- no MyST markup shows (roles, directives, glue), on the slides or in the speaker notes;
- the speaker notes are there (an ``aside.notes`` per notes cell) and reveal's notes plugin is loaded;
- every panel draws, and moving one control of each, on its slide, changes the drawn readout to the one
  ``labcore`` computes for that state (``Panel.row``);
- each chapter page's Slides button leads to its deck, and no other page has one.

``test_speaker_view_shows_the_notes`` opens one deck's speaker view with ``S`` and reads a note in it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from coursebuild.session_plans import load_plans
from coursebuild.slide_layout import slide_type
from coursebuild.slides import SLIDES_DIR, SUFFIX, deck_name, deck_notebook, has_slides
from labcore.panels._panel import READOUT
from tests.browser import browser_site as site
from tests.browser.test_browser_pages import wait_for_panels
from tests.browser.test_panels import _MOVE_JS, _wait_readout

pytestmark = pytest.mark.browser

READY_TIMEOUT_MS = 30_000
#: MyST that must never show in a deck: a role, a directive fence, a target, a glue reference.
RAW_MYST = (
    re.compile(r"\{[a-z][\w:.-]*\}`"),
    re.compile(r"(^|\n)\s*(:::+|```+)\s*\{"),
    re.compile(r"\{glue"),
    re.compile(r"(^|\n)\([\w.-]+\)=\s*(\n|$)"),
)
_TEXT_JS = """() => [...document.querySelectorAll('.reveal .slides .jp-MarkdownCell, .reveal .slides aside.notes')]
  .map(e => e.textContent).join('\\n')"""
_GOTO_PANEL_JS = """(i) => {
  const div = window.lcPanels[i].div;
  const outer = [...document.querySelectorAll('.reveal .slides > section')];
  const h = outer.findIndex(s => s.contains(div));
  const v = [...outer[h].querySelectorAll(':scope > section')].findIndex(s => s.contains(div));
  location.hash = `#/${h}/${Math.max(v, 0)}`;
  return [h, v];
}"""
_PRESENT_JS = "(i) => window.lcPanels[i].div.closest('section').classList.contains('present')"
#: a projector: the decks are checked at this window size
PROJECTOR = {"width": 1280, "height": 720}
#: each slide shown in turn, as a projector shows it (1280x720), measured against what the back row needs:
#: ``tall``/``wide``: content outside the slide; ``clipped``: code run off a box, or a figure inside a box that hides
#: part of it (an ancestor with overflow other than visible whose content is taller or wider than it); ``shrunk``: a
#: figure shown under half its own width; ``boxes``: any other element of the slide (a quiz, a table, an output) whose
#: content runs past a box that scrolls or hides it; ``small``: the smallest on-screen size (computed font size times
#: reveal's scale, and an SVG's own scale) of any visible text under 18 px; ``truncated``: a chart's text cut short with
#: an ellipsis (Vega truncates a legend label longer than its ``labelLimit``); ``reprs``: printed output that is a raw
#: tuple or a dataclass repr; and the start of the slide's text (the session plans name slides by number)
_MEASURE_JS = """async () => {
  const H = Reveal.getConfig().height, W = Reveal.getConfig().width, MIN_PX = 18, out = [];
  const FIGURE = '.jp-OutputArea-output img, .jp-OutputArea-output > svg, .lc-panel svg.marks';
  const REPR = [/^\\s*\\(.*,.*\\)\\s*$/m, /\\b[A-Z]\\w*\\([a-z_]\\w*=/];
  const visible = e => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
  const boxed = (e, slide) => {
    for (let a = e.parentElement; a && a !== slide.parentElement; a = a.parentElement) {
      const s = getComputedStyle(a);
      if ((s.overflowY !== 'visible' && a.scrollHeight > a.clientHeight + 1)
          || (s.overflowX !== 'visible' && a.scrollWidth > a.clientWidth + 1)) return true;
    }
    return false;
  };
  for (const slide of Reveal.getSlides()) {
    const at = Reveal.getIndices(slide);
    Reveal.slide(at.h, at.v);
    await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
    const scale = slide.getBoundingClientRect().width / slide.offsetWidth;
    const title = (slide.querySelector('h1, h2, h3') || slide).textContent.trim().slice(0, 50);
    const code = [...slide.querySelectorAll('pre')].filter(p => visible(p) && p.scrollWidth > p.clientWidth + 2).length;
    const figures = [...slide.querySelectorAll(FIGURE)].filter(visible);
    const clippedFigures = figures.filter(f => boxed(f, slide)).length;
    const shrunk = [];
    for (const f of figures.filter(f => !f.closest('.lc-panel'))) {
      const natural = f.tagName.toLowerCase() === 'svg' ? f.width.baseVal.value : (Number(f.getAttribute('width')) || f.naturalWidth);
      const shown = f.getBoundingClientRect().width / scale;
      if (natural > 0 && shown < 0.5 * natural - 0.5) shrunk.push(Math.round(100 * shown / natural));
    }
    const sizes = [];
    const walker = document.createTreeWalker(slide, NodeFilter.SHOW_TEXT);
    for (let t = walker.nextNode(); t; t = walker.nextNode()) {
      const e = t.parentElement;
      if (!t.textContent.trim() || !e || !visible(e) || e.closest('aside.notes, .MathJax_Preview, script, style')) continue;
      let px = parseFloat(getComputedStyle(e).fontSize) * scale;
      const svg = e.closest('svg');
      if (svg) {
        const box = svg.viewBox.baseVal, own = box && box.width ? box.width : svg.width.baseVal.value;
        px = parseFloat(getComputedStyle(e).fontSize) * svg.getBoundingClientRect().width / own;
      }
      sizes.push(px);
    }
    const small = sizes.filter(px => px < MIN_PX - 0.05);
    // a box with content past its edge (scrolled or hidden); a visually hidden one (1 px, for screen readers) is none
    const boxes = [...slide.querySelectorAll('*')].filter(e => {
      if (!visible(e) || e.closest('aside.notes') || e.clientHeight <= 2 || e.clientWidth <= 2) return false;
      const s = getComputedStyle(e);
      return (s.overflowY !== 'visible' && e.scrollHeight > e.clientHeight + 1)
        || (s.overflowX !== 'visible' && e.scrollWidth > e.clientWidth + 1);
    }).map(e => `${e.tagName.toLowerCase()}.${[...e.classList].join('.')} ${e.scrollWidth}x${e.scrollHeight} in ` +
              `${e.clientWidth}x${e.clientHeight}`);
    const truncated = [...slide.querySelectorAll('svg text')].filter(visible).map(t => t.textContent)
      .filter(text => text.trim().endsWith('\u2026'));
    const printed = [...slide.querySelectorAll('.jp-OutputArea-output pre')].map(p => p.textContent);
    const reprs = printed.filter(text => REPR.some(r => r.test(text))).map(text => text.trim().slice(0, 80));
    out.push({at: `${at.h}/${at.v || 0}`, title, height: slide.scrollHeight, tall: slide.scrollHeight > H + 2,
              wide: slide.scrollWidth > W + 2, clipped: code + clippedFigures, clippedFigures, shrunk,
              boxes, truncated, small: small.length ? Math.min(...small) : null, reprs,
              text: slide.textContent.replace(/\\s+/g, ' ').slice(0, 400)});
  }
  Reveal.slide(0, 0);
  return {height: H, slides: out};
}"""
#: the keys a presenter (or a clicker) turns slides with: each walk presses its first key from the first slide to the
#: last, then its second (if any) back to the first (N, P and Up are pressed by the panel-control test)
WALKS = (("ArrowRight", "ArrowLeft"), ("PageDown", "PageUp"), ("Space", None))
#: a walk through the deck with one key, recording the slide shown after every press (reveal's own indices)
_WALK_START_JS = """() => {
  const at = () => { const i = Reveal.getIndices(); return `${i.h}/${i.v || 0}`; };
  window.lcWalk = [];
  if (!window.lcWalkListening) {
    Reveal.on('slidechanged', () => window.lcWalk.push(at()));
    window.lcWalkListening = true;
  }
  return {order: Reveal.getSlides().map(s => { const i = Reveal.getIndices(s); return `${i.h}/${i.v || 0}`; }),
          total: Reveal.getTotalSlides(), at: at()};
}"""
#: what each deck showed when it was checked (the readability and accessibility tests read it)
_DECKS: dict[str, dict] = {}


def _walk(page) -> dict[str, list[str]]:  # noqa: ANN001
    """From the first slide, press each key of :data:`WALKS` (forward to the end, then back); return what each showed.

    Each walk is keyed ``"<forward key>/<back key>"`` and holds ``order`` (every slide in the deck's order),
    ``forward`` and ``back`` (the slides shown, from the first press's start, press by press).
    """
    start = page.evaluate(_WALK_START_JS)
    order = start["order"]
    presses = len(order) - 1 + page.locator(".reveal .slides .fragment").count()
    walks = {"order": order, "total": start["total"], "start": start["at"]}
    for forward, back in WALKS:
        for key, name in ((forward, "forward"), (back, "back")) if back else ((forward, "forward"),):
            at = page.evaluate(
                "() => { window.lcWalk = []; const i = Reveal.getIndices(); return `${i.h}/${i.v || 0}`; }"
            )
            for _ in range(presses):
                page.keyboard.press(key)
            walks[f"{forward}/{back}:{name}"] = [at] + page.evaluate("() => window.lcWalk")
    return walks


def _checked(page, rel: str, *, walk: bool = False) -> dict:  # noqa: ANN001
    """Run axe and measure every slide of the deck open in ``page``, and with ``walk`` walk it with each key of
    :data:`WALKS` (each once per deck); return what was found."""
    from tests.browser.test_browser_pages import axe_findings

    if rel not in _DECKS:
        # a deck has one theme, reveal's white (its panels draw light whatever the reader's system prefers)
        _DECKS[rel] = {"axe": axe_findings(page, ("light",)), "measured": page.evaluate(_MEASURE_JS)}
    if walk and "walks" not in _DECKS[rel]:
        _DECKS[rel]["walks"] = _walk(page)
    return _DECKS[rel]


def _deck(open_page, rel: str) -> dict:  # noqa: ANN001
    if "walks" not in _DECKS.get(rel, {}):
        page, _log = open_page(rel, viewport=PROJECTOR)
        page.wait_for_selector(".reveal.ready", state="attached", timeout=READY_TIMEOUT_MS)
        wait_for_panels(page)
        _checked(page, rel, walk=True)
    return _DECKS[rel]


def deck_sources() -> list[Path]:
    """Return every book notebook that carries slide metadata (each gets a deck), chapters first."""
    return sorted(p for p in site.BOOK.glob("*.ipynb") if has_slides(json.loads(p.read_text(encoding="utf-8"))))


def deck_rels() -> list[str]:
    """Return the site path of every deck: each chapter's, then each session plan's own."""
    return [f"{SLIDES_DIR}/{deck_name(p)}" for p in deck_sources()] + [
        f"{SLIDES_DIR}/{plan.deck}{SUFFIX}" for plan in load_plans().values() if plan.deck
    ]


def expected_slides(nb: dict) -> int:
    """Return how many slides reveal shows for a deck notebook (nbconvert's rule: slides and subslides)."""
    shown = [slide_type(c) or "-" for c in nb["cells"]]
    visible = [t for t in shown if t not in ("notes", "skip")]
    return (1 if visible and visible[0] not in ("slide", "subslide") else 0) + sum(
        t in ("slide", "subslide") for t in visible
    )


def _deck_notebook(path: Path) -> dict:
    from coursebuild.lite.notebooks import glue_values

    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        cell["source"] = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
    return deck_notebook(nb, glue_values(nb))


def test_every_chapter_has_slide_metadata_and_a_deck(built_site) -> None:  # noqa: ANN001
    """Every chapter notebook is a deck source, and the built site holds each deck."""
    chapters = site.chapter_sources()
    assert set(chapters) <= set(deck_sources()), "chapters without slide metadata: run scripts/slide_metadata.py"
    missing = [p.name for p in deck_sources() if not (built_site / SLIDES_DIR / deck_name(p)).is_file()]
    assert not missing, f"no deck built for {missing}: build the book (coursebuild.slides)"


@pytest.mark.parametrize("rel", site.page_paths())
def test_slides_button_only_where_a_deck_exists(built_site, rel: str) -> None:  # noqa: ANN001
    """A page has a Slides button exactly when its notebook has a deck, and the button leads to that deck."""
    html = (built_site / rel).read_text(encoding="utf-8")
    targets = [
        t
        for t in re.findall(r'href="((?:\.\./)*slides/[^"]+\.slides\.html)"', html)
        if not any(t.endswith(f"/{plan.deck}{SUFFIX}") for plan in load_plans().values() if plan.deck)
    ]
    source = site.ROOT / rel.replace(".html", ".ipynb")
    if source in deck_sources():
        assert targets == [f"../{SLIDES_DIR}/{deck_name(source)}"], f"{rel}: Slides button {targets}"
        assert (built_site / rel).parent.joinpath(targets[0]).resolve().is_file()
    else:
        assert targets == [], f"{rel} has no deck but links to {targets}"


@pytest.mark.parametrize("source", deck_sources(), ids=lambda p: p.stem)
def test_deck_presents_offline(built_site, open_page, source: Path) -> None:  # noqa: ANN001
    """The deck opens offline with no error, shows its slides and notes, no MyST markup, and working panels."""
    rel = f"{SLIDES_DIR}/{deck_name(source)}"
    assert (built_site / rel).is_file(), f"{rel} was not built"
    page, log = open_page(rel, viewport=PROJECTOR)
    page.wait_for_selector(".reveal.ready", state="attached", timeout=READY_TIMEOUT_MS)
    nb = _deck_notebook(source)
    _checked(page, rel, walk=True)

    slides = page.locator(".reveal .slides > section > section, .reveal .slides > section:not(.stack)").count()
    assert slides == expected_slides(nb), (
        f"{rel}: {slides} slides shown, the notebook's metadata makes {expected_slides(nb)}"
    )
    notes = sum(slide_type(c) == "notes" for c in nb["cells"])
    assert notes > 0 and page.locator("aside.notes").count() == notes, (
        f"{rel}: {notes} notes cells, {page.locator('aside.notes').count()} notes in the deck"
    )
    assert page.evaluate("() => !!document.querySelector('script[src$=\"plugin/notes/notes.js\"]')"), (
        f"{rel}: reveal's notes plugin is not loaded"
    )
    text = page.evaluate(_TEXT_JS)
    for pattern in RAW_MYST:
        found = pattern.search(text)
        assert not found, f"{rel}: MyST markup in the deck: {text[max(0, found.start() - 60) : found.end() + 60]!r}"

    panels = wait_for_panels(page)
    assert panels == sum(
        'class="lc-panel"' in "".join(o.get("data", {}).get("text/html", ""))
        for c in nb["cells"]
        if c["cell_type"] == "code" and "skip" != slide_type(c)
        for o in c.get("outputs", [])
    ), f"{rel}: panels drawn differ from the notebook's"
    names = page.evaluate(site.PANEL_NAMES_JS)
    for i, (name, variant) in enumerate(names):
        panel = site.labcore_panel(name, variant)
        state = panel.defaults()
        page.evaluate(_GOTO_PANEL_JS, i)
        page.wait_for_function(_PRESENT_JS, arg=i, timeout=10_000)
        shown = _wait_readout(page, i, panel.row(**state)[READOUT])
        assert shown == panel.row(**state)[READOUT], f"{rel} {name}: at its defaults shows {shown!r}"
        control = panel.controls[0]
        index = next(j for j, v in enumerate(control.values) if v != control.default)
        assert page.evaluate(_MOVE_JS, [i, control.name, index]) is None
        expected = panel.row(**(state | {control.name: control.values[index]}))[READOUT]
        shown = _wait_readout(page, i, expected)
        assert shown == expected, (
            f"{rel} {name}: {control.name}={control.values[index]!r} shows {shown!r}, labcore says {expected!r}"
        )
        svg_width = page.evaluate(
            "(i) => window.lcPanels[i].target.querySelector('svg').getBoundingClientRect().width", i
        )
        assert svg_width > 200, f"{rel} {name}: drawn {svg_width:.0f} px wide on its slide"

    assert not log.blocked, f"{rel} tried to reach outside 127.0.0.1: {log.blocked}"
    assert not log.failed, f"{rel}: local requests failed: {log.failed}"
    assert not log.console_errors + log.page_errors, f"{rel}: errors {log.console_errors + log.page_errors}"


def test_speaker_view_shows_the_notes(built_site, open_page) -> None:  # noqa: ANN001
    """Pressing S opens reveal's speaker view, which shows the current slide's speaker notes."""
    source = site.chapter_sources()[0]
    rel = f"{SLIDES_DIR}/{deck_name(source)}"
    page, log = open_page(rel)
    page.wait_for_selector(".reveal.ready", state="attached", timeout=READY_TIMEOUT_MS)
    first_note = page.evaluate("() => document.querySelector('.reveal .slides section aside.notes').textContent")
    words = " ".join(first_note.split()[:6])
    with page.context.expect_page(timeout=20_000) as popup:
        page.keyboard.press("s")
    view = popup.value
    view.wait_for_selector(".speaker-controls-notes", timeout=20_000)
    view.wait_for_function(
        "(words) => document.querySelector('.speaker-controls-notes').textContent.replace(/\\s+/g, ' ')"
        ".includes(words)",
        arg=words,
        timeout=20_000,
    )
    assert not log.blocked, f"speaker view reached outside 127.0.0.1: {log.blocked}"


def _unreadable(slide: dict) -> list[str]:
    """Return what keeps one measured slide (see ``_MEASURE_JS``) from reading at 1280x720 (nothing when it reads)."""
    problems = [
        text
        for flag, text in (
            (slide["tall"], f"{slide['height']} px tall"),
            (slide["wide"], "wider than the slide"),
            (
                slide["clipped"] - slide["clippedFigures"],
                f"{slide['clipped'] - slide['clippedFigures']} code box(es) clipped",
            ),
            (slide["clippedFigures"], f"{slide['clippedFigures']} figure(s) cut by a box"),
            (slide["shrunk"], f"figures shown at {slide['shrunk']}% of their width"),
            (slide["boxes"], f"content scrolls or is hidden in {slide['boxes']}"),
            (slide["truncated"], f"chart text cut short {slide['truncated']}"),
            (slide["small"], f"text at {slide['small'] or 0:.1f} px"),
            (slide["reprs"], f"raw output {slide['reprs']}"),
        )
        if flag
    ]
    return problems


@pytest.mark.parametrize("rel", deck_rels(), ids=lambda r: Path(r).name.removesuffix(SUFFIX))
def test_deck_reads_from_the_back_row(built_site, open_page, rel: str) -> None:  # noqa: ANN001
    """At 1280x720, on every slide: nothing outside the slide, no figure cut by a box or shown under half its width, no
    code clipped, nothing (a quiz included) in a box that scrolls or hides part of it, no chart text (a legend label)
    cut short, every text 18 px or more on the screen, and no raw tuple or dataclass repr printed."""
    measured = _deck(open_page, rel)["measured"]
    assert len(measured["slides"]) > 1, f"{rel}: {len(measured['slides'])} slides measured"
    bad = {f"{s['at']} {s['title']!r}": found for s in measured["slides"] if (found := _unreadable(s))}
    assert bad == {}, f"{rel} (slides {measured['height']} px tall): {bad}"


@pytest.mark.parametrize("rel", deck_rels(), ids=lambda r: Path(r).name.removesuffix(SUFFIX))
def test_next_alone_reaches_every_slide(built_site, open_page, rel: str) -> None:  # noqa: ANN001
    """From the first slide, Right alone (then PageDown, then Space: what a clicker sends) shows every slide in the
    deck's order, sub-slides included; Left (then PageUp) walks back over each to the first."""
    walks = _deck(open_page, rel)["walks"]
    order = walks["order"]
    assert walks["start"] == order[0] and len(order) == walks["total"] > 1, f"{rel}: {walks['start']}, {walks['total']}"
    for forward, back in WALKS:
        shown = walks[f"{forward}/{back}:forward"]
        missing = [at for at in order if at not in shown]
        assert not missing, (
            f"{rel}: {forward} alone showed {len(order) - len(missing)} of {len(order)} slides, never {missing[:10]}"
        )
        assert shown == order, f"{rel}: {forward} showed the slides out of order: {shown}"
        if back:
            shown = walks[f"{forward}/{back}:back"]
            assert shown == order[::-1], f"{rel}: {back} from the last slide showed {shown}"


@pytest.mark.parametrize("rel", deck_rels(), ids=lambda r: Path(r).name.removesuffix(SUFFIX))
def test_deck_is_accessible(built_site, open_page, rel: str) -> None:  # noqa: ANN001
    """axe-core (WCAG 2.0/2.1 A and AA) finds nothing serious or critical on the deck (its one, white theme)."""
    found = _deck(open_page, rel)["axe"]
    assert found == {"light": []}, f"{rel}: {found}"


def test_after_a_slider_the_keys_move_the_slides(built_site, open_page) -> None:  # noqa: ANN001
    """A presenter drags a panel's slider with the mouse, then the arrow keys and a clicker (PageDown) turn the slide;
    a slider reached with Tab keeps the arrow keys, and PageDown, PageUp, Space, N and P leave it and turn the slide;
    Escape leaves it on its slide, and the arrows turn the slides again."""
    source = next(p for p in deck_sources() if "lc-panel" in json.dumps(_deck_notebook(p)))
    rel = f"{SLIDES_DIR}/{deck_name(source)}"
    page, log = open_page(rel, viewport=PROJECTOR)
    page.wait_for_selector(".reveal.ready", state="attached", timeout=READY_TIMEOUT_MS)
    wait_for_panels(page)
    index = page.evaluate("() => window.lcPanels.findIndex(p => p.div.querySelector('input[type=range]'))")
    page.evaluate(_GOTO_PANEL_JS, index)
    page.wait_for_function(_PRESENT_JS, arg=index, timeout=10_000)
    where = lambda: page.evaluate("() => { const i = Reveal.getIndices(); return [i.h, i.v || 0]; }")  # noqa: E731
    # the element itself, not a locator: after the slide turns, "the present slide's slider" is another one or none
    slider = page.locator(".reveal .slides section.present .lc-panel input[type=range]").first.element_handle()
    box = slider.bounding_box()
    before = slider.input_value()
    page.mouse.move(box["x"] + 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * 0.8, box["y"] + box["height"] / 2, steps=5)
    page.mouse.up()
    moved = slider.input_value()
    assert moved != before, "the mouse did not move the slider"
    at = where()
    page.keyboard.press("ArrowRight")
    assert where() != at and slider.input_value() == moved, "after the mouse, ArrowRight must turn the slide"
    page.keyboard.press("ArrowLeft")
    assert where() == at
    slider.focus()  # as Tab would: the keyboard moves the slider, a clicker still turns the slide
    page.keyboard.press("ArrowRight")
    assert where() == at and slider.input_value() != moved, "a focused slider takes the arrow keys"
    page.keyboard.press("PageDown")
    assert where() != at, "PageDown (a clicker) must turn the slide even from a focused slider"
    focused = "(e) => document.activeElement === e"
    assert not slider.evaluate(focused), "the slider kept the focus on a slide no longer shown"
    for key, back in (("PageUp", "PageDown"), ("Space", "ArrowLeft"), ("n", "p"), ("p", "n")):
        page.evaluate(_GOTO_PANEL_JS, index)
        page.wait_for_function(_PRESENT_JS, arg=index, timeout=10_000)
        slider.focus()
        page.keyboard.press(key)
        assert where() != at and not slider.evaluate(focused), (
            f"{key} from a focused slider must leave it and turn the slide"
        )
        page.keyboard.press(back)
        assert where() == at, f"{back} must turn back to the panel's slide"
    slider.focus()
    page.keyboard.press("Escape")
    assert where() == at and not slider.evaluate(focused), "Escape must leave the slider and stay on its slide"
    value = slider.input_value()
    page.keyboard.press("ArrowRight")
    assert where() != at and slider.input_value() == value, "after Escape, ArrowRight turns the slide"
    assert not log.page_errors, log.page_errors


def _plan_sections() -> dict[str, list]:
    out: dict[str, list] = {}
    for plan in load_plans().values():
        for slot in plan.slots:
            if slot.deck:
                out.setdefault(slot.deck, []).extend(slot.sections)
    return out


@pytest.mark.parametrize("source", [p for p in deck_sources() if p.stem in _plan_sections()], ids=lambda p: p.stem)
def test_the_session_plans_slide_numbers_start_their_sections(built_site, open_page, source: Path) -> None:  # noqa: ANN001
    """Each slide number a session plan gives a section (coursebuild.session_plans) is the slide that starts it."""
    slides = _deck(open_page, f"{SLIDES_DIR}/{deck_name(source)}")["measured"]["slides"]
    for section in _plan_sections()[source.stem]:
        shown = slides[section.first - 1]["text"] if section.first <= len(slides) else None
        assert shown is not None and section.heading in shown, (
            f"{source.stem}: the plans say slide {section.first} starts {section.heading!r}; it shows {str(shown)[:80]!r}"
        )
