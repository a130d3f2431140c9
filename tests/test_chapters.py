"""The chapters' manifests (labcore.chapters) against the book: each declares what its page shows, and only that.

The registries are derived from the manifests, so these tests check the manifests are complete and true: every
chapter notebook has one, every panel, quiz and exercise of labcore belongs to a page, a page shows the panels and
quiz its manifest names, its speaker notes' file exists, and its Live needs match what its cells run.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

import labcore.checks as checks_package
import labcore.panels
import labcore.quizzes
from coursebuild.lite import sphinx as lite_sphinx
from labcore.chapters import CHAPTERS, EXERCISES, PANELS, QUIZZES, Chapter, chapter, manifests, registries
from labcore.checks.cache import EXERCISES as CACHE_EXERCISES
from labcore.panels.cache import lru_thrash_panel
from labcore.quizzes.cache import cache_quiz
from labcore.site import LAB_NOTEBOOK, lab_live_url

ROOT = Path(__file__).resolve().parents[1]
NUMBERED = [c for c in CHAPTERS if c.number is not None]


def _code(notebook: Path) -> str:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")


def _page(c: Chapter) -> Path:
    name = f"{c.notebook}.ipynb"
    return ROOT / "lab" / name if name == LAB_NOTEBOOK else ROOT / "book" / name


def test_every_chapter_notebook_has_a_manifest_and_every_manifest_a_notebook() -> None:
    notebooks = sorted(p.stem for p in (ROOT / "book").glob("[0-9][0-9]_*.ipynb"))
    assert [c.notebook for c in NUMBERED] == notebooks
    assert [c.number for c in NUMBERED] == list(range(1, len(NUMBERED) + 1))
    assert all(_page(c).is_file() for c in CHAPTERS), [c.notebook for c in CHAPTERS if not _page(c).is_file()]


@pytest.mark.parametrize("manifest", CHAPTERS, ids=lambda c: c.notebook)
def test_a_page_shows_exactly_the_panels_and_quiz_its_manifest_names(manifest: Chapter) -> None:
    code = _code(_page(manifest))
    shown = {name for name in labcore.panels.PANELS if re.search(rf"\b{name}\b", code)}
    assert shown == {p.__name__ for p in manifest.panels}
    quizzes = {name for name in labcore.quizzes.QUIZZES if re.search(rf"\b{name}\b", code)}
    assert quizzes == ({manifest.quiz.__name__} if manifest.quiz else set())


@pytest.mark.parametrize("manifest", CHAPTERS, ids=lambda c: c.notebook)
def test_live_needs_match_what_the_page_runs(manifest: Chapter) -> None:
    """The needs are declared, not guessed; this checks the declaration against the cells (the suite, figures)."""
    code = _code(_page(manifest))
    assert ("suite" in manifest.live) == bool(re.search(r"\brun_contract_suite\(|\bWorkbench\(", code))
    assert ("figures" in manifest.live) == bool(re.search(r"\blabcore\.plots\b|\bmatplotlib\b", code))


@pytest.mark.parametrize("manifest", NUMBERED, ids=lambda c: c.notebook)
def test_each_chapter_has_its_speaker_notes_and_offers_real_sections(manifest: Chapter) -> None:
    assert (ROOT / "scripts" / "speaker_notes" / manifest.notes_file).is_file()
    markdown = "\n".join(
        "".join(c["source"])
        for c in json.loads(_page(manifest).read_text(encoding="utf-8"))["cells"]
        if c["cell_type"] == "markdown"
    )
    headings = re.findall(r"^## (.+?)\s*$", markdown, re.M)
    assert set(manifest.plan_sections) <= set(headings), set(manifest.plan_sections) - set(headings)
    for e in manifest.exercises:
        assert f"**Exercise {e.label}.**" in markdown, e.label


def test_every_notes_file_belongs_to_a_manifest() -> None:
    stems = {p.stem for p in (ROOT / "scripts" / "speaker_notes").glob("*.yml")}
    assert stems <= {c.notebook for c in CHAPTERS}, stems - {c.notebook for c in CHAPTERS}


def test_registries_are_the_manifests_and_cover_labcore() -> None:
    """Every panel and quiz labcore has is on a page, and every exercise a checks module lists is placed once."""
    assert set(PANELS) == set(labcore.panels.PANELS)
    assert list(QUIZZES) == [c.quiz.__name__ for c in NUMBERED if c.quiz]
    assert set(QUIZZES) == set(labcore.quizzes.QUIZZES)
    listed = {e.label for name in dir(checks_package) for e in getattr(getattr(checks_package, name), "EXERCISES", ())}
    listed |= {
        e.label
        for m in list(sys.modules.values())
        if m and m.__name__.startswith("labcore.checks.")
        for e in getattr(m, "EXERCISES", ())
    }
    assert listed == {e.label for e in EXERCISES}
    assert all(e.page == chapter(e.page).notebook for e in EXERCISES)
    assert [e.label for e in EXERCISES] == sorted(
        (e.label for e in EXERCISES), key=lambda x: tuple(map(int, x.split(".")))
    )


def test_a_bad_manifest_is_refused_naming_the_value() -> None:
    with pytest.raises(ValueError, match="slug must be lower-case"):
        Chapter(number=4, slug="The Cache")
    with pytest.raises(
        ValueError, match=re.escape("live must be a list or tuple, got the string 'figures' (write ('figures',))")
    ):
        Chapter(number=4, slug="the_cache", live="figures")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="a live need must be one of 'suite', 'figures', got 'ipywidgets'"):
        Chapter(number=4, slug="the_cache", live=("ipywidgets",))
    with pytest.raises(ValueError, match="exercise '4.1' is numbered for another chapter"):
        Chapter(number=5, slug="the_router", exercises=CACHE_EXERCISES)
    with pytest.raises(
        ValueError,
        match="each of panels \\(a labcore panel factory\\) must be a function named <thing>_panel, got <function cache_quiz",
    ):
        Chapter(number=4, slug="the_cache", panels=(cache_quiz,))
    with pytest.raises(
        ValueError,
        match="quiz \\(a labcore quiz factory\\) must be a function named <thing>_quiz, got <function lru_thrash_panel",
    ):
        Chapter(number=4, slug="the_cache", quiz=lru_thrash_panel)
    twice = Chapter(number=4, slug="the_cache", quiz=cache_quiz), Chapter(number=5, slug="x", quiz=cache_quiz)
    with pytest.raises(ValueError, match="quiz cache_quiz is already another chapter's"):
        registries(twice)


def test_manifests_are_found_in_a_package_and_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "some_course"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "a.py").write_text(
        "from labcore.chapters import Chapter\nCHAPTER = Chapter(number=2, slug='b')\n", encoding="utf-8"
    )
    (package / "b.py").write_text(
        "from labcore.chapters import Chapter\nCHAPTER = Chapter(number=1, slug='a')\n", encoding="utf-8"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert [c.notebook for c in manifests("some_course")] == ["01_a", "02_b"]
    (package / "c.py").write_text(
        "from labcore.chapters import Chapter\nCHAPTER = Chapter(number=1, slug='c')\n", encoding="utf-8"
    )
    with pytest.raises(ValueError, match="two manifests share a chapter number"):
        manifests("some_course")
    (package / "c.py").write_text("X = 1\n", encoding="utf-8")
    sys.modules.pop("some_course.c", None)
    with pytest.raises(TypeError, match="some_course.c holds no chapter manifest"):
        manifests("some_course")


def test_the_lab_chapter_opens_the_lab_notebook_live_and_the_lab_notebook_runs_the_suite() -> None:
    assert [c.notebook for c in CHAPTERS if c.live_notebook] == ["07_do_the_lab"]
    assert chapter("07_do_the_lab").live_notebook == LAB_NOTEBOOK
    assert chapter(LAB_NOTEBOOK.removesuffix(".ipynb")).live_needs == ("suite",)
    with pytest.raises(ValueError, match="live_notebook must name a notebook file, got 'do_the_lab'"):
        Chapter(number=7, slug="do_the_lab", live_notebook="do_the_lab")


@pytest.mark.parametrize("page, opens", [("book/07_do_the_lab", "lab"), ("book/04_the_cache", "chapter")])
def test_a_live_button_opens_what_the_manifest_says(page: str, opens: str) -> None:

    env = SimpleNamespace(all_docs={page}, doc2path=lambda name, base=False: f"{name}.ipynb")
    app = SimpleNamespace(env=env, config=SimpleNamespace(lite_notebooks=["book/[0-9][0-9]_*.ipynb"]))
    context: dict = {}
    lite_sphinx._on_page_context(app, page, "page.html", context, None)
    url = context["header_buttons"][0]["url"]
    assert url == (lab_live_url("../") if opens == "lab" else f"../lite/notebooks/index.html?path={page[5:]}.ipynb")
