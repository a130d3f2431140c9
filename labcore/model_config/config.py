"""Read a model's ``config.json`` into a :class:`ModelConfig`: the dimensions that shape every projection.

What a config.json leaves to the architecture's code (Qwen2's q/k/v biases, Qwen3's and Gemma 3's
q/k norms, Gemma's tied head) is filled in by ``model_type``, as transformers does.

>>> cfg = load_model_config("llama-3-8b")
>>> cfg.num_attention_heads, cfg.num_key_value_heads, cfg.head_dim
(32, 8, 128)
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from .._validate import count, flag
from ..errors import ModelConfigError

__all__ = ["ModelConfig", "known_models", "load_model_config", "raw_model_config", "hub_id"]

_DATA = "data/models"
# What a config.json leaves to the architecture's code, by model_type (transformers' modelling files).
_QKV_BIAS = frozenset({"qwen2", "qwen2_moe"})  # Qwen2Attention: q/k/v Linear(bias=True), o without
_QK_NORM = frozenset({"qwen3", "qwen3_moe", "gemma3_text"})  # an RMSNorm of head_dim on q and on k
_FOUR_NORMS = frozenset({"gemma2", "gemma3_text"})  # pre- and post-norms around attention and MLP
_TIED_BY_DEFAULT = frozenset({"gemma", "gemma2", "gemma3_text"})  # their config classes default to True


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
        for key in (
            "hidden_size",
            "intermediate_size",
            "num_hidden_layers",
            "num_attention_heads",
            "num_key_value_heads",
        ):
            count(f"{self.name}: {key}", getattr(self, key), error=ModelConfigError)
        if self.vocab_size is not None:
            count(f"{self.name}: vocab_size", self.vocab_size, error=ModelConfigError)
        for key in ("tie_word_embeddings", "attention_bias", "qk_norm"):
            flag(f"{self.name}: {key}", getattr(self, key), error=ModelConfigError)
        count(f"{self.name}: norms_per_layer", self.norms_per_layer, error=ModelConfigError)
        for key in ("num_experts", "num_experts_per_tok", "shared_expert_intermediate_size"):
            count(f"{self.name}: {key}", getattr(self, key), minimum=0, error=ModelConfigError)
        if self.num_experts:
            name = f"{self.name}: num_experts_per_tok (at most num_experts)"
            count(name, self.num_experts_per_tok, maximum=self.num_experts, error=ModelConfigError)
            if self.moe_intermediate_size is None:
                object.__setattr__(self, "moe_intermediate_size", self.intermediate_size)  # Mixtral's convention
            count(f"{self.name}: moe_intermediate_size", self.moe_intermediate_size, error=ModelConfigError)
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
            count(f"{self.name}: head_dim", self.head_dim, error=ModelConfigError)
        if self.num_attention_heads % self.num_key_value_heads:
            raise ModelConfigError(
                f"{self.name}: num_attention_heads {self.num_attention_heads} must be a multiple of "
                f"num_key_value_heads {self.num_key_value_heads} (grouped-query attention)"
            )

    @property
    def head_width(self) -> int:
        """Return ``head_dim`` as an int: ``__post_init__`` fills it (``hidden_size / num_attention_heads``) when left out.

        >>> ModelConfig("m", hidden_size=64, intermediate_size=256, num_hidden_layers=2,
        ...             num_attention_heads=4, num_key_value_heads=2).head_width
        16
        """
        if self.head_dim is None:  # only if __post_init__ was bypassed
            raise ModelConfigError(f"{self.name}: head_dim is missing")
        return self.head_dim

    @property
    def expert_width(self) -> int:
        """Return ``moe_intermediate_size`` as an int; raise, naming the field, for a dense model (it has none)."""
        if self.moe_intermediate_size is None:
            raise ModelConfigError(f"{self.name}: moe_intermediate_size is missing: a dense model has no experts")
        return self.moe_intermediate_size

    @property
    def q_dim(self) -> int:
        """Return the width of all query heads together: ``num_attention_heads * head_dim``."""
        return self.num_attention_heads * self.head_width

    @property
    def kv_dim(self) -> int:
        """Return the width of all key (or value) heads together: ``num_key_value_heads * head_dim``."""
        return self.num_key_value_heads * self.head_width

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
        missing = [
            k
            for k in ("hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads")
            if k not in config
        ]
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
            raise ModelConfigError(
                f"{name_or_path}: neither a known model {list(known_models())} nor a config.json file"
            )
        text, name = path.read_text(encoding="utf-8"), str(path)
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ModelConfigError(f"{name}: not valid JSON: {exc}") from exc
    return ModelConfig.from_dict(data, name=name)


def raw_model_config(config: Mapping[str, Any] | str) -> Mapping[str, Any]:
    """Return a parsed ``config.json`` as it is: ``config`` itself, or the shipped file of a known model by name.

    >>> raw_model_config("mixtral-8x7b")["num_local_experts"]
    8
    """
    if isinstance(config, Mapping):
        return config
    if isinstance(config, str) and config in known_models():
        shipped: Mapping[str, Any] = json.loads(
            resources.files("labcore").joinpath(_DATA, f"{config}.json").read_text(encoding="utf-8")
        )
        return shipped
    raise ModelConfigError(f"config must be a parsed config.json or one of {list(known_models())}, got {config!r}")


def hub_id(model: str) -> str | None:
    """Return the Hub repository a shipped config was published as (its ``_hub_id``), or None if it has none.

    The id is the repository the config's recorded ``_source`` names; the course's own demo model has none.

    >>> hub_id("llama-3.1-8b"), hub_id("tiny-llama-demo")
    ('meta-llama/Llama-3.1-8B', None)
    """
    if model not in known_models():
        raise ModelConfigError(f"hub_id needs a shipped model, one of {list(known_models())}; got {model!r}")
    value = raw_model_config(model).get("_hub_id")
    return None if value is None else str(value)
