"""Figures of the router: where a request's latency goes per mode, and merged versus dynamic serving."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

try:  # optional: without matplotlib the plot functions print a note instead (see .offline)
    from matplotlib.ticker import MaxNLocator
except ImportError:
    MaxNLocator = None  # type: ignore[assignment,misc]

from ..router import MODE_BASE, MODE_DEDICATED, MODE_DYNAMIC
from .offline import needs_matplotlib
from .style import MODE_COLORS, OKABE_ITO, _axes, set_axis_units

if TYPE_CHECKING:  # pragma: no cover - typing only
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["LATENCY_PART_COLORS", "plot_latency_breakdown", "plot_merge_vs_dynamic"]

LATENCY_PART_COLORS: dict[str, str] = {
    "base": MODE_COLORS[MODE_BASE],
    "overhead": MODE_COLORS[MODE_DYNAMIC],
    "load": OKABE_ITO["orange"],
}


@needs_matplotlib
def plot_latency_breakdown(
    decisions: Mapping[str, Any], *, latency_max_ms: float | None = None, ax: Axes | None = None
) -> Figure:
    """Plot each route's latency as a stacked bar: base model, LoRA overhead (dynamic), adapter load (a miss).

    ``decisions`` maps a bar label to a ``labcore.router.RouteDecision``; the three parts come from its
    ``base_latency_ms``, ``overhead_ms`` and ``adapter_load_ms`` fields (they add up to ``total_latency_ms``).

    >>> from labcore.router import RouteDecision
    >>> hit = RouteDecision(mode="dynamic", adapter="a@1.0.0", cache_hit=True, evicted=(), adapter_load_ms=0.0,
    ...                     total_latency_ms=42.0, base_latency_ms=40.0, overhead_ms=2.0)
    >>> miss = RouteDecision(mode="dynamic", adapter="a@1.0.0", cache_hit=False, evicted=(), adapter_load_ms=2.0,
    ...                      total_latency_ms=44.0, base_latency_ms=40.0, overhead_ms=2.0)
    >>> plot_latency_breakdown({"hit": hit, "miss": miss}).axes[0].get_title()
    'Miss +2.0 ms, overhead +2.0 ms'
    """
    fig, ax = _axes(ax)
    if not decisions:
        raise ValueError("plot_latency_breakdown needs at least one decision")
    names = list(decisions)
    parts = {
        "base": [decisions[n].base_latency_ms for n in names],
        "overhead": [decisions[n].overhead_ms for n in names],
        "load": [decisions[n].adapter_load_ms for n in names],
    }
    bottom = [0.0] * len(names)
    for label, values in parts.items():
        ax.bar(names, values, bottom=bottom, color=LATENCY_PART_COLORS[label], label=label, width=0.6)
        bottom = [b + v for b, v in zip(bottom, values, strict=True)]
    for i, n in enumerate(names):
        ax.annotate(
            f"{decisions[n].total_latency_ms:.1f}",
            (i, bottom[i]),
            textcoords="offset points",
            xytext=(0, 3),
            ha="center",
            va="bottom",
            fontsize=10,
        )
    ax.set_ylim(0, latency_max_ms if latency_max_ms is not None else max(bottom) * 1.25)
    ax.grid(axis="x", visible=False)
    set_axis_units(ax, y=("Latency per request", "ms"))
    ax.legend(loc="upper left", fontsize=9, ncol=3)
    ax.yaxis.set_major_locator(MaxNLocator(4))
    ax.set_title(f"Miss +{max(parts['load']):.1f} ms, overhead +{max(parts['overhead']):.1f} ms")
    return fig


@needs_matplotlib
def plot_merge_vs_dynamic(
    cases: Mapping[str, Any], *, base_latency_ms: float, dynamic_overhead: float, ax: Axes | None = None
) -> Figure:
    """Plot, per workload, the GPUs of merging every adapter against serving them all dynamically.

    ``cases`` maps a workload label to a ``labcore.fleet.FleetPlan`` priced with ``tenant_qps``/``gpu_qps``:
    its dedicated fleet is the all-merged option (one replica set per adapter, zero overhead) and its
    multi-LoRA fleet the all-dynamic one (one shared base, ``dynamic_overhead`` per request). Each bar is
    annotated with its GPUs and its per-request latency.

    >>> from labcore.adapter import tenant_adapters
    >>> from labcore.fleet import fleet_plan
    >>> p = fleet_plan(tenant_adapters(300), tenant_qps=0.05, gpu_qps=20, dynamic_overhead=0.05)
    >>> plot_merge_vs_dynamic({"300 tenants": p}, base_latency_ms=40, dynamic_overhead=0.05).axes[0].get_title()
    '300 tenants: dynamic (1 vs 300 GPUs)'
    """
    fig, ax = _axes(ax)
    if not cases:
        raise ValueError("plot_merge_vs_dynamic needs at least one case")
    names = list(cases)
    width = 0.36
    options = (
        ("merged", MODE_DEDICATED, "dedicated_gpus", base_latency_ms),
        ("dynamic", MODE_DYNAMIC, "multi_lora_gpus", base_latency_ms * (1 + dynamic_overhead)),
    )
    for k, (label, mode, attr, latency) in enumerate(options):
        xs = [i + (k - 0.5) * width for i in range(len(names))]
        gpus = [getattr(cases[n], attr) for n in names]
        ax.bar(xs, gpus, width=width * 0.95, color=MODE_COLORS[mode], label=label)
        for x, g in zip(xs, gpus, strict=True):
            ax.annotate(
                f"{g:,}\n{latency:.0f} ms",
                (x, g),
                textcoords="offset points",
                xytext=(0, 2),
                ha="center",
                va="bottom",
                fontsize=9,
            )
    ax.set_yscale("log")
    top = max(max(c.dedicated_gpus, c.multi_lora_gpus) for c in cases.values())
    ax.set_ylim(0.5, top * 12)
    ticks = [t for t in (1, 3, 10, 30, 100, 300, 1000, 3000) if t <= top * 12]
    ax.set_yticks(ticks, [f"{t:,}" for t in ticks])
    ax.minorticks_off()
    ax.set_xticks(range(len(names)), names)
    ax.grid(axis="x", visible=False)
    set_axis_units(ax, y=("GPUs", "log scale"))
    ax.legend(loc="upper left", fontsize=9, ncol=2)

    def verdict(n: str) -> str:
        c = cases[n]
        short = n.split(",")[0]
        if c.dedicated_gpus <= c.multi_lora_gpus:
            return f"{short}: merge ({c.dedicated_gpus:,} vs {c.multi_lora_gpus:,} GPUs)"
        return f"{short}: dynamic ({c.multi_lora_gpus:,} vs {c.dedicated_gpus:,} GPUs)"

    ax.set_title("; ".join(verdict(n) for n in names), fontsize=10 if len(names) > 1 else None)
    return fig
