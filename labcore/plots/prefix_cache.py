"""Figures of the prefix cache: stale hits after an adapter is replaced under the same name, by key policy."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .offline import needs_matplotlib
from .style import GREY, OKABE_ITO, _axes, set_axis_units

if TYPE_CHECKING:  # pragma: no cover - typing only
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["KEY_POLICY_COLORS", "plot_stale_hits"]

#: One colour per key policy (the keys are labcore.prefix_cache.KEY_POLICIES).
KEY_POLICY_COLORS: dict[str, str] = {
    "adapter name": OKABE_ITO["vermillion"],
    "name@version + base digest": OKABE_ITO["bluish_green"],
}


@needs_matplotlib
def plot_stale_hits(runs: Mapping[str, Any], *, ax: Axes | None = None) -> Figure:
    """Plot the cumulative stale hits over simulated time, one line per key policy, the replacement marked.

    ``runs`` maps a key policy to its ``labcore.sim.scenarios.prefix_cache.PrefixCacheRun`` on one scenario.

    >>> from labcore.sim.scenarios.prefix_cache import prefix_cache_runs
    >>> plot_stale_hits(prefix_cache_runs()).axes[0].get_title()
    'Keyed by name, all 385 tenant-01 requests after the swap\\ngot prefixes computed with the old weights'
    """
    if not runs:
        raise ValueError("no prefix-cache runs to plot")
    fig, ax = _axes(ax)
    first = next(iter(runs.values()))
    end_s = first.duration_ms / 1000
    for policy, run in runs.items():
        xs = [0.0] + [t / 1000 for t in run.stale_at_ms] + [end_s]
        ys = [0] + list(range(1, len(run.stale_at_ms) + 1)) + [len(run.stale_at_ms)]
        ax.step(
            xs,
            ys,
            where="post",
            linewidth=2,
            color=KEY_POLICY_COLORS.get(policy, GREY),
            label=f"keyed by {policy}: {run.stale_hits:,} stale",
        )
    ax.axvline(
        first.replace_at_ms / 1000,
        color=OKABE_ITO["black"],
        linestyle="--",
        linewidth=1,
        label=f"{first.replaced} replaced by {first.replaced_with.version}",
    )
    ax.set_xlim(0, end_s)
    top = max(1, max(r.stale_hits for r in runs.values()))
    ax.set_ylim(-0.02 * top, top * 1.15)  # a line at zero stays visible above the axis
    set_axis_units(ax, x=("Simulated time", "s"), y=("Stale prefix hits so far", "requests"))
    ax.legend(loc="upper left", fontsize=9)
    worst = max(runs.values(), key=lambda r: r.stale_hits)
    name = worst.replaced.name
    if worst.stale_hits == worst.after_requests:
        ax.set_title(
            f"Keyed by name, all {worst.after_requests:,} {name} requests after the swap\ngot prefixes computed with the old weights"
        )
    else:
        ax.set_title(
            f"Keyed by name, {worst.stale_hits:,} of {worst.after_requests:,} {name} requests after the swap\ngot prefixes computed with the old weights"
        )
    return fig
