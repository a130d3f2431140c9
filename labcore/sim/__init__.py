"""Simulate a multi-LoRA replica on a seeded request trace: p50/p95/p99, hit rate, evictions.

Read in order: :mod:`labcore.sim.workload` describes the traffic (a :class:`Workload` of tenants with
Zipf-skewed popularity, a Poisson arrival rate, tenants that join later) and draws it as a
:class:`Trace`; :mod:`labcore.sim.replay` pushes a trace through a real router (:func:`simulate`, one
replica from :func:`single_replica_router`) and returns a :class:`SimResult` (:mod:`labcore.sim.result`), summarised with the
nearest-rank percentiles of :mod:`labcore.percentiles`; :mod:`labcore.sim.scenarios` holds the seeded
runs the chapters tell, one module per noun. Same workload, same seed, same numbers: simulated time
comes from the trace, never from the wall clock, and randomness only from ``random.Random(seed)``.

>>> w = Workload(tenants=4, requests=1_000, zipf_s=1.0, seed=7)
>>> result = simulate(lambda: single_replica_router(4, budget_mb=48.0), make_trace(w))   # room for 3 of 4
>>> result.requests, result.p50_ms, round(result.p99_ms, 2), result.misses, result.hit_rate
(1000, 42.0, 109.55, 180, 0.82)
"""

from __future__ import annotations

from ..percentiles import nearest_rank, percentile, percentiles
from .replay import simulate, single_replica_router, tenant_sweep
from .result import SimResult, Window
from .scenarios import (
    ADMISSION,
    ADMISSION_POOLS,
    CACHE_REQUESTS,
    CACHE_SEED,
    CACHE_TRANSFER_MB_PER_MS,
    CACHE_WINDOW,
    CAPSTONE,
    ONBOARDING,
    ONBOARDING_TENANTS,
    ROUTER_BASE,
    ROUTER_DIGEST,
    SPILL,
    SPILL_TENANTS,
    AdmissionScenario,
    CacheRun,
    CapstoneScenario,
    OnboardingScenario,
    ReleaseTimeline,
    SpillScenario,
    admission_runs,
    budget_sweep,
    cache_runs,
    cache_trace,
    cache_trace_adapters,
    capstone_day,
    onboarding_runs,
    onboarding_timeline,
    release_timeline,
    replay_cache,
    route_examples,
    spill_runs,
)
from .workload import DEFAULT_BASE, DEFAULT_BASE_DIGEST, Join, Trace, Workload, make_trace, zipf_weights

__all__ = [
    # workload
    "Join",
    "Workload",
    "Trace",
    "make_trace",
    "zipf_weights",
    "DEFAULT_BASE",
    "DEFAULT_BASE_DIGEST",
    # replay
    "nearest_rank",
    "percentile",
    "percentiles",
    "Window",
    "SimResult",
    "simulate",
    "single_replica_router",
    "tenant_sweep",
    # scenarios
    "ReleaseTimeline",
    "release_timeline",
    "CACHE_REQUESTS",
    "CACHE_WINDOW",
    "CACHE_SEED",
    "CACHE_TRANSFER_MB_PER_MS",
    "CacheRun",
    "replay_cache",
    "cache_runs",
    "cache_trace",
    "cache_trace_adapters",
    "budget_sweep",
    "ROUTER_BASE",
    "ROUTER_DIGEST",
    "route_examples",
    "OnboardingScenario",
    "SpillScenario",
    "AdmissionScenario",
    "ONBOARDING_TENANTS",
    "ONBOARDING",
    "onboarding_runs",
    "onboarding_timeline",
    "SPILL_TENANTS",
    "SPILL",
    "spill_runs",
    "ADMISSION_POOLS",
    "ADMISSION",
    "admission_runs",
    "CapstoneScenario",
    "CAPSTONE",
    "capstone_day",
]
