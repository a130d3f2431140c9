"""Tests for labcore.checks.batching: the break-even utilisation and expected distinct adapters: the right answer, and a hint for each known mistake."""

from __future__ import annotations

from labcore.checks import grade_break_even_pct, grade_expected_distinct

from .graders import test_checker_accepts_the_answer, test_checker_names_the_known_mistake  # noqa: F401 - over RIGHT, WRONG

RIGHT = [  # (grader, the answer, keyword arguments)
    (grade_break_even_pct, 100 / 1.1, {}),
    (grade_expected_distinct, 1.875, {}),
]

WRONG = [  # (grader, a known-wrong answer, a phrase its hint must contain)
    (grade_break_even_pct, 90, "1 − overhead"),
    (grade_break_even_pct, 0.909, "percentage"),
    (grade_expected_distinct, 2, "always appears"),
    (grade_expected_distinct, 4, "counts requests"),
]
