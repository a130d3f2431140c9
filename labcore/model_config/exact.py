"""Size a LoRA exactly on a Llama-style decoder's projections: ``r * (in + out)`` per module and layer.

>>> target_dims("llama-3-8b", "v_proj")
(4096, 1024)
>>> exact_sizing("llama-3-8b", 16, "q,v").per_target
(('q', 8.0, 8.0), ('v', 8.0, 5.0))
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .._validate import choice, count, distinct, items
from ..errors import ModelConfigError
from ..sizing import MIB, adapter_vram_mb
from .config import ModelConfig, load_model_config

__all__ = [
    "TARGETS",
    "target_dims",
    "lora_params",
    "exact_adapter_mb",
    "TARGET_SETS",
    "ExactSizing",
    "exact_sizing",
]

#: The adapted projections of a Llama-style decoder layer, in the order they run.
TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
_SHORT = {t.split("_")[0]: t for t in TARGETS}  # "q" -> "q_proj", "gate" -> "gate_proj"...


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
    given = items("targets", targets, error=ModelConfigError)
    names = distinct("targets (as module names)", [_target(t) for t in given], error=ModelConfigError)
    if not names:
        raise ModelConfigError(f"targets must name at least one of {list(TARGETS)}")
    return names


def lora_params(config: ModelConfig | Mapping[str, Any] | str, rank: int, targets: Iterable[str]) -> int:
    """Return the exact parameter count of a LoRA: ``layers * sum(rank * (in + out))`` over targets.

    >>> lora_params("llama-3-8b", 16, ["q", "v"])
    6815744
    """
    cfg = _config(config)
    count("rank: rank", rank, error=ModelConfigError)
    per_layer = sum(rank * sum(target_dims(cfg, t)) for t in _targets(targets))
    return cfg.num_hidden_layers * per_layer


def exact_adapter_mb(
    config: ModelConfig | Mapping[str, Any] | str, rank: int, targets: Iterable[str], bytes: int = 2
) -> float:
    """Return the exact adapter size in MiB at ``bytes`` per parameter (2 for bf16, 4 for fp32).

    >>> exact_adapter_mb("llama-2-7b", 16, ["q", "v"])     # no GQA: equals the naive 16.0
    16.0
    """
    count("bytes per parameter", bytes, error=ModelConfigError)
    return lora_params(config, rank, targets) * bytes / MIB


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


def exact_sizing(
    model: str = "llama-3-8b", rank: int = 16, targets: str = "q,v", bytes_per_param: int = 2
) -> ExactSizing:
    """Size an adapter naively (every projection d x d) and exactly (from the model's config.json).

    ``targets`` is a key of :data:`TARGET_SETS`; ``file_mb`` is the F32 tensor data PEFT writes by default.

    >>> s = exact_sizing()
    >>> s.exact_mb, s.naive_mb, s.file_mb
    (13.0, 16.0, 26.0)
    """
    choice("targets", targets, list(TARGET_SETS))
    cfg = load_model_config(model)
    names = TARGET_SETS[targets]
    h, n = cfg.hidden_size, cfg.num_hidden_layers
    per_target = tuple(
        (
            t.split("_")[0],
            adapter_vram_mb(rank, h, n, 1, bytes_per_param),
            exact_adapter_mb(cfg, rank, [t], bytes=bytes_per_param),
        )
        for t in names
    )
    return ExactSizing(
        model=model,
        rank=rank,
        targets=names,
        bytes_per_param=bytes_per_param,
        hidden=h,
        layers=n,
        naive_mb=adapter_vram_mb(rank, h, n, len(names), bytes_per_param),
        exact_mb=exact_adapter_mb(cfg, rank, names, bytes=bytes_per_param),
        file_mb=exact_adapter_mb(cfg, rank, names, bytes=4),
        per_target=per_target,
    )
