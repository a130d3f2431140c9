"""Chapter 1's manifest: why multi-LoRA: the bill for forty quiet tenants."""

from __future__ import annotations

from ..checks.fleet import BILL_EXERCISES
from ..panels.fleet import fleet_savings_panel
from ..quizzes.fleet import why_multi_lora_quiz
from ._chapter import Chapter

CHAPTER = Chapter(
    number=1,
    slug="why_multi_lora",
    panels=(fleet_savings_panel,),
    exercises=BILL_EXERCISES,
    quiz=why_multi_lora_quiz,
    plan_sections=(
        "The bill for 40 tenants",
        "Move the tenants, the price, the adapter and the load",
        "The two assumptions that could break it",
    ),
    live=("figures",),
)
