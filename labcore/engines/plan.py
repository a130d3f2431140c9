"""Plan one GPU for a multi-LoRA deployment, per engine: weights, slot buffers, and the KV cache left.

The budget is the engine's share (``memory_fraction``) of the memory the driver reports
(:attr:`labcore.gpus.Gpu.usable_mib`). From it come the base model's weights, the LoRA buffers the
engine preallocates (:func:`~labcore.engines.allocation.lora_slot_bytes`); what is left holds the KV
cache (:mod:`labcore.kv_cache`). Activations, CUDA graphs and the framework's own overhead are not
counted, so real engines leave somewhat less.

>>> vllm, sglang = serving_plan("llama-3.1-8b", "H100-80GB", tenants=40, rank=16, context_tokens=8192)
>>> round(vllm.lora_mib, 1), vllm.sequences, sglang.sequences
(704.6, 56, 55)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..base_model import base_params
from ..kv_cache import kv_bytes_per_sequence, kv_bytes_per_token
from ..model_config import load_model_config
from .launch import MIB, LaunchCommand, launch_commands

__all__ = ["EnginePlan", "serving_plan"]


@dataclass(frozen=True, slots=True)
class EnginePlan:
    """Hold one engine's plan for one GPU: the memory figures in MiB, what the KV cache holds, the command.

    ``kv_tokens`` is how many tokens fit when every sequence is ``context_tokens`` long (sliding
    layers keep only their window); ``sequences`` how many such sequences run at once.

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
    command: LaunchCommand

    @property
    def fits(self) -> bool:
        """Return True if the weights and the LoRA buffers leave room for at least one sequence."""
        return self.sequences > 0


def serving_plan(model: str, gpu: str, *, tenants: int, rank: int, context_tokens: int,
                 target_modules: Iterable[str] | None = None, slots: int | None = None,
                 memory_fraction: float = 0.9, dtype_bytes: int = 2) -> tuple[EnginePlan, ...]:
    """Return the vLLM and the SGLang plan (in that order) for serving ``model``'s tenants on one ``gpu``.

    The arguments are :func:`~labcore.engines.launch.launch_commands`'s; ``dtype_bytes`` is the
    weights', the adapters' and the KV cache's.

    >>> [p.engine for p in serving_plan("llama-3-8b", "L4-24GB", tenants=8, rank=16, context_tokens=4096)]
    ['vllm', 'sglang']
    """
    commands = launch_commands(model, gpu, tenants=tenants, rank=rank, context_tokens=context_tokens,
                               target_modules=target_modules, slots=slots, memory_fraction=memory_fraction,
                               dtype_bytes=dtype_bytes)
    base = base_params(load_model_config(model)) * dtype_bytes
    per_token = kv_bytes_per_token(model, dtype_bytes=dtype_bytes, context_tokens=context_tokens)
    per_sequence = kv_bytes_per_sequence(model, context_tokens, dtype_bytes=dtype_bytes)
    plans = []
    for engine, cmd in commands.items():
        flags = {f.flag: f for f in cmd.flags}
        usable = next(f for f in cmd.flags if f.flag in ("--gpu-memory-utilization", "--mem-fraction-static"))
        slots_flag = flags.get("--max-loras") or flags["--max-loras-per-batch"]
        budget = usable.cost_mib * MIB  # type: ignore[operator]
        lora = slots_flag.cost_mib * MIB  # type: ignore[operator]
        left = max(0.0, budget - base - lora)
        plans.append(EnginePlan(engine, model, gpu, budget / memory_fraction / MIB, budget / MIB, base / MIB,
                                lora / MIB, left / MIB, int(left // per_token), int(left // per_sequence),
                                context_tokens, cmd))
    return tuple(plans)
