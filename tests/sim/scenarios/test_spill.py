"""Tests for labcore.sim.scenarios.spill: a host tier turns a storage fetch into a PCIe copy, for the same GPU pool."""

from __future__ import annotations

import pytest

from labcore.links import OBJECT_STORE, PCIE4_X16
from labcore.sim.scenarios.spill import SPILL, SPILL_TENANTS, SpillScenario, spill_pair, spill_runs


@pytest.fixture(scope="module")
def runs():
    return spill_runs()


def test_both_fleets_run_every_tenant_count_with_the_same_hits(runs):
    gpu_only, tiered = runs
    assert list(gpu_only) == list(tiered) == list(SPILL_TENANTS)
    for tenants in SPILL_TENANTS:
        assert gpu_only[tenants].hit_rate == tiered[tenants].hit_rate  # the GPU tier is the same LRU in both
        assert gpu_only[tenants].requests == SPILL.requests - SPILL.warmup


def test_the_host_tier_cuts_the_tail_until_it_overflows_too(runs):
    gpu_only, tiered = runs
    cold = 40.0 * 1.05 + OBJECT_STORE.transfer_ms(16.0) + PCIE4_X16.transfer_ms(16.0)
    warm = 40.0 * 1.05 + PCIE4_X16.transfer_ms(16.0)
    assert gpu_only[SPILL.gpu_adapters].p99_ms == tiered[SPILL.gpu_adapters].p99_ms == pytest.approx(42.0)
    assert gpu_only[SPILL.host_adapters].p99_ms == pytest.approx(cold)
    assert tiered[SPILL.host_adapters].p99_ms == pytest.approx(warm)
    assert tiered[max(SPILL_TENANTS)].p99_ms == pytest.approx(cold)  # more tenants than the host holds


def test_the_record_validates_and_reads_by_key():
    assert (SPILL["gpu_adapters"], SPILL["host_adapters"]) == (32, 96)
    with pytest.raises(ValueError, match="host_adapters must be a positive int, got 0"):
        SpillScenario(gpu_adapters=32, host_adapters=0, requests=10, seed=0, warmup=0)


def test_one_state_is_the_sweeps_run_and_is_kept(runs):
    gpu_only, tiered = runs
    assert spill_pair(64) == (gpu_only[64], tiered[64])
    assert spill_pair(64) is spill_pair(64)  # the panel, the chapter and the checks share one computation
    assert spill_pair(48, host_adapters=48)[1].p99_ms < 50 < spill_pair(64, host_adapters=48)[1].p99_ms


def test_the_gpu_only_run_is_shared_by_every_host_tier_size():
    """The host tier does not enter the GPU-only run, so the panel's host values reuse it."""
    small, large = spill_pair(64, host_adapters=48), spill_pair(64, host_adapters=192)
    assert small[0] is large[0]
    assert small[1] != large[1]
