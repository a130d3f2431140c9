"""Chapter 8's manifest: the serving simulator."""

from __future__ import annotations

from ..checks.sim import EXERCISES as SIM_EXERCISES
from ..panels.sim import onboarding_panel, your_simulator_panel
from ..quizzes.sim import sim_quiz
from ._chapter import Chapter

CHAPTER = Chapter(
    number=8,
    slug="serving_simulator",
    panels=(onboarding_panel, your_simulator_panel),
    exercises=SIM_EXERCISES,
    quiz=sim_quiz,
    plan_sections=(
        "Replay it through one replica",
        "Why the p99 jumps while the hit rate barely moves",
    ),
    live=("figures",),
)
