"""Check the real-files exercises: exact adapter size from config.json and peft tensor bytes (chapter 14)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..model_config import exact_adapter_mb, load_model_config, lora_params, target_dims
from ..sizing import MIB, adapter_vram_mb
from .exercise import Exercise
from .verdict import Mistake, Verdict, _close, _grade, _printer

__all__ = [
    "grade_exact_adapter_mb",
    "grade_peft_tensor_bytes",
    "check_exact_adapter_mb",
    "check_peft_tensor_bytes",
]


def grade_exact_adapter_mb(answer: Any, *, model: str = "llama-3-8b", rank: int = 16,
                           targets: Sequence[str] = ("q_proj", "k_proj", "v_proj", "o_proj"),
                           bytes_per_param: int = 2) -> Verdict:
    """Grade the exact size (MiB) of an adapter from the model's config.json; default Llama-3-8B r=16 q,k,v,o = 26.

    >>> grade_exact_adapter_mb(26).ok
    True
    >>> print(grade_exact_adapter_mb(32).message)
    ✗ 32 MiB is the naive formula: under grouped-query attention k and v map 4096 features to only 1024, so use r·(in + out) per projection.
    """
    cfg = load_model_config(model)
    expected = exact_adapter_mb(cfg, rank, targets, bytes=bytes_per_param)
    naive = adapter_vram_mb(rank, cfg.hidden_size, cfg.num_hidden_layers, len(targets), bytes_per_param)
    k_in, k_out = target_dims(cfg, "k_proj")
    mistakes: list[Mistake] = [
        (naive, f"is the naive formula: under grouped-query attention k and v map {k_in} features to only "
                f"{k_out}, so use r·(in + out) per projection."),
        (expected * 4 / bytes_per_param, f"uses 4 bytes per parameter (PEFT's F32 file); the question asks for "
                                         f"{bytes_per_param:g}-byte serving precision."),
        (expected * MIB / 1e6, "is in MB (10^6 bytes); the course counts in MiB (2^20 bytes)."),
        (expected / bytes_per_param * MIB / 1e6, "counts parameters in millions, not bytes: multiply by "
                                                 f"{bytes_per_param:g} bytes per parameter."),
        (expected / cfg.num_hidden_layers, f"is one layer; multiply by all {cfg.num_hidden_layers} layers."),
    ]
    mistakes = [(v, h) for v, h in mistakes if not _close(v, expected, 1e-9)]
    return _grade(answer, expected, unit="MiB", what="the exact adapter size", mistakes=mistakes,
                  fallback="Sum r·(in + out) over the targets (q: 4096→4096, k and v: 4096→1024, o: 4096→4096), "
                           "times the layers, times 2 bytes, over 2^20.")


def grade_peft_tensor_bytes(answer: Any, *, model: str = "tiny-llama-demo", rank: int = 16,
                            targets: Sequence[str] = ("q_proj", "k_proj", "v_proj", "o_proj")) -> Verdict:
    """Grade the bytes of tensor data PEFT writes by default (F32) for an adapter; default: the demo model, 57,344.

    >>> print(grade_peft_tensor_bytes(28672).message)
    ✗ 28,672 bytes is bf16 (2 bytes per parameter); PEFT saves adapter tensors in F32 by default, 4 bytes each.
    """
    cfg = load_model_config(model)
    params = lora_params(cfg, rank, targets)
    expected = params * 4
    naive = rank * 2 * cfg.hidden_size * len(targets) * cfg.num_hidden_layers * 4
    mistakes: list[Mistake] = [
        (params * 2, "is bf16 (2 bytes per parameter); PEFT saves adapter tensors in F32 by default, 4 bytes each."),
        (params, "counts parameters, not bytes: multiply by 4 bytes (F32)."),
        (naive, "uses the naive d x d formula; k and v are narrower under grouped-query attention "
                "(read the shapes from the config: heads x head_dim)."),
        (expected / cfg.num_hidden_layers, f"is one layer; the model has {cfg.num_hidden_layers}."),
    ]
    mistakes = [(v, h) for i, (v, h) in enumerate(mistakes)
                if not _close(v, expected, 1e-9) and not any(_close(v, w, 1e-9) for w, _ in mistakes[:i])]
    return _grade(answer, expected, unit="bytes", what="the tensor data in adapter_model.safetensors",
                  mistakes=mistakes, rel_tol=1e-9, integer=True,
                  fallback="Sum r·(in + out) over targets and layers, times 4 bytes (F32); the 8-byte prefix and "
                           "the JSON header are not tensor data.")


check_exact_adapter_mb = _printer(grade_exact_adapter_mb)
check_peft_tensor_bytes = _printer(grade_peft_tensor_bytes)


#: This module's exercises, as the pages ask them (see :class:`labcore.checks.exercise.Exercise`).
EXERCISES: tuple[Exercise, ...] = ()
