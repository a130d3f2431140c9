"""Figures of the host-memory spill tier: p99 and churn with and without the second tier."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .offline import needs_matplotlib
from .sim import SIM_COLORS
from .style import GREY, OKABE_ITO, _axes, set_axis_units

if TYPE_CHECKING:  # pragma: no cover - typing only
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["plot_tier_churn"]


@needs_matplotlib
def plot_tier_churn(
    gpu_only: Mapping[int, Any],
    tiered: Mapping[int, Any],
    *,
    highlight: int,
    gpu_adapters: int,
    host_adapters: int | None = None,
    ax: Axes | None = None,
) -> Figure:
    """Plot p99 against the tenants churning through a fixed GPU pool, without and with a host tier."""
    fig, ax = _axes(ax)
    xs = sorted(gpu_only)
    for name, runs, label in (
        ("gpu_only", gpu_only, "GPU only (miss = fetch + copy)"),
        ("tiered", tiered, "with host tier (miss = PCIe copy)"),
    ):
        ax.plot(xs, [runs[x].p99_ms for x in xs], color=SIM_COLORS[name], marker="o", linewidth=2, label=label)
        ax.plot(
            [highlight],
            [runs[highlight].p99_ms],
            marker="o",
            markersize=11,
            color=SIM_COLORS[name],
            markeredgecolor=OKABE_ITO["black"],
            zorder=4,
        )
    ax.axvline(gpu_adapters + 0.5, color=OKABE_ITO["black"], linestyle="--", linewidth=1)
    ax.annotate(
        f"GPU pool holds {gpu_adapters}", (gpu_adapters + 0.5, 5), xytext=(4, 0), textcoords="offset points", fontsize=8
    )
    if host_adapters is not None:
        ax.axvline(host_adapters + 0.5, color=GREY, linestyle="--", linewidth=1)
        ax.annotate(
            f"host tier holds {host_adapters}",
            (host_adapters + 0.5, 5),
            xytext=(4, 0),
            textcoords="offset points",
            fontsize=8,
        )
    ax.set_ylim(0, max(r.p99_ms for r in gpu_only.values()) * 1.25)
    set_axis_units(ax, x=("Tenants churning through the GPU pool", None), y=("p99 latency", "ms"))
    ax.legend(loc="upper left", fontsize=8)
    ax.set_title(
        f"{highlight} tenants: p99 {gpu_only[highlight].p99_ms:.0f} ms GPU-only, "
        f"{tiered[highlight].p99_ms:.1f} ms with a host tier"
    )
    return fig
