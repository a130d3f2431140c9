"""The course's one set of serving assumptions, and the split of one GPU between base weights, KV cache and adapters.

Every capacity number in the course comes from one :class:`ServingAssumptions` value: the model, the GPU, the
adapters' rank and target modules, the context length, the share of the GPU the engine may take, the tenants and
the engine's adapter slots. The plan command (``python -m labcore plan``), its fleet line, the fleet calculator and
the chapters build one by keyword and read every number from it:

* a GPU's memory is what its driver reports (:attr:`labcore.gpus.Gpu.usable_gib`; an H100 80GB shows
  81,559 MiB, about 79.6 GiB, not the spec sheet's decimal 80 GB), and the engine takes ``memory_fraction`` of it
  (0.9: the ``--gpu-memory-utilization`` the commands pass);
* a base model's weights are its parameter count times the bytes of its dtype
  (:func:`labcore.base_model.base_weights_gib`: Llama-3-8B in bf16 is 15.0 GiB);
* the engine's plan (:func:`labcore.engines.serving_plan`) allocates the LoRA slot buffers and gives the KV cache
  all that is left: :attr:`ServingAssumptions.sequences` is how many sequences of ``context_tokens`` it holds;
* dynamic LoRA costs a flat :data:`DYNAMIC_OVERHEAD` of 5% per request in every chapter that uses a flat rule
  (chapter 12 replaces it by a per-batch model fitted to Punica's timings and says so).

:data:`COURSE` is the engine's plan for the course's model and GPU (every module the engine supports, rank 16,
8,192-token sequences). The first chapters simplify, and :data:`TEACHING` says how, built from :data:`COURSE`
with two fields changed: adapters on ``q_proj`` and ``v_proj`` only, and a KV pool kept to ``kv_sequences``
sequences so that every tenant's adapter stays resident in what is left (an engine instead keeps a few adapter
slots on the GPU and the rest in host memory). :func:`memory_split` computes that split for any model and GPU;
:func:`kv_against_adapters` trades adapters against KV tokens, the real capacity decision.

>>> COURSE.sequences, TEACHING.sequences, TEACHING.target_modules
(56, 24, ('q_proj', 'v_proj'))
>>> s = memory_split()
>>> round(s.gpu_gib, 2), round(s.budget_gib, 2), round(s.base_gib, 2), s.kv_gib, round(s.pool_gib, 2)
(79.65, 71.68, 14.96, 24.0, 32.73)
>>> s.adapter_mb, s.adapters_that_fit, s.kv_tokens
(16.0, 2094, 196608)
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass
from typing import Any

from ._validate import choice, count, number, text
from .adapter import tenant_adapters
from .base_model import base_weights_gib
from .engines.adapters import AdapterLoading
from .engines.allocation import ALLOCATING_ENGINES, VLLM_ENGINE
from .engines.inputs import PlanInputs, memory_share
from .engines.plan import EnginePlan, plan_fleet, serving_plan
from .fleet import GPU_QPS, FleetPlan, fleet_plan
from .gpus import load_gpu
from .kv_cache import kv_bytes_per_sequence, kv_bytes_per_token
from .model_config import exact_adapter_mb, load_model_config
from .model_config.exact import TARGET_SETS
from .sizing import adapter_vram_mb

__all__ = [
    "ServingAssumptions",
    "COURSE",
    "TEACHING",
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

#: The flat per-request cost of serving an adapter dynamically (a fraction of the base latency and throughput).
DYNAMIC_OVERHEAD = 0.05
GIB = 2**30
#: The PEFT target modules an adapter on "every module the engine supports" carries (attention and MLP).
ALL_TARGETS: tuple[str, ...] = TARGET_SETS["all 7 (attention + MLP)"]


@functools.lru_cache(maxsize=256)
def _engine_plans(a: ServingAssumptions) -> tuple[EnginePlan, ...]:
    return a.engine_plans()


@dataclass(frozen=True, slots=True, kw_only=True)
class ServingAssumptions(PlanInputs):
    """Hold the inputs of every capacity number: a plan's inputs, the engine read, and the chapters' KV pool.

    The fields are :class:`labcore.engines.PlanInputs`' (checked there), forty tenants by default: ``target_modules``
    None means every module the engine supports; ``slots`` None as many as the tenants, at most eight
    (:data:`labcore.engines.DEFAULT_SLOTS`). ``kv_sequences`` None means the KV cache takes all the engine's
    plan leaves (:attr:`sequences` is then the plan's); a number keeps the KV pool to that many sequences and leaves
    the rest to resident adapters, the chapters' simplification (:data:`TEACHING`). Build one by keyword, or from
    another with :meth:`but`; it is itself the value :func:`labcore.engines.serving_plan` takes.

    >>> a = ServingAssumptions(model="llama-3.1-8b", gpu="H100-80GB", rank=16, context_tokens=8192)
    >>> a.sequences, round(a.plan.lora_mib, 1), a.modules
    (56, 704.6, 'every module vllm supports')
    >>> a.but(engine="sglang").sequences
    55
    """

    tenants: int = 40
    engine: str = VLLM_ENGINE
    kv_sequences: int | None = None

    def __post_init__(self) -> None:
        PlanInputs.__post_init__(self)  # the model, the GPU, the counts, the memory fraction, vLLM's ranks
        choice("engine", self.engine, ALLOCATING_ENGINES)
        if self.kv_sequences is not None:
            count("kv_sequences", self.kv_sequences, minimum=0)

    def but(self, **changes: Any) -> ServingAssumptions:
        """Return these assumptions with ``changes`` (field names as keywords), validated again."""
        return dataclasses.replace(self, **changes)

    def engine_plans(self, adapters: AdapterLoading | None = None) -> tuple[EnginePlan, ...]:
        """Return both engines' plans (vLLM, then SGLang), their commands loading ``adapters`` (default: static).

        The plans are :func:`labcore.engines.serving_plan`'s at exactly these assumptions.
        """
        return serving_plan(self, adapters=adapters)

    @property
    def plans(self) -> tuple[EnginePlan, ...]:
        """Return :meth:`engine_plans` with the default adapter loading (computed once per value)."""
        return _engine_plans(self)

    @property
    def plan(self) -> EnginePlan:
        """Return the plan of :attr:`engine`: its budget, weights, slot buffers and the KV cache they leave."""
        return next(p for p in self.plans if p.engine == self.engine)

    @property
    def sequences(self) -> int:
        """Return the KV cache's sequences of ``context_tokens``: ``kv_sequences``, or all the engine's plan leaves."""
        return self.plan.sequences if self.kv_sequences is None else self.kv_sequences

    @property
    def targets(self) -> tuple[str, ...]:
        """Return the PEFT target modules one tenant's adapter carries (every one for ``target_modules=None``)."""
        return ALL_TARGETS if self.target_modules is None else self.target_modules

    @property
    def modules(self) -> str:
        """Return the target modules as a chapter states them."""
        if self.target_modules is None:
            return f"every module {self.engine} supports"
        return ", ".join(self.target_modules)

    @property
    def adapter_mb(self) -> float:
        """Return one tenant's adapter in MiB, exactly from the model's config (GQA-aware), at ``dtype_bytes``."""
        return exact_adapter_mb(self.model, self.rank, self.targets, bytes=self.dtype_bytes)

    @property
    def square_adapter_mb(self) -> float:
        """Return one tenant's adapter by the lab's square formula (every projection hidden × hidden: chapter 2)."""
        cfg = load_model_config(self.model)
        return adapter_vram_mb(self.rank, cfg.hidden_size, cfg.num_hidden_layers, self.targets, bytes=self.dtype_bytes)

    def split(self, *, adapter_mb: float | None = None) -> MemorySplit:
        """Return the GPU split at these assumptions: the engine's budget, the base, :attr:`sequences` of KV, the rest.

        ``adapter_mb`` defaults to :attr:`adapter_mb` (the exact size).
        """
        return memory_split(
            self.model,
            self.gpu,
            sequences=self.sequences,
            context_tokens=self.context_tokens,
            adapter_mb=self.adapter_mb if adapter_mb is None else adapter_mb,
            memory_fraction=self.memory_fraction,
            dtype_bytes=self.dtype_bytes,
        )

    def fleet(self, *, tenant_qps: float = 0.5, gpu_qps: float = GPU_QPS, gpu_hourly_usd: float = 3.20) -> FleetPlan:
        """Price the fleet whose replicas each run :attr:`plan` (:func:`labcore.engines.plan_fleet`): the CLI's."""
        return plan_fleet(
            self.plan, tenants=self.tenants, tenant_qps=tenant_qps, gpu_qps=gpu_qps, gpu_hourly_usd=gpu_hourly_usd
        )


#: The engine's plan for the course's model and GPU: every supported module at rank 16, 8,192-token sequences.
COURSE = ServingAssumptions(model="llama-3-8b", gpu="H100-80GB", rank=16, context_tokens=8192, tenants=40)
#: Chapters 1 to 6's simplification of :data:`COURSE`: adapters on q and v only, a KV pool of 24 sequences, and
#: every tenant's adapter resident in what is left of the engine's budget.
TEACHING = COURSE.but(target_modules=("q_proj", "v_proj"), kv_sequences=24)
#: The base model the chapters serve, and the GPU they serve it on (:data:`COURSE`'s).
COURSE_MODEL = COURSE.model
COURSE_GPU = COURSE.gpu
#: The context length of every sequence (:data:`COURSE`'s), and the sequences the chapters' KV pool keeps.
COURSE_CONTEXT_TOKENS = COURSE.context_tokens
COURSE_SEQUENCES = TEACHING.sequences
#: The lab's adapter: :data:`TEACHING`'s, by the square formula (the exact, GQA-aware size is 13 MiB).
COURSE_ADAPTER_MB = TEACHING.square_adapter_mb


@dataclass(frozen=True, slots=True)
class MemorySplit:
    """One GPU split into the engine's budget, base weights, a KV-cache pool sized in tokens, and the adapter pool left.

    ``gpu_gib`` is what the driver reports, ``budget_gib`` the ``memory_fraction`` of it the engine may take.
    """

    model: str
    gpu: str
    gpu_gib: float
    base_gib: float
    kv_gib: float
    kv_tokens: int
    sequences: int
    context_tokens: int
    adapter_mb: float
    memory_fraction: float = 1.0

    @property
    def budget_gib(self) -> float:
        """Return the memory the engine may take: ``memory_fraction`` of what the driver reports."""
        return self.gpu_gib * self.memory_fraction

    @property
    def pool_gib(self) -> float:
        """Return the memory left for adapters (negative when the base and the KV cache do not fit the budget)."""
        return self.budget_gib - self.base_gib - self.kv_gib

    @property
    def fits(self) -> bool:
        """Tell whether the base and the KV-cache pool fit the budget with room left for at least one adapter."""
        return self.adapters_that_fit > 0

    @property
    def adapters_that_fit(self) -> int:
        """Return how many whole adapters of ``adapter_mb`` the pool holds."""
        return max(0, math.floor(self.pool_gib * 1024 / self.adapter_mb + 1e-9))

    @property
    def tokens_per_adapter(self) -> float:
        """Return how many tokens of KV cache one adapter's memory would hold instead."""
        return self.adapter_mb * 2**20 / (self.kv_gib * GIB / self.kv_tokens) if self.kv_tokens else math.inf

    def fleet_kwargs(self) -> dict[str, float]:
        """Return :func:`labcore.fleet.fleet_plan`'s GPU arguments for this split (budget, base, KV cache, in GiB)."""
        return {"gpu_vram_gb": self.budget_gib, "base_vram_gb": self.base_gib, "kv_cache_gb": self.kv_gib}


def memory_split(
    model: str = COURSE_MODEL,
    gpu: str = COURSE_GPU,
    *,
    sequences: int = COURSE_SEQUENCES,
    context_tokens: int = COURSE_CONTEXT_TOKENS,
    adapter_mb: float = COURSE_ADAPTER_MB,
    memory_fraction: float = TEACHING.memory_fraction,
    dtype_bytes: int = 2,
) -> MemorySplit:
    """Split ``gpu`` for ``model``: the engine's budget, its weights, a KV pool for ``sequences`` of ``context_tokens``.

    The defaults are :data:`TEACHING`'s (:meth:`ServingAssumptions.split` passes any other value's).

    >>> memory_split(sequences=48).adapters_that_fit      # twice the KV pool: 8.7 GiB left for adapters
    558
    >>> memory_split("llama-3.1-70b", "L4-24GB").fits
    False
    """
    text("model", model)
    count("sequences", sequences, minimum=0)
    count("context_tokens", context_tokens)
    number("adapter_mb", adapter_mb)
    memory_share(memory_fraction)
    card = load_gpu(gpu)
    kv_bytes = kv_bytes_per_sequence(model, context_tokens, dtype_bytes=dtype_bytes) * sequences
    return MemorySplit(
        model=model,
        gpu=card.name,
        gpu_gib=card.usable_gib,
        base_gib=base_weights_gib(model, dtype=_DTYPES[dtype_bytes]),
        kv_gib=kv_bytes / GIB,
        kv_tokens=sequences * context_tokens,
        sequences=sequences,
        context_tokens=context_tokens,
        adapter_mb=float(adapter_mb),
        memory_fraction=float(memory_fraction),
    )


_DTYPES = {2: "bf16", 4: "fp32", 1: "fp8"}


def kv_against_adapters(split: MemorySplit, adapters: int) -> int:
    """Return how many KV tokens are left in ``split``'s budget once ``adapters`` adapters are resident.

    >>> kv_against_adapters(memory_split(), 0) - kv_against_adapters(memory_split(), 1)   # one 16 MiB adapter
    128
    """
    count("adapters", adapters, minimum=0)
    free_bytes = (split.budget_gib - split.base_gib) * GIB - adapters * split.adapter_mb * 2**20
    return max(0, int(free_bytes // kv_bytes_per_token(split.model)))


def fleet_under_load(
    tenants: int = 40,
    gpu_hourly_usd: float = 3.20,
    adapter_vram_mb: float = COURSE_ADAPTER_MB,
    tenant_qps: float | None = 0.5,
    *,
    gpu_qps: float = GPU_QPS,
    assumptions: ServingAssumptions = TEACHING,
) -> FleetPlan:
    """Price ``tenants`` same-sized adapters, each sending ``tenant_qps`` requests/s, on GPUs that sustain ``gpu_qps``.

    Every GPU is split as ``assumptions`` say (:meth:`ServingAssumptions.split`: the chapters' :data:`TEACHING`);
    ``tenant_qps=None`` prices memory only.

    >>> p = fleet_under_load(tenant_qps=5)
    >>> p.multi_lora_gpus, p.savings_pct, p.binding_constraint
    (11, 72.5, 'load')
    """
    split = assumptions.split(adapter_mb=adapter_vram_mb)
    return fleet_plan(
        tenant_adapters(tenants, vram_mb=adapter_vram_mb),
        gpu_hourly_usd=gpu_hourly_usd,
        tenant_qps=tenant_qps,
        gpu_qps=None if tenant_qps is None else gpu_qps,
        **split.fleet_kwargs(),
    )


@dataclass(frozen=True, slots=True)
class FleetQuote:
    """A fleet priced on the engine's plan of one GPU, or none (``fleet is None``: the plan fits no sequence)."""

    assumptions: ServingAssumptions
    plan: EnginePlan
    fleet: FleetPlan | None

    @property
    def fits(self) -> bool:
        """Whether the weights, the slot buffers and one sequence fit one GPU of this kind."""
        return self.fleet is not None


def fleet_quote(
    assumptions: ServingAssumptions, *, tenant_qps: float = 0.5, gpu_hourly_usd: float = 3.20, gpu_qps: float = GPU_QPS
) -> FleetQuote:
    """Quote both fleets for ``assumptions``' tenants at the reader's load and price, as ``python -m labcore plan``.

    Every replica runs the engine's plan (:attr:`ServingAssumptions.plan`): the base, the slot buffers shared by
    all tenants (the rest wait in host memory) and the KV cache they leave; the load sizes the fleet.

    >>> q = fleet_quote(COURSE.but(model="llama-3.1-8b"))        # 40 tenants at 0.5 req/s, $3.20/hour
    >>> q.plan.sequences, q.fleet.multi_lora_gpus, q.fleet.savings_pct
    (56, 2, 95.0)
    >>> fleet_quote(COURSE.but(model="llama-3.3-70b", gpu="L4-24GB")).fits
    False
    """
    plan = assumptions.plan
    if not plan.fits:
        return FleetQuote(assumptions, plan, None)
    return FleetQuote(
        assumptions, plan, assumptions.fleet(tenant_qps=tenant_qps, gpu_qps=gpu_qps, gpu_hourly_usd=gpu_hourly_usd)
    )
