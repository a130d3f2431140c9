"""The course's one set of capacity facts, and the split of one GPU between base weights, KV cache and adapters.

Every chapter, the cheat sheet, the fleet calculator and the capstone take their numbers from here:

* a GPU's memory is what its driver reports (:attr:`labcore.gpus.Gpu.usable_gib`; an H100 80GB shows
  81,559 MiB, about 79.6 GiB, not the spec sheet's decimal 80 GB);
* a base model's weights are its parameter count times the bytes of its dtype
  (:func:`labcore.base_model.base_weights_gib`: Llama-3-8B in bf16 is 15.0 GiB);
* the KV cache is sized in tokens from the model's config (:func:`labcore.kv_cache.kv_bytes_per_token`:
  128 KiB a token for Llama-3-8B), for a number of sequences at a context length: the course's default is
  24 sequences of 8,192 tokens, 24 GiB;
* dynamic LoRA costs a flat :data:`DYNAMIC_OVERHEAD` of 5% per request in every chapter that uses a flat rule
  (chapter 12 replaces it by a per-batch model fitted to Punica's timings and says so).

The adapter pool is what is left. :func:`memory_split` computes it for any model and GPU;
:func:`kv_against_adapters` trades adapters against KV tokens, the real capacity decision.

>>> s = memory_split()
>>> round(s.gpu_gib, 2), round(s.base_gib, 2), s.kv_gib, round(s.pool_gib, 2), s.adapters_that_fit
(79.65, 14.96, 24.0, 40.69, 2604)
>>> s.adapter_mb, s.kv_tokens
(16.0, 196608)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from .adapter import tenant_adapters
from .base_model import base_weights_gib
from .fleet import GPU_QPS, FleetPlan, fleet_plan
from .gpus import load_gpu
from .kv_cache import kv_bytes_per_sequence, kv_bytes_per_token
from .model_config import exact_adapter_mb
from .sizing import adapter_vram_mb
from ._validate import count, number, text

__all__ = [
    "COURSE_MODEL",
    "COURSE_GPU",
    "COURSE_CONTEXT_TOKENS",
    "COURSE_SEQUENCES",
    "COURSE_ADAPTER_MB",
    "DYNAMIC_OVERHEAD",
    "GIB",
    "MemorySplit",
    "memory_split",
    "kv_against_adapters",
    "FleetQuote",
    "fleet_quote",
    "fleet_under_load",
]

#: The base model the chapters serve, and the GPU they serve it on.
COURSE_MODEL = "llama-3-8b"
COURSE_GPU = "H100-80GB"
#: The KV-cache pool the chapters keep: this many sequences at this context length (24 GiB for Llama-3-8B in bf16).
COURSE_CONTEXT_TOKENS = 8192
COURSE_SEQUENCES = 24
#: The lab's adapter: Llama-3-8B at rank 16 on q and v, by the square formula (the exact, GQA-aware size is 13 MiB).
COURSE_ADAPTER_MB = adapter_vram_mb(16, 4096, 32, ["q_proj", "v_proj"])
#: The flat per-request cost of serving an adapter dynamically (a fraction of the base latency and throughput).
DYNAMIC_OVERHEAD = 0.05
GIB = 2**30


@dataclass(frozen=True, slots=True)
class MemorySplit:
    """One GPU split into base weights, a KV-cache pool sized in tokens, and the adapter pool that is left."""

    model: str
    gpu: str
    gpu_gib: float
    base_gib: float
    kv_gib: float
    kv_tokens: int
    sequences: int
    context_tokens: int
    adapter_mb: float

    @property
    def pool_gib(self) -> float:
        """Return the memory left for adapters (negative when the base and the KV cache do not fit)."""
        return self.gpu_gib - self.base_gib - self.kv_gib

    @property
    def fits(self) -> bool:
        """Tell whether the base and the KV-cache pool fit on the GPU with room left for at least one adapter."""
        return self.adapters_that_fit > 0

    @property
    def adapters_that_fit(self) -> int:
        """Return how many whole adapters of ``adapter_mb`` the pool holds."""
        return max(0, math.floor(self.pool_gib * 1024 / self.adapter_mb + 1e-9))

    @property
    def tokens_per_adapter(self) -> float:
        """Return how many tokens of KV cache one adapter's memory would hold instead."""
        return self.adapter_mb * 2**20 / (self.kv_gib * GIB / self.kv_tokens) if self.kv_tokens else math.inf


def memory_split(model: str = COURSE_MODEL, gpu: str = COURSE_GPU, *, sequences: int = COURSE_SEQUENCES,
                 context_tokens: int = COURSE_CONTEXT_TOKENS, adapter_mb: float = COURSE_ADAPTER_MB,
                 dtype: str = "bf16") -> MemorySplit:
    """Split ``gpu`` for ``model``: its weights, a KV-cache pool for ``sequences`` of ``context_tokens``, the rest.

    >>> memory_split(sequences=48).adapters_that_fit      # twice the KV pool: 16.7 GiB left for adapters
    1068
    >>> memory_split("llama-3.1-70b", "L4-24GB").fits
    False
    """
    text("model", model)
    count("sequences", sequences, minimum=0)
    count("context_tokens", context_tokens)
    number("adapter_mb", adapter_mb)
    card = load_gpu(gpu)
    kv_bytes = kv_bytes_per_sequence(model, context_tokens) * sequences
    return MemorySplit(model, card.name, card.usable_gib, base_weights_gib(model, dtype=dtype), kv_bytes / GIB,
                       sequences * context_tokens, sequences, context_tokens, float(adapter_mb))


def kv_against_adapters(split: MemorySplit, adapters: int) -> int:
    """Return how many KV tokens are left on ``split``'s GPU once ``adapters`` adapters are resident.

    >>> kv_against_adapters(memory_split(), 0) - kv_against_adapters(memory_split(), 1)   # one 16 MiB adapter
    128
    """
    count("adapters", adapters, minimum=0)
    free_bytes = (split.gpu_gib - split.base_gib) * GIB - adapters * split.adapter_mb * 2**20
    return max(0, int(free_bytes // kv_bytes_per_token(split.model)))


def fleet_under_load(tenants: int = 40, gpu_hourly_usd: float = 3.20, adapter_vram_mb: float = COURSE_ADAPTER_MB,
                     tenant_qps: float | None = 0.5, *, gpu_qps: float = GPU_QPS) -> FleetPlan:
    """Price ``tenants`` same-sized adapters, each sending ``tenant_qps`` requests/s, on GPUs that sustain ``gpu_qps``.

    The GPU split is the course's (:func:`fleet_plan`'s defaults); ``tenant_qps=None`` prices memory only.

    >>> p = fleet_under_load(tenant_qps=5)
    >>> p.multi_lora_gpus, p.savings_pct, p.binding_constraint
    (11, 72.5, 'load')
    """
    return fleet_plan(tenant_adapters(tenants, vram_mb=adapter_vram_mb), gpu_hourly_usd=gpu_hourly_usd,
                      tenant_qps=tenant_qps, gpu_qps=None if tenant_qps is None else gpu_qps)


@dataclass(frozen=True, slots=True)
class FleetQuote:
    """A fleet plan for a real model on a real GPU (its memory split, the exact adapter), or none (``plan is None``)."""

    split: MemorySplit
    plan: FleetPlan | None

    @property
    def fits(self) -> bool:
        """Whether the base and its KV-cache pool fit on one GPU of this kind, with room for an adapter."""
        return self.plan is not None


def fleet_quote(model: str = "llama-3.1-8b", gpu: str = COURSE_GPU, *, tenants: int = 40, tenant_qps: float = 0.5,
                gpu_hourly_usd: float = 3.20, gpu_qps: float = GPU_QPS, rank: int = 16,
                targets: Sequence[str] = ("q_proj", "v_proj"), dtype: str = "bf16",
                sequences: int = COURSE_SEQUENCES, context_tokens: int = COURSE_CONTEXT_TOKENS) -> FleetQuote:
    """Quote both fleets for ``tenants`` adapters of ``model`` on ``gpu`` at the reader's load and price.

    Every GPU holds the base (at ``dtype``), a KV-cache pool for ``sequences`` of ``context_tokens`` sized from the
    model's config, and exact-size adapters in what is left (:func:`memory_split`).

    >>> q = fleet_quote()                       # Llama-3.1-8B on H100s, 40 tenants at 0.5 req/s, $3.20/hour
    >>> round(q.split.base_gib, 1), q.split.adapter_mb, q.plan.multi_lora_gpus, q.plan.savings_pct
    (15.0, 13.0, 2, 95.0)
    >>> fleet_quote("llama-3.3-70b", "L4-24GB").fits
    False
    """
    split = memory_split(model, gpu, sequences=sequences, context_tokens=context_tokens,
                         adapter_mb=exact_adapter_mb(model, rank, targets), dtype=dtype)
    if not split.fits:
        return FleetQuote(split, None)
    plan = fleet_plan(tenant_adapters(tenants, vram_mb=split.adapter_mb), gpu_hourly_usd=gpu_hourly_usd,
                      gpu_vram_gb=split.gpu_gib, base_vram_gb=split.base_gib, kv_cache_gb=split.kv_gib,
                      tenant_qps=tenant_qps, gpu_qps=gpu_qps)
    return FleetQuote(split, plan)
