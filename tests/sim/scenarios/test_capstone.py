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
