"""Tests for labcore.checks.canary: requests before a verdict and a sticky share: the right answer, and a hint for each known mistake."""

from __future__ import annotations

import pytest

from labcore.checks import grade_requests_before_judging, grade_sticky_share

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


@pytest.mark.parametrize(("grade", "answer", "kwargs"), RIGHT, ids=lambda v: getattr(v, "__name__", None))
def test_checker_accepts_the_answer(grade, answer, kwargs) -> None:
    verdict = grade(answer, **kwargs)
    assert verdict.ok and verdict.message.startswith("✓")


@pytest.mark.parametrize(("grade", "answer", "hint"), WRONG, ids=lambda v: getattr(v, "__name__", None))
def test_checker_names_the_known_mistake(grade, answer, hint) -> None:
    verdict = grade(answer)
    assert not verdict.ok and hint in verdict.message
