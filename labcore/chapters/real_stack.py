"""Chapter 14's manifest: the real stack: PEFT files."""

from __future__ import annotations

from ..checks.real_files import EXERCISES as REAL_FILES_EXERCISES
from ..panels.sizing import adapter_vram_panel
from ..quizzes.real_files import real_files_quiz
from ._chapter import Chapter

CHAPTER = Chapter(
    number=14,
    slug="real_stack",
    panels=(adapter_vram_panel,),
    exercises=REAL_FILES_EXERCISES,
    quiz=real_files_quiz,
    live=("figures",),
)
