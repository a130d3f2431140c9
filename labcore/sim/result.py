"""What one simulation measured: a :class:`SimResult` (latency percentiles, cache behaviour, a time series of :class:`Window`).

Results are records, so the same workload and seed give ``==`` results.

>>> Window(0.0, 10.0, requests=4, misses=1, evictions=0, hit_rate=0.75, p50_ms=42.0, p95_ms=44.0, p99_ms=44.0).requests
4
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Window", "SimResult"]


@dataclass(frozen=True, slots=True)
class Window:
    """One slice of simulated time: how many requests arrived, their hit rate and latency tail."""

    start_ms: float
    end_ms: float
    requests: int
    misses: int
    evictions: int
    hit_rate: float
    p50_ms: float
    p95_ms: float
    p99_ms: float


@dataclass(frozen=True, slots=True)
class SimResult:
    """The outcome of one simulation: latency percentiles, cache behaviour, a time series.

    ``hit_rate`` is over the adapter (dynamic) requests counted; ``misses``/``evictions`` too.
    Requests before ``warmup`` are routed (they warm the cache) but left out of every statistic
    except ``windows``, which always covers the whole trace (equal slices of time for plots);
    ``phases`` hold exact statistics between the ``phases=`` boundaries, after the warmup. ``refused`` requests (admission
    queue full) have no latency and are left out of the percentiles.
    """

    requests: int
    p50_ms: float
    p95_ms: float
    p99_ms: float
    mean_ms: float
    max_ms: float
    hit_rate: float
    hits: int
    misses: int
    evictions: int
    by_mode: dict[str, int]
    windows: tuple[Window, ...]
    warmup: int = 0
    queued: int = 0
    refused: int = 0
    max_wait_ms: float = 0.0
    phases: tuple[Window, ...] = ()

    def __post_init__(self) -> None:
        if self.hits + self.misses > self.requests:
            raise ValueError(f"hits + misses ({self.hits} + {self.misses}) exceed the requests ({self.requests})")

    def summary(self) -> dict[str, float]:
        """Return the headline numbers as a flat dict (for tables and glue)."""
        return {
            "requests": self.requests,
            "p50_ms": self.p50_ms,
            "p95_ms": self.p95_ms,
            "p99_ms": self.p99_ms,
            "hit_rate": round(self.hit_rate, 6),
            "misses": self.misses,
            "evictions": self.evictions,
        }
