"""Chapter 6's manifest: the fleet plan under load."""

from __future__ import annotations

from ..checks.fleet import LOAD_EXERCISES
from ..panels.fleet import fleet_load_panel, your_fleet_panel
from ..quizzes.fleet import fleet_quiz
from ._chapter import Chapter

CHAPTER = Chapter(
    number=6,
    slug="fleet_plan",
    panels=(fleet_load_panel, your_fleet_panel),
    exercises=LOAD_EXERCISES,
    quiz=fleet_quiz,
    plan_sections=(
        "How the plan counts GPUs",
        "Move the load",
        "Assumption 2: traffic that fits the shared GPUs",
    ),
    live=("figures",),
)
