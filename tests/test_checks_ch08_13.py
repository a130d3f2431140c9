"""Tests for the chapter 8-13 checkers: each accepts the answer and names the known mistakes."""

from __future__ import annotations

import pytest

from labcore.affinity import bounded_capacity, moved_fraction, replica_names
from labcore.checks import (
    grade_admitted_after_finish,
    grade_bounded_capacity,
    grade_break_even_pct,
    grade_cold_load_ms,
    grade_expected_distinct,
    grade_host_hit_ms,
    grade_moved_fraction,
    grade_p99_ms,
    grade_pool_adapters,
    grade_refused,
    grade_requests_before_judging,
    grade_sticky_share,
)
from labcore.tiers import NVME, OBJECT_STORE, PCIE4_X16

KEYS = [f"tenant-{i:04d}" for i in range(4000)]
HOST_HIT_MS = PCIE4_X16.transfer_ms(160)

RIGHT = [  # (grader, the answer, keyword arguments)
    (grade_p99_ms, 110, {}),
    (grade_p99_ms, 42, {"slow": 2}),  # two slow requests fit in the top 1%
    (grade_pool_adapters, 41, {}),
    (grade_host_hit_ms, HOST_HIT_MS, {}),
    (grade_cold_load_ms, NVME.transfer_ms(160) + HOST_HIT_MS, {}),
    (grade_moved_fraction, moved_fraction(KEYS, replica_names(4), replica_names(5)), {}),
    (grade_bounded_capacity, bounded_capacity(40, 4, 1.25), {}),
    (grade_requests_before_judging, 4000, {}),
    (grade_sticky_share, 1.0, {}),
    (grade_break_even_pct, 100 / 1.1, {}),
    (grade_expected_distinct, 1.875, {}),
    (grade_refused, 1, {}),
    (grade_admitted_after_finish, 1, {}),
]

WRONG = [  # (grader, a known-wrong answer, a phrase its hint must contain)
    (grade_p99_ms, 42, "1% of 200 is 2"),
    (grade_p99_ms, (197 * 42 + 3 * 110) / 200, "mean"),
    (grade_pool_adapters, 40, "before the join"),
    (grade_pool_adapters, 656, "MiB"),
    (grade_pool_adapters, None, "Not answered yet"),
    (grade_host_hit_ms, HOST_HIT_MS - 0.1, "fixed cost"),
    (grade_host_hit_ms, HOST_HIT_MS + OBJECT_STORE.transfer_ms(160), "storage fetch"),
    (grade_cold_load_ms, HOST_HIT_MS, "host hit"),
    (grade_moved_fraction, 0.8, "hash mod R"),
    (grade_moved_fraction, 0.25, "1/R"),
    (grade_moved_fraction, 20, "percentage"),
    (grade_moved_fraction, None, "Not answered yet"),
    (grade_bounded_capacity, 10, "mean load"),
    (grade_bounded_capacity, 12.5, "L + 1"),
    (grade_requests_before_judging, 200, "divide by 0.05"),
    (grade_requests_before_judging, 10, "larger, not smaller"),
    (grade_sticky_share, 0.25, "fresh random draw"),
    (grade_sticky_share, 100, "percentage"),
    (grade_break_even_pct, 90, "1 − overhead"),
    (grade_break_even_pct, 0.909, "percentage"),
    (grade_expected_distinct, 2, "always appears"),
    (grade_expected_distinct, 4, "counts requests"),
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
