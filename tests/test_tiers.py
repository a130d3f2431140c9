"""Tests for labcore.tiers: the transfer model, the three load paths, spills, and both budgets."""

from __future__ import annotations

import math

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from labcore import Adapter, AdapterInUseError, AdapterTooLargeError
from labcore.links import NVME, PCIE4_X16
from labcore.refs import AdapterKey
from labcore.sim import Workload, make_trace, simulate, single_replica_router
from labcore.tiers import TieredCache, single_tier_cache

K = AdapterKey.parse  # a key from its text, as a client writes it


def lora(name: str, mb: float = 16.0) -> Adapter:
    return Adapter(name, "1.0.0", "llama-3-8b", "sha256:1", rank=16, vram_mb=mb)


def test_three_paths_cost_nothing_pcie_or_storage_plus_pcie():
    tiers = TieredCache(gpu_budget_mb=16, host_budget_mb=64, pcie=PCIE4_X16, storage=NVME)
    a, b = lora("a"), lora("b")
    cold = tiers.access(a)
    assert not cold.hit and math.isclose(cold.load_ms, NVME.transfer_ms(16) + PCIE4_X16.transfer_ms(16))
    assert tiers.access(a) == tiers.access(a) and tiers.access(a).load_ms == 0.0 and tiers.access(a).hit
    evicting = tiers.access(b)
    assert evicting.evicted == (K("a@1.0.0"),)
    back = tiers.access(a)  # spilled to host: pays only the PCIe copy
    assert math.isclose(back.load_ms, PCIE4_X16.transfer_ms(16))
    s = tiers.stats()
    assert (s.gpu_hits, s.host_hits, s.storage_loads, s.spills) == (4, 1, 2, 2)
    assert s.accesses == 7 == tiers.hits + tiers.misses


def test_gpu_evictions_are_spilled_into_the_host_tier():
    tiers = TieredCache(gpu_budget_mb=32, host_budget_mb=48)
    for name in "abcd":
        tiers.access(lora(name))
    assert tiers.resident == [K("c@1.0.0"), K("d@1.0.0")]
    assert tiers.eviction_log == [K("a@1.0.0"), K("b@1.0.0")]
    # The 48 MiB host tier keeps the spilled a and b; of the GPU-resident c and d only the newer
    # copy survives (c's copy is redundant while c is on the GPU, and would be re-spilled).
    assert tiers.host.resident == [K("a@1.0.0"), K("d@1.0.0"), K("b@1.0.0")]
    assert tiers.spills == 2
    assert tiers.access(lora("a")).load_ms == PCIE4_X16.transfer_ms(16)


def test_a_refused_access_changes_nothing_in_either_tier():
    tiers = TieredCache(gpu_budget_mb=16, host_budget_mb=64)
    tiers.access(lora("a"), pin=True)
    before = (tiers.gpu.resident, tiers.host.resident, repr(tiers), tiers.gpu.stats(), tiers.host.stats())
    with pytest.raises(AdapterInUseError):
        tiers.access(lora("b"))
    assert (tiers.gpu.resident, tiers.host.resident, repr(tiers), tiers.gpu.stats(), tiers.host.stats()) == before
    tiers.unpin(K("a@1.0.0"))
    assert tiers.access(lora("b")).evicted == (K("a@1.0.0"),)


def test_too_large_for_the_host_tier_is_refused_up_front():
    tiers = TieredCache(gpu_budget_mb=64, host_budget_mb=64)
    with pytest.raises(AdapterTooLargeError):
        tiers.access(lora("huge", mb=80))
    with pytest.raises(ValueError, match="host_budget_mb"):
        TieredCache(gpu_budget_mb=64, host_budget_mb=32)


def test_single_tier_cache_pays_storage_plus_pcie_on_every_miss():
    cache = single_tier_cache(32, storage=NVME, pcie=PCIE4_X16)
    assert math.isclose(cache.transfer_ms(lora("a")), NVME.transfer_ms(16) + PCIE4_X16.transfer_ms(16))


def test_the_router_drives_a_tiered_cache_and_the_host_tier_cuts_p99_under_churn():
    w = Workload(tenants=60, requests=20_000, zipf_s=0.4, seed=3)
    trace = make_trace(w)
    gpu_mb, host_mb = 30 * 16, 60 * 16
    single = simulate(lambda: single_replica_router(w, budget_mb=gpu_mb), trace, warmup=2_000)
    tiered = simulate(
        lambda: single_replica_router(w, budget_mb=gpu_mb, cache=TieredCache(gpu_mb, host_mb)), trace, warmup=2_000
    )
    assert single.misses == tiered.misses  # same GPU LRU, same misses ...
    assert tiered.p99_ms < single.p99_ms  # ... but a miss now costs a PCIe copy, not a fetch
    assert math.isclose(tiered.p99_ms, 42.0 + PCIE4_X16.transfer_ms(16))


class TieredCacheMachine(RuleBasedStateMachine):
    """Random accesses, pins and unpins: both budgets hold and every load pays the right path."""

    def __init__(self) -> None:
        super().__init__()
        self.tiers = TieredCache(gpu_budget_mb=48, host_budget_mb=96, pcie=PCIE4_X16, storage=NVME)
        self.pins: dict[str, int] = {}
        self.accesses = 0

    @rule(name=st.sampled_from("abcdefgh"), mb=st.sampled_from([8.0, 16.0, 24.0]), pin=st.booleans())
    def access(self, name, mb, pin):
        adapter = Adapter(name, "1.0.0", "llama-3-8b", "sha256:1", rank=16, vram_mb=mb)
        key = adapter.key
        if key in self.tiers.gpu and self.tiers.gpu._entries[key] != mb:
            return  # same key, other size: not a meaningful request
        on_gpu, on_host = key in self.tiers.gpu, key in self.tiers.host
        try:
            got = self.tiers.access(adapter, pin=pin)
        except AdapterInUseError:
            return
        self.accesses += 1
        if on_gpu:
            assert got.hit and got.load_ms == 0.0
        elif on_host:
            assert math.isclose(got.load_ms, PCIE4_X16.transfer_ms(mb))
        else:
            assert math.isclose(got.load_ms, NVME.transfer_ms(mb) + PCIE4_X16.transfer_ms(mb))
        assert not set(got.evicted) & set(self.pins)
        for victim in got.evicted:
            assert victim in self.tiers.host  # spilled
        if pin:
            self.pins[key] = self.pins.get(key, 0) + 1

    @precondition(lambda self: self.pins)
    @rule(data=st.data())
    def unpin(self, data):
        key = data.draw(st.sampled_from(sorted(self.pins)))
        self.tiers.unpin(key)
        self.pins[key] -= 1
        if not self.pins[key]:
            del self.pins[key]

    @invariant()
    def both_budgets_hold(self):
        for tier in (self.tiers.gpu, self.tiers.host):
            assert tier.used_mb <= tier.budget_mb + 1e-9
            assert math.isclose(tier.used_mb, sum(tier._entries.values()), abs_tol=1e-9)

    @invariant()
    def counters_add_up(self):
        s = self.tiers.stats()
        assert s.accesses == self.accesses == s.gpu.hits + s.gpu.misses
        assert s.gpu_hits == s.gpu.hits and s.host_hits + s.storage_loads == s.gpu.misses
        assert s.spills == s.gpu.evictions
        assert s.host.hits + s.host.misses == s.host_hits + s.storage_loads + s.spills

    @invariant()
    def pins_are_resident(self):
        for key, count in self.pins.items():
            assert key in self.tiers.gpu and self.tiers.pin_count(key) == count


TestTieredCacheMachine = TieredCacheMachine.TestCase
TestTieredCacheMachine.settings = settings(max_examples=60, stateful_step_count=40, deadline=None)
