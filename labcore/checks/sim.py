"""Check the simulator exercises: a percentile by nearest rank, the adapter pool a GPU holds, and a prediction of the
hit rate after a join read off the onboarding panel (chapter 8)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..panels.sim import onboarding_panel
from ..sim import nearest_rank, percentile
from .exercise import Exercise
from .rules import NumberRule, graded
from .verdict import Mistake, _printer

__all__ = [
    "grade_p99_ms",
    "grade_pool_adapters",
    "check_p99_ms",
    "check_pool_adapters",
    "grade_percentile_ms",
    "check_percentile_ms",
    "grade_hit_after_join_pct",
    "check_hit_after_join_pct",
]


def rule_p99_ms(*, requests: int = 200, slow: int = 3, fast_ms: float = 42.0, slow_ms: float = 110.0) -> NumberRule:
    """Grade the nearest-rank p99 of ``requests`` latencies, ``slow`` of them at ``slow_ms`` (default 110 ms).

    >>> grade_p99_ms(42).message
    '✗ 42 ms would be right with at most 2 slow requests: 1% of 200 is 2, and 3 are slow, so rank 198 is slow.'
    """
    values = [fast_ms] * (requests - slow) + [slow_ms] * slow
    expected = percentile(values, 99)
    allowed = requests - nearest_rank(99, requests)
    mean = math.fsum(values) / requests
    other = fast_ms if expected == slow_ms else slow_ms
    mistakes = [
        (
            other,
            f"would be right with at most {allowed} slow requests: 1% of {requests} is {allowed}, and "
            f"{slow} are slow, so rank {nearest_rank(99, requests)} is {'slow' if expected == slow_ms else 'fast'}.",
        ),
        (mean, "is the mean; a percentile is one of the observed latencies, not an average."),
    ]
    return NumberRule(
        expected,
        unit="ms",
        what="the p99",
        mistakes=mistakes,
        fallback=f"Sort the {requests} latencies and take the one at rank ceil(0.99 x {requests}).",
    )


def rule_pool_adapters(*, tenants: int = 41, adapter_mb: float = 16.0) -> NumberRule:
    """Grade how many adapters a pool must hold so ``tenants`` tenants never evict each other (default 41).

    >>> grade_pool_adapters(656).message
    '✗ 656 adapters is the pool in MiB; the question asks for a count of 16 MiB adapters.'
    """
    mistakes = [
        (
            tenants - 1,
            "is the pool before the join: it is exactly one adapter short once the new tenant sends traffic.",
        ),
        (tenants * adapter_mb, f"is the pool in MiB; the question asks for a count of {adapter_mb:g} MiB adapters."),
    ]
    return NumberRule(
        tenants,
        unit="adapters",
        what="the smallest pool that never evicts",
        mistakes=mistakes,
        fallback="In steady state LRU never evicts when every tenant's adapter fits at once.",
        integer=True,
    )


grade_p99_ms = graded(rule_p99_ms)
check_p99_ms = _printer(grade_p99_ms)
grade_pool_adapters = graded(rule_pool_adapters)
check_pool_adapters = _printer(grade_pool_adapters)


#: Exercise 8.1's requests: (how many, latency in ms): hits, hits in host RAM (a PCIe copy), cold loads.
MIXED_LATENCIES: tuple[tuple[int, float], ...] = ((975, 42.0), (17, 55.0), (8, 110.0))


def rule_percentile_ms(*, p: float = 99, latencies: Sequence[tuple[int, float]] = MIXED_LATENCIES) -> NumberRule:
    """Grade the nearest-rank ``p``-th percentile of requests given as ``(count, latency_ms)`` groups (default: 55 ms).

    >>> print(grade_percentile_ms(110).message)
    ✗ 110 ms is the slowest group, but only 8 of 1,000 requests (0.8%) are that slow: the request at rank 990 is not one of them.
    """
    values = sorted(ms for n, ms in latencies for _ in range(n))
    total = len(values)
    rank = nearest_rank(p, total)
    expected = percentile(values, p)
    mistakes: list[Mistake] = []
    for _, ms in latencies:
        slower = sum(v > ms for v in values)
        as_slow = sum(v >= ms for v in values)
        if ms > expected:
            mistakes.append(
                (
                    ms,
                    f"is the slowest group, but only {as_slow} of {total:,} requests "
                    f"({100 * as_slow / total:g}%) are that slow: the request at rank {rank:,} is not "
                    "one of them."
                    if ms == values[-1]
                    else f"is too slow: only {as_slow} of {total:,} requests take {ms:g} ms or more, fewer than "
                    f"the {total - rank + 1} from rank {rank:,} up.",
                )
            )
        elif ms < expected:
            mistakes.append(
                (ms, f"would be right if at most {total - rank} requests were slower than {ms:g} ms; {slower} are.")
            )
    mistakes.append(
        (sum(values) / total, "is the mean; a percentile is one of the observed latencies, not an average.")
    )
    return NumberRule(
        expected,
        unit="ms",
        what=f"the p{p:g}",
        mistakes=mistakes,
        fallback=f"Sort the {total:,} latencies and take the one at rank ceil({p / 100:g} × {total:,}).",
    )


grade_percentile_ms = graded(rule_percentile_ms)
check_percentile_ms = _printer(grade_percentile_ms)


def rule_hit_after_join_pct(*, tenants: int = 44, pool_adapters: int = 40, zipf_s: float = 0.0) -> NumberRule:
    """Grade a prediction of the hit rate (%) after the join on chapter 8's onboarding panel at one state.

    The expected value is the panel's (``hit_after_pct``); a prediction within one percentage point is right.

    >>> grade_hit_after_join_pct(round(100 * 40 / 44, 1)).ok
    True
    >>> print(grade_hit_after_join_pct(100).message)
    ✗ 100 % is the hit rate of a pool that holds every adapter; 44 tenants share 40 slots.
    """
    expected = onboarding_panel().row(tenants=tenants, pool_adapters=pool_adapters, zipf_s=zipf_s)["hit_after_pct"]
    mistakes: list[Mistake] = [
        (100.0, f"is the hit rate of a pool that holds every adapter; {tenants} tenants share {pool_adapters} slots."),
        (
            100 * (1 - 1 / tenants),
            "counts only the newcomer's misses; with uniform traffic every tenant outside the "
            "pool misses as often as the newcomer does.",
        ),
        (100 - expected, "is the miss rate; the question asks for the hit rate."),
    ]
    tolerance = 1.0  # percentage points: a prediction, not a computation
    return NumberRule(
        expected,
        unit="%",
        what="the hit rate after the join",
        rel_tol=tolerance / expected,
        mistakes=[(v, h) for v, h in mistakes if abs(v - expected) > tolerance],
        fallback=f"With uniform popularity LRU keeps {pool_adapters} of the {tenants} equally busy adapters "
        "resident, so about that share of requests hit.",
    )


grade_hit_after_join_pct = graded(rule_hit_after_join_pct)
check_hit_after_join_pct = _printer(grade_hit_after_join_pct)


#: This module's exercises, as the pages ask them (see :class:`labcore.checks.exercise.Exercise`).
EXERCISES: tuple[Exercise, ...] = (
    Exercise(
        label="8.1",
        kind="compute",
        grade=grade_percentile_ms,
        right=55.0,
        wrong=(110.0, 42.0),
        kwargs={"p": 99, "latencies": MIXED_LATENCIES},
        gives_away=(" 55 ms", " 55.0 ms", "p99 is 55"),
    ),
    Exercise(
        label="8.2",
        kind="predict",
        grade=grade_hit_after_join_pct,
        right=90.9,
        wrong=(100.0, 97.7, 8.8),
        kwargs={"tenants": 44, "pool_adapters": 40, "zipf_s": 0.0},
        gives_away=("91.2", "→ 91.21%"),
        tool="onboarding_panel",
    ),
)
