"""Contract: fleet_plan prices one GPU per tenant against a shared multi-LoRA fleet."""

import pytest

from .conftest import BASE, DIGEST


def tenants(lab, n, vram_mb=16.0, merged=0):
    return [lab.Adapter(f"t{i}", "1.0.0", BASE, DIGEST, 16, vram_mb, i < merged) for i in range(n)]


def test_fleet_plan_headline_40_tenants(lab):
    plan = lab.fleet_plan(tenants(lab, 40))
    assert (plan.tenants, plan.dedicated_gpus, plan.multi_lora_gpus) == (40, 40, 1)
    assert plan.dedicated_monthly_usd == pytest.approx(93_440)
    assert plan.multi_lora_monthly_usd == pytest.approx(2_336)
    assert plan.savings_usd == pytest.approx(91_104)
    assert plan.savings_pct == pytest.approx(97.5)


def test_fleet_plan_gives_each_merged_adapter_its_own_gpu(lab):
    plan = lab.fleet_plan(tenants(lab, 10, merged=3))
    assert (plan.dedicated_gpus, plan.multi_lora_gpus) == (10, 1 + 3)


def test_fleet_plan_adds_gpus_when_adapters_outgrow_the_spare_vram(lab):
    # 80 - 16 - 24 = 40 GiB spare per GPU; 100 adapters of 1 GiB need 3 GPUs.
    plan = lab.fleet_plan(tenants(lab, 100, vram_mb=1024.0))
    assert plan.multi_lora_gpus == 3


def test_fleet_plan_needs_at_least_one_gpu(lab):
    assert lab.fleet_plan(tenants(lab, 1, vram_mb=1.0)).multi_lora_gpus == 1


def test_fleet_plan_respects_prices_and_hours(lab):
    plan = lab.fleet_plan(tenants(lab, 4), gpu_hourly_usd=2.0, hours_per_month=100)
    assert (plan.dedicated_monthly_usd, plan.multi_lora_monthly_usd) == (800.0, 200.0)
    assert plan.savings_usd == 600.0 and plan.savings_pct == pytest.approx(75.0)


def test_fleet_plan_spare_memory_follows_kv_cache(lab):
    # A bigger KV-cache pool leaves less room for adapters: 80 - 16 - 60 = 4 GiB spare.
    plan = lab.fleet_plan(tenants(lab, 10, vram_mb=1024.0), kv_cache_gb=60)
    assert plan.multi_lora_gpus == 3


@pytest.mark.parametrize("kwargs", [dict(gpu_hourly_usd=-1), dict(gpu_vram_gb=0), dict(kv_cache_gb=70)])
def test_fleet_plan_rejects_impossible_inputs(lab, kwargs):
    with pytest.raises(ValueError):
        lab.fleet_plan(tenants(lab, 4), **kwargs)
