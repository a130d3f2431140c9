"""The customer #41 incident: told in chapter 5, taken apart in chapter 8, one run with one set of parameters.

Tenant number ``tenants`` joins halfway through a run on a pool of ``pool_adapters`` 16 MiB adapters;
:func:`onboarding_timeline` replays it with a "before" and an "after" phase, :func:`onboarding_runs`
sweeps the steady state over :data:`ONBOARDING_TENANTS`.

>>> ONBOARDING.pool_adapters, ONBOARDING["pool_adapters"]
(40, 40)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from ..._validate import count, number
from ...implementation import Implementation
from ..replay import Progress, simulate, single_replica_router, tenant_sweep
from ..result import SimResult
from ..workload import Join, Trace, Workload, make_trace
from ._by_name import ByName

__all__ = ["OnboardingScenario", "ONBOARDING_TENANTS", "ONBOARDING", "onboarding_runs", "onboarding_timeline"]


@dataclass(frozen=True, slots=True)
class OnboardingScenario(ByName):
    """The customer #41 incident (chapters 5 and 8): tenant ``tenants`` joins halfway through a run on a pool
    of ``pool_adapters`` 16 MiB adapters, under Zipf-``zipf_s`` popularity at ``rate_per_s`` requests per second.

    >>> ONBOARDING.join_ms
    50000.0
    """

    tenants: int
    pool_adapters: int
    zipf_s: float
    requests: int
    rate_per_s: float
    seed: int
    warmup: int

    def __post_init__(self) -> None:
        count("tenants", self.tenants)
        count("pool_adapters", self.pool_adapters)
        number("zipf_s", self.zipf_s, inclusive=True)
        count("requests", self.requests)
        number("rate_per_s", self.rate_per_s)
        count("seed", self.seed, minimum=0)
        count("warmup", self.warmup, minimum=0)

    @property
    def join_ms(self) -> float:
        """When the last tenant starts sending: halfway through the run (simulated ms)."""
        return self.requests / self.rate_per_s * 1000.0 / 2


ONBOARDING_TENANTS: tuple[int, ...] = (36, 38, 39, 40, 41, 42, 44, 46, 48)
#: The customer #41 incident, told in chapter 5 and taken apart in chapter 8: a 640 MiB pool (forty 16 MiB
#: adapters), Zipf s=0.5, 20,000 requests at 200 per second, tenant 41 joining at 50 s.
ONBOARDING = OnboardingScenario(
    tenants=41, pool_adapters=40, zipf_s=0.5, requests=20_000, rate_per_s=200.0, seed=41, warmup=2_000
)


def onboarding_runs() -> dict[int, SimResult]:
    """Return chapter 8's steady-state runs, ``{tenants: SimResult}``, on a forty-adapter pool.

    >>> sorted(onboarding_runs())[:3]
    [36, 38, 39]
    """
    o = ONBOARDING
    return tenant_sweep(
        ONBOARDING_TENANTS,
        budget_mb=16.0 * o.pool_adapters,
        zipf_s=o.zipf_s,
        requests=o.requests,
        seed=o.seed,
        warmup=o.warmup,
    )


def onboarding_timeline(
    tenants: int = ONBOARDING.tenants,
    pool_adapters: int = ONBOARDING.pool_adapters,
    zipf_s: float = ONBOARDING.zipf_s,
    *,
    requests: int = ONBOARDING.requests,
    rate_per_s: float = ONBOARDING.rate_per_s,
    seed: int = ONBOARDING.seed,
    progress: Progress | None = None,
    progress_every: int = 100_000,
    lab: Implementation | None = None,
) -> SimResult:
    """Simulate tenant #``tenants`` joining halfway through a run on a ``pool_adapters`` pool (16 MiB adapters).

    The defaults are :data:`ONBOARDING`, the customer #41 incident. Returns a :class:`SimResult` with two
    ``phases`` (before and after the join); the first requests warm the cache and are not counted.
    ``progress(done, total)`` is called every ``progress_every`` requests (see :func:`simulate`); the
    trace depends on the tenants and the skew only, so changing the pool alone reuses it. ``lab`` runs the replica
    on another implementation of the contract (a learner's ``lab/mine``: its registry, cache and router).

    >>> before, after = onboarding_timeline(requests=4_000).phases
    >>> after.p99_ms > before.p99_ms
    True
    """
    join_ms = requests / rate_per_s * 1000 / 2
    w = Workload(
        tenants=tenants,
        requests=requests,
        zipf_s=zipf_s,
        rate_per_s=rate_per_s,
        seed=seed,
        joins=(Join(join_ms, tenants),),
    )
    return simulate(
        lambda: single_replica_router(w, budget_mb=16.0 * pool_adapters, lab=lab),
        _onboarding_trace(w),
        windows=20,
        phases=(join_ms,),
        warmup=min(ONBOARDING.warmup, requests // 4),
        progress=progress,
        progress_every=progress_every,
    )


@functools.lru_cache(maxsize=2)  # bounded: the last two workloads
def _onboarding_trace(w: Workload) -> Trace:
    """Return ``make_trace(w)``, kept for the last two workloads (the pool size does not change the trace)."""
    return make_trace(w)
