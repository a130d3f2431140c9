"""Chapter 13's runs: in-flight admission, each request holding its adapter past its latency, over pool sizes.

One experiment: :func:`admission_run` is one state (a pool size, a hold time, a queue bound) on the chapter's seeded
trace; :func:`admission_runs` is the chapter's sweep over pool sizes, and the chapter's panel and exercise checks
call :func:`admission_run` too.

>>> ADMISSION.hold_ms, ADMISSION["max_queue"]
(300.0, 32)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from ..._validate import count, number
from ..replay import simulate, single_replica_router
from ..result import SimResult
from ..workload import Trace, Workload, make_trace
from ._by_name import ByName

__all__ = ["AdmissionScenario", "ADMISSION_POOLS", "ADMISSION", "ADMISSION_GRID", "admission_run", "admission_runs"]


@dataclass(frozen=True, slots=True)
class AdmissionScenario(ByName):
    """Chapter 13's setup: each request holds its adapter ``hold_ms`` past its latency; ``max_queue`` may wait."""

    tenants: int
    requests: int
    zipf_s: float
    rate_per_s: float
    seed: int
    hold_ms: float
    max_queue: int

    def __post_init__(self) -> None:
        count("tenants", self.tenants)
        count("requests", self.requests)
        number("zipf_s", self.zipf_s, inclusive=True)
        number("rate_per_s", self.rate_per_s)
        count("seed", self.seed, minimum=0)
        number("hold_ms", self.hold_ms, inclusive=True)
        count("max_queue", self.max_queue, minimum=0)


ADMISSION_POOLS: tuple[int, ...] = (8, 12, 16, 20, 24, 28, 32, 40)
#: The chapter 13 setup: 40 tenants, 100 requests/s, each request holds its adapter 300 ms past its latency.
ADMISSION = AdmissionScenario(
    tenants=40, requests=5_000, zipf_s=0.8, rate_per_s=100.0, seed=13, hold_ms=300.0, max_queue=32
)


#: Every state the chapter's panel offers (its controls' values), around the chapter's own runs.
ADMISSION_GRID: dict[str, tuple[float, ...]] = {
    "pool_adapters": (8, 12, 16, 20, 24, 28, 32, 36, 40),
    "hold_ms": (100.0, 300.0, 600.0),
    "max_queue": (8, 32, 128),
}


def _workload() -> Workload:
    a = ADMISSION
    return Workload(tenants=a.tenants, requests=a.requests, zipf_s=a.zipf_s, rate_per_s=a.rate_per_s, seed=a.seed)


@functools.lru_cache(maxsize=1)
def _trace() -> Trace:
    return make_trace(_workload())


@functools.lru_cache(maxsize=256)
def admission_run(
    pool_adapters: int, *, hold_ms: float = ADMISSION.hold_ms, max_queue: int = ADMISSION.max_queue
) -> SimResult:
    """Return one in-flight run on chapter 13's trace: a pool of ``pool_adapters`` adapters of the workload's size.

    >>> admission_run(40).queued, admission_run(40).refused     # a slot for every tenant: nobody waits
    (0, 0)
    """
    count("pool_adapters", pool_adapters)
    w = _workload()
    return simulate(
        lambda: single_replica_router(w, budget_mb=w.adapter_mb * pool_adapters),
        _trace(),
        hold_ms=float(hold_ms),
        max_queue=count("max_queue", max_queue, minimum=0),
        windows=0,
    )


def admission_runs() -> dict[int, SimResult]:
    """Return chapter 13's in-flight runs, ``{pool adapters: SimResult}`` over ``ADMISSION_POOLS``."""
    return {pool: admission_run(pool) for pool in ADMISSION_POOLS}
