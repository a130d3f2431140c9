"""Tests for labcore.checks.admission: requests refused and admitted after a finish: the right answer, and a hint for each known mistake."""

from __future__ import annotations

from labcore.checks import grade_admitted_after_finish, grade_refused

from .graders import test_checker_accepts_the_answer, test_checker_names_the_known_mistake  # noqa: F401 - over RIGHT, WRONG

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
