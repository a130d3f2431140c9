"""Figures of in-flight admission: requests admitted at once, after a wait, or refused."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .offline import needs_matplotlib
from .sim import SIM_COLORS
from .style import OKABE_ITO, _axes, set_axis_units

if TYPE_CHECKING:  # pragma: no cover - typing only
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["plot_admission"]


@needs_matplotlib
def plot_admission(results: Mapping[int, Any], *, highlight: int, ax: Axes | None = None) -> Figure:
    """Plot, per adapter-pool size, the share of requests admitted at once, after waiting, or refused.

    ``results`` maps pool sizes (adapters) to in-flight ``SimResult`` runs (``simulate(..., hold_ms=...)``).
    """
    fig, ax = _axes(ax)
    xs = sorted(results)
    total = {x: results[x].requests for x in xs}
    refused = [100 * results[x].refused / total[x] for x in xs]
    waited = [100 * results[x].queued / total[x] for x in xs]
    at_once = [100 - r - w for r, w in zip(refused, waited, strict=True)]
    pos = list(range(len(xs)))
    ax.bar(pos, at_once, color=SIM_COLORS["admitted"], label="admitted at once")
    ax.bar(pos, waited, bottom=at_once, color=SIM_COLORS["waited"], label="waited for VRAM")
    ax.bar(
        pos,
        refused,
        bottom=[a + w for a, w in zip(at_once, waited, strict=True)],
        color=SIM_COLORS["refused"],
        label="refused (queue full)",
    )
    i = xs.index(highlight)
    ax.bar([i], [100], fill=False, edgecolor=OKABE_ITO["black"], linewidth=2)
    ax.set_xticks(pos, [str(x) for x in xs])
    ax.set_ylim(0, 100)
    set_axis_units(ax, x=("Adapter pool size", "adapters"), y=("Share of requests", "%"))
    ax.legend(loc="lower right", fontsize=8)
    chosen = results[highlight]
    ax.set_title(
        f"{highlight}-adapter pool: {100 * chosen.refused / chosen.requests:.0f}% refused, p99 {chosen.p99_ms:,.0f} ms"
    )
    return fig
