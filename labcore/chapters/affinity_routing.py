"""Chapter 10's manifest: affinity routing."""

from __future__ import annotations

from ..checks.affinity import EXERCISES as AFFINITY_EXERCISES
from ..panels.affinity import affinity_panel
from ..quizzes.affinity import affinity_quiz
from ._chapter import Chapter

CHAPTER = Chapter(
    number=10,
    slug="affinity_routing",
    panels=(affinity_panel,),
    exercises=AFFINITY_EXERCISES,
    quiz=affinity_quiz,
    live=("figures",),
)
