"""One small Live notebook per exercise that needs code, so the static page's button lands at the exercise.

JupyterLite's notebook app opens a notebook at its top (it ignores a ``#cell-id`` fragment), so an exercise near the
end of a chapter gets its own notebook, :func:`exercise_notebook_name`, staged beside the chapters
(:func:`coursebuild.lite.site.stage_contents`). It is made from the chapter's live copy
(:func:`coursebuild.lite.notebooks.live_copy`): its setup cell, the statements the exercise's cells read from the
cells above (a backward slice, :func:`coursebuild.live_code.defining_statements`), the exercise's text and answer
cell with its check, and a link back to the whole chapter.

>>> exercise_notebook_name("7.2")
'exercise_7_2.ipynb'
"""

from __future__ import annotations

import builtins
import copy
from collections.abc import Mapping
from typing import Any

from labcore.checks.exercise import Exercise

from ..live_code import HIDDEN_NAMES_HEAD, cell_names, defining_statements

__all__ = ["exercise_notebook_name", "exercise_cells", "exercise_notebook"]

#: the first line of the statements an exercise notebook copies from the chapter's cells above the exercise
FROM_CHAPTER_HEAD = "# From the chapter's cells above the exercise: the names it uses"
_KNOWN = set(dir(builtins)) | {"display", "get_ipython", "In", "Out"}


def exercise_notebook_name(label: str) -> str:
    """Return the file name of exercise ``label``'s own notebook in the live site (beside the chapters)."""
    return f"exercise_{label.replace('.', '_')}.ipynb"


def _source(cell: Mapping[str, Any]) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def exercise_cells(cells: list[Mapping[str, Any]], exercise: Exercise) -> tuple[int, int]:
    """Return the indices of exercise ``exercise``'s first markdown cell and of its check cell in ``cells``."""
    check = exercise.grade.__name__.replace("grade_", "check_")
    try:
        asked = next(
            i
            for i, c in enumerate(cells)
            if c.get("cell_type") == "markdown" and f"Exercise {exercise.label}." in _source(c)
        )
        done = next(
            i for i, c in enumerate(cells) if i > asked and c.get("cell_type") == "code" and f"{check}(" in _source(c)
        )
    except StopIteration:
        raise ValueError(
            f"exercise {exercise.label}: no 'Exercise {exercise.label}.' text followed by a "
            f"{check}( cell in {exercise.page}"
        ) from None
    return asked, done


def exercise_notebook(live: Mapping[str, Any], exercise: Exercise, setup_marker: str) -> dict[str, Any]:
    """Return exercise ``exercise``'s notebook, made from its chapter's live copy ``live``.

    ``setup_marker`` starts the chapter's setup cell, which comes first. A name the exercise reads that no cell
    above defines is an error naming it.
    """
    cells = live["cells"]
    asked, done = exercise_cells(cells, exercise)
    ours = [copy.deepcopy(c) for c in cells[asked : done + 1]]
    needed: set[str] = set()
    for cell in reversed([c for c in ours if c["cell_type"] == "code"]):
        defined, read = cell_names(_source(cell))
        needed = (needed - defined) | read
    needed -= _KNOWN
    setup: dict[str, Any] | None = None
    sliced: list[dict[str, Any]] = []
    for cell in reversed(cells[:asked]):
        source = _source(cell)
        if cell.get("cell_type") != "code":
            continue
        if source.startswith(setup_marker):
            setup = copy.deepcopy(cell)
            continue
        defined, _ = cell_names(source)
        if defined & needed:
            statements = defining_statements(source, defined & needed).replace(HIDDEN_NAMES_HEAD, FROM_CHAPTER_HEAD)
            sliced.insert(0, {**copy.deepcopy(cell), "source": statements})
            needed = (needed - defined) | (cell_names(statements)[1] - _KNOWN)
    if needed or setup is None:
        raise ValueError(
            f"exercise {exercise.label}: no cell above it in {exercise.page} defines "
            f"{sorted(needed) or 'the setup cell'}"
        )
    for cell in sliced:
        cell["metadata"].pop("jupyter", None)
        cell["metadata"].pop("collapsed", None)
    chapter = exercise.label.split(".")[0]
    back = {
        "cell_type": "markdown",
        "id": f"exercise-{exercise.label.replace('.', '-')}-chapter",
        "metadata": {},
        "source": f"Exercise {exercise.label} in its chapter, with everything before it: "
        f"[open chapter {chapter} in Live]({exercise.page}.ipynb).",
    }
    head = {
        "cell_type": "markdown",
        "id": f"exercise-{exercise.label.replace('.', '-')}-about",
        "metadata": {},
        "source": f"Exercise {exercise.label}, from [chapter {chapter}]({exercise.page}.ipynb). Run the cells "
        f"in order (Run All): the first sets up the kernel, the next defines what the exercise "
        f"uses; then write your answer where it says and run its cell.",
    }
    return {
        **copy.deepcopy({k: v for k, v in live.items() if k != "cells"}),
        "cells": [head, setup, *sliced, *ours, back],
    }
