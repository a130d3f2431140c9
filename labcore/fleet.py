"""The fleet plan: what a dedicated GPU per tenant costs against one multi-LoRA fleet.

>>> from labcore.adapter import tenant_adapters
>>> plan = fleet_plan(tenant_adapters(40, vram_mb=16.0))      # 40 tenants on H100s at $3.20/hr
>>> plan.dedicated_gpus, plan.multi_lora_gpus, plan.dedicated_monthly_usd, plan.multi_lora_monthly_usd, plan.savings_pct
(40, 1, 93440.0, 2336.0, 97.5)

Memory alone says one GPU. Load can say otherwise: give per-tenant and per-GPU throughput and
the plan adds the replicas that traffic needs (the assumption that breaks the headline), with the
5% a dynamic request costs: 40 × 5 × 1.05 / 20 = 10.5, so 11 GPUs.

>>> fleet_plan(tenant_adapters(40, vram_mb=16.0), tenant_qps=5, gpu_qps=20).multi_lora_gpus
11
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ._validate import instance, number
from .adapter import Adapter
from .sizing import gib_to_mb

__all__ = ["FleetPlan", "fleet_plan", "GPU_QPS"]

#: Requests per second one GPU sustains on the base model: the course's one assumption for load.
GPU_QPS = 20.0


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
        return "load" if self.load_bound_gpus > self.memory_bound_gpus else "memory"


def fleet_plan(
    adapters: Sequence[Adapter],
    *,
    gpu_hourly_usd: float = 3.20,
    hours_per_month: float = 730,
    gpu_vram_gb: float = 81_559 / 1024,
    base_vram_gb: float = 8_030_261_248 * 2 / 2**30,
    kv_cache_gb: float = 24,
    tenant_qps: float | Sequence[float] | None = None,
    gpu_qps: float | None = None,
    dynamic_overhead: float = 0.05,
) -> FleetPlan:
    """Price one GPU per tenant against a shared base with hot-swapped adapters.

    Multi-LoRA GPUs = max(GPUs the dynamic adapters' VRAM needs, GPUs their load needs, 1)
    plus, for every merged adapter, its own dedicated replica(s). The shared base replica is
    kept even when every adapter is merged: it serves the requests that name no adapter. Spare VRAM per GPU is
    ``gpu_vram_gb - base_vram_gb - kv_cache_gb`` (all in GiB). With ``tenant_qps`` (one number for
    every tenant, or one per adapter) and ``gpu_qps`` (what one GPU sustains on the base), a
    tenant or a shared GPU may need more than one GPU; ``dynamic_overhead`` derates the shared GPUs.

    The defaults are the lab's round figures, the ones the learner's own ``fleet_plan`` has: a whole H100 80GB as
    its driver reports it (81,559 MiB, 79.6 GiB), Llama-3-8B's 8,030,261,248 parameters in bf16 (15.0 GiB), a
    KV-cache pool of 24 GiB (24 sequences of 8,192 tokens at 128 KiB a token), and 5% of dynamic overhead. The
    chapters pass the split of :mod:`labcore.capacity` instead (``**TEACHING.split().fleet_kwargs()``: the engine's
    0.9 share of the GPU), so their numbers come from the same assumptions as ``python -m labcore plan``.
    """
    adapters = list(adapters)
    if not adapters:
        raise ValueError("fleet_plan needs at least one adapter (one per tenant), got none")
    for adapter in adapters:
        instance("each of fleet_plan's adapters", adapter, Adapter)
    hourly = number("gpu_hourly_usd", gpu_hourly_usd, inclusive=True)
    hours = number("hours_per_month", hours_per_month, inclusive=True)
    number("gpu_vram_gb", gpu_vram_gb)
    number("base_vram_gb", base_vram_gb, inclusive=True)
    number("kv_cache_gb", kv_cache_gb, inclusive=True)
    overhead = number("dynamic_overhead", dynamic_overhead, inclusive=True)
    pool_mb = gib_to_mb(gpu_vram_gb - base_vram_gb - kv_cache_gb)
    if pool_mb <= 0:
        raise ValueError(
            f"no spare VRAM for adapters: gpu_vram_gb={gpu_vram_gb} - base_vram_gb={base_vram_gb} "
            f"- kv_cache_gb={kv_cache_gb} = {gpu_vram_gb - base_vram_gb - kv_cache_gb} GB"
        )

    qps = _per_tenant_qps(tenant_qps, len(adapters))
    if (qps is None) != (gpu_qps is None):
        raise ValueError(f"give tenant_qps and gpu_qps together (got tenant_qps={tenant_qps!r}, gpu_qps={gpu_qps!r})")
    per_gpu_qps = number("gpu_qps", gpu_qps) if gpu_qps is not None else None

    def gpus_for(load_qps: float, capacity_qps: float) -> int:
        return max(1, math.ceil(load_qps / capacity_qps - 1e-9))

    dedicated_gpus = 0
    merged_gpus = 0
    dynamic_mb = 0.0
    dynamic_qps = 0.0
    for index, adapter in enumerate(adapters):
        own = 1 if qps is None or per_gpu_qps is None else gpus_for(qps[index], per_gpu_qps)
        dedicated_gpus += own
        if adapter.merged:
            merged_gpus += own
        else:
            if adapter.vram_mb > pool_mb:
                raise ValueError(
                    f"adapter {adapter.key} ({adapter.vram_mb:g} MiB) is larger than one GPU's adapter pool "
                    f"({pool_mb:g} MiB); serve it merged or shrink the KV-cache pool"
                )
            dynamic_mb += adapter.vram_mb
            dynamic_qps += 0.0 if qps is None else qps[index]
    has_dynamic = any(not a.merged for a in adapters)
    memory_gpus = math.ceil(dynamic_mb / pool_mb - 1e-9) if has_dynamic else 0
    load_gpus = 0
    if qps is not None and per_gpu_qps is not None and has_dynamic:
        load_gpus = math.ceil(dynamic_qps * (1 + overhead) / per_gpu_qps - 1e-9)
    shared_gpus = max(memory_gpus, load_gpus, 1)
    multi_gpus = shared_gpus + merged_gpus

    month = hourly * hours
    dedicated_usd = round(dedicated_gpus * month, 2)
    multi_usd = round(multi_gpus * month, 2)
    savings = round(dedicated_usd - multi_usd, 2)
    pct = round(100.0 * savings / dedicated_usd, 6) if dedicated_usd else 0.0
    return FleetPlan(
        tenants=len(adapters),
        dedicated_gpus=dedicated_gpus,
        multi_lora_gpus=multi_gpus,
        dedicated_monthly_usd=dedicated_usd,
        multi_lora_monthly_usd=multi_usd,
        savings_usd=savings,
        savings_pct=pct,
        adapter_pool_mb_per_gpu=pool_mb,
        memory_bound_gpus=max(memory_gpus, 1 if has_dynamic else 0),
        load_bound_gpus=load_gpus,
        merged_gpus=merged_gpus,
    )


def _per_tenant_qps(tenant_qps: float | Sequence[float] | None, tenants: int) -> list[float] | None:
    if tenant_qps is None:
        return None
    if isinstance(tenant_qps, (int, float)):  # a bool too: number() refuses it by name
        return [number("tenant_qps", tenant_qps, inclusive=True)] * tenants
    values = list(tenant_qps)
    if len(values) != tenants:
        raise ValueError(
            f"tenant_qps has {len(values)} values for {tenants} adapters; give one per adapter or one number"
        )
    return [number(f"tenant_qps[{i}]", v, inclusive=True) for i, v in enumerate(values)]
