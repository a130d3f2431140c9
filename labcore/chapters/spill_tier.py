"""Chapter 9's manifest: the spill tier."""

from __future__ import annotations

from ..checks.tiers import EXERCISES as TIERS_EXERCISES
from ..panels.tiers import spill_panel
from ..quizzes.tiers import tiers_quiz
from ._chapter import Chapter

CHAPTER = Chapter(
    number=9,
    slug="spill_tier",
    panels=(spill_panel,),
    exercises=TIERS_EXERCISES,
    quiz=tiers_quiz,
    live=("figures",),
)
