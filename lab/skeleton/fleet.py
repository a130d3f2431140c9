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
from ._validate import instance, number
__all__ = ['FleetPlan', 'FleetQuote', 'fleet_plan', 'fleet_quote', 'fleet_under_load', 'GPU_QPS', 'KV_CACHE_FRACTION']
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

def fleet_under_load(tenants: int=40, gpu_hourly_usd: float=3.2, adapter_vram_mb: float=16.0, tenant_qps: float | None=0.5, *, gpu_qps: float=GPU_QPS) -> FleetPlan:
    """Price ``tenants`` same-sized adapters, each sending ``tenant_qps`` requests/s, on GPUs that sustain ``gpu_qps``.

    ``tenant_qps=None`` prices memory only (the lab's original plan).

    >>> p = fleet_under_load(tenant_qps=5)
    >>> p.multi_lora_gpus, p.savings_pct, p.binding_constraint
    (10, 75.0, 'load')
    """
    raise NotImplementedError('TODO(lab): implement fleet.fleet_under_load: Price ``tenants`` same-sized adapters, each sending ``tenant_qps`` requests/s, on GPUs that sustain ``gpu_qps``.')
KV_CACHE_FRACTION = 0.3

@dataclass(frozen=True, slots=True)
class FleetQuote:
    """A fleet plan for a real model on a real GPU, or the reason there is none (``plan is None``).

    ``base_gib`` is the base model's weights at ``dtype`` (derived from its config, see
    :mod:`labcore.base_model`); ``kv_cache_gib`` the KV-cache pool kept on every GPU; ``adapter_mb``
    the exact size of one tenant's adapter (GQA-aware, bf16).
    """
    model: str
    gpu: str
    gpu_gib: float
    base_gib: float
    kv_cache_gib: float
    adapter_mb: float
    plan: FleetPlan | None

    @property
    def fits(self) -> bool:
        """Whether the base and its KV cache fit on one GPU of this kind."""
        raise NotImplementedError('TODO(lab): implement fleet.FleetQuote.fits: Whether the base and its KV cache fit on one GPU of this kind.')

def fleet_quote(model: str='llama-3.1-8b', gpu: str='H100-80GB', *, tenants: int=40, tenant_qps: float=0.5, gpu_hourly_usd: float=3.2, gpu_qps: float=GPU_QPS, rank: int=16, targets: Sequence[str]=('q_proj', 'v_proj'), dtype: str='bf16', kv_cache_fraction: float=KV_CACHE_FRACTION) -> FleetQuote:
    """Quote both fleets for ``tenants`` adapters of ``model`` on ``gpu`` at the reader's load and price.

    Every GPU holds the base (at ``dtype``), a KV-cache pool of ``kv_cache_fraction`` of its memory,
    and adapters in what is left. The GPU's stated memory is read as decimal GB and converted to GiB.

    >>> q = fleet_quote()                       # Llama-3.1-8B on H100s, 40 tenants at 0.5 req/s, $3.20/hour
    >>> round(q.base_gib, 1), q.adapter_mb, q.plan.multi_lora_gpus, q.plan.savings_pct
    (15.0, 13.0, 1, 97.5)
    >>> fleet_quote("llama-3.3-70b", "L4-24GB").fits
    False
    """
    raise NotImplementedError("TODO(lab): implement fleet.fleet_quote: Quote both fleets for ``tenants`` adapters of ``model`` on ``gpu`` at the reader's load and price.")
