"""Every exercise of the book: on its page, checked by its grade function, right and wrong answers tested.

The registry (:data:`labcore.chapters.EXERCISES`) is what the pages ask; for each exercise the check must accept its
right answer and give each of its likeliest wrong answers a hint of its own (not the generic fallback). Every
chapter asks at least one exercise that is not plain arithmetic: a prediction checked with a panel or the simulator,
or code. The built pages are checked too: no exercise's answer is visible above it
(``tests/browser/test_browser_pages.py``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from labcore.chapters import EXERCISES

BOOK = Path(__file__).resolve().parents[2] / "book"
CHAPTERS = sorted(p.stem for p in BOOK.glob("[0-9][0-9]_*.ipynb"))
GENERIC = ("is not it", "Not answered yet", "Expected a")


def _cells(page: str) -> list[dict]:
    return json.loads((BOOK / f"{page}.ipynb").read_text(encoding="utf-8"))["cells"]


def _source(cell: dict) -> str:
    return "".join(cell["source"])


def test_labels_are_unique_and_every_chapter_asks_more_than_arithmetic():
    labels = [(e.page, e.label) for e in EXERCISES]
    assert len(labels) == len(set(labels)) and len({e.label for e in EXERCISES}) == len(EXERCISES)
    pages = {e.page for e in EXERCISES}
    assert pages >= set(CHAPTERS), f"chapters without an exercise in labcore.checks: {sorted(set(CHAPTERS) - pages)}"
    thinking = {e.page for e in EXERCISES if e.kind in ("predict", "code")}
    assert thinking >= set(CHAPTERS), f"chapters with only arithmetic exercises: {sorted(set(CHAPTERS) - thinking)}"


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.label)
def test_the_check_accepts_the_answer_and_names_each_likely_mistake(exercise):
    assert exercise.verdict(exercise.right).ok, exercise.verdict(exercise.right).message
    for wrong in exercise.wrong:
        verdict = exercise.verdict(wrong)
        assert not verdict.ok, f"{exercise.label}: {wrong!r} is accepted"
        assert not any(g in verdict.message for g in GENERIC), f"{exercise.label}: {wrong!r} gets no hint of its own"
    hints = [exercise.verdict(w).message for w in exercise.wrong]
    assert len(set(hints)) == len(hints), f"{exercise.label}: two mistakes share one hint"


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.label)
def test_the_page_asks_it_and_calls_its_check(exercise):
    cells = _cells(exercise.page)
    prose = [
        i
        for i, c in enumerate(cells)
        if c["cell_type"] == "markdown" and re.search(rf"\*\*Exercise {re.escape(exercise.label)}\.\*\*", _source(c))
    ]
    assert len(prose) == 1, f"{exercise.page} asks Exercise {exercise.label} {len(prose)} times"
    check = exercise.grade.__name__.replace("grade_", "check_")
    following = [_source(c) for c in cells[prose[0] + 1 :] if c["cell_type"] == "code"][:3]
    assert any(check in s for s in following), f"{exercise.label}: no {check}(...) cell after the question"
    if exercise.kind != "code":
        assert exercise.gives_away, f"{exercise.label}: say which texts would give the answer away"
