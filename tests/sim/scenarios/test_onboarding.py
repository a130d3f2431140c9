"""Tests for labcore.sim.scenarios.onboarding: the customer #41 incident, its typed record and its runs."""

from __future__ import annotations

import dataclasses

import pytest

from labcore.sim.scenarios import onboarding
from labcore.sim.scenarios.onboarding import (
    ONBOARDING,
    ONBOARDING_TENANTS,
    OnboardingScenario,
    onboarding_runs,
    onboarding_timeline,
)


def test_the_record_is_frozen_typed_and_read_by_key_too():
    assert (ONBOARDING.pool_adapters, ONBOARDING["pool_adapters"]) == (40, 40)
    with pytest.raises(dataclasses.FrozenInstanceError):
        ONBOARDING.seed = 1  # type: ignore[misc]
    with pytest.raises(KeyError, match="'pool_size'.*pool_adapters"):
        ONBOARDING["pool_size"]
    with pytest.raises(ValueError, match="pool_adapters must be a positive int, got 0"):
        OnboardingScenario(tenants=41, pool_adapters=0, zipf_s=0.5, requests=10, rate_per_s=1.0, seed=1, warmup=0)
    assert ONBOARDING == OnboardingScenario(
        tenants=41, pool_adapters=40, zipf_s=0.5, requests=20_000, rate_per_s=200.0, seed=41, warmup=2_000
    )
    assert ONBOARDING.join_ms == 50_000.0


def test_the_join_makes_the_tail_worse_and_a_bigger_pool_absorbs_it():
    before, after = onboarding_timeline(requests=4_000).phases
    assert after.p99_ms > before.p99_ms and before.requests + after.requests == 4_000 - 1_000
    roomy = onboarding_timeline(requests=4_000, pool_adapters=ONBOARDING.tenants).phases[1]
    assert roomy.p99_ms < after.p99_ms


def test_the_steady_state_runs_cross_the_cliff_at_the_pool_size():
    runs = onboarding_runs()
    assert sorted(runs) == list(ONBOARDING_TENANTS)
    assert runs[40].misses == 0 and runs[41].misses > 0 and runs[48].hit_rate < runs[41].hit_rate


def test_the_trace_memo_is_bounded():
    assert onboarding._onboarding_trace.cache_info().maxsize == 2
