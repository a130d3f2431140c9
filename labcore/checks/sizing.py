"""Check the sizing exercises: an adapter's VRAM and how many adapters fit in a pool (chapter 2)."""

from __future__ import annotations

import math
from typing import Any

from ..sizing import MIB, adapter_vram_mb, gib_to_mb, gpu_memory_split
from .exercise import Exercise
from .verdict import Mistake, Verdict, _close, _grade, _printer

__all__ = [
    "grade_adapter_vram_mb",
    "grade_adapters_that_fit",
    "check_adapter_vram_mb",
    "check_adapters_that_fit",
]


def grade_adapter_vram_mb(answer: Any, *, rank: int = 32, hidden: int = 8192, layers: int = 80,
                          targets: int = 4, bytes_per_param: float = 2) -> Verdict:
    """Grade the VRAM (MiB) of an adapter; by default r=32 on a 70B model (d=8192, 80 layers) on q,k,v,o.

    >>> grade_adapter_vram_mb(335.5).message.startswith("✗ 335.5 MiB is in MB")
    True
    """
    expected = adapter_vram_mb(rank, hidden, layers, targets, bytes_per_param)
    per_param = expected / bytes_per_param
    mistakes: list[Mistake] = [
        (expected / 2, "is half the answer: each target gets two matrices, A (r x d) and B (d x r), "
                       "so count 2·r·d parameters per target."),
        (expected * MIB / 1e6, "is in MB (10^6 bytes); the course counts VRAM in MiB (2^20 bytes)."),
        (per_param, f"counts parameters in millions, not bytes: multiply by {bytes_per_param:g} bytes per parameter."),
        (expected * 4 / bytes_per_param, f"assumes 4 bytes per parameter (fp32); this adapter is stored in "
                                         f"{bytes_per_param:g}-byte precision."),
        (expected / targets, f"covers one target module; the adapter targets {targets} per layer."),
        (expected / layers, f"is the size of one layer; multiply by all {layers} layers."),
        (expected * hidden, "multiplies by d twice: a LoRA's A and B are r x d and d x r, not d x d."),
    ]
    return _grade(answer, expected, unit="MiB", what="the adapter's VRAM", mistakes=mistakes,
                  fallback="Use layers · targets · 2 · r · d · bytes / 2^20.")


def grade_adapters_that_fit(answer: Any, *, pool_gb: float = 8, adapter_vram_mb: float = 320.0) -> Verdict:
    """Grade how many adapters of ``adapter_vram_mb`` MiB fit in a ``pool_gb`` GiB adapter pool (default 25).

    >>> grade_adapters_that_fit(26).message
    '✗ 26 adapters rounds up: a part of an adapter cannot be loaded, so round down (floor).'
    """
    expected = gpu_memory_split(pool_gb, base_vram_gb=0, kv_cache_gb=0,
                                adapter_vram_mb=adapter_vram_mb).adapters_that_fit
    exact = gib_to_mb(pool_gb) / adapter_vram_mb
    mistakes: list[Mistake] = [
        (math.ceil(exact), "rounds up: a part of an adapter cannot be loaded, so round down (floor)."),
        (exact, "is a fraction of an adapter: round down to whole adapters."),
        (math.floor(pool_gb * 1000 / adapter_vram_mb), "uses 1000 MiB per GiB; a GiB is 1024 MiB."),
        (math.floor(pool_gb * 1e9 / (adapter_vram_mb * MIB)), "mixes decimal GB (10^9 bytes) with MiB; use GiB "
                                                              "and MiB (1 GiB = 1024 MiB)."),
    ]
    mistakes = [(v, h) for v, h in mistakes if not _close(v, expected, 1e-9)]
    return _grade(answer, expected, unit="adapters", what="the number of adapters that fit", mistakes=mistakes,
                  fallback=f"Divide the pool ({pool_gb:g} GiB = {gib_to_mb(pool_gb):g} MiB) by the adapter size and "
                           "round down.", rel_tol=1e-9, integer=True)


check_adapter_vram_mb = _printer(grade_adapter_vram_mb)
check_adapters_that_fit = _printer(grade_adapters_that_fit)


#: This module's exercises, as the pages ask them (see :class:`labcore.checks.exercise.Exercise`).
EXERCISES: tuple[Exercise, ...] = ()
