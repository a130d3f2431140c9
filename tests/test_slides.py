"""Slides: every chapter carries slide metadata and up-to-date speaker notes; decks are built as promised.

- every chapter (and every other notebook the notes file covers) has a ``slideshow.slide_type`` on every cell,
  speaker notes that match ``scripts/speaker_notes/<chapter>.yml`` with this build's glue values, and RISE's white theme
  (``scripts/slide_metadata.py --check`` says the same);
- the notes of every chapter time every section and hold at least one question for the room and one
  "where learners go wrong";
- the slide rule is idempotent, and puts hidden cells, answers and the imports cell out of the slides;
- ``coursebuild.slides.deck_notebook`` leaves out what a presented deck must not show and turns panels and MyST
  into what the deck can draw; a deck written by ``DeckWriter`` loads nothing from outside the site.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import nbformat
import pytest

from coursebuild.slide_layout import slide_type
from coursebuild.slides import DeckWriter, deck_notebook, has_slides, page_links
from labcore.site import VEGALITE_MIME
from scripts import slide_metadata

ROOT = Path(__file__).resolve().parents[1]

NOTES = slide_metadata.load_notes()
NOTEBOOKS = slide_metadata.default_notebooks(NOTES)
CHAPTERS = sorted((ROOT / "book").glob("[0-9][0-9]_*.ipynb"))


def test_every_chapter_is_covered() -> None:
    """Each chapter notebook has an entry in the notes file (so it gets notes and a deck)."""
    assert CHAPTERS and set(CHAPTERS) <= set(NOTEBOOKS)
    missing = [p.name for p in CHAPTERS if p.stem not in NOTES]
    assert not missing, f"chapters without speaker notes in scripts/speaker_notes/<chapter>.yml: {missing}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_slide_metadata_and_notes_are_in_place(path: Path) -> None:
    """Every cell has a slide type; the notes cells are the notes file's, with the stored glue values."""
    problems = slide_metadata.problems(path, NOTES)
    assert not problems, "\n".join(problems) + "\n(run: python scripts/slide_metadata.py)"
    nb = nbformat.read(path, as_version=4)
    assert has_slides(nb)
    notes = [c for c in nb.cells if slide_type(c) == "notes"]
    assert notes and all("remove-cell" in c.metadata.get("tags", []) for c in notes), (
        f"{path.name}: notes cells must be tagged remove-cell (the page hides them, the deck keeps them)"
    )
    assert not any(re.search(r"\{[a-z][\w:.-]*\}`", c.source) for c in notes), f"{path.name}: MyST left in notes"


@pytest.mark.parametrize("stem", sorted(s for s in NOTES if s[:2].isdigit()))
def test_chapter_notes_time_ask_and_warn(stem: str) -> None:
    """A chapter's notes give minutes for every section, questions for the room and the learners' pitfalls."""
    sections = NOTES[stem]["sections"]
    assert all(float(s["minutes"]) >= 0 for s in sections.values())
    assert sum(float(s["minutes"]) for s in sections.values()) >= 10, f"{stem}: a deck shorter than 10 minutes?"
    text = "\n".join(str(s.get("notes", "")) for s in sections.values())
    assert "**Ask" in text, f"{stem}: no question for the room in its notes"
    assert "**Watch for" in text, f"{stem}: no 'where learners go wrong' in its notes"


def _toy_notebook() -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    panel = {"usermeta": {"labcore_panel": "toy"}, "params": []}
    nb.cells = [
        nbformat.v4.new_markdown_cell("# 1. A title\n\nIntro with {term}`a term <term>`."),
        nbformat.v4.new_code_cell("# Live version only (JupyterLite\nimport sys", metadata={"tags": ["remove-cell"]}),
        nbformat.v4.new_code_cell("%matplotlib inline\nimport json\nfrom labcore import x\nuse_course_style()"),
        nbformat.v4.new_markdown_cell(
            "## A section\n\nIt costs {glue:text}`ms:.0f` ms. See [chapter 4](04_the_cache.ipynb)."
        ),
        nbformat.v4.new_code_cell(
            "glue('ms', 2.04, display=False)",
            metadata={"tags": ["remove-cell"]},
            outputs=[
                nbformat.v4.new_output(
                    "display_data",
                    data={"application/papermill.record/text/plain": "2.04"},
                    metadata={"scrapbook": {"name": "ms", "mime_prefix": "application/papermill.record/"}},
                )
            ],
        ),
        nbformat.v4.new_code_cell(
            "panel",
            outputs=[
                nbformat.v4.new_output(
                    "execute_result", data={VEGALITE_MIME: panel, "text/plain": "Panel(toy)"}, execution_count=1
                )
            ],
        ),
        nbformat.v4.new_markdown_cell(":::{solution-start} ex-1\n:class: dropdown\n:::"),
        nbformat.v4.new_code_cell("answer = 42"),
        nbformat.v4.new_markdown_cell(":::{solution-end}\n:::"),
        nbformat.v4.new_markdown_cell("**Exercise 1.1.** Compute it."),
        nbformat.v4.new_code_cell("answer = None\ncheck(answer)"),
        nbformat.v4.new_code_cell("check(2)", metadata={"tags": ["hide-cell"]}),
        nbformat.v4.new_markdown_cell("## Summary\n\n:::{note}\nDone.\n:::"),
    ]
    return nb


def test_slide_rule_is_idempotent_and_hides_what_is_not_presented() -> None:
    nb = _toy_notebook()
    entry = {
        "title": "Say hello.",
        "sections": {
            "A section": {"minutes": 2, "notes": "**Ask:** {glue:text}`ms:.1f`?"},
            "Summary": {"minutes": 1, "notes": "Wrap up."},
        },
    }
    once = slide_metadata.apply(copy.deepcopy(nb), "toy", entry)
    twice = slide_metadata.apply(copy.deepcopy(once), "toy", entry)
    assert nbformat.writes(once) == nbformat.writes(twice)
    kinds = {c.source.split("\n")[0]: slide_type(c) for c in once.cells}
    assert kinds["# 1. A title"] == kinds["## A section"] == kinds["## Summary"] == "slide"
    assert kinds["# Live version only (JupyterLite"] == kinds["%matplotlib inline"] == kinds["check(2)"] == "skip"
    assert kinds["**Exercise 1.1.** Compute it."] == "subslide"
    notes = [c.source for c in once.cells if slide_type(c) == "notes"]
    assert len(notes) == 3 and "about 3 min in all" in notes[0] and "**Ask:** 2.0?" in notes[1], notes
    assert once.metadata["rise"]["theme"] == "white"


def test_notes_out_of_step_with_the_sections_are_refused() -> None:
    with pytest.raises(ValueError, match=r"no notes for \['Summary'\].*does not have: \['Gone'\]"):
        slide_metadata.apply(
            _toy_notebook(),
            "toy",
            {"sections": {"A section": {"minutes": 1, "notes": ""}, "Gone": {"minutes": 1, "notes": ""}}},
        )


def test_deck_notebook_leaves_out_what_a_presented_deck_must_not_show() -> None:
    nb = slide_metadata.apply(_toy_notebook(), "toy", None)
    deck = deck_notebook(nbformat.from_dict(nb), {"ms": "2.04"})
    sources = [c["source"] for c in deck["cells"]]
    joined = "\n".join(sources)
    assert "answer = 42" not in joined and "check(2)" not in joined and "Live version only" not in joined
    assert "It costs 2 ms. See [chapter 4](../book/04_the_cache.html)." in joined
    assert "Intro with a term." in joined and "> **Note.** Done." in joined
    panel = next(c for c in deck["cells"] if c["source"] == "panel")
    assert (
        list(panel["outputs"][0]["data"]) == ["text/html"]
        and 'class="lc-panel"' in panel["outputs"][0]["data"]["text/html"]
    )


def test_page_links_leave_external_and_anchor_links_alone() -> None:
    text = "[a](https://example.org/x.ipynb) [b](#here) [c](/abs.md) [d](02_adapter_is_a_delta.ipynb)"
    assert (
        page_links(text)
        == "[a](https://example.org/x.ipynb) [b](#here) [c](/abs.md) [d](../book/02_adapter_is_a_delta.html)"
    )


def test_a_deck_loads_nothing_from_outside_the_site(tmp_path: Path) -> None:
    nb = slide_metadata.apply(
        _toy_notebook(),
        "toy",
        {"sections": {"A section": {"minutes": 1, "notes": "Ask."}, "Summary": {"minutes": 1, "notes": ""}}},
    )
    out = DeckWriter().write(deck_notebook(nbformat.from_dict(nb), {"ms": "2.04"}), tmp_path / "toy.slides.html")
    html = out.read_text(encoding="utf-8")
    urls = re.findall(r"""(?:src|href)=["']([^"'#][^"']*)["']""", html) + re.findall(
        r"""import\s+\w+\s+from\s+["']([^"']+)""", html
    )
    outside = [u for u in urls if re.match(r"(https?:)?//", u)]
    assert not outside, f"the deck loads from outside the site: {outside}"
    for asset in (
        "reveal.js/dist/reveal.js",
        "reveal.js/plugin/notes/notes.js",
        "require/require.js",
        "mathjax2/MathJax.js",
        "../vega/vega.min.js",
        "../_static/lc-panels.js",
    ):
        assert asset in html, f"the deck does not load {asset}"
    assert html.count('<aside class="notes">') == 3 and 'class="lc-panel"' in html
