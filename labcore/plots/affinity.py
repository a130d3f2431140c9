"""Figures of fleet routing policies: tail latency per policy, load per replica, adapters moved on resize."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .offline import needs_matplotlib
from .style import GREY, OKABE_ITO, _axes, set_axis_units

if TYPE_CHECKING:  # pragma: no cover - typing only
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["POLICY_COLORS", "plot_policy_comparison", "plot_replica_load", "plot_moved_fraction"]

POLICY_COLORS: dict[str, str] = {
    "round-robin": GREY,
    "least-loaded": OKABE_ITO["sky_blue"],
    "rendezvous": OKABE_ITO["orange"],
    "bounded-rendezvous": OKABE_ITO["bluish_green"],
}


@needs_matplotlib
def plot_policy_comparison(
    runs: Mapping[str, Any], *, p99_max_ms: float | None = None, ax: Axes | None = None
) -> Figure:
    """Plot each placement policy's p99 latency (log scale), annotated with its hit rate and imbalance.

    ``runs`` maps a policy name to a ``labcore.affinity.FleetRun`` (as ``compare_policies`` returns).

    >>> from labcore.affinity import FleetRun
    >>> run = FleetRun("rendezvous", 2, 10, 1.0, 42.0, 42.0, 50.0, 0.0, (5, 5), (1.0, 1.0), 0, 0, 1.0)
    >>> plot_policy_comparison({"rendezvous": run}).axes[0].get_title()
    'Lowest p99: rendezvous, 50 ms'
    """
    fig, ax = _axes(ax)
    names = list(runs)
    p99 = [runs[n].p99_ms for n in names]
    bars = ax.bar(names, p99, color=[POLICY_COLORS.get(n, GREY) for n in names], width=0.6)
    ax.set_yscale("log")
    top = p99_max_ms if p99_max_ms is not None else max(p99) * 4
    ax.set_ylim(10, top)
    ticks = [t for t in (10, 30, 100, 300, 1000, 3000, 10000, 30000, 100000) if t <= top]
    ax.set_yticks(ticks, [f"{t:,}" for t in ticks])
    ax.minorticks_off()
    for bar, n in zip(bars, names, strict=True):
        r = runs[n]
        ax.annotate(
            f"{r.p99_ms:,.0f} ms\nhit {r.hit_rate:.0%}\nload x{r.imbalance:.2f}",
            (bar.get_x() + bar.get_width() / 2, r.p99_ms),
            textcoords="offset points",
            xytext=(0, 3),
            ha="center",
            va="bottom",
            fontsize=8,
        )
    ax.tick_params(axis="x", labelsize=9)
    ax.grid(axis="x", visible=False)
    set_axis_units(ax, y=("p99 latency", "ms, log scale"))
    best = min(names, key=lambda n: runs[n].p99_ms)
    ax.set_title(f"Lowest p99: {best}, {runs[best].p99_ms:,.0f} ms")
    return fig


@needs_matplotlib
def plot_replica_load(runs: Mapping[str, Any], *, load_factor: float | None = None, ax: Axes | None = None) -> Figure:
    """Plot each replica's requests relative to the fleet mean, one group of bars per policy.

    >>> from labcore.affinity import FleetRun
    >>> run = FleetRun("rendezvous", 2, 10, 1.0, 42.0, 42.0, 50.0, 0.0, (7, 3), (1.0, 1.0), 0, 0, 1.4)
    >>> plot_replica_load({"rendezvous": run}).axes[0].get_title()
    'Busiest replica: x1.40 the mean load (rendezvous)'
    """
    fig, ax = _axes(ax)
    names = list(runs)
    width = 0.8 / max(r.replicas for r in runs.values())
    xs: list[float] = []
    heights: list[float] = []
    colors: list[str] = []
    for g, n in enumerate(names):
        r = runs[n]
        mean = sum(r.requests_per_replica) / r.replicas
        for i, count in enumerate(r.requests_per_replica):
            xs.append(g - 0.4 + width * (i + 0.5))
            heights.append(count / mean)
            colors.append(POLICY_COLORS.get(n, GREY))
    ax.bar(xs, heights, width=width * 0.9, color=colors)  # one call: a call per bar costs ~1 ms each
    ax.axhline(1.0, color=OKABE_ITO["black"], linewidth=1, linestyle=":")
    if load_factor is not None:
        ax.axhline(
            load_factor,
            color=OKABE_ITO["vermillion"],
            linewidth=1,
            linestyle="--",
            label=f"bound c = {load_factor:g} x mean",
        )
        ax.legend(loc="upper left", fontsize=9)
    ax.set_xticks(range(len(names)), names, fontsize=9)
    ax.grid(axis="x", visible=False)
    set_axis_units(ax, y=("Requests per replica", "x fleet mean"))
    worst = max(names, key=lambda n: runs[n].imbalance)
    ax.set_title(f"Busiest replica: x{runs[worst].imbalance:.2f} the mean load ({worst})")
    return fig


@needs_matplotlib
def plot_moved_fraction(
    replicas: Sequence[int], rendezvous: Sequence[float], modulo: Sequence[float], *, ax: Axes | None = None
) -> Figure:
    """Plot the share of adapters that change replica when going from R to R+1 replicas.

    >>> plot_moved_fraction([2, 3], [0.33, 0.25], [0.66, 0.75]).axes[0].get_title()
    'Adding a replica: rendezvous moves ~1/(R+1), hash mod R moves most'
    """
    fig, ax = _axes(ax)
    ax.plot(replicas, [100 * f for f in modulo], marker="s", color=GREY, label="hash mod R")
    ax.plot(
        replicas,
        [100 * f for f in rendezvous],
        marker="o",
        color=POLICY_COLORS["rendezvous"],
        label="rendezvous (measured)",
    )
    ax.plot(replicas, [100 / (r + 1) for r in replicas], linestyle=":", color=OKABE_ITO["black"], label="1/(R+1)")
    ax.set_ylim(0, 100)
    set_axis_units(ax, x=("Replicas before adding one (R)", None), y=("Adapters that move", "%"))
    ax.legend(loc="center right", fontsize=9)
    ax.set_title("Adding a replica: rendezvous moves ~1/(R+1), hash mod R moves most")
    return fig
