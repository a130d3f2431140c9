"""Tests for labcore.quizzes.tiers: chapter 9's quiz says what the spill tier and the transfer table do."""

from __future__ import annotations

import pytest

from labcore.links import OBJECT_STORE
from labcore.quizzes import tiers_quiz
from labcore.sim import SPILL, tenant_sweep
from labcore.tiers import TieredCache

from ._helpers import assert_chapter_shape, right


def test_the_quiz_has_the_chapter_shape():
    assert_chapter_shape(tiers_quiz())


@pytest.fixture(scope="module")
def churn():
    """Chapter 9's runs at 64 and 128 tenants, GPU-only and with the host tier."""
    gpu_mb, host_mb = 16.0 * SPILL.gpu_adapters, 16.0 * SPILL.host_adapters
    common = dict(budget_mb=gpu_mb, requests=SPILL.requests, seed=SPILL.seed, warmup=SPILL.warmup)
    gpu_only = tenant_sweep([64], **common)
    tiered = tenant_sweep([64, 128], cache_factory=lambda: TieredCache(gpu_mb, host_mb), **common)
    return gpu_only, tiered


def test_the_host_tier_changes_the_price_of_a_miss_not_the_hit_rate(churn):
    gpu_only, tiered = churn
    assert gpu_only[64].misses == tiered[64].misses and gpu_only[64].hit_rate == tiered[64].hit_rate
    assert tiered[64].p99_ms < gpu_only[64].p99_ms
    assert right(tiers_quiz().questions[0]).text == "What a GPU miss costs"


def test_the_first_byte_is_most_of_a_small_fetch():
    q = tiers_quiz().questions[1]
    fetch_ms = 50.0 + 16 * 2**20 / 1e9 * 1000  # 50 ms, then 16 MiB at 1 GB/s
    assert OBJECT_STORE.transfer_ms(16.0) == pytest.approx(fetch_ms)
    assert q.answer == pytest.approx(100 * 50.0 / fetch_ms)


def test_the_cliff_comes_back_when_the_working_set_outgrows_the_host_tier(churn):
    _, tiered = churn
    assert 128 > SPILL.host_adapters and tiered[128].p99_ms > 2 * tiered[64].p99_ms
    assert right(tiers_quiz().questions[2]).text == "A working set larger than the host tier too"
