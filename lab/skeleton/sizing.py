# Generated from labcore/sizing.py by scripts/make_skeleton.py. Do not edit this copy:
# cp -r lab/skeleton lab/mine, fill in every TODO(lab), then LAB_MODULE=lab.mine pytest tests/contract

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
__all__ = ['MIB', 'MB_PER_GB', 'gib_to_mb', 'mb_to_gib', 'adapter_vram_mb', 'GpuMemorySplit', 'gpu_memory_split']
MIB = 2 ** 20
MB_PER_GB = 1024

def gib_to_mb(gb: float) -> float:
    """Convert GiB to MiB.

    >>> gib_to_mb(8)
    8192
    """
    raise NotImplementedError('TODO(lab): implement sizing.gib_to_mb: Convert GiB to MiB.')

def mb_to_gib(mb: float) -> float:
    """Convert MiB to GiB.

    >>> mb_to_gib(8192)
    8.0
    """
    raise NotImplementedError('TODO(lab): implement sizing.mb_to_gib: Convert MiB to GiB.')

def adapter_vram_mb(rank: int, hidden: int, layers: int, targets: int | Sequence[str], bytes: float=2) -> float:
    """Return the VRAM of a LoRA adapter in MiB: ``layers * targets * 2 * rank * hidden * bytes / 2**20``.

    ``targets`` is a count of target modules or a sequence of their names.

    >>> adapter_vram_mb(8, 4096, 32, ("q_proj", "v_proj"))
    8.0
    >>> adapter_vram_mb(0, 4096, 32, 2)
    Traceback (most recent call last):
    ...
    ValueError: rank must be a finite number > 0, got 0
    """
    raise NotImplementedError('TODO(lab): implement sizing.adapter_vram_mb: Return the VRAM of a LoRA adapter in MiB: ``layers * targets * 2 * rank * hidden * bytes / 2**20``.')

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
        raise NotImplementedError('TODO(lab): implement sizing.GpuMemorySplit.__post_init__: see what tests/contract/test_sizing.py asks of it')

def gpu_memory_split(gpu_vram_gb: float, *, base_vram_gb: float, kv_cache_gb: float, adapter_vram_mb: float) -> GpuMemorySplit:
    """Split a GPU into base weights, KV-cache pool and adapter pool; count the adapters that fit.

    >>> split = gpu_memory_split(80, base_vram_gb=16, kv_cache_gb=24, adapter_vram_mb=16)
    >>> split.adapter_pool_mb, split.adapters_that_fit
    (40960, 2560)
    """
    raise NotImplementedError('TODO(lab): implement sizing.gpu_memory_split: Split a GPU into base weights, KV-cache pool and adapter pool; count the adapters that fit.')
