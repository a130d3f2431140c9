"""Add a throwaway chapter 17 with a panel, an exercise and a quiz by the README's steps alone, and build it.

In a copy of the project (labcore, coursebuild, the speaker notes and slide script, no other chapter's notebook),
the test writes exactly the files README's "Adding a chapter" lists, runs the steps it names (the setup cell,
executing the notebook, the slide metadata), then, in a fresh interpreter on that copy, builds what the site
derives from the manifest: the progress line's config, the exercise's answer box, the chapter's deck with its
speaker notes, its Live copy's setup cell, and the panel by name.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]

PANEL = '''"""A throwaway panel: a copy takes its size over the bandwidth."""

from __future__ import annotations

from typing import Any

from ._panel import Control, Lines, Panel, Series

__all__ = ["copy_time_panel"]


def _state(size_mb: float, mb_per_ms: float) -> dict[str, Any]:
    return {"copy_ms": size_mb / mb_per_ms}


def _readout(r: Any) -> str:
    return f"{r['size_mb']:g} MiB at {r['mb_per_ms']:g} MiB/ms take {r['copy_ms']:g} ms"


def copy_time_panel() -> Panel:
    """Move the size and the bandwidth; the copy time follows."""
    return Panel("copy_time_panel", title="A copy takes its size over the bandwidth",
                 controls=[Control("size_mb", "size (MiB)", values=(8.0, 16.0, 32.0), default=16.0),
                           Control("mb_per_ms", "bandwidth (MiB/ms)", values=(4.0, 8.0), default=8.0)],
                 compute=_state, readout=_readout,
                 chart=Lines("size_mb", (Series("copy_ms", "copy time", "#0072B2"),), y_title="copy time (ms)"))
'''
CHECK = '''"""Check the throwaway exercise: a copy's time."""

from __future__ import annotations

from .exercise import Exercise
from .rules import NumberRule, graded
from .verdict import _printer

__all__ = ["grade_copy_ms", "check_copy_ms", "EXERCISES"]


def rule_copy_ms(*, size_mb: float = 32.0, mb_per_ms: float = 8.0) -> NumberRule:
    """Grade the time (ms) a copy of ``size_mb`` takes at ``mb_per_ms``."""
    return NumberRule(size_mb / mb_per_ms, unit="ms", what="the copy time",
                      mistakes=((size_mb * mb_per_ms, "multiplies: time is size over bandwidth."),
                                (mb_per_ms / size_mb, "divides the bandwidth by the size."),))


grade_copy_ms = graded(rule_copy_ms)
check_copy_ms = _printer(grade_copy_ms)

EXERCISES: tuple[Exercise, ...] = (
    Exercise("17.1", "compute", grade_copy_ms, right=4.0, wrong=(256.0, 0.25), kwargs={"size_mb": 32.0}),
)
'''
QUIZ = '''"""The throwaway chapter's quiz."""

from __future__ import annotations

from ._quiz import Numeric, Quiz

__all__ = ["throwaway_quiz"]


def throwaway_quiz() -> Quiz:
    """Return chapter 17's quiz."""
    return Quiz("throwaway_quiz", "Chapter 17: a throwaway", (
        Numeric("A 16 MiB copy at 8 MiB/ms takes how many ms?", answer=2.0, unit="ms", explanation="16 / 8 = 2 ms.",
                mistakes=((128.0, "multiplies: time is size over bandwidth."),)),))
'''
MANIFEST = '''"""Chapter 17's manifest: a throwaway chapter."""

from __future__ import annotations

from ..checks.throwaway import EXERCISES
from ..panels.throwaway import copy_time_panel
from ..quizzes.throwaway import throwaway_quiz
from ._chapter import Chapter

CHAPTER = Chapter(number=17, slug="throwaway", panels=(copy_time_panel,), exercises=EXERCISES, quiz=throwaway_quiz,
                  plan_sections=("A copy",))
'''
NOTES = """title: |
  One panel, one exercise, one quiz.
sections:
  A copy:
    minutes: 2
    notes: |
      Move the size; the copy time follows.
  Exercises:
    minutes: 3
    notes: |
      Let the room work exercise 17.1.
  Quiz:
    minutes: 1
    notes: |
      One question.
"""
CELLS = [
    ("markdown", "# 17. A throwaway chapter\n\nOne panel, one exercise, one quiz."),
    (
        "code",
        "from labcore.checks import check_copy_ms\nfrom labcore.panels import copy_time_panel\n"
        "from labcore.quizzes import throwaway_quiz",
    ),
    ("markdown", "## A copy\n\nA copy takes its size over the bandwidth."),
    ("code", "copy_time_panel()"),
    ("markdown", "## Exercises\n\n**Exercise 17.1.** How long does a 32 MiB copy take at 8 MiB/ms?"),
    ("code", "answer = None\ncheck_copy_ms(answer, size_mb=32.0)"),
    ("markdown", "## Quiz"),
    ("code", "throwaway_quiz().show()"),
]
#: the new files, and the three package files that get one import line each (README's steps 2 to 6)
NEW_FILES = {
    "labcore/chapters/throwaway.py": MANIFEST,
    "labcore/panels/throwaway.py": PANEL,
    "labcore/checks/throwaway.py": CHECK,
    "labcore/quizzes/throwaway.py": QUIZ,
    "scripts/speaker_notes/17_throwaway.yml": NOTES,
}
IMPORT_LINES = {
    "labcore/panels/__init__.py": "from .throwaway import copy_time_panel\n",
    "labcore/checks/__init__.py": "from .throwaway import check_copy_ms, grade_copy_ms\n",
    "labcore/quizzes/__init__.py": "from .throwaway import throwaway_quiz\n",
}
NOTEBOOK = "book/17_throwaway.ipynb"

BUILD = r"""
import json, sys
from pathlib import Path
import labcore, coursebuild
from labcore.chapters import EXERCISES, PANELS, QUIZZES, chapter
from labcore.panels import show
from coursebuild import exercises_site, progress, slides
from coursebuild.lite import notebooks as lite_notebooks

ch = chapter("17_throwaway")
(exercise,) = ch.exercises
nb = json.loads(Path("book/17_throwaway.ipynb").read_text(encoding="utf-8"))
setup = next(c for c in lite_notebooks.live_copy(nb, None, "17_throwaway.ipynb")["cells"] if c["cell_type"] == "code")
import nbformat
book_nb = nbformat.read("book/17_throwaway.ipynb", as_version=4)
deck = slides.DeckWriter().write(slides.deck_notebook(book_nb, lite_notebooks.glue_values(book_nb)),
                                 Path("slides") / slides.deck_name(Path("book/17_throwaway.ipynb")))
config = progress.progress_config()
print(json.dumps({
    "labcore": labcore.__file__, "coursebuild": coursebuild.__file__,
    "needs": list(ch.live_needs), "page": exercise.page, "notes_file": ch.notes_file,
    "panel_registered": "copy_time_panel" in PANELS, "quiz_registered": "throwaway_quiz" in QUIZZES,
    "exercise_registered": any(e.label == "17.1" for e in EXERCISES),
    "progress_quiz": "throwaway_quiz" in config["quizzes"], "progress_exercise": exercise.key in config["exercises"],
    "box": exercises_site.exercise_html(exercise,
                                        live_href=exercises_site.live_href(exercise.page, "book/" + exercise.page)),
    "setup": setup["source"], "deck": Path(deck).read_text(encoding="utf-8"),
    "readout": show("copy_time_panel").row(size_mb=32.0)["readout"],
    "offered": list(ch.plan_sections),
}))
"""


def readme_steps() -> list[str]:
    """Return the files README's "Adding a chapter" section lists, in order."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("### Adding a chapter", 1)[1].split("\n#", 1)[0]
    steps = re.findall(r"^\d+\. (.+?)(?=^\d+\. |^\s*$)", section, re.M | re.S)
    return [path for step in steps for path in re.findall(r"`((?:book|labcore|scripts)/[^`]+)`", step)]


def test_readme_lists_exactly_the_files_this_test_writes() -> None:
    generic = {
        "book/NN_slug.ipynb": NOTEBOOK,
        "labcore/chapters/<slug>.py": "labcore/chapters/throwaway.py",
        "labcore/panels/<noun>.py": "labcore/panels/throwaway.py",
        "labcore/checks/<noun>.py": "labcore/checks/throwaway.py",
        "labcore/quizzes/<noun>.py": "labcore/quizzes/throwaway.py",
        "scripts/speaker_notes/NN_slug.yml": "scripts/speaker_notes/17_throwaway.yml",
    }
    listed = [generic.get(path, path) for path in readme_steps()]
    assert sorted(listed) == sorted([NOTEBOOK, *NEW_FILES, *IMPORT_LINES])


def _copy_project(dest: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
    for folder in ("labcore", "coursebuild", "scripts/speaker_notes"):
        shutil.copytree(ROOT / folder, dest / folder, ignore=ignore)
    (dest / "book").mkdir()
    shutil.copy(ROOT / "scripts" / "slide_metadata.py", dest / "scripts" / "slide_metadata.py")


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{args} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.mark.slow
def test_a_throwaway_chapter_added_by_the_readme_steps_builds(tmp_path: Path) -> None:
    _copy_project(tmp_path)
    for rel, text in NEW_FILES.items():
        (tmp_path / rel).write_text(text, encoding="utf-8")
    for rel, line in IMPORT_LINES.items():
        path = tmp_path / rel
        source = path.read_text(encoding="utf-8")
        last_import = max(
            m.end() for m in re.finditer(r"^from \.\S+ import [^\n(]+\n|^from \.\S+ import \([^)]*\)\n", source, re.M)
        )
        path.write_text(source[:last_import] + line + source[last_import:], encoding="utf-8")
    nb = nbformat.v4.new_notebook(
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    )
    nb.cells = [
        nbformat.v4.new_markdown_cell(s) if kind == "markdown" else nbformat.v4.new_code_cell(s) for kind, s in CELLS
    ]
    nbformat.write(nb, tmp_path / NOTEBOOK)
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    python = sys.executable
    _run(
        [python, "-m", "coursebuild.lite.site", "--root", str(tmp_path), "--add-setup-cells", "--notebooks", NOTEBOOK],
        tmp_path,
        env,
    )
    _run(
        [
            python,
            "-m",
            "jupyter",
            "nbconvert",
            "--to",
            "notebook",
            "--execute",
            "--inplace",
            "--ExecutePreprocessor.timeout=300",
            NOTEBOOK,
        ],
        tmp_path,
        env,
    )
    _run([python, "scripts/slide_metadata.py", NOTEBOOK], tmp_path, env)
    built = json.loads(_run([python, "-c", BUILD], tmp_path, env).strip().splitlines()[-1])

    assert built["labcore"].startswith(str(tmp_path)) and built["coursebuild"].startswith(str(tmp_path))
    assert built["page"] == "17_throwaway" and built["notes_file"] == "17_throwaway.yml"
    assert built["panel_registered"] and built["quiz_registered"] and built["exercise_registered"]
    assert built["progress_quiz"] and built["progress_exercise"]
    assert '"kind": "number"' in built["box"] and '"label": "17.1"' in built["box"]  # a form judged on the page
    assert built["needs"] == ["quiz", "panels"]
    assert '["labcore", "jupyterquiz"]' in built["setup"] and "LABCORE_PANEL_GRIDS" in built["setup"]
    assert "LABCORE_BOOK_FIGURES" not in built["setup"]
    assert built["readout"] == "32 MiB at 8 MiB/ms take 4 ms"
    deck = built["deck"]
    assert "A throwaway chapter" in deck and "Move the size; the copy time follows." in deck  # its notes, on its deck
    assert 'data-panel="copy_time_panel"' in deck  # the panel, drawn on its slide as on the page
    executed = nbformat.read(tmp_path / NOTEBOOK, as_version=4)
    printed = "".join(o.get("text", "") for c in executed.cells if c.cell_type == "code" for o in c.outputs)
    assert "Not answered yet" in printed  # the exercise's check ran in the executed chapter
