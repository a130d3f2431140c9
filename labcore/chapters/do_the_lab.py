"""Chapter 7's manifest: do the lab: the contract suite runs in the chapter."""

from __future__ import annotations

from ..checks.lab import EXERCISES as LAB_EXERCISES
from ..panels.router import your_router_panel
from ..panels.sizing import fit_quiz_panel
from ..quizzes.contract import contract_quiz
from ._chapter import Chapter

CHAPTER = Chapter(
    number=7,
    slug="do_the_lab",
    panels=(fit_quiz_panel, your_router_panel),
    exercises=LAB_EXERCISES,
    quiz=contract_quiz,
    plan_sections=(
        "Three ways to do the lab",
        "Red first",
        "A good order",
    ),
    live=("suite", "figures"),
)
