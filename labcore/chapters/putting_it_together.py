"""Chapter 16's manifest: putting it together."""

from __future__ import annotations

from ..checks.capstone import EXERCISES as CAPSTONE_EXERCISES
from ..panels.fleet import fleet_calculator_panel
from ..quizzes.capstone import capstone_quiz
from ._chapter import Chapter

CHAPTER = Chapter(
    number=16,
    slug="putting_it_together",
    panels=(fleet_calculator_panel,),
    exercises=CAPSTONE_EXERCISES,
    quiz=capstone_quiz,
)
