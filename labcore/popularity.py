"""Describe how popular each tenant is: Zipf weights over ranks, the skew every traffic model in the course uses.

A mechanism (batching) and the simulator's workload both need the same weights, so they live here, below both.

>>> [round(w, 3) for w in zipf_weights(3, 1.0)]
[0.545, 0.273, 0.182]
"""

from __future__ import annotations

import math

from ._validate import count, number

__all__ = ["zipf_weights"]


def zipf_weights(n: int, s: float) -> list[float]:
    """Return the Zipf popularity weights ``1 / i**s`` for ranks 1..n, normalised to sum to 1.

    >>> [round(w, 3) for w in zipf_weights(3, 1.0)]
    [0.545, 0.273, 0.182]
    >>> zipf_weights(2, 0.0)
    [0.5, 0.5]
    """
    count("n", n)
    number("s", s, inclusive=True)
    raw = [1.0 / i**s for i in range(1, n + 1)]
    total = math.fsum(raw)
    return [w / total for w in raw]
