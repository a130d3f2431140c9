"""Chapter 13's manifest: in-flight admission."""

from __future__ import annotations

from ..checks.admission import EXERCISES as ADMISSION_EXERCISES
from ..panels.admission import admission_panel
from ..quizzes.admission import admission_quiz
from ._chapter import Chapter

CHAPTER = Chapter(
    number=13,
    slug="inflight_admission",
    panels=(admission_panel,),
    exercises=ADMISSION_EXERCISES,
    quiz=admission_quiz,
    live=("figures",),
)
