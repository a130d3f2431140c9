"""Plan one GPU for a multi-LoRA deployment, per engine: weights, slot buffers, the KV cache left, and what fits.

The budget is the engine's share (``memory_fraction``) of the memory the driver reports
(:attr:`labcore.gpus.Gpu.usable_mib`). From it come the base model's weights (split evenly over ``tp``
GPUs), the LoRA buffers the engine preallocates (:func:`~labcore.engines.allocation.lora_slot_bytes`);
what is left holds the KV cache: vLLM's sequences as it reserves them (whole blocks, sliding windows widened
by the tokens in flight: :mod:`labcore.engines.kv`), SGLang's at each layer's window (:mod:`labcore.kv_cache`).
Activations, CUDA graphs and the
framework's own overhead are not counted, so real engines leave somewhat less. A plan that leaves no
room for one sequence carries no command: :func:`fit_options` says what would fit instead.

>>> vllm, sglang = serving_plan("llama-3.1-8b", "H100-80GB", tenants=40, rank=16, context_tokens=8192)
>>> round(vllm.lora_mib, 1), vllm.sequences, sglang.sequences
(704.6, 56, 55)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from .._validate import between, count, number
from ..adapter import tenant_adapters
from ..base_model import base_params
from ..fleet import GPU_QPS, FleetPlan, fleet_plan
from ..gpus import known_gpus, load_gpu
from .adapters import AdapterLoading
from .allocation import SGLANG_ENGINE, VLLM_ENGINE, VLLM_MAX_LORA_RANKS, lora_slot_bytes
from .kv import vllm_kv_bytes_per_sequence
from .launch import (
    DEFAULT_SLOTS,
    MIB,
    LaunchCommand,
    kv_bytes_per_gpu,
    launch_commands,
    model_inputs,
    served_name,
    vllm_rank,
)

__all__ = ["EnginePlan", "PlanInputs", "serving_plan", "fit_options", "plan_fleet", "TP_CHOICES"]

#: The tensor-parallel sizes :func:`fit_options` tries, smallest first.
TP_CHOICES: tuple[int, ...] = (2, 4, 8)


@dataclass(frozen=True, slots=True)
class PlanInputs:
    """Hold one plan's inputs: everything the table, the commands and the fleet line take.

    >>> PlanInputs("llama-3-8b", "L4-24GB", tenants=4, rank=16, context_tokens=4096).slot_count
    4
    """

    model: str
    gpu: str
    tenants: int
    rank: int
    context_tokens: int
    target_modules: tuple[str, ...] | None = None
    slots: int | None = None
    memory_fraction: float = 0.9
    tp: int = 1
    dtype_bytes: int = 2
    usable_mib: float | None = None

    def __post_init__(self) -> None:
        load_gpu(self.gpu)
        if self.usable_mib is not None:
            number("usable_mib", self.usable_mib)
        for name in ("tenants", "rank", "context_tokens", "tp"):
            count(name, getattr(self, name))
        if self.slots is not None:
            count("slots", self.slots)
        number("memory_fraction", self.memory_fraction)
        between("memory_fraction", self.memory_fraction, 0, 1)
        if self.target_modules is not None:
            object.__setattr__(self, "target_modules", tuple(self.target_modules))
        vllm_rank(self.rank)

    @property
    def slot_count(self) -> int:
        """Return vLLM's ``--max-loras``: the slots asked for, or the tenants up to :data:`DEFAULT_SLOTS`."""
        return min(self.tenants, DEFAULT_SLOTS) if self.slots is None else self.slots


@dataclass(frozen=True, slots=True)
class EnginePlan:
    """Hold one engine's plan for one GPU: the memory figures in MiB, what the KV cache holds, the command.

    ``kv_tokens`` is how many tokens fit when every sequence is ``context_tokens`` long (sliding
    layers keep only their window); ``sequences`` how many such sequences run at once. ``command``
    is None when no sequence fits, or for a shipped config with no Hub repository (pass its folder).

    >>> serving_plan("llama-3-8b", "L4-24GB", tenants=2, rank=8, context_tokens=2048)[0].fits
    True
    """

    engine: str
    model: str
    gpu: str
    usable_mib: float
    budget_mib: float
    base_mib: float
    lora_mib: float
    kv_mib: float
    kv_tokens: int
    sequences: int
    context_tokens: int
    command: LaunchCommand | None
    sequence_mib: float = 0.0
    tp: int = 1

    @property
    def fits(self) -> bool:
        """Return True if the weights and the LoRA buffers leave room for at least one sequence."""
        return self.sequences > 0

    @property
    def short_mib(self) -> float:
        """Return how far the weights, the slot buffers and one sequence exceed the budget (0 if they fit)."""
        return max(0.0, self.base_mib + self.lora_mib + self.sequence_mib - self.budget_mib)


def _memory(inputs: PlanInputs) -> list[tuple[str, float, float, float, float, float, float]]:
    """Return per engine: budget, base, LoRA, KV left, bytes per token, bytes per sequence (all per GPU)."""
    raw, cfg = model_inputs(inputs.model)
    usable = load_gpu(inputs.gpu).usable_bytes if inputs.usable_mib is None else inputs.usable_mib * MIB
    budget = usable * inputs.memory_fraction
    base = base_params(raw) * inputs.dtype_bytes / inputs.tp
    seq = {
        SGLANG_ENGINE: kv_bytes_per_gpu(raw, cfg, inputs.context_tokens, tp=inputs.tp, dtype_bytes=inputs.dtype_bytes),
        VLLM_ENGINE: vllm_kv_bytes_per_sequence(
            raw, inputs.context_tokens, gpu=inputs.gpu, tp=inputs.tp, dtype_bytes=inputs.dtype_bytes
        ),
    }
    targets = None if inputs.target_modules is None else list(inputs.target_modules)
    s = inputs.slot_count
    lora = {
        VLLM_ENGINE: lora_slot_bytes(
            VLLM_ENGINE,
            cfg,
            slots=s,
            max_rank=vllm_rank(inputs.rank),
            target_modules=targets,
            tp=inputs.tp,
            dtype_bytes=inputs.dtype_bytes,
        ),
        SGLANG_ENGINE: lora_slot_bytes(
            SGLANG_ENGINE,
            cfg,
            slots=s + 1,
            max_rank=inputs.rank,
            target_modules=targets or ["all"],
            tp=inputs.tp,
            dtype_bytes=inputs.dtype_bytes,
        ),
    }
    return [
        (
            engine,
            budget,
            base,
            lora[engine],
            max(0.0, budget - base - lora[engine]),
            -(-seq[engine] // inputs.context_tokens),
            seq[engine],
        )
        for engine in (VLLM_ENGINE, SGLANG_ENGINE)
    ]


def _fits(inputs: PlanInputs) -> bool:
    return all(left >= seq for _, _, _, _, left, _, seq in _memory(inputs))


def serving_plan(
    model: str,
    gpu: str,
    *,
    tenants: int,
    rank: int,
    context_tokens: int,
    target_modules: Iterable[str] | None = None,
    slots: int | None = None,
    memory_fraction: float = 0.9,
    dtype_bytes: int = 2,
    tp: int = 1,
    adapters: AdapterLoading | None = None,
    usable_mib: float | None = None,
) -> tuple[EnginePlan, ...]:
    """Return the vLLM and the SGLang plan (in that order) for serving ``model``'s tenants on one ``gpu``.

    The arguments are :func:`~labcore.engines.launch.launch_commands`'s; ``dtype_bytes`` is the
    weights', the adapters' and the KV cache's; ``usable_mib`` the GPU's memory as the reader's driver reports it
    (default: the course's figure). A plan with no room for one sequence has no command.

    >>> [p.engine for p in serving_plan("llama-3-8b", "L4-24GB", tenants=8, rank=16, context_tokens=4096)]
    ['vllm', 'sglang']
    >>> serving_plan("mixtral-8x7b", "H100-80GB", tenants=8, rank=16, context_tokens=8192)[0].command is None
    True
    """
    inputs = PlanInputs(
        model=model,
        gpu=gpu,
        tenants=tenants,
        rank=rank,
        context_tokens=context_tokens,
        target_modules=None if target_modules is None else tuple(target_modules),
        slots=slots,
        memory_fraction=memory_fraction,
        tp=tp,
        dtype_bytes=dtype_bytes,
        usable_mib=usable_mib,
    )
    memory = _memory(inputs)
    fits = all(left >= seq for _, _, _, _, left, _, seq in memory)
    commands = None
    if fits and served_name(model) is not None:
        commands = launch_commands(
            model,
            gpu,
            tenants=tenants,
            rank=rank,
            context_tokens=context_tokens,
            target_modules=inputs.target_modules,
            slots=slots,
            memory_fraction=memory_fraction,
            dtype_bytes=dtype_bytes,
            tp=tp,
            adapters=adapters,
            usable_mib=usable_mib,
        )
    return tuple(
        EnginePlan(
            engine=engine,
            model=model,
            gpu=gpu,
            usable_mib=budget / memory_fraction / MIB,
            budget_mib=budget / MIB,
            base_mib=base / MIB,
            lora_mib=lora / MIB,
            kv_mib=left / MIB,
            kv_tokens=int(left // per_token),
            sequences=int(left // seq),
            context_tokens=context_tokens,
            command=None if commands is None else commands[engine],
            sequence_mib=seq / MIB,
            tp=tp,
        )
        for engine, budget, base, lora, left, per_token, seq in memory
    )


def fit_options(
    model: str,
    gpu: str,
    *,
    tenants: int,
    rank: int,
    context_tokens: int,
    target_modules: Iterable[str] | None = None,
    slots: int | None = None,
    memory_fraction: float = 0.9,
    dtype_bytes: int = 2,
    tp: int = 1,
    usable_mib: float | None = None,
) -> list[str]:
    """Return what would fit both engines when this plan does not: tensor parallel, a larger GPU, fewer slots, a lower rank.

    Each option changes one input; an option that cannot help is said to be none.

    >>> fit_options("mixtral-8x7b", "H100-80GB", tenants=8, rank=16, context_tokens=8192)[:2]
    ['tensor parallel 2 (--tp 2: two H100-80GB)', 'a larger GPU: H200-141GB']
    """
    base = PlanInputs(
        model=model,
        gpu=gpu,
        tenants=tenants,
        rank=rank,
        context_tokens=context_tokens,
        target_modules=None if target_modules is None else tuple(target_modules),
        slots=slots,
        memory_fraction=memory_fraction,
        tp=tp,
        dtype_bytes=dtype_bytes,
        usable_mib=usable_mib,
    )
    options = []
    tps = []
    for size in (t for t in TP_CHOICES if t > tp):
        try:
            if _fits(replace(base, tp=size)):
                tps.append(size)
        except ValueError:  # the heads or the MLP do not split over this many GPUs
            continue
    options.append(
        f"tensor parallel {tps[0]} (--tp {tps[0]}: {_count_word(tps[0])} {gpu})"
        if tps
        else f"tensor parallel: none up to {TP_CHOICES[-1]} GPUs"
    )
    own = load_gpu(gpu).driver_mib
    larger = [
        g
        for g in sorted(known_gpus(), key=lambda g: load_gpu(g).driver_mib)
        if load_gpu(g).driver_mib > own and _fits(replace(base, gpu=g, usable_mib=None))
    ]
    options.append(f"a larger GPU: {larger[0]}" if larger else "a larger GPU: none of the course's")
    fewer = [s for s in range(base.slot_count - 1, 0, -1) if _fits(replace(base, slots=s))]
    options.append(f"fewer slots: --slots {fewer[0]}" if fewer else "fewer slots: none (even one slot does not fit)")
    lower = [r for r in reversed(VLLM_MAX_LORA_RANKS) if r < rank and _fits(replace(base, rank=r))]
    options.append(f"a lower rank: --rank {lower[0]}" if lower else "a lower rank: none (even rank 1 does not fit)")
    return options


def _count_word(n: int) -> str:
    return {2: "two", 4: "four", 8: "eight"}[n]


def plan_fleet(
    plan: EnginePlan, *, tenants: int, tenant_qps: float = 0.5, gpu_qps: float = GPU_QPS, gpu_hourly_usd: float = 3.20
) -> FleetPlan:
    """Price the fleet of replicas that each run ``plan`` (its weights, slot buffers and KV cache, nothing else).

    Every replica holds the base, the engine's slot buffers (shared by all ``tenants``: the rest wait in host
    memory) and the KV cache the plan leaves; a replica is ``plan.tp`` GPUs at ``gpu_hourly_usd`` each and
    sustains ``gpu_qps``. A dedicated tenant gets a replica of its own. So memory never adds a replica here;
    the load does.

    >>> vllm = serving_plan("llama-3.1-8b", "H100-80GB", tenants=40, rank=16, context_tokens=8192)[0]
    >>> f = plan_fleet(vllm, tenants=40, tenant_qps=5)
    >>> f.multi_lora_gpus, f.binding_constraint
    (11, 'load')
    """
    count("tenants", tenants)
    if not plan.fits:
        raise ValueError(f"{plan.model} on {plan.gpu}: the plan fits no sequence; there is no fleet to price")
    gib = 1024.0
    budget = plan.budget_mib / gib
    kv = (plan.budget_mib - plan.base_mib - plan.lora_mib) / gib  # the KV cache the plan leaves, to the byte
    return fleet_plan(
        tenant_adapters(tenants, vram_mb=plan.lora_mib / tenants),
        gpu_hourly_usd=gpu_hourly_usd * plan.tp,
        gpu_vram_gb=budget,
        base_vram_gb=plan.base_mib / gib,
        kv_cache_gb=kv,
        tenant_qps=tenant_qps,
        gpu_qps=gpu_qps,
    )
