"""Check the simulator exercises: a p99 by nearest rank and the adapter pool a GPU holds (chapter 8)."""

from __future__ import annotations

import math

from ..sim import nearest_rank, percentile
from .exercise import Exercise
from .verdict import Verdict, _grade, _printer

__all__ = [
    "grade_p99_ms",
    "grade_pool_adapters",
    "check_p99_ms",
    "check_pool_adapters",
]


def grade_p99_ms(answer: object, *, requests: int = 200, slow: int = 3, fast_ms: float = 42.0,
                 slow_ms: float = 110.0) -> Verdict:
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
        (other, f"would be right with at most {allowed} slow requests: 1% of {requests} is {allowed}, and "
                f"{slow} are slow, so rank {nearest_rank(99, requests)} is {'slow' if expected == slow_ms else 'fast'}."),
        (mean, "is the mean; a percentile is one of the observed latencies, not an average."),
    ]
    return _grade(answer, expected, unit="ms", what="the p99", mistakes=mistakes,
                  fallback=f"Sort the {requests} latencies and take the one at rank ceil(0.99 x {requests}).")


def grade_pool_adapters(answer: object, *, tenants: int = 41, adapter_mb: float = 16.0) -> Verdict:
    """Grade how many adapters a pool must hold so ``tenants`` tenants never evict each other (default 41).

    >>> grade_pool_adapters(656).message
    '✗ 656 adapters is the pool in MiB; the question asks for a count of 16 MiB adapters.'
    """
    mistakes = [
        (tenants - 1, "is the pool before the join: it is exactly one adapter short once the new tenant sends traffic."),
        (tenants * adapter_mb, f"is the pool in MiB; the question asks for a count of {adapter_mb:g} MiB adapters."),
    ]
    return _grade(answer, tenants, unit="adapters", what="the smallest pool that never evicts", mistakes=mistakes,
                  fallback="In steady state LRU never evicts when every tenant's adapter fits at once.",
                  integer=True)


check_p99_ms = _printer(grade_p99_ms)
check_pool_adapters = _printer(grade_pool_adapters)


#: This module's exercises, as the pages ask them (see :class:`labcore.checks.exercise.Exercise`).
EXERCISES: tuple[Exercise, ...] = ()
