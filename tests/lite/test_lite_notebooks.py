"""The live copy of a chapter, checked without a browser: glue pasted as on the page, solutions collapsed,
no myst_nb import, chapter 14's results path inside the site, chapter 7's suite shipped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coursebuild.lite import notebooks as ln
from coursebuild.lite.runtime import PRELOADED_PIPLITE
from coursebuild.lite.site import stage_contents
from coursebuild.live_code import HIDDEN_NAMES_HEAD, live_code
from labcore.chapters import CHAPTERS, LIVE_NEEDS
from labcore.checks.lab import mistaken_lab
from labcore.site import BOOK_BUILD, FIGURES_ENV, GRIDS_ENV, LAB_NOTEBOOK, PANELS_DIR, figures_index_path

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.lite


def _nb(*cells):
    return {"metadata": {}, "cells": list(cells)}


def _code(source, *tags):
    return {
        "cell_type": "code",
        "metadata": {"tags": list(tags)},
        "source": source,
        "outputs": [{"x": 1}],
        "execution_count": 3,
    }


def _md(source):
    return {"cell_type": "markdown", "metadata": {}, "source": source}


def test_glue_roles_take_the_built_value_with_the_pages_format():
    nb = _nb(_md("It saves {glue:text}`pct:.1f`% on {glue:text}`gpus` GPUs ({glue:text}`mb:,.0f` MiB)."))
    out = ln.live_copy(nb, {"pct": "97.5", "gpus": "1", "mb": "13312.0"})
    assert out["cells"][0]["source"] == "It saves 97.5% on 1 GPUs (13,312 MiB)."


def test_a_missing_glue_value_fails_instead_of_showing_raw_markup():
    with pytest.raises(KeyError, match="nope"):
        ln.live_copy(_nb(_md("{glue:text}`nope`")), {"pct": "1"})


def test_solutions_start_collapsed_and_hidden_checks_are_left_out():
    nb = _nb(
        _code(f"{ln.LIVE_MARKER} ...", "remove-cell"),
        _code("x = 1"),
        _code("check(2)", "hide-cell"),
        _code("assert x == 1", "remove-cell"),
    )
    cells = ln.live_copy(nb, {})["cells"]
    assert [c["source"] for c in cells][1:] == ["x = 1", "check(2)"]
    assert cells[0]["source"] == ln.setup_cell(ln.live_needs(None)) == ln.SETUP_CELL  # no manifest: labcore alone
    assert cells[2]["metadata"]["jupyter"] == {"source_hidden": True, "outputs_hidden": True}
    assert cells[2]["metadata"]["collapsed"] is True
    assert "jupyter" not in cells[1]["metadata"] and cells[1]["outputs"] == [] and cells[1]["execution_count"] is None


def test_a_hidden_cell_that_defines_a_shown_name_is_shown_as_its_definitions():
    nb = _nb(
        _code("k = 2\nrollout = make(k)\nglue('k', 1, display=False)\nassert rollout", "remove-cell"),
        _code("rollout"),
        _code("assert rollout", "remove-cell"),
    )
    cells = ln.live_copy(nb, {})["cells"]
    assert [c["source"] for c in cells] == [f"{HIDDEN_NAMES_HEAD}\nk = 2\nrollout = make(k)", "rollout"]
    assert "jupyter" not in cells[0]["metadata"]  # shown: a learner who runs what they see has ``rollout``


def test_glue_import_becomes_a_function_not_a_package(monkeypatch):
    (cell,) = ln.live_copy(_nb(_code("from myst_nb import glue\nglue('k', 3, display=False)")), {})["cells"]
    assert "myst_nb" not in cell["source"]
    shown = []
    monkeypatch.setattr("IPython.display.display", shown.append)
    scope = {}
    exec(cell["source"], scope)
    scope["glue"]("k", 4)
    assert shown == [4]


def test_numpy_cells_print_a_note_without_numpy_and_run_with_it():
    source = live_code("rng = np.random.default_rng(0)\nrng.integers(5, size=2).tolist()")
    printed = []
    exec(source, {"np": None, "print": printed.append, "display": printed.append})
    assert printed and "skipped in the live version" in printed[0] and "internet" not in printed[0]
    import numpy

    shown = []
    exec(source, {"np": numpy, "display": shown.append})
    assert shown == [numpy.random.default_rng(0).integers(5, size=2).tolist()]


def test_the_lab_and_the_results_are_staged(tmp_path):
    """Every live site holds the lab (its notebook, the suite, the skeleton); chapter 14 gets the results it reads."""
    chapters = [p for p in sorted((ROOT / "book").glob("[0-9][0-9]_*.ipynb")) if p.name[:2] in {"07", "14"}]
    if len(chapters) != 2:
        pytest.skip("chapters 7 and 14 are not both present")
    files = stage_contents(chapters, tmp_path, root=ROOT, glue="note")
    assert "results/real_lora.json" in files and "tests/contract/conftest.py" in files
    assert "lab/skeleton/versions.py" in files and "lab/__init__.py" in files and LAB_NOTEBOOK in files
    assert not any(f.startswith("lab/mine/") for f in files)  # made from the skeleton in the reader's browser
    lab = json.loads((tmp_path / LAB_NOTEBOOK).read_text(encoding="utf-8"))
    setup = next(c for c in lab["cells"] if c["cell_type"] == "code")
    assert "".join(setup["source"]).startswith(ln.LIVE_MARKER) and '"pytest", "hypothesis"' in "".join(setup["source"])
    assert stage_contents([], tmp_path / "alone", root=ROOT) == [LAB_NOTEBOOK] + [
        f for f in files if f.startswith(("tests/", "lab/"))
    ]
    ch14 = (tmp_path / chapters[1].name).read_text(encoding="utf-8")
    assert 'Path("..")' not in ch14 and 'Path(\\"results\\")' in ch14
    assert "{glue" not in ch14 and "see the book page" in ch14
    for name in ("07_do_the_lab.ipynb", chapters[1].name):
        setup = json.loads((tmp_path / name).read_text(encoding="utf-8"))["cells"]
        assert any(ln.LIVE_MARKER in "".join(c["source"]) for c in setup)


def test_every_chapter_panel_accepts_its_staged_grid_and_every_figure_is_staged(tmp_path, monkeypatch):
    """What the book build computed is staged beside the live copies: each panel reads its own grid file (key and
    default row checked) and every image output of a chapter is indexed under its live cell's key."""
    from labcore.panels import show
    from labcore.plots.offline import book_figure_files

    chapters = sorted((ROOT / "book").glob("[0-9][0-9]_*.ipynb"))
    if not chapters:
        pytest.skip("no chapters")
    files = stage_contents(chapters, tmp_path, root=ROOT, glue="note")
    monkeypatch.setenv(GRIDS_ENV, str(tmp_path / BOOK_BUILD / PANELS_DIR))
    shown = set()
    for path in chapters:
        book = json.loads(path.read_text(encoding="utf-8"))
        live = json.loads((tmp_path / path.name).read_text(encoding="utf-8"))
        grids = ln.panel_grids(book)
        for grid in grids.values():
            variant = {"lab": mistaken_lab(grid["variant"])} if grid["variant"] else {}
            panel = show(grid["panel"], **variant)
            assert panel.stored_rows() == grid["rows"], f"{path.name}: {grid['panel']} refuses its staged grid"
            shown.add(grid["panel"])
        figures = ln.book_figures(book)
        n_images = sum(
            any(m in o.get("data", {}) for m in ln.FIGURE_MIMES) for c in book["cells"] for o in c.get("outputs", [])
        )
        assert sum(map(len, figures.values())) == n_images
        if figures:
            monkeypatch.setenv(FIGURES_ENV, figures_index_path(str(tmp_path / BOOK_BUILD), path.stem))
            setup = next("".join(c["source"]) for c in live["cells"] if c["cell_type"] == "code")
            assert f"figures/{path.stem}.json" in setup
            found = [book_figure_files("".join(c["source"])) for c in live["cells"] if c["cell_type"] == "code"]
            assert sum(map(len, found)) == n_images and all(f.is_file() for fs in found for f in fs)
    assert len(shown) >= 10
    assert all(f in files for f in (figures_index_path(BOOK_BUILD, chapters[0].stem),))


def test_term_roles_and_other_myst_markup_become_plain_text():
    nb = _nb(_md("A {term}`slot <gpu slot>` or a {term}`working set` costs {glue:text}`mb:.0f` MiB."))
    assert ln.live_copy(nb, {"mb": "13.04"})["cells"][0]["source"] == "A slot or a working set costs 13 MiB."


def test_no_setup_cell_installs_ipywidgets_the_kernel_has_it():
    """Live controls are not guessed from a chapter's text: the kernel preloads ipywidgets, so no chapter declares it
    and no setup cell installs it."""
    assert "ipywidgets" in PRELOADED_PIPLITE
    assert not any("ipywidgets" in ln.setup_cell(c.live_needs, f"{c.notebook}.ipynb") for c in CHAPTERS)
    assert "ipywidgets" not in ln.setup_cell(LIVE_NEEDS, "x.ipynb")


def test_the_setup_cell_installs_what_the_manifest_declares_not_what_the_source_mentions():
    """A chapter's kernel gets what its manifest declares (labcore.chapters): chapter 7 the suite, chapter 16 no
    figures; a notebook whose text names the suite but has no manifest gets labcore alone."""
    nb = _nb(_code(f"{ln.LIVE_MARKER} ...", "remove-cell"), _code("run_contract_suite('labcore'); cache_quiz().show()"))
    assert ln.live_copy(nb, {}, "scratch.ipynb")["cells"][0]["source"] == ln.SETUP_CELL
    lab = ln.live_copy(nb, {}, "07_do_the_lab.ipynb")["cells"][0]["source"]
    assert '["labcore", "pytest", "hypothesis", "jupyterquiz"]' in lab and FIGURES_ENV in lab and GRIDS_ENV in lab
    last = ln.live_copy(nb, {}, "16_putting_it_together.ipynb")["cells"][0]["source"]
    assert '["labcore", "jupyterquiz"]' in last and FIGURES_ENV not in last and GRIDS_ENV in last
