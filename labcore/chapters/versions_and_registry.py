"""Chapter 3's manifest: versions and the registry."""

from __future__ import annotations

from ..checks.registry import EXERCISES as REGISTRY_EXERCISES
from ..panels.registry import release_panel, your_registry_panel
from ..quizzes.registry import registry_quiz
from ._chapter import Chapter

CHAPTER = Chapter(
    number=3,
    slug="versions_and_registry",
    panels=(release_panel, your_registry_panel),
    exercises=REGISTRY_EXERCISES,
    quiz=registry_quiz,
    plan_sections=(
        '"Latest" is a policy, and a string sort gets it wrong',
        "The digest binding: the failure with no error message",
    ),
    live=("figures",),
)
