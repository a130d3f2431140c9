"""Chapter 4's manifest: the adapter cache."""

from __future__ import annotations

from ..checks.cache import EXERCISES as CACHE_EXERCISES
from ..panels.cache import lru_thrash_panel, your_cache_panel
from ..quizzes.cache import cache_quiz
from ._chapter import Chapter

CHAPTER = Chapter(
    number=4,
    slug="the_cache",
    panels=(lru_thrash_panel, your_cache_panel),
    exercises=CACHE_EXERCISES,
    quiz=cache_quiz,
    plan_sections=(
        "The cache in four calls",
        "A seeded day of traffic",
        "Move the budget, the tenants and the skew",
        "The thrash cliff",
        "The budget is a wall, checked after every request",
    ),
    live=("figures",),
)
