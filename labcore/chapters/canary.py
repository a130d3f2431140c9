"""Chapter 11's manifest: the canary."""

from __future__ import annotations

from ..checks.canary import EXERCISES as CANARY_EXERCISES
from ..panels.canary import canary_panel
from ..quizzes.canary import canary_quiz
from ._chapter import Chapter

CHAPTER = Chapter(
    number=11,
    slug="canary",
    panels=(canary_panel,),
    exercises=CANARY_EXERCISES,
    quiz=canary_quiz,
    live=("figures",),
)
