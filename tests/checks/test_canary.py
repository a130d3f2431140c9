"""Tests for labcore.checks.canary: requests before a verdict and a sticky share: the right answer, and a hint for each known mistake."""

from __future__ import annotations

from labcore.checks import grade_requests_before_judging, grade_sticky_share

from .graders import test_checker_accepts_the_answer, test_checker_names_the_known_mistake  # noqa: F401 - over RIGHT, WRONG

RIGHT = [  # (grader, the answer, keyword arguments)
    (grade_requests_before_judging, 4000, {}),
    (grade_sticky_share, 1.0, {}),
]

WRONG = [  # (grader, a known-wrong answer, a phrase its hint must contain)
    (grade_requests_before_judging, 200, "divide by 0.05"),
    (grade_requests_before_judging, 10, "larger, not smaller"),
    (grade_sticky_share, 0.25, "fresh random draw"),
    (grade_sticky_share, 100, "percentage"),
]
