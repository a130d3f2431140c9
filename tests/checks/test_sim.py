"""Tests for labcore.checks.sim: a p99 by nearest rank and the adapter pool a GPU holds: the right answer, and a hint for each known mistake."""

from __future__ import annotations

from labcore.checks import grade_p99_ms, grade_pool_adapters

from .graders import test_checker_accepts_the_answer, test_checker_names_the_known_mistake  # noqa: F401 - over RIGHT, WRONG

RIGHT = [  # (grader, the answer, keyword arguments)
    (grade_p99_ms, 110, {}),
    (grade_p99_ms, 42, {"slow": 2}),  # two slow requests fit in the top 1%
    (grade_pool_adapters, 41, {}),
]

WRONG = [  # (grader, a known-wrong answer, a phrase its hint must contain)
    (grade_p99_ms, 42, "1% of 200 is 2"),
    (grade_p99_ms, (197 * 42 + 3 * 110) / 200, "mean"),
    (grade_pool_adapters, 40, "before the join"),
    (grade_pool_adapters, 656, "MiB"),
    (grade_pool_adapters, None, "Not answered yet"),
]
