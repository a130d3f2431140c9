"""Tests for labcore.sim.replay: simulate through a real router, in-flight admission, the single-replica router."""

from __future__ import annotations

import math

import pytest

from labcore.cache import AdapterCache
from labcore.sim import Join, Trace, Workload, make_trace, simulate, single_replica_router

BASE = "llama-3-8b"


def ref(i: int) -> str:
    return f"{BASE}:tenant-{i:02d}"


# --------------------------------------------------------------------------- simulate
def test_simulate_counts_add_up_and_match_the_cache():
    trace = make_trace(Workload(tenants=12, requests=5_000, zipf_s=0.7, base_share=0.1, seed=9))
    router = single_replica_router(12, budget_mb=6 * 16)
    result = simulate(router, trace, windows=10)
    assert result.requests == 5_000
    assert sum(result.by_mode.values()) == 5_000
    assert result.hits + result.misses == result.by_mode["dynamic"]
    assert (result.hits, result.misses) == (router.cache.hits, router.cache.misses)
    assert result.evictions == len(router.cache.eviction_log)
    assert sum(w.requests for w in result.windows) == 5_000
    assert sum(w.misses for w in result.windows) == result.misses
    assert sum(w.evictions for w in result.windows) == result.evictions
    assert result.p50_ms <= result.p95_ms <= result.p99_ms <= result.max_ms


def test_simulate_latency_is_the_routers_total_latency():
    trace = Trace.from_pairs([(0, ref(1)), (1, ref(1)), (2, BASE)])
    result = simulate(lambda: single_replica_router(2, budget_mb=32), trace, windows=1)
    router = single_replica_router(2, budget_mb=32)
    miss_ms = router.route(ref(1)).total_latency_ms
    assert miss_ms > 42.0
    assert (result.p50_ms, result.max_ms, result.misses, result.by_mode["base"]) == (42.0, miss_ms, 1, 1)
    assert math.isclose(result.mean_ms, (miss_ms + 42.0 + 40.0) / 3)


def test_a_pool_that_holds_everyone_misses_once_per_tenant():
    trace = make_trace(Workload(tenants=10, requests=3_000, seed=1))
    result = simulate(lambda: single_replica_router(10, budget_mb=160), trace)
    assert result.misses == len(set(trace.refs)) and result.evictions == 0


def test_same_seed_gives_identical_results():
    w = Workload(tenants=30, requests=4_000, zipf_s=0.6, seed=21)
    run = lambda: simulate(lambda: single_replica_router(30, budget_mb=20 * 16), make_trace(w))  # noqa: E731
    assert run() == run()


def test_warmup_requests_are_routed_but_not_counted():
    trace = make_trace(Workload(tenants=5, requests=1_000, seed=2))
    cold = simulate(lambda: single_replica_router(5, budget_mb=80), trace)
    warm = simulate(lambda: single_replica_router(5, budget_mb=80), trace, warmup=200)
    assert warm.requests == 800 and warm.misses == 0 and warm.p99_ms == 42.0
    assert cold.misses == 5 and sum(warm.by_mode.values()) == 800
    with pytest.raises(ValueError, match="warmup"):
        simulate(lambda: single_replica_router(5, budget_mb=80), trace, warmup=1_000)


def test_progress_is_reported_in_order_and_ends_at_the_total():
    calls: list[tuple[int, int]] = []
    trace = make_trace(Workload(tenants=5, requests=2_500, seed=2))
    quiet = simulate(lambda: single_replica_router(5, budget_mb=48), trace)
    loud = simulate(
        lambda: single_replica_router(5, budget_mb=48),
        trace,
        progress=lambda d, t: calls.append((d, t)),
        progress_every=1_000,
    )
    assert calls == [(1_000, 2_500), (2_000, 2_500), (2_500, 2_500)]
    assert loud == quiet


def test_thrashing_shows_in_the_windows_after_a_join():
    join_ms = 20_000.0
    w = Workload(
        tenants=41, requests=16_000, zipf_s=0.3, rate_per_s=400.0, seed=4, joins=(Join(at_ms=join_ms, tenant=41),)
    )
    result = simulate(lambda: single_replica_router(41, budget_mb=40 * 16), make_trace(w), windows=8, warmup=0)
    before = [x for x in result.windows if x.end_ms <= join_ms and x.start_ms > 0]
    after = [x for x in result.windows if x.start_ms >= join_ms]
    assert all(x.misses == 0 for x in before)
    assert all(x.hit_rate < 0.99 and x.p99_ms > 42.0 for x in after)


def test_simulate_accepts_a_router_instance_and_rejects_bad_arguments():
    router = single_replica_router(2, budget_mb=32)
    trace = Trace.from_pairs([(0, ref(1))])
    assert simulate(router, trace).misses == 1
    with pytest.raises(ValueError, match="windows"):
        simulate(router, trace, windows=-1)
    with pytest.raises(ValueError, match="progress_every"):
        simulate(router, trace, progress_every=0)


# --------------------------------------------------------------------------- in-flight mode
def test_in_flight_mode_queues_when_every_resident_is_busy():
    # Room for one adapter; two tenants overlap in time, so the second must wait for the first.
    trace = Trace.from_pairs([(0.0, ref(1)), (1.0, ref(2)), (2.0, ref(1))])
    router = single_replica_router(2, budget_mb=16)
    result = simulate(router, trace, hold_ms=100.0, max_queue=4, windows=1)
    assert result.queued == 2 and result.refused == 0 and result.requests == 3
    assert result.max_wait_ms > 100.0
    assert router.cache.used_mb <= router.cache.budget_mb and router.cache.pinned == []
    assert result.max_ms > result.max_wait_ms


def test_in_flight_mode_refuses_when_the_queue_is_full():
    trace = Trace.from_pairs([(0.0, ref(1)), (1.0, ref(2)), (2.0, ref(3))])
    result = simulate(lambda: single_replica_router(3, budget_mb=16), trace, hold_ms=50.0, max_queue=1, windows=1)
    assert (result.queued, result.refused) == (1, 1)
    assert result.requests == 3 and sum(result.by_mode.values()) == 2


def test_in_flight_mode_without_contention_matches_the_plain_run():
    trace = make_trace(Workload(tenants=8, requests=2_000, rate_per_s=50.0, seed=8))
    plain = simulate(lambda: single_replica_router(8, budget_mb=128), trace)
    held = simulate(lambda: single_replica_router(8, budget_mb=128), trace, hold_ms=0.0)
    assert (held.p99_ms, held.misses, held.queued, held.refused) == (plain.p99_ms, plain.misses, 0, 0)


def test_single_replica_router_takes_a_workload_and_a_custom_cache():
    w = Workload(tenants=3, requests=10, adapter_mb=32.0, rank=32)
    cache = AdapterCache(64, 8.0)
    router = single_replica_router(w, budget_mb=64, cache=cache)
    assert router.cache is cache and len(router.registry) == 3
    assert router.registry.resolve("tenant-01").vram_mb == 32.0


def test_phases_give_exact_before_and_after_statistics():
    join_ms = 20_000.0
    w = Workload(
        tenants=41, requests=16_000, zipf_s=0.5, rate_per_s=400.0, seed=4, joins=(Join(at_ms=join_ms, tenant=41),)
    )
    trace = make_trace(w)
    result = simulate(lambda: single_replica_router(41, budget_mb=640), trace, phases=(join_ms,))
    before, after = result.phases
    assert before.requests + after.requests == 16_000
    assert before.requests == sum(1 for t in trace.arrival_ms if t < join_ms)
    assert before.misses == 40 and before.p99_ms == 42.0  # only the cold start missed
    assert after.misses > 0.01 * after.requests and after.p99_ms > 100.0
    assert before.misses + after.misses == result.misses
    with pytest.raises(ValueError, match="phases"):
        simulate(lambda: single_replica_router(41, budget_mb=640), trace, phases=(-5.0,))


def test_single_replica_router_builds_one_registry_cache_and_router():
    router = single_replica_router(3, budget_mb=32.0)
    assert len(router.registry) == 3 and router.cache.budget_mb == 32.0
