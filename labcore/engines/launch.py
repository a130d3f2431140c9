"""Write the ``vllm serve`` and SGLang launch commands for a multi-LoRA deployment, flag by flag.

Each flag is a record: its name and value, the engine's default for it (read in the engine's
source, :data:`FLAG_DEFAULTS`), and the memory it costs where it costs memory: the LoRA slot
buffers (:func:`~labcore.engines.allocation.lora_slot_bytes`), one sequence of KV cache at the
context length (:func:`~labcore.kv_cache.kv_bytes_per_sequence`), the adapters kept in host
memory, or the share of the GPU's driver-reported memory the engine may take.

SGLang counts the base model's requests as one more adapter in a batch (its batch check,
``LoRAManager.validate_lora_batch`` in python/sglang/srt/lora/lora_manager.py, commit db922586 of the
code index, takes the set of the batch's adapter ids with the base model's ``None`` in it), so it gets
one slot more than vLLM for the same adapters (:class:`labcore.slots.SlotScheduler` with
``base_takes_slot=True`` plays that rule).

>>> cmds = launch_commands("llama-3.1-8b", "H100-80GB", tenants=40, rank=16, context_tokens=8192)
>>> cmds["vllm"].command.split()[:4]
['vllm', 'serve', 'llama-3.1-8b', '--enable-lora']
>>> [f.value for f in cmds["sglang"].flags if f.flag == "--max-loras-per-batch"]
['9']
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .._validate import between, count, instance, number, text
from ..gpus import load_gpu
from ..kv_cache import kv_bytes_per_sequence
from ..model_config import load_model_config
from .allocation import SGLANG_ENGINE, VLLM_ENGINE, VLLM_MAX_LORA_RANKS, lora_slot_bytes

__all__ = ["FLAG_DEFAULTS", "DEFAULT_SLOTS", "LaunchFlag", "LaunchCommand", "launch_commands"]

MIB = 2**20
_DECODER = ("qkv_proj", "o_proj", "gate_up_proj", "down_proj")
#: Adapter slots per batch when the tenants outnumber them: SGLang's default --max-loras-per-batch.
DEFAULT_SLOTS = 8

#: (engine, flag) -> (default as the source states it, where it was read).
FLAG_DEFAULTS: Mapping[tuple[str, str], tuple[str, str]] = {
    (VLLM_ENGINE, "--enable-lora"): ("False", "vllm/engine/arg_utils.py EngineArgs.enable_lora, a store_true flag "
                                              "(commit 001999d2)"),
    (VLLM_ENGINE, "--max-loras"): ("1", "vllm/config/lora.py LoRAConfig.max_loras (API reference v0.22.1)"),
    (VLLM_ENGINE, "--max-lora-rank"): ("16", "vllm/config/lora.py LoRAConfig.max_lora_rank (API reference v0.22.1)"),
    (VLLM_ENGINE, "--max-cpu-loras"): ("None", "vllm/config/lora.py LoRAConfig.max_cpu_loras; None becomes max_loras "
                                               "in _validate_lora_config (API reference v0.22.1)"),
    (VLLM_ENGINE, "--lora-target-modules"): ("None", "vllm/config/lora.py LoRAConfig.target_modules: 'If None, all "
                                                     "supported LoRA modules are used' (API reference v0.22.1)"),
    (VLLM_ENGINE, "--gpu-memory-utilization"): ("0.92", "vllm/config/cache.py CacheConfig.gpu_memory_utilization "
                                                        "(API reference 'stable'; 0.9 up to v0.11.1)"),
    (VLLM_ENGINE, "--max-model-len"): ("None", "vllm/config/model.py ModelConfig.max_model_len: 'If unspecified, "
                                               "will be automatically derived from the model config'"),
    (SGLANG_ENGINE, "--enable-lora"): ("None", "python/sglang/srt/server_args.py ServerArgs.enable_lora (set by "
                                               "--lora-paths)"),
    (SGLANG_ENGINE, "--max-loras-per-batch"): ("8", "python/sglang/srt/server_args.py ServerArgs.max_loras_per_batch"),
    (SGLANG_ENGINE, "--max-lora-rank"): ("None", "python/sglang/srt/server_args.py ServerArgs.max_lora_rank "
                                                 "(inferred from --lora-paths)"),
    (SGLANG_ENGINE, "--max-loaded-loras"): ("None", "python/sglang/srt/server_args.py ServerArgs.max_loaded_loras"),
    (SGLANG_ENGINE, "--lora-target-modules"): ("None", "python/sglang/srt/server_args.py ServerArgs."
                                                       "lora_target_modules (inferred from --lora-paths)"),
    (SGLANG_ENGINE, "--mem-fraction-static"): ("None", "python/sglang/srt/server_args.py ServerArgs."
                                                       "mem_fraction_static (chosen at start-up when unset)"),
    (SGLANG_ENGINE, "--context-length"): ("None", "python/sglang/srt/server_args.py ServerArgs.context_length "
                                                  "(the model's own when unset)"),
}


@dataclass(frozen=True, slots=True)
class LaunchFlag:
    """Hold one launch flag: name, value, engine default, the memory it costs (MiB, GPU or host) and its source.

    >>> LaunchFlag("vllm", "--max-loras", "8", "1", 640.0, "gpu", "lora.py").cost
    '640 MiB of GPU memory'
    """

    engine: str
    flag: str
    value: str
    default: str
    cost_mib: float | None
    memory: str
    source: str

    def __post_init__(self) -> None:
        for name in ("engine", "flag", "default", "source"):
            text(name, getattr(self, name))
        instance("value", self.value, str, error=ValueError)
        if not self.flag.startswith("--"):
            raise ValueError(f"flag must start with '--', got {self.flag!r}")
        if self.memory not in ("gpu", "host", ""):
            raise ValueError(f"memory must be 'gpu', 'host' or '', got {self.memory!r}")
        if (self.cost_mib is None) != (self.memory == ""):
            raise ValueError(f"{self.flag}: a cost needs its memory ('gpu' or 'host') and only then, "
                             f"got {self.cost_mib!r} and {self.memory!r}")

    @property
    def cost(self) -> str:
        """Return the cost as a phrase (empty for a flag that costs no memory)."""
        if self.cost_mib is None:
            return ""
        return f"{self.cost_mib:,.0f} MiB of {'GPU' if self.memory == 'gpu' else 'host'} memory"


@dataclass(frozen=True, slots=True)
class LaunchCommand:
    """Hold one engine's launch command: the program words and the flags in order.

    >>> LaunchCommand("vllm", ("vllm", "serve", "m"), ()).command
    'vllm serve m'
    """

    engine: str
    program: tuple[str, ...]
    flags: tuple[LaunchFlag, ...]

    @property
    def argv(self) -> tuple[str, ...]:
        """Return the whole command as words (flags without a value are switches)."""
        words = list(self.program)
        for f in self.flags:
            words.append(f.flag)
            if f.value:
                words += f.value.split(" ")
        return tuple(words)

    @property
    def command(self) -> str:
        """Return the command as one shell line."""
        return shlex.join(self.argv)


def _flag(engine: str, flag: str, value: object, cost_bytes: float | None = None, memory: str = "") -> LaunchFlag:
    default, source = FLAG_DEFAULTS[(engine, flag)]
    cost = None if cost_bytes is None else cost_bytes / MIB
    value_text = "" if value is True else str(value)  # a switch takes no value
    return LaunchFlag(engine, flag, value_text, default, cost, memory if cost is not None else "", source)


def _vllm_rank(rank: int) -> int:
    for allowed in VLLM_MAX_LORA_RANKS:
        if allowed >= rank:
            return allowed
    raise ValueError(f"rank must be at most vLLM's largest --max-lora-rank {VLLM_MAX_LORA_RANKS[-1]}, got {rank}")


def launch_commands(model: str, gpu: str, *, tenants: int, rank: int, context_tokens: int,
                    target_modules: Iterable[str] | None = None, slots: int | None = None,
                    memory_fraction: float = 0.9, dtype_bytes: int = 2) -> dict[str, LaunchCommand]:
    """Return the vLLM and SGLang launch commands (keyed ``'vllm'``, ``'sglang'``) for one GPU.

    ``slots`` adapter slots (default: as many as tenants, at most :data:`DEFAULT_SLOTS`), every
    tenant's adapter kept in host memory, ranks up to ``rank`` (vLLM rounds up to its next allowed
    value), ``context_tokens`` per sequence, and ``memory_fraction`` of the driver-reported memory.

    >>> cmds = launch_commands("llama-3-8b", "H100-80GB", tenants=4, rank=16, context_tokens=4096,
    ...                        target_modules=["q_proj", "v_proj"])
    >>> [(f.flag, f.value, f.cost) for f in cmds["vllm"].flags][1]
    ('--max-loras', '4', '72 MiB of GPU memory')
    """
    cfg = load_model_config(text("model", model))
    card = load_gpu(gpu)
    count("tenants", tenants)
    count("rank", rank)
    count("context_tokens", context_tokens)
    number("memory_fraction", memory_fraction)
    between("memory_fraction", memory_fraction, 0, 1)
    slots = min(tenants, DEFAULT_SLOTS) if slots is None else count("slots", slots)
    targets = None if target_modules is None else list(target_modules)
    names = " ".join(targets) if targets else ""
    # An adapter kept in host memory at its own rank is one slot's buffers at that rank.
    host = tenants * lora_slot_bytes(SGLANG_ENGINE, cfg, slots=1, max_rank=rank,
                                     target_modules=targets or _DECODER, dtype_bytes=dtype_bytes)
    budget = card.usable_bytes * memory_fraction
    seq = kv_bytes_per_sequence(model, context_tokens, dtype_bytes=dtype_bytes)  # by name: windows come along

    v_rank = _vllm_rank(rank)
    v_bytes = lora_slot_bytes(VLLM_ENGINE, cfg, slots=slots, max_rank=v_rank, target_modules=targets,
                              dtype_bytes=dtype_bytes)
    v = VLLM_ENGINE
    v_flags = [_flag(v, "--enable-lora", True), _flag(v, "--max-loras", slots, v_bytes, "gpu"),
               _flag(v, "--max-lora-rank", v_rank), _flag(v, "--max-cpu-loras", max(tenants, slots), host, "host")]
    if targets:
        v_flags.append(_flag(v, "--lora-target-modules", names))
    v_flags += [_flag(v, "--gpu-memory-utilization", memory_fraction, budget, "gpu"),
                _flag(v, "--max-model-len", context_tokens, seq, "gpu")]

    s = SGLANG_ENGINE
    s_slots = slots + 1  # the base model's requests take one
    s_bytes = lora_slot_bytes(s, cfg, slots=s_slots, max_rank=rank, target_modules=targets or ["all"],
                              dtype_bytes=dtype_bytes)
    s_flags = [_flag(s, "--enable-lora", True), _flag(s, "--max-loras-per-batch", s_slots, s_bytes, "gpu"),
               _flag(s, "--max-lora-rank", rank), _flag(s, "--max-loaded-loras", max(tenants, s_slots), host, "host"),
               _flag(s, "--lora-target-modules", names or "all"),
               _flag(s, "--mem-fraction-static", memory_fraction, budget, "gpu"),
               _flag(s, "--context-length", context_tokens, seq, "gpu")]
    return {v: LaunchCommand(v, ("vllm", "serve", model), tuple(v_flags)),
            s: LaunchCommand(s, ("python", "-m", "sglang.launch_server", "--model-path", model), tuple(s_flags))}
