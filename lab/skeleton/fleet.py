# Generated from labcore/fleet.py by scripts/make_skeleton.py. Do not edit this copy:
# cp -r lab/skeleton lab/mine, fill in every TODO(lab), then LAB_MODULE=lab.mine pytest tests/contract

"""The fleet plan: what a dedicated GPU per tenant costs against one multi-LoRA fleet.

>>> from labcore.adapter import tenant_adapters
>>> plan = fleet_plan(tenant_adapters(40, vram_mb=16.0))      # 40 tenants on H100s at $3.20/hr
>>> plan.dedicated_gpus, plan.multi_lora_gpus, plan.dedicated_monthly_usd, plan.multi_lora_monthly_usd, plan.savings_pct
(40, 1, 93440.0, 2336.0, 97.5)

Memory alone says one GPU. Load can say otherwise: give per-tenant and per-GPU throughput and
the plan adds the replicas that traffic needs (the assumption that breaks the headline).

>>> fleet_plan(tenant_adapters(40, vram_mb=16.0), tenant_qps=5, gpu_qps=20).multi_lora_gpus
10
"""
from __future__ import annotations
import math
from collections.abc import Sequence
from dataclasses import dataclass
from .adapter import Adapter
from .sizing import gib_to_mb
from ._validate import number
__all__ = ['FleetPlan', 'fleet_plan']

@dataclass(frozen=True, slots=True)
class FleetPlan:
    """Dedicated-per-tenant against multi-LoRA: GPUs, monthly bills and savings, with the reasons."""
    tenants: int
    dedicated_gpus: int
    multi_lora_gpus: int
    dedicated_monthly_usd: float
    multi_lora_monthly_usd: float
    savings_usd: float
    savings_pct: float
    adapter_pool_mb_per_gpu: float = 0.0
    memory_bound_gpus: int = 0
    load_bound_gpus: int = 0
    merged_gpus: int = 0

    @property
    def binding_constraint(self) -> str:
        """Which limit sized the shared (dynamic) part of the fleet: ``"memory"`` or ``"load"``."""
        raise NotImplementedError('TODO(lab): implement fleet.FleetPlan.binding_constraint: Which limit sized the shared (dynamic) part of the fleet: ``"memory"`` or ``"load"``.')

def fleet_plan(adapters: Sequence[Adapter], *, gpu_hourly_usd: float=3.2, hours_per_month: float=730, gpu_vram_gb: float=80, base_vram_gb: float=16, kv_cache_gb: float=24, tenant_qps: float | Sequence[float] | None=None, gpu_qps: float | None=None, dynamic_overhead: float=0.0) -> FleetPlan:
    """Price one GPU per tenant against a shared base with hot-swapped adapters.

    Multi-LoRA GPUs = max(GPUs the dynamic adapters' VRAM needs, GPUs their load needs, 1)
    plus, for every merged adapter, its own dedicated replica(s). The shared base replica is
    kept even when every adapter is merged: it serves the requests that name no adapter. Spare VRAM per GPU is
    ``gpu_vram_gb - base_vram_gb - kv_cache_gb`` (GB = GiB). With ``tenant_qps`` (one number for
    every tenant, or one per adapter) and ``gpu_qps`` (what one GPU sustains on the base), a
    tenant or a shared GPU may need more than one GPU; ``dynamic_overhead`` derates the shared GPUs.
    """
    raise NotImplementedError('TODO(lab): implement fleet.fleet_plan: Price one GPU per tenant against a shared base with hot-swapped adapters.')
