"""Figures of batched LoRA overhead: where dynamic serving breaks even with merged replicas."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..batching import FLAT_OVERHEAD, break_even_utilisation
from .offline import needs_matplotlib
from .style import OKABE_ITO, _axes, set_axis_units

if TYPE_CHECKING:  # pragma: no cover - typing only
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["RANK_COLORS", "plot_break_even"]

RANK_COLORS: dict[int, str] = {
    8: OKABE_ITO["sky_blue"],
    16: OKABE_ITO["bluish_green"],
    32: OKABE_ITO["orange"],
    64: OKABE_ITO["vermillion"],
}


@needs_matplotlib
def plot_break_even(
    model: Any,
    *,
    rank: int,
    distinct: int,
    flat_overhead: float = FLAT_OVERHEAD,
    distinct_range: Sequence[int] = (1, 2, 4, 8, 16, 32, 64),
    legend: bool = True,
    ax: Axes | None = None,
) -> Figure:
    """Plot the utilisation a merged GPU needs to beat dynamic serving, against distinct adapters per batch.

    ``model`` is a ``labcore.batching.BatchCostModel``; one line per rank, the chosen ``rank`` bold,
    the flat-overhead break-even dashed, and the chosen batch composition marked. ``legend=False``
    leaves out the line key (a live panel states it in its HTML readout; a legend costs ~40 ms per redraw).

    >>> from labcore.batching import fit_sgmv
    >>> plot_break_even(fit_sgmv(), rank=64, distinct=64).axes[0].get_title()
    '64 distinct r=64 adapters: merged wins above 87.8% busy (flat: 95.2%)'
    """
    fig, ax = _axes(ax)
    # A log2 axis drawn as a linear one over log2(d): the same picture, without a log transform per redraw.
    xs = [math.log2(d) for d in distinct_range]
    for r, color in RANK_COLORS.items():
        ys = [100 * break_even_utilisation(model.overhead_fraction(d, r)) for d in distinct_range]
        ax.plot(
            xs,
            ys,
            marker="o",
            markersize=4,
            color=color,
            label=f"r={r}",
            linewidth=2.5 if r == rank else 1.0,
            alpha=1.0 if r == rank else 0.6,
        )
    flat = 100 * break_even_utilisation(flat_overhead)
    ax.axhline(flat, color=OKABE_ITO["black"], linestyle="--", linewidth=1, label=f"flat {flat_overhead:.0%}")
    now = 100 * break_even_utilisation(model.overhead_fraction(distinct, rank))
    ax.plot(
        [math.log2(distinct)],
        [now],
        marker="o",
        markersize=12,
        color=RANK_COLORS.get(rank, OKABE_ITO["black"]),
        markeredgecolor=OKABE_ITO["black"],
        zorder=4,
    )
    ax.set_xticks(xs, [str(d) for d in distinct_range])
    ax.set_ylim(85, 96.5)
    set_axis_units(ax, x=("Distinct adapters per batch", None), y=("Break-even GPU utilisation", "%"))
    if legend:
        ax.legend(loc="lower left", fontsize=8, ncol=5)
    ax.set_title(f"{distinct} distinct r={rank} adapters: merged wins above {now:.1f}% busy (flat: {flat:.1f}%)")
    return fig
