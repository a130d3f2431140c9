"""Figures of adapter size: VRAM against LoRA rank, and one GPU split into base, KV cache and adapter pool."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..capacity import MemorySplit
from ..sizing import MB_PER_GB, GpuMemorySplit, adapter_vram_mb
from .offline import needs_matplotlib
from .style import MEMORY_COLORS, MODE_COLORS, OKABE_ITO, _axes, _fmt_mb, set_axis_units

if TYPE_CHECKING:  # pragma: no cover - typing only
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["DEFAULT_RANKS", "plot_adapter_vram", "plot_gpu_split"]

DEFAULT_RANKS: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64, 128, 256)


@needs_matplotlib
def plot_adapter_vram(
    rank: int,
    *,
    hidden: int,
    layers: int,
    targets: int | Sequence[str],
    bytes_per_param: float = 2,
    ranks: Sequence[int] = DEFAULT_RANKS,
    ax: Axes | None = None,
) -> Figure:
    """Plot adapter VRAM against rank for one model shape, marking the chosen rank.

    Figures carry few characters on purpose: with matplotlib 3.11 every glyph costs time, and a
    slider redraw must stay under 100 ms. Put details in the panel's HTML readout instead.

    >>> fig = plot_adapter_vram(16, hidden=4096, layers=32, targets=2)
    >>> fig.axes[0].texts[0].get_text()
    'r=16: 16.0 MiB'
    """
    fig, ax = _axes(ax)
    sweep = sorted(set(ranks) | {rank})
    sizes = [adapter_vram_mb(r, hidden, layers, targets, bytes_per_param) for r in sweep]
    now_mb = adapter_vram_mb(rank, hidden, layers, targets, bytes_per_param)
    ax.plot(sweep, sizes, marker="o", color=MODE_COLORS["dynamic"])
    ax.plot([rank], [now_mb], marker="o", markersize=12, color=OKABE_ITO["vermillion"], zorder=3)
    ax.annotate(f"r={rank}: {_fmt_mb(now_mb)}", (rank, now_mb), textcoords="offset points", xytext=(10, -16))
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    xticks = sweep if len(sweep) <= 5 else sweep[:: 2 if len(sweep) <= 9 else 3]
    ax.set_xticks(xticks, [f"{r:g}" for r in xticks])  # few explicit ticks: log locators and text are slow
    lo, hi = math.floor(math.log2(min(sizes))), math.ceil(math.log2(max(sizes)))
    yticks = [2.0**e for e in range(lo, hi + 1, max(1, (hi - lo + 5) // 6))]
    ax.set_yticks(yticks, [f"{v:g}" for v in yticks])
    ax.minorticks_off()
    set_axis_units(ax, x=("LoRA rank r", None), y=("Adapter VRAM", "MiB"))
    ax.set_title("Adapter VRAM grows linearly with rank")
    return fig


@needs_matplotlib
def plot_gpu_split(split: GpuMemorySplit | MemorySplit, *, ax: Axes | None = None) -> Figure:
    """Plot one GPU as a bar split into base weights, KV-cache pool and adapter pool.

    ``split`` is the course's split of a real GPU (:func:`labcore.capacity.memory_split`: the engine's share of
    the driver's memory, the base from its parameter count, the KV pool in tokens; the bar is that share) or the
    lab's split of round numbers (:func:`labcore.sizing.gpu_memory_split`).

    >>> from labcore.capacity import memory_split
    >>> fig = plot_gpu_split(memory_split(adapter_mb=13.0))
    >>> fig.axes[0].get_title()
    '2,577 adapters fit in 32.7 GiB'
    >>> from labcore.sizing import gpu_memory_split
    >>> plot_gpu_split(gpu_memory_split(80, base_vram_gb=16, kv_cache_gb=24, adapter_vram_mb=16)).axes[0].get_title()
    '2,560 adapters fit in 40.0 GiB'
    """
    fig, ax = _axes(ax)
    if isinstance(split, MemorySplit):
        gpu_gb, base_gb, kv_gb, pool_gb = split.budget_gib, split.base_gib, split.kv_gib, max(split.pool_gib, 0.0)
        adapter_mb = split.adapter_mb
    else:
        gpu_gb, base_gb, kv_gb = split.gpu_vram_gb, split.base_vram_gb, split.kv_cache_gb
        pool_gb, adapter_mb = split.adapter_pool_mb / MB_PER_GB, split.adapter_vram_mb
    used_gb = split.adapters_that_fit * adapter_mb / MB_PER_GB
    parts = [
        ("base", base_gb, MEMORY_COLORS["base"]),
        ("KV cache", kv_gb, MEMORY_COLORS["kv_cache"]),
        ("adapters", used_gb, MEMORY_COLORS["adapters"]),
        ("unused", max(pool_gb - used_gb, 0.0), MEMORY_COLORS["free"]),
    ]
    left = 0.0
    for label, width, color in parts:
        ax.barh([0], [width], left=left, color=color, label=label, height=0.6)
        left += width
    ax.set_xlim(0, gpu_gb)
    ax.set_ylim(-0.5, 1.0)
    ax.set_yticks([])
    ax.grid(axis="y", visible=False)
    set_axis_units(ax, x=("GPU memory", "GiB"))
    ax.legend(loc="upper center", ncol=4)
    ax.set_title(f"{split.adapters_that_fit:,} adapters fit in {pool_gb:,.1f} GiB")
    return fig
