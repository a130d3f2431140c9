"""Chapter 5's manifest: the router and its latency model."""

from __future__ import annotations

from ..checks.router import EXERCISES as ROUTER_EXERCISES
from ..panels.router import route_latency_panel, your_router_panel
from ..panels.sim import customer41_panel
from ..quizzes.router import router_quiz
from ._chapter import Chapter

CHAPTER = Chapter(
    number=5,
    slug="the_router",
    panels=(route_latency_panel, customer41_panel, your_router_panel),
    exercises=ROUTER_EXERCISES,
    quiz=router_quiz,
    plan_sections=(
        "From a reference to a decision",
        "The latency model",
        "The incident: p99 spiked after customer #41 was onboarded",
    ),
    live=("figures",),
)
