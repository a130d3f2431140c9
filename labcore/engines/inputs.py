"""The inputs of one GPU's plan, written once, and the memory they imply for each engine.

:class:`PlanInputs` holds the model, the GPU, the tenants and their adapters' rank and target modules, the context
length, the adapter slots, the engine's share of the GPU, the dtype, the tensor-parallel size and the driver's own
memory figure; :class:`labcore.capacity.ServingAssumptions` is the same value with the engine and the chapters'
KV pool added. Each field is checked once, here, when the value is built. The launch commands
(:func:`~labcore.engines.launch.launch_commands`), the plan (:func:`~labcore.engines.plan.serving_plan`) and what
would fit (:func:`~labcore.engines.plan.fit_options`) each take one such value and read the model it names
(:func:`model_inputs`) and the memory it implies (:func:`engine_memory`) from here.

>>> inputs = PlanInputs(model="llama-3-8b", gpu="L4-24GB", tenants=4, rank=24, context_tokens=4096)
>>> inputs.slot_count, vllm_rank(inputs.rank)
(4, 32)
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._validate import between, count, instance, items, number, text
from ..base_model import base_params
from ..errors import ModelConfigError
from ..gpus import load_gpu
from ..model_config.config import ModelConfig, hub_id, known_models, raw_model_config
from .allocation import SGLANG_ENGINE, VLLM_ENGINE, VLLM_MAX_LORA_RANKS, lora_slot_bytes
from .kv import kv_bytes_per_gpu, vllm_kv_bytes_per_sequence

__all__ = [
    "DEFAULT_SLOTS",
    "PlanInputs",
    "vllm_rank",
    "model_inputs",
    "served_name",
    "EngineMemory",
    "engine_memory",
]

MIB = 2**20

#: Adapter slots per batch when the tenants outnumber them: SGLang's default --max-loras-per-batch.
DEFAULT_SLOTS = 8


def vllm_rank(rank: int) -> int:
    """Return the smallest ``--max-lora-rank`` vLLM allows that holds ``rank`` (its ``MaxLoRARanks``).

    A rank above vLLM's largest (512) is refused.

    >>> vllm_rank(24), vllm_rank(64)
    (32, 64)
    >>> vllm_rank(1000)
    Traceback (most recent call last):
    ...
    ValueError: rank must be an int in [1, 512], got 1000
    """
    count("rank", rank, maximum=VLLM_MAX_LORA_RANKS[-1])
    return next(allowed for allowed in VLLM_MAX_LORA_RANKS if allowed >= rank)


def memory_share(value: object) -> float:
    """Return ``value`` if it is a share of the GPU an engine may take, in (0, 1].

    >>> memory_share(0.9)
    0.9
    """
    number("memory_fraction", value)
    return between("memory_fraction", value, 0, 1)


@dataclass(frozen=True, slots=True, kw_only=True)
class PlanInputs:
    """Hold one plan's inputs: everything the table, the commands and the fit options take. Build it by keyword.

    ``target_modules`` None means every module the engine supports; ``slots`` None as many as the tenants, at most
    :data:`DEFAULT_SLOTS`; ``usable_mib`` None the GPU's memory as the course's driver reports it.

    >>> PlanInputs(model="llama-3-8b", gpu="L4-24GB", tenants=4, rank=16, context_tokens=4096, target_modules="q_proj")
    Traceback (most recent call last):
    ...
    ValueError: target_modules must be a list or tuple, got the string 'q_proj' (write ('q_proj',))
    """

    model: str
    gpu: str
    tenants: int
    rank: int
    context_tokens: int
    target_modules: tuple[str, ...] | None = None
    slots: int | None = None
    memory_fraction: float = 0.9
    dtype_bytes: int = 2
    tp: int = 1
    usable_mib: float | None = None

    def __post_init__(self) -> None:
        text("model", self.model)
        load_gpu(self.gpu)
        for name in ("tenants", "rank", "context_tokens", "dtype_bytes", "tp"):
            count(name, getattr(self, name))
        vllm_rank(self.rank)
        if self.target_modules is not None:
            object.__setattr__(self, "target_modules", items("target_modules", self.target_modules))
        if self.slots is not None:
            count("slots", self.slots)
        memory_share(self.memory_fraction)
        if self.usable_mib is not None:
            number("usable_mib", self.usable_mib)

    @property
    def target_list(self) -> list[str] | None:
        """The target modules as the engines' allocation functions take them (None: every module it supports)."""
        return None if self.target_modules is None else list(self.target_modules)

    @property
    def slot_count(self) -> int:
        """Return vLLM's ``--max-loras``: the slots asked for, or the tenants up to :data:`DEFAULT_SLOTS`."""
        return min(self.tenants, DEFAULT_SLOTS) if self.slots is None else self.slots


def model_inputs(model: str) -> tuple[Mapping[str, Any], ModelConfig]:
    """Return a model's parsed config.json and its :class:`ModelConfig`: a shipped name, or a local folder or file.

    >>> model_inputs("llama-3-8b")[1].num_key_value_heads
    8
    """
    text("model", model)
    if model in known_models():
        raw = raw_model_config(model)
        return raw, ModelConfig.from_dict(raw, name=model)
    path = Path(model)
    path = path / "config.json" if path.is_dir() else path
    if not path.is_file():
        raise ModelConfigError(f"{model}: neither a known model {list(known_models())} nor a folder with a config.json")
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise ModelConfigError(f"{path}: not valid JSON: {exc}") from exc
    return raw, ModelConfig.from_dict(raw, name=model)


def served_name(model: str) -> str | None:
    """Return what the engines are told to serve: a shipped config's Hub id, or the local path as given.

    None for a shipped config with no published repository (the course's demo model).

    >>> served_name("qwen3-8b"), served_name("tiny-llama-demo")
    ('Qwen/Qwen3-8B', None)
    """
    return hub_id(model) if model in known_models() else model


@dataclass(frozen=True, slots=True, kw_only=True)
class EngineMemory:
    """Hold one engine's memory on each GPU of a plan, in bytes: its budget, the weights, its slot buffers, a sequence.

    >>> m = engine_memory(PlanInputs(model="llama-3-8b", gpu="H100-80GB", tenants=4, rank=16, context_tokens=8192))
    >>> m["vllm"].sequence // 2**20, m["vllm"].kv_left > 0
    (1024, True)
    """

    engine: str
    budget: float
    base: float
    lora: int
    sequence: float

    @property
    def kv_left(self) -> float:
        """Return what the weights and the slot buffers leave of the budget for the KV cache (0 if nothing)."""
        return max(0.0, self.budget - self.base - self.lora)


def engine_memory(inputs: PlanInputs) -> dict[str, EngineMemory]:
    """Return each engine's memory for ``inputs`` (keyed ``'vllm'``, ``'sglang'``): what its command's flags cost.

    The budget is ``memory_fraction`` of the driver-reported memory, the weights are split evenly over ``tp``
    GPUs; vLLM's slot buffers are at its rounded rank, SGLang's hold one slot more (the base model's requests);
    a sequence is vLLM's reservation (:mod:`labcore.engines.kv`) or SGLang's at each layer's window.
    """
    i = instance("inputs", inputs, PlanInputs)
    raw, cfg = model_inputs(i.model)
    usable = load_gpu(i.gpu).usable_bytes if i.usable_mib is None else i.usable_mib * MIB
    budget, base = usable * i.memory_fraction, base_params(raw) * i.dtype_bytes / i.tp
    targets = i.target_list
    v, s = VLLM_ENGINE, SGLANG_ENGINE
    v_lora = lora_slot_bytes(
        v,
        cfg,
        slots=i.slot_count,
        max_rank=vllm_rank(i.rank),
        target_modules=targets,
        tp=i.tp,
        dtype_bytes=i.dtype_bytes,
    )
    s_lora = lora_slot_bytes(
        s,
        cfg,
        slots=i.slot_count + 1,
        max_rank=i.rank,
        target_modules=targets or ["all"],
        tp=i.tp,
        dtype_bytes=i.dtype_bytes,
    )
    v_seq = vllm_kv_bytes_per_sequence(raw, i.context_tokens, gpu=i.gpu, tp=i.tp, dtype_bytes=i.dtype_bytes)
    s_seq = kv_bytes_per_gpu(raw, cfg, i.context_tokens, tp=i.tp, dtype_bytes=i.dtype_bytes)
    return {
        v: EngineMemory(engine=v, budget=budget, base=base, lora=v_lora, sequence=v_seq),
        s: EngineMemory(engine=s, budget=budget, base=base, lora=s_lora, sequence=s_seq),
    }
