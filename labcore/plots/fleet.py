"""Figures of fleet plans: the dedicated and multi-LoRA monthly bills, and savings swept over one input."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..router import MODE_DYNAMIC
from .offline import needs_matplotlib
from .style import MODE_COLORS, OKABE_ITO, _axes, set_axis_units, usd_formatter

if TYPE_CHECKING:  # pragma: no cover - typing only
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["plot_fleet_costs", "plot_savings_sweep"]


@needs_matplotlib
def plot_fleet_costs(plan: Any, *, usd_max: float | None = None, ax: Axes | None = None) -> Figure:
    """Plot the monthly bill of a dedicated fleet beside a multi-LoRA fleet, GPU counts on the bars.

    ``plan`` is a ``labcore.fleet.FleetPlan``; ``usd_max`` fixes the y range (so a slider's states compare).

    >>> from labcore.fleet import fleet_plan
    >>> from labcore.adapter import tenant_adapters
    >>> plot_fleet_costs(fleet_plan(tenant_adapters(40))).axes[0].get_title()
    '40 tenants: multi-LoRA 97.5% cheaper'
    """
    fig, ax = _axes(ax)
    names = ["dedicated", "multi-LoRA"]
    bills = [plan.dedicated_monthly_usd, plan.multi_lora_monthly_usd]
    gpus = [plan.dedicated_gpus, plan.multi_lora_gpus]
    colors = [MODE_COLORS["dedicated"], MODE_COLORS["dynamic"]]
    bars = ax.bar(names, bills, color=colors, width=0.55)
    top = usd_max if usd_max is not None else max(bills) * 1.15
    ax.set_ylim(0, top)
    for bar, bill, n in zip(bars, bills, gpus, strict=True):
        ax.annotate(
            f"{n:,} GPU{'s' if n != 1 else ''}",
            (bar.get_x() + bar.get_width() / 2, bill),
            textcoords="offset points",
            xytext=(0, 4),
            ha="center",
            va="bottom",
            fontsize=10,
        )
    ax.yaxis.set_major_formatter(usd_formatter())
    ax.grid(axis="x", visible=False)
    set_axis_units(ax, y=("Monthly GPU bill", "USD"))
    ax.set_title(f"{plan.tenants:,} tenants: multi-LoRA {plan.savings_pct:.1f}% cheaper")
    return fig


@needs_matplotlib
def plot_savings_sweep(
    xs: Sequence[float],
    plans: Sequence[Any],
    *,
    x_quantity: str,
    x_unit: str | None,
    now: float | None = None,
    reference: Sequence[float] | None = None,
    reference_label: str = "",
    log_x: bool = False,
    ax: Axes | None = None,
) -> Figure:
    """Plot the multi-LoRA saving (%) against one input of the fleet plan, marking the value in use.

    ``plans`` holds one ``labcore.fleet.FleetPlan`` per ``x``; ``reference`` an optional comparison curve
    in % (for example 100 · (1 − utilisation) of the dedicated GPUs).

    >>> from labcore.adapter import tenant_adapters
    >>> from labcore.fleet import fleet_plan
    >>> plans = [fleet_plan(tenant_adapters(40, vram_mb=mb)) for mb in (16, 2048)]
    >>> plot_savings_sweep([16, 2048], plans, x_quantity="Adapter size", x_unit="MiB", now=16).axes[0].get_title()
    'Saving at 16: 97.5% (range 95.0% to 97.5%)'
    """
    fig, ax = _axes(ax)
    if len(xs) != len(plans) or not xs:
        raise ValueError(f"give one plan per x value (got {len(xs)} x values and {len(plans)} plans)")
    pct = [p.savings_pct for p in plans]
    ax.plot(
        xs,
        pct,
        marker="o",
        markersize=3,
        color=MODE_COLORS[MODE_DYNAMIC],
        label="multi-LoRA saving",
        drawstyle="steps-post" if not log_x else "default",
    )
    if reference is not None:
        ax.plot(xs, reference, linestyle=":", color=OKABE_ITO["black"], label=reference_label or "reference")
    if log_x:
        ax.set_xscale("log", base=2)
        ticks = [x for x in xs if math.log2(x).is_integer()][::2] or list(xs)
        ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
        ax.minorticks_off()
    ax.set_ylim(min(0.0, min(pct)) - 5, 105)
    set_axis_units(ax, x=(x_quantity, x_unit), y=("Saving vs dedicated", "%"))
    ax.legend(loc="lower left", fontsize=9)
    if now is None:
        ax.set_title(f"Saving from {max(pct):.1f}% down to {min(pct):.1f}%")
    else:
        i = min(range(len(xs)), key=lambda j: abs(xs[j] - now))
        ax.plot([xs[i]], [pct[i]], marker="o", markersize=11, color=OKABE_ITO["vermillion"], zorder=3)
        ax.set_title(f"Saving at {now:g}: {pct[i]:.1f}% (range {min(pct):.1f}% to {max(pct):.1f}%)")
    return fig
