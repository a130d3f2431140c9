"""Tests for labcore.checks.batching: the break-even utilisation, expected distinct adapters and a prediction of a
small batch's overhead: the right answer, and a hint for each known mistake."""

from __future__ import annotations

from labcore.batching import fit_sgmv
from labcore.checks import grade_break_even_pct, grade_expected_distinct
from labcore.checks.batching import grade_batch_overhead_pct

from .graders import test_checker_accepts_the_answer, test_checker_names_the_known_mistake  # noqa: F401 - over RIGHT, WRONG

TWO_R64_PCT = 100 * fit_sgmv().overhead_fraction(2, 64)

RIGHT = [  # (grader, the answer, keyword arguments)
    (grade_break_even_pct, 100 / 1.1, {}),
    (grade_expected_distinct, 1.875, {}),
    (grade_batch_overhead_pct, TWO_R64_PCT, {}),
    (grade_batch_overhead_pct, 5.1, {}),  # a prediction within a tenth of a point counts
    (grade_batch_overhead_pct, 100 * fit_sgmv().overhead_fraction(64, 64), {"distinct": 64}),
]

WRONG = [  # (grader, a known-wrong answer, a phrase its hint must contain)
    (grade_break_even_pct, 90, "1 − overhead"),
    (grade_break_even_pct, 0.909, "percentage"),
    (grade_expected_distinct, 2, "always appears"),
    (grade_expected_distinct, 4, "counts requests"),
    (grade_batch_overhead_pct, 5.0, "one adapter's batch"),
    (grade_batch_overhead_pct, 10.0, "doubles"),
    (grade_batch_overhead_pct, 100 * fit_sgmv().overhead_fraction(64, 64), "nearly free"),
    (grade_batch_overhead_pct, TWO_R64_PCT / 100, "percentage"),
]
