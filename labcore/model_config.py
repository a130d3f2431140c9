"""Size a LoRA adapter exactly from a model's ``config.json``, grouped-query attention included.

``labcore.sizing.adapter_vram_mb`` assumes every adapted projection is ``hidden x hidden``. Real
decoders are not square: under grouped-query attention the k and v projections map ``hidden`` to
``num_key_value_heads * head_dim``, and the MLP projections map to and from ``intermediate_size``.
A LoRA on a module of shape ``in -> out`` stores ``A`` (r x in) and ``B`` (out x r):
``r * (in + out)`` parameters per layer.

>>> cfg = load_model_config("llama-3-8b")
>>> target_dims(cfg, "v_proj")
(4096, 1024)
>>> exact_adapter_mb(cfg, 16, ["q_proj", "v_proj"])      # the naive formula says 16.0
13.0

The configs of the models the course uses live in ``labcore/data/models/*.json``; their
dimensions are the published ones.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from .errors import ModelConfigError
from .sizing import MIB, adapter_vram_mb

__all__ = [
    "TARGETS",
    "ModelConfigError",
    "ModelConfig",
    "known_models",
    "load_model_config",
    "target_dims",
    "lora_params",
    "exact_adapter_mb",
    "peft_modules",
    "peft_lora_params",
    "TARGET_SETS",
    "ExactSizing",
    "exact_sizing",
]

#: The adapted projections of a Llama-style decoder layer, in the order they run.
TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
_SHORT = {t.split("_")[0]: t for t in TARGETS}  # "q" -> "q_proj", "gate" -> "gate_proj"...
_DATA = "data/models"
# What a config.json leaves to the architecture's code, by model_type (transformers' modelling files).
_QKV_BIAS = frozenset({"qwen2", "qwen2_moe"})  # Qwen2Attention: q/k/v Linear(bias=True), o without
_QK_NORM = frozenset({"qwen3", "qwen3_moe", "gemma3_text"})  # an RMSNorm of head_dim on q and on k
_FOUR_NORMS = frozenset({"gemma2", "gemma3_text"})  # pre- and post-norms around attention and MLP
_TIED_BY_DEFAULT = frozenset({"gemma", "gemma2", "gemma3_text"})  # their config classes default to True


def _positive_int(source: str, key: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ModelConfigError(f"{source}: {key} must be a positive int, got {value!r}")
    return value


@dataclass(frozen=True, slots=True)
class ModelConfig:
    """Hold the dimensions of a Llama-style decoder that decide the shape of every projection.

    >>> ModelConfig("m", hidden_size=64, intermediate_size=256, num_hidden_layers=2,
    ...             num_attention_heads=4, num_key_value_heads=2).kv_dim
    32
    """

    name: str
    hidden_size: int
    intermediate_size: int
    num_hidden_layers: int
    num_attention_heads: int
    num_key_value_heads: int
    head_dim: int | None = None
    model_type: str = "llama"
    vocab_size: int | None = None
    tie_word_embeddings: bool = False
    attention_bias: bool = False
    qk_norm: bool = False
    norms_per_layer: int = 2
    num_experts: int = 0
    num_experts_per_tok: int = 0
    moe_intermediate_size: int | None = None
    shared_expert_intermediate_size: int = 0

    def __post_init__(self) -> None:
        for key in ("hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads"):
            _positive_int(self.name, key, getattr(self, key))
        if self.vocab_size is not None:
            _positive_int(self.name, "vocab_size", self.vocab_size)
        for key in ("tie_word_embeddings", "attention_bias", "qk_norm"):
            if not isinstance(getattr(self, key), bool):
                raise ModelConfigError(f"{self.name}: {key} must be true or false, got {getattr(self, key)!r}")
        _positive_int(self.name, "norms_per_layer", self.norms_per_layer)
        for key in ("num_experts", "num_experts_per_tok", "shared_expert_intermediate_size"):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ModelConfigError(f"{self.name}: {key} must be an int >= 0, got {value!r}")
        if self.num_experts:
            if not 1 <= self.num_experts_per_tok <= self.num_experts:
                raise ModelConfigError(
                    f"{self.name}: num_experts_per_tok must be between 1 and num_experts {self.num_experts}, "
                    f"got {self.num_experts_per_tok!r}"
                )
            if self.moe_intermediate_size is None:
                object.__setattr__(self, "moe_intermediate_size", self.intermediate_size)  # Mixtral's convention
            _positive_int(self.name, "moe_intermediate_size", self.moe_intermediate_size)
        elif self.num_experts_per_tok or self.moe_intermediate_size is not None or self.shared_expert_intermediate_size:
            raise ModelConfigError(f"{self.name}: expert fields are set but num_experts is 0; a dense model has none")
        if self.head_dim is None:
            if self.hidden_size % self.num_attention_heads:
                raise ModelConfigError(
                    f"{self.name}: hidden_size {self.hidden_size} is not divisible by num_attention_heads "
                    f"{self.num_attention_heads}; give head_dim explicitly"
                )
            object.__setattr__(self, "head_dim", self.hidden_size // self.num_attention_heads)
        else:
            _positive_int(self.name, "head_dim", self.head_dim)
        if self.num_attention_heads % self.num_key_value_heads:
            raise ModelConfigError(
                f"{self.name}: num_attention_heads {self.num_attention_heads} must be a multiple of "
                f"num_key_value_heads {self.num_key_value_heads} (grouped-query attention)"
            )

    @property
    def q_dim(self) -> int:
        """Return the width of all query heads together: ``num_attention_heads * head_dim``."""
        return self.num_attention_heads * self.head_dim  # type: ignore[operator]

    @property
    def kv_dim(self) -> int:
        """Return the width of all key (or value) heads together: ``num_key_value_heads * head_dim``."""
        return self.num_key_value_heads * self.head_dim  # type: ignore[operator]

    @property
    def is_moe(self) -> bool:
        """Return True if the MLP of each layer is a set of routed experts (Mixtral, Qwen3-MoE...)."""
        return self.num_experts > 0

    @classmethod
    def from_dict(cls, config: Mapping[str, Any], *, name: str = "config") -> ModelConfig:
        """Build from a parsed Hugging Face ``config.json`` (extra keys are ignored).

        ``num_key_value_heads`` defaults to ``num_attention_heads`` (no GQA), ``head_dim`` to
        ``hidden_size // num_attention_heads``, as in transformers. What a config.json leaves to the
        architecture's code is filled in by ``model_type``: Qwen2 always has q/k/v biases, Qwen3 and
        Gemma 3 normalise q and k per head, Gemma 2/3 have four norms per layer and tie the head by
        default. Experts are read under any of their spellings (``num_local_experts``, ``num_experts``).

        >>> cfg = ModelConfig.from_dict({"model_type": "mixtral", "hidden_size": 64, "intermediate_size": 224,
        ...     "num_hidden_layers": 2, "num_attention_heads": 4, "num_local_experts": 8, "num_experts_per_tok": 2})
        >>> (cfg.is_moe, cfg.num_experts, cfg.moe_intermediate_size)
        (True, 8, 224)
        """
        if not isinstance(config, Mapping):
            raise ModelConfigError(f"{name}: a model config must be a JSON object, got {type(config).__name__}")
        missing = [k for k in ("hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads") if k not in config]
        if missing:
            raise ModelConfigError(f"{name}: config lacks {missing}; a Llama-style config.json has all of them")
        heads = config["num_attention_heads"]
        kv = config.get("num_key_value_heads")
        model_type = str(config.get("model_type", "llama"))
        experts = config.get("num_local_experts") or config.get("num_experts") or 0
        return cls(
            name,
            hidden_size=config["hidden_size"],
            intermediate_size=config["intermediate_size"],
            num_hidden_layers=config["num_hidden_layers"],
            num_attention_heads=heads,
            num_key_value_heads=heads if kv is None else kv,
            head_dim=config.get("head_dim"),
            model_type=model_type,
            vocab_size=config.get("vocab_size"),
            tie_word_embeddings=config.get("tie_word_embeddings", model_type in _TIED_BY_DEFAULT),
            attention_bias=config.get("attention_bias", False) or model_type in _QKV_BIAS,
            qk_norm=model_type in _QK_NORM,
            norms_per_layer=4 if model_type in _FOUR_NORMS else 2,
            num_experts=experts,
            num_experts_per_tok=config.get("num_experts_per_tok", 0) if experts else 0,
            moe_intermediate_size=config.get("moe_intermediate_size") if experts else None,
            shared_expert_intermediate_size=config.get("shared_expert_intermediate_size") or 0 if experts else 0,
        )


def known_models() -> tuple[str, ...]:
    """Return the names of the model configs shipped in ``labcore/data/models``.

    >>> "llama-3-8b" in known_models()
    True
    """
    folder = resources.files("labcore").joinpath(_DATA)
    return tuple(sorted(p.name[: -len(".json")] for p in folder.iterdir() if p.name.endswith(".json")))


def load_model_config(name_or_path: str | os.PathLike[str]) -> ModelConfig:
    """Load a shipped config by name (``'llama-3-8b'``) or any ``config.json`` (or its folder) by path."""
    if isinstance(name_or_path, str) and name_or_path in known_models():
        source = resources.files("labcore").joinpath(_DATA, f"{name_or_path}.json")
        text, name = source.read_text(encoding="utf-8"), name_or_path
    else:
        path = Path(name_or_path)
        if path.is_dir():
            path = path / "config.json"
        if not path.is_file():
            raise ModelConfigError(f"{name_or_path}: neither a known model {list(known_models())} nor a config.json file")
        text, name = path.read_text(encoding="utf-8"), str(path)
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ModelConfigError(f"{name}: not valid JSON: {exc}") from exc
    return ModelConfig.from_dict(data, name=name)


def _config(config: ModelConfig | Mapping[str, Any] | str) -> ModelConfig:
    if isinstance(config, ModelConfig):
        return config
    if isinstance(config, str):
        return load_model_config(config)
    return ModelConfig.from_dict(config)


def _target(name: str) -> str:
    if isinstance(name, str):
        full = _SHORT.get(name, name)
        if full in TARGETS:
            return full
    raise ModelConfigError(f"unknown target module {name!r}; valid: {list(TARGETS)} (or {list(_SHORT)})")


def target_dims(config: ModelConfig | Mapping[str, Any] | str, target: str) -> tuple[int, int]:
    """Return ``(in_features, out_features)`` of one projection (``'q_proj'`` or ``'q'``...).

    >>> target_dims("llama-3-8b", "down")
    (14336, 4096)
    """
    cfg = _config(config)
    h, i = cfg.hidden_size, cfg.intermediate_size
    return {
        "q_proj": (h, cfg.q_dim),
        "k_proj": (h, cfg.kv_dim),
        "v_proj": (h, cfg.kv_dim),
        "o_proj": (cfg.q_dim, h),
        "gate_proj": (h, i),
        "up_proj": (h, i),
        "down_proj": (i, h),
    }[_target(target)]


def _targets(targets: Iterable[str] | str) -> tuple[str, ...]:
    if isinstance(targets, str):
        raise ModelConfigError(f"targets must be a list of module names, got the string {targets!r}")
    names = tuple(_target(t) for t in targets)
    if not names:
        raise ModelConfigError(f"targets must name at least one of {list(TARGETS)}")
    if len(set(names)) != len(names):
        raise ModelConfigError(f"targets name a module twice: {list(targets)}")
    return names


def lora_params(config: ModelConfig | Mapping[str, Any] | str, rank: int, targets: Iterable[str]) -> int:
    """Return the exact parameter count of a LoRA: ``layers * sum(rank * (in + out))`` over targets.

    >>> lora_params("llama-3-8b", 16, ["q", "v"])
    6815744
    """
    cfg = _config(config)
    _positive_int("rank", "rank", rank)
    per_layer = sum(rank * sum(target_dims(cfg, t)) for t in _targets(targets))
    return cfg.num_hidden_layers * per_layer


def exact_adapter_mb(
    config: ModelConfig | Mapping[str, Any] | str, rank: int, targets: Iterable[str], bytes: int = 2
) -> float:
    """Return the exact adapter size in MiB at ``bytes`` per parameter (2 for bf16, 4 for fp32).

    >>> exact_adapter_mb("llama-2-7b", 16, ["q", "v"])     # no GQA: equals the naive 16.0
    16.0
    """
    if isinstance(bytes, bool) or not isinstance(bytes, int) or bytes <= 0:
        raise ModelConfigError(f"bytes per parameter must be a positive int, got {bytes!r}")
    return lora_params(config, rank, targets) * bytes / MIB


# -- a LoRA as PEFT lays it out: every module a LoraConfig adapts, with its own rank ---------------


def _dims(cfg: Mapping[str, Any], *keys: str, default: int | None = None) -> int:
    for key in keys:
        value = cfg.get(key)
        if value is not None:
            return _positive_int(str(cfg.get("model_type", "config")), key, value)
    if default is not None:
        return default
    raise ModelConfigError(f"config lacks {' or '.join(keys)}; cannot lay out its modules")


def peft_modules(config: Mapping[str, Any] | str) -> tuple[tuple[str, str, int, int], ...]:
    """Return every module PEFT could adapt in a model: ``(path, kind, in_features, out_features)``.

    Paths are those of the transformers model (``model.layers.0.self_attn.q_proj``), kinds
    ``'linear'`` or ``'embedding'`` (an embedding's ``in_features`` is its vocabulary). Covered:
    Llama-style decoders (Llama, Mistral, Qwen2/3, Gemma, Phi-3 style names), Mixtral (router
    ``block_sparse_moe.gate`` and experts ``w1``/``w3``/``w2`` as in its published checkpoints),
    Qwen MoE (router ``mlp.gate`` and experts' ``gate_proj``/``up_proj``/``down_proj``) and GPT-2.
    ``config`` is a parsed ``config.json`` (or a shipped model name).

    >>> [m for m in peft_modules("mixtral-8x7b") if ".0.block_sparse_moe.gate" in m[0]]
    [('model.layers.0.block_sparse_moe.gate', 'linear', 4096, 8)]
    """
    cfg = _raw_config(config)
    vocab = _dims(cfg, "vocab_size")
    out: list[tuple[str, str, int, int]] = []
    if cfg.get("model_type") == "gpt2":
        h, layers = _dims(cfg, "n_embd", "hidden_size"), _dims(cfg, "n_layer", "num_hidden_layers")
        inner = _dims(cfg, "n_inner", default=4 * h)
        out.append(("transformer.wte", "embedding", vocab, h))
        for i in range(layers):
            p = f"transformer.h.{i}"
            out += [(f"{p}.attn.c_attn", "linear", h, 3 * h), (f"{p}.attn.c_proj", "linear", h, h),
                    (f"{p}.mlp.c_fc", "linear", h, inner), (f"{p}.mlp.c_proj", "linear", inner, h)]
        out.append(("lm_head", "linear", h, vocab))
        return tuple(out)
    dims = ModelConfig.from_dict(cfg, name=str(cfg.get("model_type", "config")))
    h = dims.hidden_size
    out.append(("model.embed_tokens", "embedding", vocab, h))
    for i in range(dims.num_hidden_layers):
        p = f"model.layers.{i}"
        for t in ("q_proj", "k_proj", "v_proj", "o_proj"):
            out.append((f"{p}.self_attn.{t}", "linear", *target_dims(dims, t)))
        if cfg.get("num_local_experts"):  # Mixtral
            experts = _dims(cfg, "num_local_experts")
            out.append((f"{p}.block_sparse_moe.gate", "linear", h, experts))
            for j in range(experts):
                e = f"{p}.block_sparse_moe.experts.{j}"
                out += [(f"{e}.w1", "linear", h, dims.intermediate_size), (f"{e}.w3", "linear", h, dims.intermediate_size),
                        (f"{e}.w2", "linear", dims.intermediate_size, h)]
        elif cfg.get("num_experts"):  # Qwen MoE
            experts, inter = _dims(cfg, "num_experts"), _dims(cfg, "moe_intermediate_size", "intermediate_size")
            out.append((f"{p}.mlp.gate", "linear", h, experts))
            for j in range(experts):
                e = f"{p}.mlp.experts.{j}"
                out += [(f"{e}.gate_proj", "linear", h, inter), (f"{e}.up_proj", "linear", h, inter),
                        (f"{e}.down_proj", "linear", inter, h)]
        else:
            for t in ("gate_proj", "up_proj", "down_proj"):
                out.append((f"{p}.mlp.{t}", "linear", *target_dims(dims, t)))
    out.append(("lm_head", "linear", h, vocab))
    return tuple(out)


def _raw_config(config: Mapping[str, Any] | str) -> Mapping[str, Any]:
    if isinstance(config, Mapping):
        return config
    if isinstance(config, str) and config in known_models():
        return json.loads(resources.files("labcore").joinpath(_DATA, f"{config}.json").read_text(encoding="utf-8"))
    raise ModelConfigError(f"config must be a parsed config.json or one of {list(known_models())}, got {config!r}")


def peft_lora_params(config: Mapping[str, Any] | str, lora_config: Mapping[str, Any]) -> int:
    """Return the exact ``A``/``B`` parameter count of a PEFT LoRA: ``sum(rank * (in + out))`` over adapted modules.

    ``lora_config`` is the LoraConfig as saved in ``adapter_config.json``; PEFT's rules decide which
    modules it adapts (``target_modules`` names, suffixes or regex, ``exclude_modules``,
    ``layers_to_transform``, ``modules_to_save``) and each module's rank (``rank_pattern``), so
    grouped-query attention, MoE routers and experts and embeddings are counted with their own
    shapes. DoRA magnitudes, biases and module copies are not ``A``/``B`` and are not counted.

    >>> qv = {"r": 16, "lora_alpha": 32, "target_modules": ["q_proj", "v_proj"]}
    >>> peft_lora_params("llama-3-8b", qv) == lora_params("llama-3-8b", 16, ["q", "v"])
    True
    >>> peft_lora_params("llama-3-8b", {**qv, "layers_to_transform": list(range(16))})
    3407872
    >>> peft_lora_params("mixtral-8x7b", {"r": 8, "lora_alpha": 16, "target_modules": ["gate"]})  # the routers
    1050624
    """
    from .peft_files import ADAPTER_CONFIG_NAME, _rank_alpha, _settings, _targeted  # the reader owns PEFT's rules

    if not isinstance(lora_config, Mapping):
        raise ModelConfigError(f"lora_config must be a LoraConfig as a JSON object, got {type(lora_config).__name__}")
    settings = _settings(lora_config, Path(ADAPTER_CONFIG_NAME))  # parsed once: MoE models have 10^4 modules
    total = 0
    for path, kind, d_in, d_out in peft_modules(config):
        if _targeted(settings, path, kind):
            rank, _ = _rank_alpha(settings, path)
            total += rank * (d_in + d_out)
    return total


#: Target-module sets the chapters compare, by the name a panel shows.
TARGET_SETS: dict[str, tuple[str, ...]] = {
    "q,v": ("q_proj", "v_proj"),
    "q,k,v,o": ("q_proj", "k_proj", "v_proj", "o_proj"),
    "all 7 (attention + MLP)": ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"),
}


@dataclass(frozen=True, slots=True)
class ExactSizing:
    """One adapter sized three ways: the square formula, exactly from config.json, and as PEFT's F32 file.

    ``per_target`` holds ``(target, naive_mb, exact_mb)`` per module, at ``bytes_per_param``.
    """

    model: str
    rank: int
    targets: tuple[str, ...]
    bytes_per_param: int
    hidden: int
    layers: int
    naive_mb: float
    exact_mb: float
    file_mb: float
    per_target: tuple[tuple[str, float, float], ...]


def exact_sizing(model: str = "llama-3-8b", rank: int = 16, targets: str = "q,v", bytes_per_param: int = 2) -> ExactSizing:
    """Size an adapter naively (every projection d x d) and exactly (from the model's config.json).

    ``targets`` is a key of :data:`TARGET_SETS`; ``file_mb`` is the F32 tensor data PEFT writes by default.

    >>> s = exact_sizing()
    >>> s.exact_mb, s.naive_mb, s.file_mb
    (13.0, 16.0, 26.0)
    """
    if targets not in TARGET_SETS:
        raise ValueError(f"targets must be one of {list(TARGET_SETS)}, got {targets!r}")
    cfg = load_model_config(model)
    names = TARGET_SETS[targets]
    h, n = cfg.hidden_size, cfg.num_hidden_layers
    per_target = tuple((t.split("_")[0], adapter_vram_mb(rank, h, n, 1, bytes_per_param),
                        exact_adapter_mb(cfg, rank, [t], bytes=bytes_per_param)) for t in names)
    return ExactSizing(model, rank, names, bytes_per_param, h, n,
                       adapter_vram_mb(rank, h, n, len(names), bytes_per_param),
                       exact_adapter_mb(cfg, rank, names, bytes=bytes_per_param),
                       exact_adapter_mb(cfg, rank, names, bytes=4), per_target)
