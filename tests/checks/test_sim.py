"""Tests for labcore.checks.sim: a p99 by nearest rank and the adapter pool a GPU holds: the right answer, and a hint for each known mistake."""

from __future__ import annotations

from labcore.checks import grade_p99_ms, grade_pool_adapters
from labcore.checks.sim import MIXED_LATENCIES, grade_hit_after_join_pct, grade_percentile_ms

from .graders import test_checker_accepts_the_answer, test_checker_names_the_known_mistake  # noqa: F401 - over RIGHT, WRONG

RIGHT = [  # (grader, the answer, keyword arguments)
    (grade_p99_ms, 110, {}),
    (grade_p99_ms, 42, {"slow": 2}),  # two slow requests fit in the top 1%
    (grade_pool_adapters, 41, {}),
    (grade_percentile_ms, 55, {}),  # rank 990 of 1,000 falls among the host-RAM hits
    (grade_percentile_ms, 110, {"latencies": ((975, 42.0), (10, 55.0), (15, 110.0))}),
    (grade_percentile_ms, 42, {"p": 95}),
    (grade_hit_after_join_pct, 100 * 40 / 44, {}),  # the share of equally busy adapters that fit
    (grade_hit_after_join_pct, 91.2, {}),
]

WRONG = [  # (grader, a known-wrong answer, a phrase its hint must contain)
    (grade_p99_ms, 42, "1% of 200 is 2"),
    (grade_p99_ms, (197 * 42 + 3 * 110) / 200, "mean"),
    (grade_pool_adapters, 40, "before the join"),
    (grade_pool_adapters, 656, "MiB"),
    (grade_pool_adapters, None, "Not answered yet"),
    (grade_percentile_ms, 110, "only 8 of 1,000 requests (0.8%)"),
    (grade_percentile_ms, 42, "at most 10 requests were slower than 42 ms; 25 are"),
    (grade_percentile_ms, sum(n * ms for n, ms in MIXED_LATENCIES) / 1000, "mean"),
    (grade_percentile_ms, 60, "rank ceil(0.99 × 1,000)"),
    (grade_hit_after_join_pct, 100, "holds every adapter"),
    (grade_hit_after_join_pct, 100 * 43 / 44, "only the newcomer's misses"),
    (grade_hit_after_join_pct, 8.8, "miss rate"),
    (grade_hit_after_join_pct, 85, "equally busy adapters resident"),
]
