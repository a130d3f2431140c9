"""Size the LoRA slot buffers vLLM and SGLang allocate when a model loads, module by module.

Both engines reserve, before any adapter arrives, one ``A`` and one ``B`` buffer per wrapped
module, each as wide as ``max_rank`` for every slot, whatever rank an adapter really has. The
modules are the architecture's packed projections (``qkv_proj`` of three slices with k and v at
the grouped-query width, ``o_proj``, ``gate_up_proj`` of two slices at the intermediate size,
``down_proj``), the experts of a mixture-of-experts layer, and the embedding and output head
where the engine wraps them. Tensor parallelism shards column-parallel outputs and row-parallel
inputs. What each engine allocates was read in its released wheel (vLLM 0.33.0, SGLang 0.5.23,
downloaded by ``make engines``); every buffer records the file and function it follows
(:data:`SOURCES`), and the tests check each cited name exists in that file at the release.

>>> mib = 2**20
>>> decoder = ["qkv_proj", "o_proj", "gate_up_proj", "down_proj"]
>>> lora_slot_bytes("vllm", "llama-3-8b", slots=8, max_rank=64, target_modules=decoder) // mib
2560
>>> lora_slot_bytes("vllm", "llama-3-8b", slots=8, max_rank=64, target_modules=["qkv_proj"]) // mib
576
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .._validate import choice, count, instance, items, text
from ..errors import UnknownEngineError, UnsupportedModelError
from ..model_config import ModelConfig, load_model_config

__all__ = [
    "VLLM_ENGINE",
    "SGLANG_ENGINE",
    "ALLOCATING_ENGINES",
    "VLLM_MAX_LORA_RANKS",
    "SOURCES",
    "UnknownEngineError",
    "UnsupportedModelError",
    "LoraBuffer",
    "lora_buffers",
    "lora_slot_bytes",
    "buffer_rows",
]

VLLM_ENGINE = "vllm"
SGLANG_ENGINE = "sglang"
ALLOCATING_ENGINES: tuple[str, ...] = (VLLM_ENGINE, SGLANG_ENGINE)
#: ``MaxLoRARanks`` in vllm/config/lora.py (vLLM 0.33.0): the only values ``--max-lora-rank`` takes.
VLLM_MAX_LORA_RANKS: tuple[int, ...] = (1, 8, 16, 32, 64, 128, 256, 320, 512)
#: vLLM's LogitsProcessorWithLoRA.create_lora_weights refuses a larger vocabulary.
_VLLM_MAX_LORA_VOCAB = 258048
#: SGLang's VocabParallelEmbedding pads the vocabulary to a multiple of this before sharding it.
_SGLANG_VOCAB_PADDING = 64

#: Where each kind of buffer is allocated: the file and function in the released wheel (vLLM 0.33.0, SGLang 0.5.23).
SOURCES: Mapping[str, str] = {
    "vllm.select": "vllm-0.33.0 vllm/lora/model_manager.py LoRAModelManager._create_lora_modules: every supported "
    "LoRA module unless LoRAConfig.target_modules restricts it ('If None, all supported LoRA modules "
    "are used', vllm/config/lora.py LoRAConfig.target_modules)",
    "vllm.linear": "vllm-0.33.0 vllm/lora/layers/base_linear.py BaseLinearLayerWithLoRA.create_lora_weights",
    "vllm.packed": "vllm-0.33.0 vllm/lora/layers/column_parallel_linear.py MergedColumnParallelLinearWithLoRA and "
    "MergedQKVParallelLinearWithLoRA",
    "vllm.row": "vllm-0.33.0 vllm/lora/layers/row_parallel_linear.py RowParallelLinearWithLoRA",
    "vllm.embedding": "vllm-0.33.0 vllm/lora/layers/vocab_parallel_embedding.py "
    "VocabParallelEmbeddingWithLoRA.create_lora_weights",
    "vllm.lm_head": "vllm-0.33.0 vllm/lora/layers/logits_processor.py LogitsProcessorWithLoRA.create_lora_weights",
    "vllm.moe": "vllm-0.33.0 vllm/lora/layers/fused_moe.py FusedMoEWithLoRA._create_lora_a_weights and "
    "FusedMoEWithLoRA._create_lora_b_weights",
    "sglang.pool": "sglang-0.5.23 sglang/srt/lora/mem_pool.py LoRAMemoryPool.get_lora_A_shape, "
    "LoRAMemoryPool.get_lora_B_shape, LoRAMemoryPool._column_parallel_lora_b_per_rank_dim and "
    "LoRAMemoryPool.init_buffers",
    "sglang.embedding": "sglang-0.5.23 sglang/srt/lora/mem_pool.py LoRAMemoryPool.get_embedding_lora_A_shape and "
    "LoRAMemoryPool.get_embedding_lora_B_shape; sglang/srt/lora/lora_manager.py "
    "LoRAManager.init_lora_modules (a tied lm_head is untied when targeted)",
    "sglang.dims": "sglang-0.5.23 sglang/srt/lora/utils.py get_hidden_dim, get_stacked_multiply and "
    "auto_detect_lora_target_modules",
}

# vLLM 0.33.0 model classes whose ``embedding_modules`` name embed_tokens and lm_head, by the model_type of the
# shipped configs (labcore/data/engines/vllm-0.33.0-*.json "architectures": LlamaForCausalLM and Phi3ForCausalLM
# built on it, MixtralForCausalLM, Qwen3ForCausalLM and Qwen3MoeForCausalLM since PR #29816); MistralForCausalLM
# sets "embedding_modules = {}" ("We don't support LoRA on the embedding layers"), Gemma 2/3 and Qwen2 declare none.
_VLLM_EMBEDDING_TYPES = frozenset({"llama", "phi3", "mixtral", "qwen3", "qwen3_moe"})
_MOE_TYPES_NO_SHARED = frozenset({"mixtral", "qwen3_moe"})
# Names a user may give, mapped to the module that carries them (PEFT names -> packed names).
_ALIASES = {
    "q_proj": "qkv_proj",
    "k_proj": "qkv_proj",
    "v_proj": "qkv_proj",
    "gate_proj": "gate_up_proj",
    "up_proj": "gate_up_proj",
    "w1": "gate_up_proj",
    "w3": "gate_up_proj",
    "w2": "down_proj",
}


@dataclass(frozen=True, slots=True)
class LoraBuffer:
    """Hold one preallocated LoRA buffer pair: the module, its slice, the shapes of ``A`` and ``B``.

    ``count`` is how many such pairs exist (one per decoder layer, or one for the embedding).

    >>> b = LoraBuffer("vllm", "o_proj", "", (8, 1, 64, 4096), (8, 1, 4096, 64), 32, 2, "src")
    >>> b.bytes // 2**20
    256
    """

    engine: str
    module: str
    part: str
    a_shape: tuple[int, ...]
    b_shape: tuple[int, ...]
    count: int
    dtype_bytes: int
    source: str

    def __post_init__(self) -> None:
        choice("engine", self.engine, ALLOCATING_ENGINES, error=UnknownEngineError)
        text("module", self.module)
        instance("part", self.part, str, error=ValueError)
        for name in ("a_shape", "b_shape"):
            shape = getattr(self, name)
            if (
                not isinstance(shape, tuple)
                or not shape
                or not all(isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in shape)
            ):
                raise ValueError(f"{name} must be a tuple of positive ints, got {shape!r}")
        count("count", self.count)
        count("dtype_bytes", self.dtype_bytes)
        text("source", self.source)

    @property
    def a_bytes(self) -> int:
        """Return the bytes of every ``A`` buffer of this kind."""
        return self.count * math.prod(self.a_shape) * self.dtype_bytes

    @property
    def b_bytes(self) -> int:
        """Return the bytes of every ``B`` buffer of this kind."""
        return self.count * math.prod(self.b_shape) * self.dtype_bytes

    @property
    def bytes(self) -> int:
        """Return ``a_bytes + b_bytes``."""
        return self.a_bytes + self.b_bytes


def _config(model: ModelConfig | str) -> ModelConfig:
    if isinstance(model, ModelConfig):
        return model
    return load_model_config(text("model", model))


def _check_tp(cfg: ModelConfig, tp: int) -> None:
    count("tp", tp)
    widths = {"num_attention_heads": cfg.num_attention_heads, "intermediate_size": cfg.intermediate_size}
    if cfg.is_moe:
        widths = {"num_attention_heads": cfg.num_attention_heads, "moe_intermediate_size": cfg.expert_width}
    for name, width in widths.items():
        if width % tp:
            raise ValueError(f"tp must divide {cfg.name}'s {name} {width}, got {tp}")
    kv = cfg.num_key_value_heads
    if kv % tp and tp % kv:
        raise ValueError(f"tp must divide {cfg.name}'s {kv} KV heads or be a multiple of them, got {tp}")


def _kv_heads_per_rank(cfg: ModelConfig, tp: int) -> int:
    # QKVParallelLinear: num_kv_heads = max(1, total_kv // tp); below one head per rank they replicate.
    return max(1, cfg.num_key_value_heads // tp)


def _moe_check(cfg: ModelConfig) -> None:
    if cfg.is_moe and (cfg.model_type not in _MOE_TYPES_NO_SHARED or cfg.shared_expert_intermediate_size):
        raise UnsupportedModelError(
            f"{cfg.name}: shared or unlisted experts ({cfg.model_type}, shared_expert_intermediate_size "
            f"{cfg.shared_expert_intermediate_size}) are not modelled; supported mixture-of-experts types: "
            f"{sorted(_MOE_TYPES_NO_SHARED)} without shared experts"
        )


def _vllm_buffers(cfg: ModelConfig, s: int, r: int, tp: int, db: int) -> list[LoraBuffer]:
    h, n, d = cfg.hidden_size, cfg.num_hidden_layers, cfg.head_width
    q_rank = cfg.num_attention_heads // tp * d
    kv_rank = _kv_heads_per_rank(cfg, tp) * d

    def buf(module: str, part: str, a: tuple[int, ...], b: tuple[int, ...], key: str, k: int = n) -> LoraBuffer:
        return LoraBuffer(
            engine=VLLM_ENGINE,
            module=module,
            part=part,
            a_shape=a,
            b_shape=b,
            count=k,
            dtype_bytes=db,
            source=SOURCES[key],
        )

    out = [
        buf("qkv_proj", p, (s, 1, r, h), (s, 1, w, r), "vllm.packed")
        for p, w in (("q", q_rank), ("k", kv_rank), ("v", kv_rank))
    ]
    out.append(buf("o_proj", "", (s, 1, r, cfg.q_dim // tp), (s, 1, h, r), "vllm.row"))
    if cfg.is_moe:
        e, i = cfg.num_experts, cfg.expert_width // tp
        out.append(buf("gate", "router", (s, 1, r, h), (s, 1, e, r), "vllm.linear"))
        out += [buf("experts", p, (s, e, r, h), (s, e, i, r), "vllm.moe") for p in ("w1", "w3")]
        out.append(buf("experts", "w2", (s, e, r, i), (s, e, h, r), "vllm.moe"))
    else:
        i = cfg.intermediate_size // tp
        out += [buf("gate_up_proj", p, (s, 1, r, h), (s, 1, i, r), "vllm.packed") for p in ("gate", "up")]
        out.append(buf("down_proj", "", (s, 1, r, i), (s, 1, h, r), "vllm.row"))
    if cfg.model_type in _VLLM_EMBEDDING_TYPES:
        v = _vocab(cfg)
        out.append(buf("embed_tokens", "", (s, v, r), (s, 1, h, r), "vllm.embedding", 1))
        out.append(buf("lm_head", "", (s, 1, r, h), (s, 1, v, r), "vllm.lm_head", 1))
    return out


def _sglang_buffers(cfg: ModelConfig, s: int, r: int, tp: int, db: int) -> list[LoraBuffer]:
    h, n, d = cfg.hidden_size, cfg.num_hidden_layers, cfg.head_width
    if cfg.num_key_value_heads >= tp:
        qkv_out = (cfg.q_dim + 2 * cfg.kv_dim) // tp
    else:  # KV heads replicated across ranks: each keeps one head of K and of V
        qkv_out = cfg.q_dim // tp + 2 * d

    def buf(module: str, a: tuple[int, ...], b: tuple[int, ...], key: str, k: int = n) -> LoraBuffer:
        return LoraBuffer(
            engine=SGLANG_ENGINE,
            module=module,
            part="",
            a_shape=a,
            b_shape=b,
            count=k,
            dtype_bytes=db,
            source=SOURCES[key],
        )

    out = [
        buf("qkv_proj", (s, 3 * r, h), (s, qkv_out, r), "sglang.pool"),
        buf("o_proj", (s, r, cfg.q_dim // tp), (s, h, r), "sglang.pool"),
    ]
    if cfg.is_moe:
        e, i = cfg.num_experts, cfg.expert_width // tp
        out.append(buf("gate_up_proj_moe", (s, e, 2 * r, h), (s, e, 2 * i, r), "sglang.pool"))
        out.append(buf("down_proj_moe", (s, e, r, i), (s, e, h, r), "sglang.pool"))
    else:
        i = cfg.intermediate_size // tp
        out.append(buf("gate_up_proj", (s, 2 * r, h), (s, 2 * i, r), "sglang.pool"))
        out.append(buf("down_proj", (s, r, i), (s, h, r), "sglang.pool"))
    v = _vocab(cfg)
    out.append(buf("embed_tokens", (s, r, v), (s, h, r), "sglang.embedding", 1))
    # A tied head gets its own LoRA module too: LoRAManager.init_lora_modules makes an untied ParallelLMHead
    # sharing the embedding's weight when lm_head is targeted (sglang.untie), so its buffers are allocated.
    shard = v if tp == 1 else _ceil_div(_ceil_div(v, _SGLANG_VOCAB_PADDING) * _SGLANG_VOCAB_PADDING, tp)
    out.append(buf("lm_head", (s, r, h), (s, shard, r), "sglang.embedding", 1))
    return out


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _vocab(cfg: ModelConfig) -> int:
    if cfg.vocab_size is None:
        raise UnsupportedModelError(f"{cfg.name}: config has no vocab_size; the embedding buffers cannot be sized")
    return cfg.vocab_size


def _module_of(engine: str, cfg: ModelConfig, name: str) -> str:
    module = _ALIASES.get(name, name)
    if cfg.is_moe and module in ("gate_up_proj", "down_proj"):
        module = "experts" if engine == VLLM_ENGINE else f"{module}_moe"
    return module


def _select(
    engine: str, cfg: ModelConfig, every: list[LoraBuffer], target_modules: Iterable[str] | None
) -> list[LoraBuffer]:
    if target_modules is None:
        return every
    items("target_modules", target_modules)
    names = list(target_modules)
    if engine == SGLANG_ENGINE and names == ["all"]:
        return every
    present = {b.module for b in every}
    valid = sorted(present | {alias for alias in _ALIASES if _module_of(engine, cfg, alias) in present})
    if not names:
        raise ValueError(f"target_modules must name at least one of {valid}, got []")
    wanted = set()
    for name in names:
        module = _module_of(engine, cfg, name) if isinstance(name, str) else None
        if module not in present:
            raise ValueError(
                f"{engine} allocates no LoRA buffer for target module {name!r} of {cfg.name} "
                f"({cfg.model_type}); valid: {valid}"
            )
        wanted.add(module)
    return [b for b in every if b.module in wanted]


def lora_buffers(
    engine: str,
    model: ModelConfig | str,
    *,
    slots: int,
    max_rank: int,
    target_modules: Iterable[str] | None = None,
    tp: int = 1,
    dtype_bytes: int = 2,
) -> tuple[LoraBuffer, ...]:
    """Return every LoRA buffer ``engine`` preallocates for ``model``, per module and slice, on one GPU.

    ``slots`` is vLLM's ``--max-loras`` or SGLang's ``--max-loras-per-batch`` (which counts the base
    model's requests too); ``max_rank`` the engine's ``--max-lora-rank``; ``target_modules`` vLLM's
    ``--lora-target-modules`` (None: every module the architecture supports) or SGLang's (None is
    ``all``: every module its pool can hold); PEFT names (``q_proj``) select their packed module.

    >>> [(b.module, b.part, b.a_shape, b.b_shape) for b in lora_buffers(
    ...     "vllm", "llama-3-8b", slots=8, max_rank=16, target_modules=["k_proj"])][1]
    ('qkv_proj', 'k', (8, 1, 16, 4096), (8, 1, 1024, 16))
    """
    choice("engine", engine, ALLOCATING_ENGINES, error=UnknownEngineError)
    cfg = _config(model)
    count("slots", slots)
    count("max_rank", max_rank)
    if engine == VLLM_ENGINE:
        choice("vLLM's max_rank", max_rank, VLLM_MAX_LORA_RANKS)
    choice("dtype_bytes", dtype_bytes, (1, 2, 4))
    _check_tp(cfg, tp)
    _moe_check(cfg)
    build = _vllm_buffers if engine == VLLM_ENGINE else _sglang_buffers
    chosen = _select(engine, cfg, build(cfg, slots, max_rank, tp, dtype_bytes), target_modules)
    if engine == VLLM_ENGINE and any(b.module == "lm_head" for b in chosen) and _vocab(cfg) > _VLLM_MAX_LORA_VOCAB:
        raise UnsupportedModelError(
            f"{cfg.name}: vLLM refuses an lm_head LoRA above {_VLLM_MAX_LORA_VOCAB} "
            f"tokens of vocabulary, got {cfg.vocab_size}"
        )
    return tuple(chosen)


def lora_slot_bytes(
    engine: str,
    model: ModelConfig | str,
    *,
    slots: int,
    max_rank: int,
    target_modules: Iterable[str] | None = None,
    tp: int = 1,
    dtype_bytes: int = 2,
) -> int:
    """Return the bytes of LoRA buffers ``engine`` allocates on each GPU at load time (see :func:`lora_buffers`).

    >>> lora_slot_bytes("sglang", "llama-3-8b", slots=8, max_rank=64, target_modules=["qkv_proj"]) // 2**20
    576
    """
    return sum(
        b.bytes
        for b in lora_buffers(
            engine, model, slots=slots, max_rank=max_rank, target_modules=target_modules, tp=tp, dtype_bytes=dtype_bytes
        )
    )


def buffer_rows(buffers: Iterable[LoraBuffer], *, per_module: bool = False) -> list[dict[str, Any]]:
    """Return the buffers as display rows (module, slice, A and B shapes, MiB) for a chapter's table.

    ``per_module=True`` gives one row per module, its slices' shapes joined by ``+`` (a table short enough for a
    slide).

    >>> buffer_rows(lora_buffers("vllm", "llama-3-8b", slots=8, max_rank=64, target_modules=["o_proj"]))[0]["mib"]
    256.0
    >>> row = buffer_rows(lora_buffers("vllm", "llama-3-8b", slots=8, max_rank=16), per_module=True)[0]
    >>> row["module"], row["slice"], row["B"], row["mib"]
    ('qkv_proj', 'q + k + v', '8×1×4096×16 + 8×1×1024×16 + 8×1×1024×16', 144.0)
    """
    rows: list[dict[str, Any]] = [
        {
            "module": b.module,
            "slice": b.part or "\u2014",
            "A": "\u00d7".join(map(str, b.a_shape)),
            "B": "\u00d7".join(map(str, b.b_shape)),
            "per": "layer" if b.count > 1 else "model",
            "count": b.count,
            "mib": b.bytes / 2**20,
        }
        for b in buffers
    ]
    if not per_module:
        return rows
    merged: dict[str, dict[str, Any]] = {}
    for row in rows:
        if row["module"] not in merged:
            merged[row["module"]] = dict(row)
            continue
        m = merged[row["module"]]
        for key in ("slice", "A", "B"):
            m[key] = f"{m[key]} + {row[key]}"
        m["mib"] += row["mib"]
    return list(merged.values())
