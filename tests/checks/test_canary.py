"""Tests for labcore.checks.canary: requests before a verdict, who is on a widened canary and a prediction of the
rollout's outcome: the right answer, and a hint for each known mistake."""

from __future__ import annotations

from labcore.checks import grade_requests_before_judging, grade_sticky_share
from labcore.checks.canary import grade_canary_outcome

from .graders import test_checker_accepts_the_answer, test_checker_names_the_known_mistake  # noqa: F401 - over RIGHT, WRONG

RIGHT = [  # (grader, the answer, keyword arguments)
    (grade_requests_before_judging, 800, {}),
    (grade_requests_before_judging, 4000, {"fraction": 0.05}),
    (grade_sticky_share, 0.2, {}),
    (grade_sticky_share, 0.5, {"before": 0.25, "after": 0.5}),
    (grade_canary_outcome, "hold", {}),
    (grade_canary_outcome, "Held", {}),
    (grade_canary_outcome, "complete", {"candidate_quality": 0.9}),
    (grade_canary_outcome, "abort", {"candidate_error_pct": 5.0}),
]

WRONG = [  # (grader, a known-wrong answer, a phrase its hint must contain)
    (grade_requests_before_judging, 200, "divide by 0.25"),
    (grade_requests_before_judging, 50, "larger, not smaller"),
    (grade_requests_before_judging, 200 / 0.75, "stable version"),
    (grade_requests_before_judging, 4000, "first step"),
    (grade_sticky_share, 1.0, "who stay"),
    (grade_sticky_share, 0.25, "new canary fraction"),
    (grade_sticky_share, 0.05, "old canary fraction"),
    (grade_sticky_share, 0.8, "newcomers"),
    (grade_sticky_share, 20, "percentage"),
    (grade_canary_outcome, "abort", "optimistic end"),
    (grade_canary_outcome, "promote", "pessimistic end"),
    (grade_canary_outcome, "complete", "pessimistic end"),
    (grade_canary_outcome, "maybe", "not one of the controller's outcomes"),
    (grade_canary_outcome, 5, "one word"),
    (grade_canary_outcome, None, "Not answered yet"),
]
