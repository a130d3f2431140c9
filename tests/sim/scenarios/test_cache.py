"""Tests for labcore.sim.scenarios.cache: the replay checks the budget after every access; the seeded LRU/FIFO runs."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labcore import FifoAdapterCache, tenant_adapters
from labcore.cache import AdapterCache
from labcore.sim.scenarios.cache import CACHE_REQUESTS, CACHE_TRANSFER_MB_PER_MS, budget_sweep, cache_runs, replay_cache

adapter_seq = st.lists(st.integers(min_value=0, max_value=7), min_size=1, max_size=120)


def test_replay_counts_match_the_cache_itself():
    adapters = tenant_adapters(5)
    seq = [adapters[i] for i in (0, 1, 2, 0, 3, 4, 0, 1, 2, 3)]
    cache = AdapterCache(48, 8.0)
    run = replay_cache(cache, seq, tenants=5, zipf_s=0.0, window=4)
    assert (run.hits, run.misses) == (cache.hits, cache.misses)
    assert run.evictions == len(cache.eviction_log)
    assert run.window_requests == (4, 4, 2) and sum(run.window_hits) == run.hits
    assert run.load_ms == pytest.approx(run.misses * 2.0)
    assert run.policy == "LRU" and run.working_set_mb == 80.0 and str(run.hot_key) == "tenant-01@1.0.0"


@given(adapter_seq, st.integers(min_value=1, max_value=6), st.sampled_from([AdapterCache, FifoAdapterCache]))
def test_replay_never_exceeds_budget_and_load_first_peaks_do(indices, slots, cls):
    pool = tenant_adapters(8)
    run = replay_cache(cls(16.0 * slots, 8.0), [pool[i] for i in indices], tenants=8, zipf_s=1.0, window=7)
    assert all(used <= run.budget_mb for used in run.used_mb)
    over = [p for p in run.load_first_peak_mb if p > run.budget_mb]
    assert len(over) == sum(1 for u, p in zip(run.used_mb, run.load_first_peak_mb, strict=True) if p != u)
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


def test_the_runs_use_the_labs_link_and_the_chapters_length():
    runs = cache_runs(640, 40, 1.0)
    assert runs["LRU"].requests == runs["FIFO"].requests == CACHE_REQUESTS
    assert CACHE_TRANSFER_MB_PER_MS == 8.0 and runs["LRU"].load_ms == pytest.approx(runs["LRU"].misses * 2.0)
    assert runs["LRU"].first_load_first_oom is None  # the working set fits: nothing is ever evicted
    assert cache_runs(320, 40, 1.0)["LRU"].first_load_first_oom is not None
