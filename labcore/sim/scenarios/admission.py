"""Chapter 13's runs: in-flight admission, each request holding its adapter past its latency, over pool sizes.

>>> ADMISSION.hold_ms, ADMISSION["max_queue"]
(300.0, 32)
"""

from __future__ import annotations

from dataclasses import dataclass

from ..._validate import count, number
from ..replay import simulate, single_replica_router
from ..result import SimResult
from ..workload import Workload, make_trace
from ._by_name import ByName

__all__ = ["AdmissionScenario", "ADMISSION_POOLS", "ADMISSION", "admission_runs"]


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
ADMISSION = AdmissionScenario(tenants=40, requests=5_000, zipf_s=0.8, rate_per_s=100.0, seed=13, hold_ms=300.0,
                              max_queue=32)


def admission_runs() -> dict[int, SimResult]:
    """Return chapter 13's in-flight runs, ``{pool adapters: SimResult}`` over ``ADMISSION_POOLS``."""
    a = ADMISSION
    w = Workload(tenants=a.tenants, requests=a.requests, zipf_s=a.zipf_s, rate_per_s=a.rate_per_s,
                 seed=a.seed)
    trace = make_trace(w)
    return {pool: simulate(lambda: single_replica_router(w, budget_mb=16.0 * pool), trace, hold_ms=a.hold_ms,
                           max_queue=a.max_queue, windows=0) for pool in ADMISSION_POOLS}
