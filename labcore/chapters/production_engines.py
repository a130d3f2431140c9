"""Chapter 15's manifest: production engines."""

from __future__ import annotations

from ..checks.prefix_cache import EXERCISES as PREFIX_CACHE_EXERCISES
from ..checks.slots import EXERCISES as SLOTS_EXERCISES
from ..panels.slots import slot_cliff_panel
from ..quizzes.engines import engines_quiz
from ._chapter import Chapter

CHAPTER = Chapter(
    number=15,
    slug="production_engines",
    panels=(slot_cliff_panel,),
    exercises=(*SLOTS_EXERCISES, *PREFIX_CACHE_EXERCISES),
    quiz=engines_quiz,
    plan_sections=("Failure 2: more adapters than slots",),
    live=("figures",),
)
