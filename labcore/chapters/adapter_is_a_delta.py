"""Chapter 2's manifest: an adapter is a delta: counting its bytes beside the KV cache."""

from __future__ import annotations

from ..checks.sizing import EXERCISES as SIZING_EXERCISES
from ..panels.sizing import adapter_vram_panel, gpu_split_panel
from ..quizzes.sizing import sizing_quiz
from ._chapter import Chapter

CHAPTER = Chapter(
    number=2,
    slug="adapter_is_a_delta",
    panels=(adapter_vram_panel, gpu_split_panel),
    exercises=SIZING_EXERCISES,
    quiz=sizing_quiz,
    plan_sections=(
        "The delta",
        "Counting bytes",
        "The real figure is smaller: grouped-query attention",
        "Splitting a GPU",
    ),
    live=("figures",),
)
