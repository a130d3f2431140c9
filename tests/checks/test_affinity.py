"""Tests for labcore.checks.affinity: adapters moved on a resize and the bounded-load capacity: the right answer, and a hint for each known mistake."""

from __future__ import annotations

from labcore.affinity import bounded_capacity, moved_fraction, replica_names
from labcore.checks import grade_bounded_capacity, grade_moved_fraction

from .graders import test_checker_accepts_the_answer, test_checker_names_the_known_mistake  # noqa: F401 - over RIGHT, WRONG

KEYS = [f"tenant-{i:04d}" for i in range(4000)]

RIGHT = [  # (grader, the answer, keyword arguments)
    (grade_moved_fraction, moved_fraction(KEYS, replica_names(4), replica_names(5)), {}),
    (grade_bounded_capacity, bounded_capacity(40, 4, 1.25), {}),
]

WRONG = [  # (grader, a known-wrong answer, a phrase its hint must contain)
    (grade_moved_fraction, 0.8, "hash mod R"),
    (grade_moved_fraction, 0.25, "1/R"),
    (grade_moved_fraction, 20, "percentage"),
    (grade_moved_fraction, None, "Not answered yet"),
    (grade_bounded_capacity, 10, "mean load"),
    (grade_bounded_capacity, 12.5, "L + 1"),
]
