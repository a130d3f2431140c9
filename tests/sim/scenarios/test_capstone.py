"""Tests for labcore.sim.scenarios.capstone: one customer's day on one replica, cold loads from the object store."""

from __future__ import annotations

import dataclasses

import pytest

from labcore.sim.scenarios.capstone import CAPSTONE, CapstoneScenario, capstone_day


def test_a_pool_that_holds_every_tenant_misses_once_each():
    day = capstone_day(adapter_mb=13.0, budget_mb=13.0 * CAPSTONE.tenants)
    assert (day.requests, day.misses, day.evictions, day.p99_ms) == (CAPSTONE.requests, CAPSTONE.tenants, 0, 42.0)


def test_a_pool_of_half_the_tenants_thrashes():
    day = capstone_day(adapter_mb=13.0, budget_mb=13.0 * CAPSTONE.tenants / 2)
    assert day.misses > 10 * CAPSTONE.tenants and day.p99_ms > 100.0


def test_the_record_derives_its_rate_and_keeps_its_targets_a_tuple():
    assert CAPSTONE.rate_per_s == CAPSTONE.tenants * CAPSTONE.tenant_qps == 20.0
    listed = dataclasses.replace(CAPSTONE, targets=["q_proj"])
    assert listed.targets == ("q_proj",) and listed["targets"] == ("q_proj",)
    with pytest.raises(ValueError, match="rank must be a positive int, got 0"):
        dataclasses.replace(CAPSTONE, rank=0)
    assert isinstance(CAPSTONE, CapstoneScenario)


# -- the design exercise (16.1) ---------------------------------------------------------------------------

from labcore.capacity import DYNAMIC_OVERHEAD, memory_split  # noqa: E402
from labcore.sim.scenarios.capstone import (  # noqa: E402
    CAPSTONE_DESIGN,
    CONSTRAINTS,
    CapstoneDesign,
    DesignScenario,
    TenantClass,
    evaluate_design,
)

RIGHT = {"sequences": 24, "flagship": "merged", "quiet": "dynamic", "replicas": 1}


def test_the_right_design_holds_at_the_course_facts():
    r = evaluate_design(RIGHT)
    split = memory_split(sequences=24, adapter_mb=13.0)
    assert r.holds and r.failures == () and r.gpus == 2 and r.merged_gpus == 1
    assert r.monthly_usd == 2 * 3.20 * 730 <= CAPSTONE_DESIGN.budget_usd
    assert r.p99_ms == 40.0 * (1 + DYNAMIC_OVERHEAD) <= CAPSTONE_DESIGN.p99_target_ms
    assert r.adapters_that_fit == split.adapters_that_fit and r.sequences_needed == 20  # 19.5 req/s x 1 s


@pytest.mark.parametrize(
    ("design", "failed"),
    [
        ({"flagship": "dynamic", "quiet": "dynamic", "replicas": 2}, ("load",)),  # 38.5 x 1.05 > 40
        ({"flagship": "dynamic", "quiet": "dynamic", "replicas": 3}, ("budget",)),
        ({"flagship": "merged", "quiet": "merged", "replicas": 0}, ("budget",)),
        ({"sequences": 56}, ("memory", "p99")),  # the pool holds 57 of 95 adapters
        ({"sequences": 57}, ("memory",)),  # base + KV exceed the engine's 0.9
        ({"sequences": 12}, ("load",)),  # Little's law: 20 sequences needed
        ({"replicas": 0}, ("load",)),
        ({"replicas": 2}, ("budget",)),
    ],
)
def test_each_wrong_design_fails_on_its_constraint(design, failed):
    r = evaluate_design(RIGHT | design)
    assert r.failed == failed and not r.holds
    assert list(r.failed) == sorted(r.failed, key=CONSTRAINTS.index)
    assert all(why for _, why in r.failures)


def test_designs_are_read_and_checked():
    d = CapstoneDesign.of(RIGHT)
    assert d.mode("flagship") == "merged" and CapstoneDesign.of(d) is d
    with pytest.raises(ValueError, match=r"the design needs \['replicas'\]"):
        CapstoneDesign.of({"sequences": 24, "flagship": "merged", "quiet": "dynamic"})
    with pytest.raises(ValueError, match="quiet's mode must be one of"):
        CapstoneDesign.of(RIGHT | {"quiet": "both"})
    with pytest.raises(ValueError, match="a design is a dict"):
        CapstoneDesign.of([24, "merged"])
    with pytest.raises(ValueError, match="names must be one or more distinct values"):
        DesignScenario(
            model="llama-3-8b",
            gpu="H100-80GB",
            gpu_hourly_usd=3.2,
            classes=(TenantClass(name="a", tenants=1, qps=1.0, rank=16, targets=("q_proj",)),) * 2,
            p99_target_ms=50,
            budget_usd=5000,
        )
    assert CAPSTONE_DESIGN.cls("quiet").total_qps == 19.0 and CAPSTONE_DESIGN["budget_usd"] == 5000.0
    with pytest.raises(KeyError, match="no tenant class 'vip'"):
        CAPSTONE_DESIGN.cls("vip")


def test_the_p99_comes_from_the_simulator_and_a_small_pool_thrashes():
    squeezed = evaluate_design(RIGHT | {"sequences": 55})  # the last KV pool that still holds the 95 adapters
    assert squeezed.holds and squeezed.adapters_that_fit >= 95
    thrash = evaluate_design(RIGHT | {"sequences": 56})
    assert thrash.p99_ms > 100 and thrash.shared_needed_memory == 2
