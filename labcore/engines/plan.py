"""Plan one GPU for a multi-LoRA deployment, per engine: weights, slot buffers, the KV cache left, and what fits.

The budget is the engine's share (``memory_fraction``) of the memory the driver reports
(:attr:`labcore.gpus.Gpu.usable_mib`). From it come the base model's weights (split evenly over ``tp``
GPUs), the LoRA buffers the engine preallocates (:func:`~labcore.engines.allocation.lora_slot_bytes`);
what is left holds the KV cache: vLLM's sequences as it reserves them (whole blocks, sliding windows widened
by the tokens in flight: :mod:`labcore.engines.kv`), SGLang's at each layer's window (:mod:`labcore.kv_cache`).
Activations, CUDA graphs and the
framework's own overhead are not counted, so real engines leave somewhat less. A plan that leaves no
room for one sequence carries no command: :func:`fit_options` says what would fit instead.

>>> vllm, sglang = serving_plan(PlanInputs(model="llama-3.1-8b", gpu="H100-80GB", tenants=40, rank=16,
...                                       context_tokens=8192))
>>> round(vllm.lora_mib, 1), vllm.sequences, sglang.sequences
(704.6, 56, 55)
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .._validate import count, instance
from ..adapter import tenant_adapters
from ..fleet import GPU_QPS, FleetPlan, fleet_plan
from ..gpus import known_gpus, load_gpu
from .adapters import AdapterLoading
from .allocation import VLLM_MAX_LORA_RANKS
from .inputs import MIB, EngineMemory, PlanInputs, engine_memory, served_name
from .launch import LaunchCommand, launch_commands

__all__ = ["EnginePlan", "serving_plan", "fit_options", "plan_fleet", "TP_CHOICES"]

#: The tensor-parallel sizes :func:`fit_options` tries, smallest first.
TP_CHOICES: tuple[int, ...] = (2, 4, 8)


@dataclass(frozen=True, slots=True)
class EnginePlan:
    """Hold one engine's plan for one GPU: the memory figures in MiB, what the KV cache holds, the command.

    ``kv_tokens`` is how many tokens fit when every sequence is ``context_tokens`` long (sliding
    layers keep only their window); ``sequences`` how many such sequences run at once. ``command``
    is None when no sequence fits, or for a shipped config with no Hub repository (pass its folder).

    >>> serving_plan(PlanInputs(model="llama-3-8b", gpu="L4-24GB", tenants=2, rank=8, context_tokens=2048))[0].fits
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


def _fits(memory: dict[str, EngineMemory]) -> bool:
    return all(m.kv_left >= m.sequence for m in memory.values())


def serving_plan(inputs: PlanInputs, /, *, adapters: AdapterLoading | None = None) -> tuple[EnginePlan, ...]:
    """Return the vLLM and the SGLang plan (in that order) for serving ``inputs``' tenants on one GPU (or ``tp``).

    The memory is :func:`~labcore.engines.inputs.engine_memory`'s, the commands (loading ``adapters``)
    :func:`~labcore.engines.launch.launch_commands`'s; ``dtype_bytes`` is the weights', the adapters' and the KV
    cache's, ``usable_mib`` the GPU's memory as the reader's driver reports it (default: the course's figure). A plan
    with no room for one sequence has no command.

    >>> [p.engine for p in serving_plan(PlanInputs(model="llama-3-8b", gpu="L4-24GB", tenants=8, rank=16,
    ...                                            context_tokens=4096))]
    ['vllm', 'sglang']
    >>> serving_plan(PlanInputs(model="mixtral-8x7b", gpu="H100-80GB", tenants=8, rank=16,
    ...                         context_tokens=8192))[0].command is None
    True
    """
    memory = engine_memory(inputs)
    commands = None
    if _fits(memory) and served_name(inputs.model) is not None:
        commands = launch_commands(inputs, adapters=adapters)
    return tuple(
        EnginePlan(
            engine=m.engine,
            model=inputs.model,
            gpu=inputs.gpu,
            usable_mib=m.budget / inputs.memory_fraction / MIB,
            budget_mib=m.budget / MIB,
            base_mib=m.base / MIB,
            lora_mib=m.lora / MIB,
            kv_mib=m.kv_left / MIB,
            kv_tokens=int(m.kv_left // -(-m.sequence // inputs.context_tokens)),
            sequences=int(m.kv_left // m.sequence),
            context_tokens=inputs.context_tokens,
            command=None if commands is None else commands[m.engine],
            sequence_mib=m.sequence / MIB,
            tp=inputs.tp,
        )
        for m in memory.values()
    )


def fit_options(inputs: PlanInputs, /) -> list[str]:
    """Return what would fit both engines when this plan does not: tensor parallel, a larger GPU, fewer slots, a lower rank.

    Each option changes one input; an option that cannot help is said to be none.

    >>> fit_options(PlanInputs(model="mixtral-8x7b", gpu="H100-80GB", tenants=8, rank=16, context_tokens=8192))[:2]
    ['tensor parallel 2 (--tp 2: two H100-80GB)', 'a larger GPU: H200-141GB']
    """
    base = instance("inputs", inputs, PlanInputs)
    gpu, tp = base.gpu, base.tp

    def fits(changed: PlanInputs) -> bool:
        return _fits(engine_memory(changed))

    options = []
    tps = []
    for size in (t for t in TP_CHOICES if t > tp):
        try:
            if fits(replace(base, tp=size)):
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
        if load_gpu(g).driver_mib > own and fits(replace(base, gpu=g, usable_mib=None))
    ]
    options.append(f"a larger GPU: {larger[0]}" if larger else "a larger GPU: none of the course's")
    fewer = [s for s in range(base.slot_count - 1, 0, -1) if fits(replace(base, slots=s))]
    options.append(f"fewer slots: --slots {fewer[0]}" if fewer else "fewer slots: none (even one slot does not fit)")
    lower = [r for r in reversed(VLLM_MAX_LORA_RANKS) if r < base.rank and fits(replace(base, rank=r))]
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

    >>> vllm = serving_plan(PlanInputs(model="llama-3.1-8b", gpu="H100-80GB", tenants=40, rank=16, context_tokens=8192))[0]
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
