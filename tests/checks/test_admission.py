"""Tests for labcore.checks.admission: requests refused, waiters admitted by one finish and the smallest pool at which
nobody waits: the right answer, and a hint for each known mistake."""

from __future__ import annotations

from labcore.checks import grade_admitted_after_finish, grade_refused
from labcore.checks.admission import grade_no_wait_pool

from .graders import test_checker_accepts_the_answer, test_checker_names_the_known_mistake  # noqa: F401 - over RIGHT, WRONG

RIGHT = [  # (grader, the answer, keyword arguments)
    (grade_refused, 3, {}),
    (grade_refused, 1, {"slots": 2, "max_queue": 2, "arrivals": 5}),
    (grade_admitted_after_finish, 2, {}),
    (grade_admitted_after_finish, 1, {"slots": 2, "max_queue": 2, "arrivals": (1, 2, 3, 4)}),
    (grade_no_wait_pool, 36, {}),
    (grade_no_wait_pool, 32, {"hold_ms": 300.0}),
]

WRONG = [  # (grader, a known-wrong answer, a phrase its hint must contain)
    (grade_refused, 5, "forgets the queue"),
    (grade_refused, 6, "forgets the pool"),
    (grade_refused, 0, "bound"),
    (grade_admitted_after_finish, 1, "a hit needs no room"),
    (grade_admitted_after_finish, 3, "every waiter"),
    (grade_admitted_after_finish, 0, "pin"),
    (grade_no_wait_pool, 32, "chapter's 300 ms"),
    (grade_no_wait_pool, 40, "every tenant"),
]


def test_a_count_of_one_is_singular():
    assert "is 1 request." in grade_refused(1, slots=2, max_queue=2, arrivals=5).message
    assert grade_admitted_after_finish(1).message.startswith("✗ 1 request counts")
