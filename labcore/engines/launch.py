"""Write the ``vllm serve`` and SGLang launch commands for a multi-LoRA deployment, flag by flag.

Each flag is a record: its name and value, the engine's default for it (read in the released
wheels of vLLM 0.33.0 and SGLang 0.5.23, :data:`FLAG_DEFAULTS`), and the memory it costs where it
costs memory: the LoRA slot buffers (:func:`~labcore.engines.allocation.lora_slot_bytes`), one
sequence of KV cache at the context length (:func:`~labcore.kv_cache.kv_bytes_per_sequence`), the
adapters kept in host memory, or the share of the GPU's driver-reported memory the engine may take.
The model is served by its Hub id (a shipped config's ``_hub_id``) or by the local folder given
instead; the adapters arrive by one of :data:`~labcore.engines.adapters.ADAPTER_MODES`, with the
environment the route needs set in front of the command.

SGLang counts the base model's requests as one more adapter in a batch (``--max-loras-per-batch``:
"Maximum number of adapters for a running batch, include base-only request", 0.5.23
``sglang/srt/arg_groups/fields/lora.py``), so it gets one slot more than vLLM for the same adapters
(:class:`labcore.slots.SlotScheduler` with ``base_takes_slot=True`` plays that rule).

>>> cmds = launch_commands(PlanInputs(model="llama-3.1-8b", gpu="H100-80GB", tenants=40, rank=16, context_tokens=8192))
>>> cmds["vllm"].command.split()[:4]
['vllm', 'serve', 'meta-llama/Llama-3.1-8B', '--enable-lora']
>>> [f.value for f in cmds["sglang"].flags if f.flag == "--max-loras-per-batch"]
['9']
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .._validate import choice, instance, text
from ..errors import ModelConfigError
from ..model_config.config import ModelConfig
from .adapters import SGLANG_PORT, VLLM_ENV, VLLM_PORT, AdapterLoading, adapter_loading, load_call
from .allocation import SGLANG_ENGINE, VLLM_ENGINE, VLLM_MAX_LORA_RANKS, lora_slot_bytes
from .inputs import MIB, PlanInputs, engine_memory, model_inputs, served_name, vllm_rank

__all__ = [
    "FLAG_DEFAULTS",
    "LaunchFlag",
    "LaunchCommand",
    "launch_commands",
    "host_adapter_bytes",
]

_DECODER = ("qkv_proj", "o_proj", "gate_up_proj", "down_proj")
_V = "vllm-0.33.0 "
_S = "sglang-0.5.23 "

#: (engine, flag) -> (default as the released source states it, the file and field at that release).
FLAG_DEFAULTS: Mapping[tuple[str, str], tuple[str, str]] = {
    (VLLM_ENGINE, "--enable-lora"): ("False", _V + "vllm/engine/arg_utils.py EngineArgs.enable_lora"),
    (VLLM_ENGINE, "--max-loras"): ("1", _V + "vllm/config/lora.py LoRAConfig.max_loras"),
    (VLLM_ENGINE, "--max-lora-rank"): ("16", _V + "vllm/config/lora.py LoRAConfig.max_lora_rank (MaxLoRARanks)"),
    (VLLM_ENGINE, "--max-cpu-loras"): (
        "None",
        _V + "vllm/config/lora.py LoRAConfig.max_cpu_loras; None becomes max_loras in _validate_lora_config",
    ),
    (VLLM_ENGINE, "--lora-target-modules"): (
        "None",
        _V + "vllm/config/lora.py LoRAConfig.target_modules: 'If None, all supported LoRA modules are used'",
    ),
    (VLLM_ENGINE, "--lora-modules"): (
        "None",
        _V + "vllm/entrypoints/common/cli_args.py BaseFrontendArgs.lora_modules ('name=path' or JSON)",
    ),
    (VLLM_ENGINE, "--tensor-parallel-size"): ("1", _V + "vllm/config/parallel.py ParallelConfig.tensor_parallel_size"),
    (VLLM_ENGINE, "--gpu-memory-utilization"): ("0.92", _V + "vllm/config/cache.py CacheConfig.gpu_memory_utilization"),
    (VLLM_ENGINE, "--max-model-len"): (
        "None",
        _V + "vllm/config/model.py ModelConfig.max_model_len (derived from the model config when unset)",
    ),
    (SGLANG_ENGINE, "--enable-lora"): (
        "None",
        _S + "sglang/srt/arg_groups/fields/lora.py Lora.enable_lora (set by --lora-paths)",
    ),
    (SGLANG_ENGINE, "--max-loras-per-batch"): (
        "8",
        _S + "sglang/srt/arg_groups/fields/lora.py Lora.max_loras_per_batch",
    ),
    (SGLANG_ENGINE, "--max-lora-rank"): (
        "None",
        _S + "sglang/srt/arg_groups/fields/lora.py Lora.max_lora_rank (inferred from --lora-paths)",
    ),
    (SGLANG_ENGINE, "--max-loaded-loras"): ("None", _S + "sglang/srt/arg_groups/fields/lora.py Lora.max_loaded_loras"),
    (SGLANG_ENGINE, "--lora-target-modules"): (
        "None",
        _S + "sglang/srt/arg_groups/fields/lora.py Lora.lora_target_modules (inferred from --lora-paths)",
    ),
    (SGLANG_ENGINE, "--lora-paths"): ("None", _S + "sglang/srt/arg_groups/fields/lora.py Lora.lora_paths"),
    (SGLANG_ENGINE, "--tp-size"): ("1", _S + "sglang/srt/arg_groups/fields/parallel.py tp_size"),
    (SGLANG_ENGINE, "--mem-fraction-static"): (
        "None",
        _S + "sglang/srt/arg_groups/fields/schedule.py mem_fraction_static (chosen at start-up when unset)",
    ),
    (SGLANG_ENGINE, "--context-length"): (
        "None",
        _S + "sglang/srt/arg_groups/fields/model.py context_length (the model's own when unset)",
    ),
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
        choice("memory", self.memory, ("gpu", "host", ""))
        if (self.cost_mib is None) != (self.memory == ""):
            raise ValueError(
                f"{self.flag}: a cost needs its memory ('gpu' or 'host') and only then, "
                f"got {self.cost_mib!r} and {self.memory!r}"
            )

    @property
    def cost(self) -> str:
        """Return the cost as a phrase (empty for a flag that costs no memory)."""
        if self.cost_mib is None:
            return ""
        return f"{self.cost_mib:,.0f} MiB of {'GPU' if self.memory == 'gpu' else 'host'} memory"


@dataclass(frozen=True, slots=True)
class LaunchCommand:
    """Hold one engine's launch command: the environment, the program words, the flags, and what to say with it.

    ``env`` is set in front of the command; ``notes`` are the lines printed under it (a rounded rank,
    how adapters are loaded later).

    >>> LaunchCommand("vllm", ("vllm", "serve", "m"), (), env=(("A", "1"),)).command
    'A=1 vllm serve m'
    """

    engine: str
    program: tuple[str, ...]
    flags: tuple[LaunchFlag, ...]
    env: tuple[tuple[str, str], ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def argv(self) -> tuple[str, ...]:
        """Return the program and its arguments as words (flags without a value are switches; no environment)."""
        words = list(self.program)
        for f in self.flags:
            words.append(f.flag)
            if f.value:
                words += f.value.split(" ")
        return tuple(words)

    @property
    def command(self) -> str:
        """Return the command as one shell line, its environment first."""
        return " ".join([*(f"{k}={shlex.quote(v)}" for k, v in self.env), shlex.join(self.argv)])


def _flag(engine: str, flag: str, value: object, cost_bytes: float | None = None, memory: str = "") -> LaunchFlag:
    default, source = FLAG_DEFAULTS[(engine, flag)]
    cost = None if cost_bytes is None else cost_bytes / MIB
    value_text = "" if value is True else str(value)  # a switch takes no value
    return LaunchFlag(
        engine=engine,
        flag=flag,
        value=value_text,
        default=default,
        cost_mib=cost,
        memory=memory if cost is not None else "",
        source=source,
    )


def host_adapter_bytes(
    model: ModelConfig | str,
    *,
    tenants: int,
    rank: int,
    target_modules: Iterable[str] | None = None,
    dtype_bytes: int = 2,
) -> int:
    """Return the host memory of every tenant's adapter: each is one slot's buffers at its rank (decoder modules).

    >>> host_adapter_bytes("llama-3-8b", tenants=40, rank=16) // 2**20
    3200
    """
    targets = list(target_modules) if target_modules else list(_DECODER)
    return tenants * lora_slot_bytes(
        SGLANG_ENGINE, model, slots=1, max_rank=rank, target_modules=targets, dtype_bytes=dtype_bytes
    )


def _adapter_flags(engine: str, adapters: AdapterLoading) -> tuple[list[LaunchFlag], tuple[str, ...]]:
    """Return the flags that name a fixed set, and the lines that say how the other routes load adapters."""
    first = adapters.names[0]
    if adapters.mode == "static":
        flag = "--lora-modules" if engine == VLLM_ENGINE else "--lora-paths"
        return [_flag(engine, flag, adapters.pairs())], ()
    if engine == VLLM_ENGINE and adapters.mode == "resolver":
        return [], (
            f"a request for model '{first}' loads {adapters.path(first)} (the lora_filesystem_resolver "
            "plugin) if its adapter_config.json names this served model as base_model_name_or_path",
        )
    where = "no resolver in SGLang: load " if engine == SGLANG_ENGINE and adapters.mode == "resolver" else "load "
    port, route = (VLLM_PORT, "/v1/load_lora_adapter") if engine == VLLM_ENGINE else (SGLANG_PORT, "/load_lora_adapter")
    return [], (
        f"{where}each tenant's adapter once the server is up, e.g.:",
        "  " + load_call(port, route, first, adapters.path(first)),
    )


def launch_commands(inputs: PlanInputs, /, *, adapters: AdapterLoading | None = None) -> dict[str, LaunchCommand]:
    """Return the vLLM and SGLang launch commands (keyed ``'vllm'``, ``'sglang'``) for one GPU (or ``tp`` of them).

    ``inputs.model`` is a shipped config (served by its Hub id) or a local folder (served by that path);
    ``slots`` adapter slots (default: as many as tenants, at most :data:`~labcore.engines.inputs.DEFAULT_SLOTS`),
    every tenant's adapter kept in host memory, ranks up to ``rank`` (vLLM rounds up to its next allowed
    value and the command says so), ``context_tokens`` per sequence, ``memory_fraction`` of the
    driver-reported memory (``usable_mib``: the reader's own nvidia-smi total; default the course's figure);
    ``adapters`` is the route (default: the tenants as a fixed list in ``/adapters``). What each flag costs is
    :func:`engine_memory`'s.

    >>> cmds = launch_commands(PlanInputs(model="llama-3-8b", gpu="H100-80GB", tenants=4, rank=16,
    ...                                   context_tokens=4096, target_modules=("q_proj", "v_proj")))
    >>> [(f.flag, f.value, f.cost) for f in cmds["vllm"].flags][1]
    ('--max-loras', '4', '72 MiB of GPU memory')
    """
    i = instance("inputs", inputs, PlanInputs)
    _, cfg = model_inputs(i.model)
    served = served_name(i.model)
    if served is None:
        raise ModelConfigError(
            f"{i.model} has no published Hub repository; give --model the local folder of its config.json and weights"
        )
    adapters = (
        adapter_loading("static", i.tenants)
        if adapters is None
        else instance("adapters", adapters, AdapterLoading, error=ValueError)
    )
    if len(adapters.names) != i.tenants:
        raise ValueError(f"adapters must name the {i.tenants} tenants, got {len(adapters.names)} names")
    memory = engine_memory(i)
    slots = i.slot_count
    targets = i.target_list
    names = " ".join(targets) if targets else ""
    host = host_adapter_bytes(cfg, tenants=i.tenants, rank=i.rank, target_modules=targets, dtype_bytes=i.dtype_bytes)

    v, s = VLLM_ENGINE, SGLANG_ENGINE
    v_rank = vllm_rank(i.rank)
    v_adapters, v_notes = _adapter_flags(v, adapters)
    v_flags = [
        _flag(v, "--enable-lora", True),
        _flag(v, "--max-loras", slots, memory[v].lora, "gpu"),
        _flag(v, "--max-lora-rank", v_rank),
        _flag(v, "--max-cpu-loras", max(i.tenants, slots), host, "host"),
    ]
    if targets:
        v_flags.append(_flag(v, "--lora-target-modules", names))
    v_flags += v_adapters
    if i.tp > 1:
        v_flags.append(_flag(v, "--tensor-parallel-size", i.tp))
    v_flags += [
        _flag(v, "--gpu-memory-utilization", i.memory_fraction, memory[v].budget, "gpu"),
        _flag(v, "--max-model-len", i.context_tokens, memory[v].sequence, "gpu"),
    ]
    if v_rank != i.rank:
        v_notes = (
            f"rank {i.rank} -> --max-lora-rank {v_rank}, the next value vLLM allows "
            f"({', '.join(map(str, VLLM_MAX_LORA_RANKS))})",
            *v_notes,
        )
    v_env = VLLM_ENV[adapters.mode]
    if adapters.mode == "resolver":
        v_env += (("VLLM_LORA_RESOLVER_CACHE_DIR", adapters.directory),)

    s_slots = slots + 1  # the base model's requests take one
    s_adapters, s_notes = _adapter_flags(s, adapters)
    s_flags = [
        _flag(s, "--enable-lora", True),
        _flag(s, "--max-loras-per-batch", s_slots, memory[s].lora, "gpu"),
        _flag(s, "--max-lora-rank", i.rank),
        _flag(s, "--max-loaded-loras", max(i.tenants, s_slots), host, "host"),
        _flag(s, "--lora-target-modules", names or "all"),
        *s_adapters,
    ]
    if i.tp > 1:
        s_flags.append(_flag(s, "--tp-size", i.tp))
    s_flags += [
        _flag(s, "--mem-fraction-static", i.memory_fraction, memory[s].budget, "gpu"),
        _flag(s, "--context-length", i.context_tokens, memory[s].sequence, "gpu"),
    ]
    return {
        v: LaunchCommand(engine=v, program=("vllm", "serve", served), flags=tuple(v_flags), env=v_env, notes=v_notes),
        s: LaunchCommand(
            engine=s,
            program=("python", "-m", "sglang.launch_server", "--model-path", served),
            flags=tuple(s_flags),
            env=(),
            notes=s_notes,
        ),
    }
