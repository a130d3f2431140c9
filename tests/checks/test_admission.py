"""Tests for labcore.checks.admission: requests refused and admitted after a finish: the right answer, and a hint for each known mistake."""

from __future__ import annotations

import pytest

from labcore.checks import grade_admitted_after_finish, grade_refused

RIGHT = [  # (grader, the answer, keyword arguments)
    (grade_refused, 1, {}),
    (grade_admitted_after_finish, 1, {}),
]

WRONG = [  # (grader, a known-wrong answer, a phrase its hint must contain)
    (grade_refused, 3, "forgets the queue"),
    (grade_refused, 0, "bound"),
    (grade_admitted_after_finish, 2, "second waiter"),
    (grade_admitted_after_finish, 0, "pin"),
]


@pytest.mark.parametrize(("grade", "answer", "kwargs"), RIGHT, ids=lambda v: getattr(v, "__name__", None))
def test_checker_accepts_the_answer(grade, answer, kwargs) -> None:
    verdict = grade(answer, **kwargs)
    assert verdict.ok and verdict.message.startswith("✓")


@pytest.mark.parametrize(("grade", "answer", "hint"), WRONG, ids=lambda v: getattr(v, "__name__", None))
def test_checker_names_the_known_mistake(grade, answer, hint) -> None:
    verdict = grade(answer)
    assert not verdict.ok and hint in verdict.message
