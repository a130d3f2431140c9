"""A printable handout per session plan, and its answer key: the exercises the plan gives the room.

Each exercise is worded as its chapter words it (the ``**Exercise N.M.**`` cell, with the chapter's glued
values), with the page's cell instructions taken out: on paper, the reader writes the answer down, then
checks it where the handout says (a ``predict`` exercise on the chapter's panel, on the static site; a
``compute`` exercise in the chapter's check cell in Live, or the key). The key gives labcore's answer and,
for the likeliest wrong answers, the hint the check prints. ``book/handout_<plan>.ipynb`` and
``book/handout_<plan>_key.ipynb`` display these; both print on one page (``printable_pages``).

>>> paper_wording("What is it? Replace `None` with your number and run the cell.")
'What is it?'
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

from .session_plans import BOOK_DIR, Plan, load_plans
from .speaker_notes import source

__all__ = ["paper_wording", "exercise_text", "handout_markdown", "answer_key_markdown", "show"]

#: the page's instructions for its cells, and what they say on paper
_CELL_STEPS = (
    (re.compile(r"\s*Replace `None` with your (?:number|answer|list)[^.]*? and run (?:the|its) cell\."), ""),
    (re.compile(r"Write your prediction(?: \([^)]*\))? in `prediction`(?: \([^)]*\))?,? (?:and )?run the cell[;,.]?"
                r"\s*(?:then|and then|Then)?\s*", re.I), "Write your prediction down; then "),
    (re.compile(r"\bthe (split |thrash |release |latency |load |onboarding )?panel above\b"),
     lambda m: f"the chapter's {m[1] or ''}panel"),
    (re.compile(r"\bthe load panel's slider\b"), "the chapter's load panel"),
)
_EXERCISE = re.compile(r"\*\*Exercise (?P<label>\d+\.\d+)\.\*\*")


def paper_wording(text: str) -> str:
    """Return an exercise's wording with the page's cell steps taken out (see the module doc)."""
    for pattern, replacement in _CELL_STEPS:
        text = pattern.sub(replacement, text)
    return re.sub(r"[ \t]+\n", "\n", text).strip()


@cache
def _chapter(stem: str, book: Path) -> tuple[list[str], dict[str, str]]:
    import nbformat

    from .lite_notebooks import glue_values

    nb = nbformat.read(book / f"{stem}.ipynb", as_version=4)
    return [source(c) for c in nb.cells if c.cell_type == "markdown"], glue_values(nb)


def _exercise(label: str) -> Any:
    from labcore.checks import EXERCISES

    return next(e for e in EXERCISES if e.label == label)


def exercise_text(label: str, *, book: Path = BOOK_DIR) -> str:
    """Return exercise ``label`` as the handout words it: the chapter's text, values filled in, cell steps out."""
    from .myst_text import to_commonmark

    exercise = _exercise(label)
    cells, glue = _chapter(exercise.page, book)
    hits = [c for c in cells if any(m["label"] == label for m in _EXERCISE.finditer(c))]
    if len(hits) != 1:
        raise ValueError(f"exercise {label}: {len(hits)} cells of {exercise.page} hold '**Exercise {label}.**'")
    text = to_commonmark(hits[0], glue)
    text = text[_EXERCISE.search(text).end():]  # the label is the handout's own; a "## Exercises" heading goes too
    return paper_wording(" ".join(text.split()))


def _where(label: str) -> str:
    from labcore.panels import PANELS

    exercise = _exercise(label)
    chapter = exercise.page.split("_", 1)[0].lstrip("0")
    if exercise.kind == "predict" and exercise.tool in PANELS:
        return f"move the panel on chapter {chapter}'s page (the course site, nothing to install)"
    return f"chapter {chapter}'s exercise cell, in the Live version (replace `None`, run it), or the answer key"


def handout_markdown(plan: Plan, *, book: Path = BOOK_DIR) -> str:
    """Return the handout of ``plan``: its exercises, each with a line to write on and where to check it."""
    lines = []
    for label in plan.exercises:
        lines.append(f"**{label}.** {exercise_text(label, book=book)}\n\n"
                     f"My answer: ________________ · *Check it:* {_where(label)}.")
    return "\n\n".join(lines)


def _shown(answer: Any) -> str:
    return f"{answer:g}" if isinstance(answer, float) else repr(answer)


def _verdict_text(message: str) -> str:
    return re.sub(r"^[✓✗]\s*(Correct:\s*)?", "", message).strip()


def answer_key_markdown(plan: Plan) -> str:
    """Return the answer key of ``plan``: labcore's answer to each exercise and the hints for the likeliest slips."""
    lines = []
    for label in plan.exercises:
        exercise = _exercise(label)
        right = _verdict_text(exercise.verdict(exercise.right).message)
        slips = "; ".join(f"{_shown(w)}: {_verdict_text(exercise.verdict(w).message)}" for w in exercise.wrong)
        lines.append(f"**{label}.** {right[:1].upper() + right[1:]}\n\n*Likely slips.* {slips}")
    return "\n\n".join(lines)


def show(key: str, *, answers: bool = False) -> Any:
    """Return plan ``key``'s handout (or, with ``answers``, its key) as Markdown a notebook displays."""
    from IPython.display import Markdown

    plan = load_plans()[key]
    return Markdown(answer_key_markdown(plan) if answers else handout_markdown(plan))
