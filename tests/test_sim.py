"""Tests for labcore.sim: trace generation, nearest-rank percentiles, the simulator's bookkeeping."""

from __future__ import annotations

import math
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labcore import FifoAdapterCache, parse_version, tenant_adapters
from labcore.cache import AdapterCache
from labcore.sim import budget_sweep, cache_runs, release_timeline, replay_cache
from labcore.sim import (
    Join,
    SimResult,
    Trace,
    Workload,
    make_trace,
    percentile,
    percentiles,
    simulate,
    standard_fleet,
    zipf_weights,
)

BASE = "llama-3-8b"


def ref(i: int) -> str:
    return f"{BASE}:tenant-{i:02d}"


# --------------------------------------------------------------------------- percentiles
def test_percentile_nearest_rank_textbook_examples():
    values = [15, 20, 35, 40, 50]
    assert [percentile(values, p) for p in (5, 30, 40, 50, 100)] == [15, 20, 20, 35, 50]
    assert percentile([3.0], 99) == 3.0
    assert percentile(list(range(1, 101)), 99) == 99
    assert percentile(list(range(1, 1001)), 99.9) == 999


def test_p99_of_a_hundred_requests_is_the_99th_smallest_not_the_max():
    values = [1.0] * 98 + [2.0, 3.0]
    assert percentile(values, 99) == 2.0
    assert percentile(values, 100) == 3.0
    assert percentile(values + [4.0], 99) == 3.0  # n=101: rank ceil(99.99) = 100


@given(st.lists(st.integers(-50, 50), min_size=1, max_size=60), st.floats(0, 100))
def test_percentiles_match_the_definition(values, p):
    expected = sorted(values)[max(1, math.ceil(p / 100 * len(values) - 1e-9)) - 1]
    assert percentile(values, p) == expected
    assert percentiles(Counter(values), (p, 100)) == (expected, max(values))


def test_percentile_rejects_empty_and_out_of_range():
    with pytest.raises(ValueError, match="empty"):
        percentile([], 50)
    with pytest.raises(ValueError, match=r"\[0, 100\]"):
        percentile([1, 2], 101)


# --------------------------------------------------------------------------- workloads and traces
def test_zipf_weights_sum_to_one_and_decrease():
    w = zipf_weights(10, 1.2)
    assert math.isclose(sum(w), 1.0)
    assert all(a > b for a, b in zip(w, w[1:]))
    assert zipf_weights(4, 0) == [0.25] * 4


def test_same_seed_same_trace_other_seed_other_trace():
    w = Workload(tenants=20, requests=2_000, zipf_s=1.0, seed=3)
    assert make_trace(w) == make_trace(w)
    other = make_trace(Workload(tenants=20, requests=2_000, zipf_s=1.0, seed=4))
    assert other != make_trace(w)


def test_trace_follows_zipf_popularity():
    w = Workload(tenants=5, requests=50_000, zipf_s=1.0, seed=11)
    counts = Counter(make_trace(w).tenant_index)
    for i, weight in enumerate(zipf_weights(5, 1.0)):
        assert abs(counts[i] / 50_000 - weight) < 0.01


def test_arrivals_are_poisson_at_the_rate():
    trace = make_trace(Workload(tenants=3, requests=20_000, rate_per_s=500.0, seed=5))
    assert all(b >= a for a, b in zip(trace.arrival_ms, trace.arrival_ms[1:]))
    mean_gap_ms = trace.duration_ms / len(trace)
    assert abs(mean_gap_ms - 2.0) < 0.1  # 500 req/s = one every 2 ms


def test_a_joining_tenant_is_silent_before_and_active_after():
    w = Workload(tenants=41, requests=20_000, zipf_s=0.5, rate_per_s=1000.0, seed=2,
                 joins=(Join(at_ms=10_000, tenant=41),))
    trace = make_trace(w)
    before = [r for t, r in trace if t < 10_000]
    after = [r for t, r in trace if t >= 10_000]
    assert ref(41) not in before and len(before) > 1000
    assert after.count(ref(41)) > 50


def test_base_share_sends_some_requests_to_the_bare_base():
    trace = make_trace(Workload(tenants=3, requests=10_000, base_share=0.2, seed=1))
    share = trace.refs.count(BASE) / len(trace)
    assert 0.18 < share < 0.22


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(tenants=0, requests=10), "tenants"),
        (dict(tenants=3, requests=10, zipf_s=-0.5), "zipf_s"),
        (dict(tenants=3, requests=10, rate_per_s=0), "rate_per_s"),
        (dict(tenants=3, requests=10, joins=(Join(5.0, 4),)), "tenant #4"),
        (dict(tenants=3, requests=10, joins=(Join(5.0, 2), Join(9.0, 2))), "once"),
        (dict(tenants=1, requests=10, joins=(Join(5.0, 1),)), "active at t=0"),
        (dict(tenants=3, requests=10, base_share=1.0), "base_share"),
    ],
)
def test_workload_rejects_bad_values_with_a_clear_message(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Workload(**kwargs)


def test_trace_rejects_time_going_backwards():
    with pytest.raises(ValueError, match="non-decreasing"):
        Trace.from_pairs([(5.0, BASE), (1.0, BASE)])


# --------------------------------------------------------------------------- simulate
def test_simulate_counts_add_up_and_match_the_cache():
    trace = make_trace(Workload(tenants=12, requests=5_000, zipf_s=0.7, base_share=0.1, seed=9))
    router = standard_fleet(12, budget_mb=6 * 16)
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
    result = simulate(lambda: standard_fleet(2, budget_mb=32), trace, windows=1)
    router = standard_fleet(2, budget_mb=32)
    miss_ms = router.route(ref(1)).total_latency_ms
    assert miss_ms > 42.0
    assert (result.p50_ms, result.max_ms, result.misses, result.by_mode["base"]) == (42.0, miss_ms, 1, 1)
    assert math.isclose(result.mean_ms, (miss_ms + 42.0 + 40.0) / 3)


def test_a_pool_that_holds_everyone_misses_once_per_tenant():
    trace = make_trace(Workload(tenants=10, requests=3_000, seed=1))
    result = simulate(lambda: standard_fleet(10, budget_mb=160), trace)
    assert result.misses == len(set(trace.refs)) and result.evictions == 0


def test_same_seed_gives_identical_results():
    w = Workload(tenants=30, requests=4_000, zipf_s=0.6, seed=21)
    run = lambda: simulate(lambda: standard_fleet(30, budget_mb=20 * 16), make_trace(w))  # noqa: E731
    assert run() == run()


def test_warmup_requests_are_routed_but_not_counted():
    trace = make_trace(Workload(tenants=5, requests=1_000, seed=2))
    cold = simulate(lambda: standard_fleet(5, budget_mb=80), trace)
    warm = simulate(lambda: standard_fleet(5, budget_mb=80), trace, warmup=200)
    assert warm.requests == 800 and warm.misses == 0 and warm.p99_ms == 42.0
    assert cold.misses == 5 and sum(warm.by_mode.values()) == 800
    with pytest.raises(ValueError, match="warmup"):
        simulate(lambda: standard_fleet(5, budget_mb=80), trace, warmup=1_000)


def test_progress_is_reported_in_order_and_ends_at_the_total():
    calls: list[tuple[int, int]] = []
    trace = make_trace(Workload(tenants=5, requests=2_500, seed=2))
    quiet = simulate(lambda: standard_fleet(5, budget_mb=48), trace)
    loud = simulate(lambda: standard_fleet(5, budget_mb=48), trace, progress=lambda d, t: calls.append((d, t)),
                    progress_every=1_000)
    assert calls == [(1_000, 2_500), (2_000, 2_500), (2_500, 2_500)]
    assert loud == quiet


def test_thrashing_shows_in_the_windows_after_a_join():
    join_ms = 20_000.0
    w = Workload(tenants=41, requests=16_000, zipf_s=0.3, rate_per_s=400.0, seed=4,
                 joins=(Join(at_ms=join_ms, tenant=41),))
    result = simulate(lambda: standard_fleet(41, budget_mb=40 * 16), make_trace(w), windows=8, warmup=0)
    before = [x for x in result.windows if x.end_ms <= join_ms and x.start_ms > 0]
    after = [x for x in result.windows if x.start_ms >= join_ms]
    assert all(x.misses == 0 for x in before)
    assert all(x.hit_rate < 0.99 and x.p99_ms > 42.0 for x in after)


def test_simulate_accepts_a_router_instance_and_rejects_bad_arguments():
    router = standard_fleet(2, budget_mb=32)
    trace = Trace.from_pairs([(0, ref(1))])
    assert simulate(router, trace).misses == 1
    with pytest.raises(ValueError, match="windows"):
        simulate(router, trace, windows=-1)
    with pytest.raises(ValueError, match="progress_every"):
        simulate(router, trace, progress_every=0)


def test_simresult_validates_its_counters():
    with pytest.raises(ValueError, match="exceed"):
        SimResult(requests=1, p50_ms=1, p95_ms=1, p99_ms=1, mean_ms=1, max_ms=1, hit_rate=1, hits=1, misses=1,
                  evictions=0, by_mode={}, windows=())


# --------------------------------------------------------------------------- in-flight mode
def test_in_flight_mode_queues_when_every_resident_is_busy():
    # Room for one adapter; two tenants overlap in time, so the second must wait for the first.
    trace = Trace.from_pairs([(0.0, ref(1)), (1.0, ref(2)), (2.0, ref(1))])
    router = standard_fleet(2, budget_mb=16)
    result = simulate(router, trace, hold_ms=100.0, max_queue=4, windows=1)
    assert result.queued == 2 and result.refused == 0 and result.requests == 3
    assert result.max_wait_ms > 100.0
    assert router.cache.used_mb <= router.cache.budget_mb and router.cache.pinned == []
    assert result.max_ms > result.max_wait_ms


def test_in_flight_mode_refuses_when_the_queue_is_full():
    trace = Trace.from_pairs([(0.0, ref(1)), (1.0, ref(2)), (2.0, ref(3))])
    result = simulate(lambda: standard_fleet(3, budget_mb=16), trace, hold_ms=50.0, max_queue=1, windows=1)
    assert (result.queued, result.refused) == (1, 1)
    assert result.requests == 3 and sum(result.by_mode.values()) == 2


def test_in_flight_mode_without_contention_matches_the_plain_run():
    trace = make_trace(Workload(tenants=8, requests=2_000, rate_per_s=50.0, seed=8))
    plain = simulate(lambda: standard_fleet(8, budget_mb=128), trace)
    held = simulate(lambda: standard_fleet(8, budget_mb=128), trace, hold_ms=0.0)
    assert (held.p99_ms, held.misses, held.queued, held.refused) == (plain.p99_ms, plain.misses, 0, 0)


def test_standard_fleet_takes_a_workload_and_a_custom_cache():
    w = Workload(tenants=3, requests=10, adapter_mb=32.0, rank=32)
    cache = AdapterCache(64, 8.0)
    router = standard_fleet(w, budget_mb=64, cache=cache)
    assert router.cache is cache and len(router.registry) == 3
    assert router.registry.resolve("tenant-01").vram_mb == 32.0


def test_phases_give_exact_before_and_after_statistics():
    join_ms = 20_000.0
    w = Workload(tenants=41, requests=16_000, zipf_s=0.5, rate_per_s=400.0, seed=4,
                 joins=(Join(at_ms=join_ms, tenant=41),))
    trace = make_trace(w)
    result = simulate(lambda: standard_fleet(41, budget_mb=640), trace, phases=(join_ms,))
    before, after = result.phases
    assert before.requests + after.requests == 16_000
    assert before.requests == sum(1 for t in trace.arrival_ms if t < join_ms)
    assert before.misses == 40 and before.p99_ms == 42.0  # only the cold start missed
    assert after.misses > 0.01 * after.requests and after.p99_ms > 100.0
    assert before.misses + after.misses == result.misses
    with pytest.raises(ValueError, match="phases"):
        simulate(lambda: standard_fleet(41, budget_mb=640), trace, phases=(-5.0,))


# --------------------------------------------------------------------------- chapter scenarios: chapter 3


@given(st.integers(min_value=0, max_value=40))
def test_release_timeline_matches_string_max_and_semver(n):
    t = release_timeline(n)
    assert t.versions == tuple(f"1.{m}.0" for m in range(n + 1))
    for i in range(n + 1):
        published = t.versions[: i + 1]
        assert t.string_latest[i] == max(published)
        assert t.semver_latest[i] == max(published, key=parse_version) == t.versions[i]
    assert t.stale_periods == max(0, n - 9)
    assert t.releases_behind == max(0, n - 9)
    assert t.first_stale == (10 if n >= 10 else None)


def test_release_timeline_rejects_bad_counts():
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="minor_releases"):
            release_timeline(bad)


# --------------------------------------------------------------------------- chapter scenarios: chapter 4


def test_replay_counts_match_the_cache_itself():
    adapters = tenant_adapters(5)
    seq = [adapters[i] for i in (0, 1, 2, 0, 3, 4, 0, 1, 2, 3)]
    cache = AdapterCache(48, 8.0)
    run = replay_cache(cache, seq, tenants=5, zipf_s=0.0, window=4)
    assert (run.hits, run.misses) == (cache.hits, cache.misses)
    assert run.evictions == len(cache.eviction_log)
    assert run.window_requests == (4, 4, 2) and sum(run.window_hits) == run.hits
    assert run.load_ms == pytest.approx(run.misses * 2.0)
    assert run.policy == "LRU" and run.working_set_mb == 80.0 and run.hot_key == "tenant-01@1.0.0"


adapter_seq = st.lists(st.integers(min_value=0, max_value=7), min_size=1, max_size=120)


@given(adapter_seq, st.integers(min_value=1, max_value=6), st.sampled_from([AdapterCache, FifoAdapterCache]))
def test_replay_never_exceeds_budget_and_load_first_peaks_do(indices, slots, cls):
    pool = tenant_adapters(8)
    run = replay_cache(cls(16.0 * slots, 8.0), [pool[i] for i in indices], tenants=8, zipf_s=1.0, window=7)
    assert all(used <= run.budget_mb for used in run.used_mb)
    over = [p for p in run.load_first_peak_mb if p > run.budget_mb]
    assert len(over) == sum(1 for u, p in zip(run.used_mb, run.load_first_peak_mb) if p != u)
    assert len(over) <= run.evictions  # one crossing per miss that had to evict
    assert run.hits + run.misses == len(indices) == sum(run.window_requests)
    assert run.policy == ("FIFO" if cls is FifoAdapterCache else "LRU")


def test_replay_rejects_bad_window():
    with pytest.raises(ValueError, match="window"):
        replay_cache(AdapterCache(32, 8.0), tenant_adapters(2), tenants=2, zipf_s=1.0, window=0)


def test_cache_runs_are_seeded_and_lru_protects_the_hot_adapter():
    runs = cache_runs(320, 40, 1.0)
    again = cache_runs(320, 40, 1.0)
    assert again == runs
    assert runs["LRU"].hit_rate > runs["FIFO"].hit_rate
    assert runs["LRU"].hot_evictions < runs["FIFO"].hot_evictions
    assert cache_runs(320, 40, 1.0, seed=1) != runs


def test_budget_sweep_hits_rise_with_budget_and_stop_evicting_at_the_working_set():
    sweep = budget_sweep([64, 320, 640, 704], 40, 1.0)
    lru = sweep["LRU"]
    rates = [r.hit_rate for r in lru]
    assert rates == sorted(rates)  # LRU has no Belady anomaly
    assert [r.evictions for r in lru][2:] == [0, 0]
    assert lru[2].misses == 40  # only the cold loads
