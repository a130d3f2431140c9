"""Chapter 7's manifest: doing the lab (the contract suite runs in its Live kernel; Live opens the lab notebook)."""

from __future__ import annotations

from ..checks.lab import EXERCISES as LAB_EXERCISES
from ..panels.router import your_router_panel
from ..panels.sizing import fit_quiz_panel
from ..quizzes.contract import contract_quiz
from ..site import LAB_NOTEBOOK
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
    live_notebook=LAB_NOTEBOOK,
)
