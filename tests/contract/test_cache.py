"""Contract: AdapterCache is an LRU whose VRAM budget is a hard wall."""

import importlib
import random

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from .conftest import BASE, DIGEST, LAB_MODULE


def lora(make, name, vram_mb=16.0):
    return make(name, "1.0.0", vram_mb=vram_mb)


def test_first_access_misses_then_hits(lab, make):
    cache = lab.AdapterCache(64, 8.0)
    a = lora(make, "a")
    first, second = cache.access(a), cache.access(a)
    assert (first.hit, second.hit) == (False, True)
    assert (cache.hits, cache.misses) == (1, 1)


def test_miss_pays_size_over_bandwidth_and_hit_pays_nothing(lab, make):
    cache = lab.AdapterCache(64, 8.0)
    a = lora(make, "a", vram_mb=16.0)
    assert cache.access(a).load_ms == 2.0
    assert cache.access(a).load_ms == 0.0
    assert cache.transfer_ms(a) == 2.0
    assert cache.transfer_ms(lora(make, "b", vram_mb=4.0)) == 0.5


def test_cache_evicts_least_recently_used_not_oldest_inserted(lab, make, key):
    # "hot" is inserted first but used constantly; "cold" is inserted later and never touched again.
    # LRU must evict "cold"; FIFO would evict "hot", the adapter serving most of the traffic.
    cache = lab.AdapterCache(32, 8.0)
    hot, cold, new = lora(make, "hot"), lora(make, "cold"), lora(make, "new")
    cache.access(hot)
    cache.access(cold)
    for _ in range(1000):
        assert cache.access(hot).hit
    access = cache.access(new)
    assert access.evicted == (key("cold@1.0.0"),)
    assert hot in cache and new in cache and cold not in cache


def test_cache_never_exceeds_budget(lab, make):
    # The invariant is checked after EVERY access, not at the end: an OOM at step 37 kills every
    # in-flight request even if the cache is back under budget by step 38.
    rng = random.Random(7)
    cache = lab.AdapterCache(100, 8.0)
    adapters = [lora(make, f"t{i}", vram_mb=rng.choice([4.0, 8.0, 16.0, 32.0, 50.0])) for i in range(30)]
    for step in range(3000):
        cache.access(rng.choice(adapters))
        assert cache.used_mb <= cache.budget_mb, f"over budget after step {step}"
        assert cache.free_mb == pytest.approx(cache.budget_mb - cache.used_mb)
    assert cache.misses > 0 and len(cache.eviction_log) > 0


def test_evicted_keys_come_in_order_and_are_logged(lab, make, key):
    cache = lab.AdapterCache(48, 8.0)
    for name in ["a", "b", "c"]:
        cache.access(lora(make, name))
    access = cache.access(lora(make, "big", vram_mb=40.0))
    assert access.evicted == (key("a@1.0.0"), key("b@1.0.0"), key("c@1.0.0"))
    assert cache.eviction_log == [key("a@1.0.0"), key("b@1.0.0"), key("c@1.0.0")]
    cache.access(lora(make, "a"))
    assert cache.eviction_log == [key("a@1.0.0"), key("b@1.0.0"), key("c@1.0.0"), key("big@1.0.0")]


def test_evicts_only_as_many_as_needed(lab, make, key):
    cache = lab.AdapterCache(48, 8.0)
    for name in ["a", "b", "c"]:
        cache.access(lora(make, name))
    assert cache.access(lora(make, "d", vram_mb=20.0)).evicted == (key("a@1.0.0"), key("b@1.0.0"))
    assert cache.resident == [key("c@1.0.0"), key("d@1.0.0")]


def test_adapter_bigger_than_budget_fails_fast_and_changes_nothing(lab, make):
    cache = lab.AdapterCache(32, 8.0)
    cache.access(lora(make, "a"))
    before = (cache.resident, cache.used_mb, cache.hits, cache.misses, list(cache.eviction_log))
    with pytest.raises(lab.AdapterTooLargeError) as info:
        cache.access(lora(make, "huge", vram_mb=33.0))
    assert "huge@1.0.0" in str(info.value) and "33" in str(info.value)
    assert (cache.resident, cache.used_mb, cache.hits, cache.misses, list(cache.eviction_log)) == before


def test_adapter_exactly_the_budget_fits(lab, make, key):
    cache = lab.AdapterCache(32, 8.0)
    cache.access(lora(make, "a"))
    access = cache.access(lora(make, "whole", vram_mb=32.0))
    assert access.evicted == (key("a@1.0.0"),) and cache.used_mb == 32.0 and cache.free_mb == 0.0


def test_resident_is_least_to_most_recently_used(lab, make, key):
    cache = lab.AdapterCache(64, 8.0)
    for name in ["a", "b", "c"]:
        cache.access(lora(make, name))
    cache.access(lora(make, "a"))
    assert cache.resident == [key("b@1.0.0"), key("c@1.0.0"), key("a@1.0.0")]


def test_contains_accepts_adapter_or_key_and_len_counts(lab, make, key):
    cache = lab.AdapterCache(64, 8.0)
    a = lora(make, "a")
    assert a not in cache and len(cache) == 0
    cache.access(a)
    assert a in cache and key("a@1.0.0") in cache and key("b@1.0.0") not in cache and len(cache) == 1


def test_budget_and_counters_start_clean(lab):
    cache = lab.AdapterCache(64, 8.0)
    assert (cache.budget_mb, cache.used_mb, cache.free_mb, cache.hits, cache.misses) == (64, 0, 64, 0, 0)
    assert cache.eviction_log == [] and cache.resident == []


@pytest.mark.parametrize("budget, rate", [(0, 8.0), (-1, 8.0), (64, 0), (64, -2.0)])
def test_non_positive_budget_or_rate_is_refused(lab, budget, rate):
    with pytest.raises(ValueError) as info:
        lab.AdapterCache(budget, rate)
    assert str(budget if budget <= 0 else rate) in str(info.value)


def test_counters_add_up_over_a_trace(lab, make):
    rng = random.Random(3)
    cache = lab.AdapterCache(64, 8.0)
    adapters = [lora(make, f"t{i}") for i in range(10)]
    results = [cache.access(rng.choice(adapters)) for _ in range(500)]
    assert cache.hits == sum(r.hit for r in results)
    assert cache.misses == sum(not r.hit for r in results)
    assert len(cache.eviction_log) == sum(len(r.evicted) for r in results)
    assert cache.used_mb == pytest.approx(16.0 * len(cache))


class CacheAgainstModel(RuleBasedStateMachine):
    """Drive an AdapterCache with random accesses and compare it to a plain-list LRU model."""

    def __init__(self):
        super().__init__()
        self.lab = importlib.import_module(LAB_MODULE)  # a state machine takes no fixtures
        self.budget = 100.0
        self.cache = self.lab.AdapterCache(self.budget, 10.0)
        self.model = []  # (key, vram_mb), least recently used first
        self.log = []

    @rule(index=st.integers(0, 11), vram_mb=st.sampled_from([5.0, 10.0, 25.0, 40.0, 100.0, 120.0]))
    def access(self, index, vram_mb):
        adapter = self.lab.Adapter(f"t{index}-{int(vram_mb)}", "1.0.0", BASE, DIGEST, 8, vram_mb)
        key = adapter.key
        if vram_mb > self.budget:
            with pytest.raises(self.lab.AdapterTooLargeError):
                self.cache.access(adapter)
            return
        keys = [k for k, _ in self.model]
        result = self.cache.access(adapter)
        if key in keys:
            assert result.hit and result.evicted == () and result.load_ms == 0.0
            self.model.append(self.model.pop(keys.index(key)))
            return
        evicted = []
        while sum(size for _, size in self.model) + vram_mb > self.budget:
            evicted.append(self.model.pop(0)[0])
        self.model.append((key, vram_mb))
        self.log.extend(evicted)
        assert not result.hit and result.evicted == tuple(evicted)
        assert result.load_ms == pytest.approx(vram_mb / 10.0)

    @invariant()
    def matches_model_and_stays_in_budget(self):
        assert self.cache.used_mb <= self.cache.budget_mb
        assert self.cache.resident == [k for k, _ in self.model]
        assert self.cache.used_mb == pytest.approx(sum(size for _, size in self.model))
        assert self.cache.eviction_log == self.log


TestCacheAgainstModel = CacheAgainstModel.TestCase
#: 100 random runs of up to 50 accesses each, checked against the model after every access
TestCacheAgainstModel.settings = settings(max_examples=100, stateful_step_count=50)
