"""Run All in a chapter's live copy stores no progress; a learner's own answer stores exactly itself.

The reader's path in the live site: open a chapter, Run All (folded solutions and every other cell included),
type nothing. Each chapter's live copy (:func:`coursebuild.lite.notebooks.live_copy`, as the site serves it) runs
top to bottom in a Python kernel in which :func:`labcore.progress.in_browser_kernel` is true, so every call that
would store progress displays its script there, as in the browser; the test reads those scripts back from the
cells' outputs. With nothing typed, no entry (exercise, lab module or quiz) may be stored. Then the learner types the
right answer into one exercise cell per chapter and runs it: exactly that exercise is stored, checked right.

The live copy must also run for a learner who runs only the cells they can see, in order (the book's hidden
cells are left out or shown as the definitions later cells read): every name a shown cell reads is defined by a
shown cell above it (checked for every chapter), and the chapters whose live copy shows definitions from a hidden
cell (4, 6, 12, 13, 15 and 16) run that way without an error. And no stored output of the book's notebooks holds a
progress script: opening them (in JupyterLab or as the pages) stores nothing.
"""

from __future__ import annotations

import ast
import builtins
import json
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from coursebuild.lite.notebooks import live_copy
from coursebuild.lite.site import stage_book_build
from coursebuild.live_code import HIDDEN_NAMES_HEAD, cell_names
from labcore import progress
from labcore.chapters import EXERCISES
from labcore.site import BOOK_BUILD, FIGURES_ENV, GRIDS_ENV, PANELS_DIR, PROGRESS_KEY, figures_index_path

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted(p.name for p in (ROOT / "book").glob("[0-9][0-9]_*.ipynb"))
#: the other notebook the live site serves (coursebuild lite_notebooks): it has no exercise, so it only runs
CALCULATOR = "fleet_calculator.ipynb"
#: the kernel as the live site's: no matplotlib, the book build's panel grids and figures (as the live setup cell
#: points labcore at them), and labcore.progress taking it for the browser's (the one switch the test turns)
AS_LIVE_KERNEL = """\
import os, sys
sys.modules["matplotlib"] = None
os.environ[{grids_env!r}], os.environ[{figures_env!r}] = {grids!r}, {figures!r}
import labcore.progress
labcore.progress.in_browser_kernel = lambda: True"""
MERGE_TAIL = re.compile(r"\}\)\((\[.*\])\);\s*\Z", re.S)
PLACEHOLDER = re.compile(r"^(\w+) = None\b", re.M)
JS = "application/javascript"


def _book(chapter: str) -> dict:
    return json.loads((ROOT / "book" / chapter).read_text(encoding="utf-8"))


def _live(chapter: str) -> nbformat.NotebookNode:
    return nbformat.from_dict(live_copy(_book(chapter), None, chapter))


#: the chapters whose live copy shows the definitions a later cell reads from a cell the book hides
HIDDEN_DEFINITIONS = [
    c
    for c in CHAPTERS
    if any(cell.cell_type == "code" and cell.source.startswith(HIDDEN_NAMES_HEAD) for cell in _live(c).cells)
]


def _shown(cell: nbformat.NotebookNode) -> bool:
    return cell.cell_type == "code" and not cell.metadata.get("jupyter", {}).get("source_hidden", False)


def _stored(outputs: list) -> list[dict]:
    """Return the progress entries the scripts among ``outputs`` store (each script checked to be labcore's own)."""
    entries = []
    for out in outputs:
        script = out.get("data", {}).get(JS)
        if script is None or PROGRESS_KEY not in script:
            continue
        if "MutationObserver" in script:  # a quiz's hook (labcore.progress.quiz_hook): it stores on a reader's click
            continue
        found = json.loads(MERGE_TAIL.search(script).group(1))
        assert progress.script(found) == script, "a progress script that labcore.progress did not write"
        entries += found
    return entries


class _Kernel:
    """One chapter's kernel, as the live site's for labcore.progress, running the cells it is given in order."""

    def __init__(self, chapter: str, site: Path, cells: int) -> None:
        stage_book_build(_book(chapter), Path(chapter).stem, site)  # what the live site serves beside the chapter
        self.setup = AS_LIVE_KERNEL.format(
            grids_env=GRIDS_ENV,
            figures_env=FIGURES_ENV,
            grids=str(site / BOOK_BUILD / PANELS_DIR),
            figures=figures_index_path(str(site / BOOK_BUILD), Path(chapter).stem),
        )
        scratch = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell() for _ in range(cells + 1)])
        self.client = NotebookClient(
            scratch, timeout=600, kernel_name="python3", allow_errors=True, resources={"metadata": {"path": str(ROOT)}}
        )  # results/ beside the notebook

    def __enter__(self) -> _Kernel:
        self._setup = self.client.setup_kernel()
        self._setup.__enter__()
        self.run(nbformat.v4.new_code_cell(self.setup), len(self.client.nb.cells) - 1)
        return self

    def __exit__(self, *exc) -> None:  # noqa: ANN002
        self._setup.__exit__(*exc)

    def run(self, cell: nbformat.NotebookNode, index: int = 0) -> list:
        self.client.execute_cell(cell, index)
        errors = [f"{o.ename}: {o.evalue}" for o in cell.outputs if o.output_type == "error"]
        assert not errors, f"cell {index} raised {errors}\n{cell.source[:300]}"
        return cell.outputs


def _answerable(chapter: str, nb: nbformat.NotebookNode):  # noqa: ANN202
    """Return the chapter's first exercise whose answer is a value, its live cell's index and that cell typed right."""
    for exercise in (e for e in EXERCISES if f"{e.page}.ipynb" == chapter):
        try:
            literal = ast.literal_eval(repr(exercise.right)) == exercise.right
        except (ValueError, SyntaxError):
            literal = False
        check = exercise.grade.__name__.replace("grade_", "check_")
        asked = next(
            i for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and f"Exercise {exercise.label}." in c.source
        )
        index = next(i for i, c in enumerate(nb.cells) if i > asked and _shown(c) and f"{check}(" in c.source)
        if literal and PLACEHOLDER.search(nb.cells[index].source):
            typed = PLACEHOLDER.sub(
                lambda m, right=exercise.right: f"{m[1]} = {right!r}", nb.cells[index].source, count=1
            )
            return exercise, index, nbformat.v4.new_code_cell(typed)
    raise AssertionError(f"{chapter}: no exercise whose answer is a value with a `name = None` placeholder")


@pytest.mark.slow
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_run_all_stores_nothing_and_an_answer_stores_itself(chapter: str, tmp_path: Path) -> None:
    nb = _live(chapter)
    exercise, index, typed = _answerable(chapter, nb)
    with _Kernel(chapter, tmp_path, len(nb.cells)) as kernel:
        stored = []
        for i, cell in enumerate(nb.cells):
            if cell.cell_type == "code":
                stored += _stored(kernel.run(cell, i))
        assert stored == [], f"Run All with nothing typed stored {stored}"
        assert any(c.cell_type == "code" and not _shown(c) for c in nb.cells), "no folded cell ran"
        stored = _stored(kernel.run(typed, index))
    assert [(e["kind"], e["key"], e["value"]) for e in stored] == [("exercises", exercise.key, {"ok": True})]


@pytest.mark.slow
def test_the_calculators_live_copy_runs_all_and_stores_nothing(tmp_path: Path) -> None:
    nb = _live(CALCULATOR)
    with _Kernel(CALCULATOR, tmp_path, len(nb.cells)) as kernel:
        stored = [
            e for i, cell in enumerate(nb.cells) if cell.cell_type == "code" for e in _stored(kernel.run(cell, i))
        ]
    assert stored == []
    ran = [c for c in nb.cells if c.cell_type == "code" and "calibrate(" in c.source]
    assert ran and any("shared GPUs" in o.get("text", "") for o in ran[0].outputs)  # the reader's-files cell printed


@pytest.mark.parametrize("chapter", [*CHAPTERS, CALCULATOR])
def test_every_shown_cell_reads_only_names_shown_above_it(chapter: str) -> None:
    known = set(dir(builtins)) | {"display", "get_ipython", "In", "Out"}
    unknown = []
    for i, cell in enumerate(_live(chapter).cells):
        if _shown(cell):
            defined, read = cell_names(cell.source)
            unknown += [(i, name) for name in sorted(read - known)]
            known |= defined
    assert unknown == [], f"shown cells read names no shown cell above defines: {unknown}"


@pytest.mark.slow
@pytest.mark.parametrize("chapter", HIDDEN_DEFINITIONS)
def test_the_shown_cells_alone_run(chapter: str, tmp_path: Path) -> None:
    nb = _live(chapter)
    with _Kernel(chapter, tmp_path, len(nb.cells)) as kernel:
        stored = [e for i, cell in enumerate(nb.cells) if _shown(cell) for e in _stored(kernel.run(cell, i))]
    assert stored == []


def test_the_books_stored_outputs_hold_no_progress_script() -> None:
    notebooks = sorted((ROOT / "book").glob("*.ipynb")) + sorted((ROOT / "lab").glob("*.ipynb"))
    stored = {
        p.name: _stored([o for c in json.loads(p.read_text(encoding="utf-8"))["cells"] for o in c.get("outputs", [])])
        for p in notebooks
    }
    assert len(stored) > len(CHAPTERS) and not any(stored.values()), {k: v for k, v in stored.items() if v}


def test_exercise_4_2_reads_a_definition_shown_above_it() -> None:
    cells = _live("04_the_cache.ipynb").cells
    asked = next(i for i, c in enumerate(cells) if "Exercise 4.2." in c.source)
    exercise = next(i for i, c in enumerate(cells) if i > asked and "check_miss_load_ms(" in c.source)
    shown = [i for i, c in enumerate(cells[:exercise]) if _shown(c) and "EXACT_MB" in cell_names(c.source)[0]]
    assert shown and "04_the_cache.ipynb" in HIDDEN_DEFINITIONS and "EXACT_MB" in cell_names(cells[exercise].source)[1]
