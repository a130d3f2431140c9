"""Placement runs: a whole trace through a fresh :class:`labcore.affinity.AffinityFleet` per policy, and chapter 10's.

:func:`run_policy` routes a trace under one placement policy and summarises it as a
:class:`labcore.affinity.FleetRun`; :func:`compare_policies` does it once per policy;
:func:`affinity_runs` is chapter 10's trace (40 Zipf tenants over 4 replicas).

>>> AFFINITY_DEFAULTS["replicas"], AFFINITY_DEFAULTS["cache_adapters"]
(4, 12)
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from typing import Any, Protocol, cast

from ..._validate import count, number
from ...affinity import LOAD_BOUNDED_POLICIES, POLICIES, AffinityFleet, FleetRun
from ...refs import ModelRef
from ...registry import AdapterRegistry
from ...tiers import single_tier_cache
from ..replay import single_replica_router
from ..workload import Trace, Workload, make_trace

__all__ = ["run_policy", "compare_policies", "AFFINITY_DEFAULTS", "AFFINITY_TRACE", "affinity_runs"]


class _Request(Protocol):
    """A simulator request record: when it arrives and what it asks for."""

    arrival_ms: float
    ref: str | ModelRef


def _arrivals(trace: Iterable[object], spacing_ms: float) -> Iterable[tuple[float, str | ModelRef]]:
    """Yield ``(arrival_ms, ref)`` from a :class:`Trace` (its parsed refs), refs, pairs, or records with those attributes."""
    if isinstance(trace, Trace) and trace.model_refs:
        yield from zip(trace.arrival_ms, trace.model_refs, strict=True)
        return
    for i, item in enumerate(trace):
        if isinstance(item, (str, ModelRef)):
            yield i * spacing_ms, item
        elif isinstance(item, tuple):
            yield float(item[0]), item[1]
        else:
            record = cast(_Request, item)  # e.g. a simulator request record
            yield float(record.arrival_ms), record.ref


def run_policy(
    trace: Iterable[object],
    registry: AdapterRegistry,
    base_model: str,
    *,
    policy: str,
    replicas: int,
    cache_budget_mb: float,
    spacing_ms: float = 1.0,
    warmup: int = 0,
    **fleet_options: Any,  # AffinityFleet's keyword options (slots, cache_factory, load_factor, ...)
) -> FleetRun:
    """Route a whole trace through a fresh fleet under one policy and summarise it.

    ``trace`` is a ``labcore.sim.Trace``, or holds model refs (text or parsed, spaced ``spacing_ms``
    apart), ``(arrival_ms, ref)`` pairs, or records with ``arrival_ms`` and ``ref`` attributes, in arrival order.
    The first ``warmup`` requests warm the caches and are left out of every statistic.
    """
    count("warmup", warmup, minimum=0)
    fleet = AffinityFleet(
        registry, base_model, replicas=replicas, policy=policy, cache_budget_mb=cache_budget_mb, **fleet_options
    )
    latencies: list[float] = []
    queued = 0.0
    for i, (arrival_ms, ref) in enumerate(_arrivals(trace, spacing_ms)):
        if i == warmup:
            fleet.reset_counters()
        route = fleet.route(ref, arrival_ms=arrival_ms)
        if i >= warmup:
            latencies.append(route.latency_ms)
            queued += route.queue_ms
    if not latencies:
        raise ValueError(f"the trace has no requests after a warmup of {warmup}")
    return fleet.summary(latencies, queued)


def compare_policies(
    trace: Trace | Sequence[object],
    registry: AdapterRegistry,
    base_model: str,
    *,
    replicas: int,
    cache_budget_mb: float,
    policies: Sequence[str] = POLICIES,
    **options: Any,  # run_policy's keyword options
) -> dict[str, FleetRun]:
    """Run the same trace through a fresh fleet per policy; return ``{policy: FleetRun}``."""
    trace = trace if isinstance(trace, Trace) else list(trace)
    return {
        p: run_policy(
            trace, registry, base_model, policy=p, replicas=replicas, cache_budget_mb=cache_budget_mb, **options
        )
        for p in policies
    }


#: The chapter 10 story: 40 Zipf tenants over 4 replicas, each caching 12 adapters, bounded load c = 1.25.
AFFINITY_DEFAULTS: dict[str, float] = {"zipf_s": 1.0, "replicas": 4, "load_factor": 1.25, "cache_adapters": 12}
#: The rest of chapter 10's experiment (its trace), the same for the chapter's table and every state of its panel.
AFFINITY_TRACE: dict[str, float] = {
    "tenants": 40,
    "requests": 10_000,
    "warmup": 2_000,
    "rate_per_replica_s": 125.0,
    "seed": 1,
}


def affinity_runs(
    zipf_s: float = AFFINITY_DEFAULTS["zipf_s"],
    replicas: int = int(AFFINITY_DEFAULTS["replicas"]),
    load_factor: float = AFFINITY_DEFAULTS["load_factor"],
    cache_adapters: int = int(AFFINITY_DEFAULTS["cache_adapters"]),
    *,
    tenants: int = int(AFFINITY_TRACE["tenants"]),
    requests: int = int(AFFINITY_TRACE["requests"]),
    warmup: int = int(AFFINITY_TRACE["warmup"]),
    rate_per_replica_s: float = AFFINITY_TRACE["rate_per_replica_s"],
    seed: int = int(AFFINITY_TRACE["seed"]),
    policies: Sequence[str] = POLICIES,
) -> dict[str, FleetRun]:
    """Run chapter 10's trace through every placement policy and return ``{policy: FleetRun}``.

    The trace: ``tenants`` Zipf(``zipf_s``) tenants at ``rate_per_replica_s`` × ``replicas`` requests/s;
    each replica caches ``cache_adapters`` 16 MiB adapters and loads a miss from object storage
    (``labcore.tiers.single_tier_cache``). ``policies`` picks which placement policies to run.

    >>> runs = affinity_runs(requests=3_000, warmup=500)
    >>> runs["rendezvous"].hit_rate > runs["round-robin"].hit_rate
    True
    """
    trace = (tenants, requests, float(zipf_s), rate_per_replica_s * replicas, seed)
    bound = number("load_factor", load_factor, minimum=1.0, inclusive=True)  # checked even if no policy reads it
    return {
        p: _policy_run(p, trace, int(replicas), bound if p in LOAD_BOUNDED_POLICIES else None, cache_adapters, warmup)
        for p in policies
    }


@functools.lru_cache(maxsize=512)
def _policy_run(
    policy: str,
    trace: tuple[int, int, float, float, int],  # tenants, requests, zipf_s, rate_per_s, seed
    replicas: int,
    load_factor: float | None,
    cache_adapters: int,
    warmup: int,
) -> FleetRun:
    """One policy's run of :func:`affinity_runs`, kept: ``load_factor`` is ``None`` for a policy that does not read
    it, so a panel's states that differ only in the bound share the unbounded policies' runs."""
    tenants, requests, zipf_s, rate_per_s, seed = trace
    w = Workload(tenants=tenants, requests=requests, zipf_s=zipf_s, rate_per_s=rate_per_s, seed=seed)
    budget_mb = cache_adapters * w.adapter_mb
    options: dict[str, Any] = {} if load_factor is None else {"load_factor": load_factor}
    return run_policy(
        _trace(w),
        single_replica_router(w, budget_mb=budget_mb).registry,
        w.base_model,
        policy=policy,
        replicas=replicas,
        cache_budget_mb=budget_mb,
        warmup=warmup,
        cache_factory=lambda: single_tier_cache(budget_mb),
        **options,
    )


@functools.lru_cache(maxsize=4)
def _trace(w: Workload) -> Trace:
    """Return ``make_trace(w)``, kept for the last few workloads (the bounded-load factor and the cache size do
    not change the trace, so moving those sliders does not redraw it)."""
    return make_trace(w)
