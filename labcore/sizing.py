"""Adapter sizing and GPU memory arithmetic: how big a LoRA is and how many fit beside the base.

A LoRA on one target module of width ``hidden`` adds two matrices, ``A`` (r x hidden) and
``B`` (hidden x r): ``2 * r * hidden`` parameters. Across ``layers`` and ``targets``:

>>> adapter_vram_mb(16, 4096, 32, 2)     # Llama-3-8B, r=16 on q and v, bf16
16.0
>>> adapter_vram_mb(32, 8192, 80, ["q", "k", "v", "o"])
320.0

This is the square-projection estimate of the lab brief; chapter 14 and
``labcore.model_config`` give the exact figure under grouped-query attention.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from dataclasses import dataclass

from ._validate import number

__all__ = [
    "MIB",
    "MB_PER_GB",
    "gib_to_mb",
    "mb_to_gib",
    "adapter_vram_mb",
    "GpuMemorySplit",
    "gpu_memory_split",
]

MIB = 2**20
MB_PER_GB = 1024  # "GB" means GiB throughout the course, as GPU datasheets and nvidia-smi use it.


def gib_to_mb(gb: float) -> float:
    """Convert GiB to MiB.

    >>> gib_to_mb(8)
    8192
    """
    return gb * MB_PER_GB


def mb_to_gib(mb: float) -> float:
    """Convert MiB to GiB.

    >>> mb_to_gib(8192)
    8.0
    """
    return mb / MB_PER_GB


def adapter_vram_mb(rank: int, hidden: int, layers: int, targets: int | Sequence[str], bytes: float = 2) -> float:
    """Return the VRAM of a LoRA adapter in MiB: ``layers * targets * 2 * rank * hidden * bytes / 2**20``.

    ``targets`` is a count of target modules or a sequence of their names.

    >>> adapter_vram_mb(8, 4096, 32, ("q_proj", "v_proj"))
    8.0
    >>> adapter_vram_mb(0, 4096, 32, 2)
    Traceback (most recent call last):
    ...
    ValueError: rank must be a finite number > 0, got 0
    """
    n_targets = targets if isinstance(targets, (int, float)) and not isinstance(targets, bool) else None
    if n_targets is None:
        if isinstance(targets, (str, builtins.bytes)) or not isinstance(targets, Sequence):
            raise ValueError(f"targets must be a count or a sequence of module names, got {targets!r}")
        n_targets = len(targets)
    for name, value in (
        ("rank", rank),
        ("hidden", hidden),
        ("layers", layers),
        ("targets", n_targets),
        ("bytes", bytes),
    ):
        number(name, value)
    return layers * n_targets * 2 * rank * hidden * bytes / MIB


@dataclass(frozen=True, slots=True)
class GpuMemorySplit:
    """One GPU's memory split into base weights, KV-cache pool and the adapter pool that is left."""

    gpu_vram_gb: float
    base_vram_gb: float
    kv_cache_gb: float
    adapter_pool_mb: float
    adapter_vram_mb: float
    adapters_that_fit: int

    def __post_init__(self) -> None:
        if self.adapter_pool_mb < 0:
            raise ValueError(
                f"base ({self.base_vram_gb} GB) + KV cache ({self.kv_cache_gb} GB) exceed the GPU's "
                f"{self.gpu_vram_gb} GB: no room is left for adapters"
            )


def gpu_memory_split(
    gpu_vram_gb: float, *, base_vram_gb: float, kv_cache_gb: float, adapter_vram_mb: float
) -> GpuMemorySplit:
    """Split a GPU into base weights, KV-cache pool and adapter pool; count the adapters that fit.

    >>> split = gpu_memory_split(80, base_vram_gb=16, kv_cache_gb=24, adapter_vram_mb=16)
    >>> split.adapter_pool_mb, split.adapters_that_fit
    (40960, 2560)
    """
    for name, value in (("gpu_vram_gb", gpu_vram_gb), ("adapter_vram_mb", adapter_vram_mb)):
        number(name, value)
    for name, value in (("base_vram_gb", base_vram_gb), ("kv_cache_gb", kv_cache_gb)):
        number(name, value, inclusive=True)
    pool_mb = gib_to_mb(gpu_vram_gb - base_vram_gb - kv_cache_gb)
    fit = int(pool_mb // adapter_vram_mb) if pool_mb >= 0 else 0
    return GpuMemorySplit(
        gpu_vram_gb=gpu_vram_gb,
        base_vram_gb=base_vram_gb,
        kv_cache_gb=kv_cache_gb,
        adapter_pool_mb=pool_mb,
        adapter_vram_mb=adapter_vram_mb,
        adapters_that_fit=fit,
    )
