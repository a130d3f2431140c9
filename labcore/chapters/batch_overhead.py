"""Chapter 12's manifest: the batch overhead."""

from __future__ import annotations

from ..checks.batching import EXERCISES as BATCHING_EXERCISES
from ..panels.batching import batch_panel
from ..quizzes.batching import batching_quiz
from ._chapter import Chapter

CHAPTER = Chapter(
    number=12,
    slug="batch_overhead",
    panels=(batch_panel,),
    exercises=BATCHING_EXERCISES,
    quiz=batching_quiz,
    live=("figures",),
)
