"""Nearest-rank percentiles: the p50/p95/p99 of simulated latencies, always one of the observed values.

The nearest-rank method sorts the n values and takes the one at 1-based rank ``ceil(p/100 * n)``;
it never interpolates, so a p99 is a latency some request really had. The simulator
(:mod:`labcore.sim`), the affinity fleet and the slot scenarios all summarise with it.

>>> percentiles([42.0, 42.0, 42.0, 109.55], (50, 99))
(42.0, 109.55)
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from ._validate import between

__all__ = ["nearest_rank", "percentile", "percentiles"]


def percentile(values: Sequence[float], p: float) -> float:
    """Return the nearest-rank ``p``-th percentile: the smallest value with at least p% of values <= it.

    Exactly: sort the n values, take the one at 1-based rank ``ceil(p/100 * n)`` (rank 1 for p=0).
    No interpolation, so the answer is always one of the observed latencies.

    >>> percentile([15, 20, 35, 40, 50], 30), percentile([15, 20, 35, 40, 50], 40), percentile([15, 20, 35, 40, 50], 100)
    (20, 20, 50)
    >>> percentile([], 50)
    Traceback (most recent call last):
    ...
    ValueError: percentile of an empty sequence is undefined
    """
    return percentiles(values, (p,))[0]


def nearest_rank(p: float, n: int) -> int:
    """Return the 1-based rank of the ``p``-th percentile among ``n`` sorted values (nearest-rank method).

    >>> nearest_rank(99, 200), nearest_rank(50, 5)
    (198, 3)
    """
    between("percentile p", p, 0, 100)
    # p/100*n in exact rational arithmetic via integers where possible, to avoid 0.95*100 = 94.999...
    rank = math.ceil(round(p * n, 9) / 100)
    return max(1, min(n, rank))


def percentiles(values: Sequence[float] | Counter[float], ps: Sequence[float]) -> tuple[float, ...]:
    """Return nearest-rank percentiles for each ``p`` in ``ps`` (one pass; accepts a value Counter).

    >>> percentiles([1, 2, 3, 4, 100], (50, 99))
    (3, 100)
    """
    counts = values if isinstance(values, Counter) else Counter(values)
    n = sum(counts.values())
    if n == 0:
        raise ValueError("percentile of an empty sequence is undefined")
    ranks = [nearest_rank(p, n) for p in ps]
    order = sorted(range(len(ranks)), key=ranks.__getitem__)
    out: list[float] = [0.0] * len(ranks)
    seen = 0
    k = 0
    for value in sorted(counts):
        seen += counts[value]
        while k < len(order) and ranks[order[k]] <= seen:
            out[order[k]] = value
            k += 1
        if k == len(order):
            break
    return tuple(out)
