"""labcore.fleet beyond the contract: load can force replicas, and the plan says which limit bound it."""

import pytest

from labcore import fleet_plan, tenant_adapters


def test_load_forces_replicas_and_shrinks_the_savings():
    memory_only = fleet_plan(tenant_adapters(40))
    loaded = fleet_plan(tenant_adapters(40), tenant_qps=5, gpu_qps=20)
    assert memory_only.binding_constraint == "memory" and loaded.binding_constraint == "load"
    # 40 x 5 req/s with the 5% dynamic overhead = 210 req/s on 20 req/s GPUs: 10.5, so 11
    assert loaded.multi_lora_gpus == 11 and loaded.dedicated_gpus == 40
    assert loaded.savings_pct == pytest.approx(72.5) and loaded.savings_pct < memory_only.savings_pct


def test_the_overhead_is_charged_only_where_load_sizes_the_fleet():
    quiet = fleet_plan(tenant_adapters(40), tenant_qps=0.25, gpu_qps=20)  # 10.5 req/s: one GPU either way
    assert quiet.multi_lora_gpus == 1 and quiet.savings_pct == fleet_plan(tenant_adapters(40)).savings_pct
    bare = fleet_plan(tenant_adapters(40), tenant_qps=5, gpu_qps=20, dynamic_overhead=0.0)
    assert bare.multi_lora_gpus == 10 and bare.savings_pct == pytest.approx(75.0)


def test_a_fleet_of_full_tenants_costs_more_shared_than_dedicated():
    full = fleet_plan(tenant_adapters(40), tenant_qps=20, gpu_qps=20)  # every dedicated GPU is busy
    assert (full.dedicated_gpus, full.multi_lora_gpus) == (40, 42) and full.savings_pct == pytest.approx(-5.0)


def test_a_tenant_busier_than_one_gpu_needs_several_dedicated_gpus():
    plan = fleet_plan(tenant_adapters(2), tenant_qps=[50, 1], gpu_qps=20)
    assert plan.dedicated_gpus == 3 + 1
    assert plan.multi_lora_gpus == 3  # 51 qps on shared GPUs of 20 qps


def test_dynamic_overhead_derates_shared_gpus():
    assert fleet_plan(tenant_adapters(40), tenant_qps=5, gpu_qps=20, dynamic_overhead=0.1).multi_lora_gpus == 11


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(tenant_qps=5), "together"),
        (dict(tenant_qps=[1, 2], gpu_qps=10), "one per adapter"),
        (dict(tenant_qps=-1, gpu_qps=10), "tenant_qps"),
        (dict(tenant_qps=1, gpu_qps=0), "gpu_qps"),
    ],
)
def test_bad_load_inputs_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        fleet_plan(tenant_adapters(3), **kwargs)


def test_empty_fleet_and_oversized_adapter_are_refused():
    with pytest.raises(ValueError, match="at least one"):
        fleet_plan([])
    with pytest.raises(ValueError, match="larger than one GPU"):
        fleet_plan(tenant_adapters(1, vram_mb=50_000.0))
