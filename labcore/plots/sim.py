"""Figures of the serving simulator: p99 over time, the p99 cliff over pool size, and plain millisecond bars."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .offline import needs_matplotlib
from .style import GREY, OKABE_ITO, _axes, axis_label, set_axis_units

if TYPE_CHECKING:  # pragma: no cover - typing only
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["SIM_COLORS", "plot_sim_timeline", "plot_p99_cliff", "plot_ms_bars"]

SIM_COLORS: dict[str, str] = {
    "p99": OKABE_ITO["vermillion"],
    "hit_rate": OKABE_ITO["blue"],
    "gpu_only": OKABE_ITO["vermillion"],
    "tiered": OKABE_ITO["bluish_green"],
    "admitted": OKABE_ITO["bluish_green"],
    "waited": OKABE_ITO["orange"],
    "refused": OKABE_ITO["vermillion"],
}


@needs_matplotlib
def plot_sim_timeline(
    result: Any,
    *,
    event_ms: float | None = None,
    event_label: str = "tenant #41 joins",
    hit_rate: bool = True,
    ax: Axes | None = None,
) -> Figure:
    """Plot p99 latency and hit rate per window of simulated time, with an optional event marker.

    ``result`` is a ``labcore.sim.SimResult``; with two ``phases`` the title quotes p99 before and after.
    ``hit_rate=False`` draws the p99 line and the event line only (one axes, no legend or label): a
    live panel quotes the hit rates in its readout, and a twin axes costs ~30 ms per redraw.

    >>> from labcore.sim import Join, Workload, make_trace, simulate, single_replica_router
    >>> w = Workload(tenants=41, requests=6_000, zipf_s=0.5, seed=1, joins=(Join(15_000, 41),))
    >>> r = simulate(lambda: single_replica_router(41, budget_mb=640), make_trace(w), windows=12, phases=(15_000,),
    ...              warmup=500)
    >>> plot_sim_timeline(r, event_ms=15_000).axes[0].get_title()
    'p99 42 ms before tenant #41 joins, 110 ms after'
    """
    fig, ax = _axes(ax)
    windows = [w for w in result.windows if w.requests]
    xs = [(w.start_ms + w.end_ms) / 2000 for w in windows]
    ax.step(xs, [w.p99_ms for w in windows], where="mid", color=SIM_COLORS["p99"], linewidth=2, label="p99 latency")
    ax.set_ylim(0, max([w.p99_ms for w in windows] + [1.0]) * 1.25)
    set_axis_units(ax, x=("Simulated time", "s"), y=("p99 latency per window", "ms"))
    if not hit_rate:
        if event_ms is not None:
            ax.axvline(event_ms / 1000, color=OKABE_ITO["black"], linestyle="--", linewidth=1)
        if len(result.phases) == 2:
            before, after = result.phases
            ax.set_title(
                f"p99 {before.p99_ms:.0f} ms before {event_label.replace(' joins', '')} joins (dashed), "
                f"{after.p99_ms:.0f} ms after"
            )
        else:
            ax.set_title(f"p99 {result.p99_ms:.0f} ms over the run")
        return fig
    rate = ax.twinx()
    rate.plot(
        xs,
        [100 * w.hit_rate for w in windows],
        color=SIM_COLORS["hit_rate"],
        linewidth=1.2,
        marker="o",
        markersize=3,
        label="hit rate",
    )
    rate.set_ylim(min([100 * w.hit_rate for w in windows] + [95.0]) - 1, 100.5)
    rate.set_ylabel(axis_label("Cache hit rate", "%"), color=SIM_COLORS["hit_rate"])
    rate.grid(False)
    if event_ms is not None:
        ax.axvline(event_ms / 1000, color=OKABE_ITO["black"], linestyle="--", linewidth=1)
        ax.annotate(
            event_label,
            (event_ms / 1000, ax.get_ylim()[1] * 0.93),
            xytext=(4, 0),
            textcoords="offset points",
            fontsize=8,
        )
    lines = ax.get_lines()[:1] + rate.get_lines()[:1]
    ax.legend(lines, [str(ln.get_label()) for ln in lines], loc="lower left", fontsize=8)
    if len(result.phases) == 2:
        before, after = result.phases
        ax.set_title(
            f"p99 {before.p99_ms:.0f} ms before {event_label.replace(' joins', '')} joins, {after.p99_ms:.0f} ms after"
        )
    else:
        ax.set_title(f"p99 {result.p99_ms:.0f} ms over the run, hit rate {100 * result.hit_rate:.1f}%")
    return fig


@needs_matplotlib
def plot_p99_cliff(results: Mapping[int, Any], *, highlight: int, pool_adapters: int, ax: Axes | None = None) -> Figure:
    """Plot steady-state p99 and miss rate against the number of tenants sharing a fixed adapter pool.

    ``results`` maps tenant counts to ``SimResult`` (``labcore.sim.tenant_sweep``); ``highlight``
    is marked and named in the title; a dashed line marks the pool's capacity in adapters.
    """
    fig, ax = _axes(ax)
    xs = sorted(results)
    ax.plot(xs, [results[x].p99_ms for x in xs], color=SIM_COLORS["p99"], marker="o", linewidth=2, label="p99")
    ax.plot(xs, [results[x].p50_ms for x in xs], color=GREY, marker=".", linewidth=1, label="p50")
    ax.axvline(pool_adapters + 0.5, color=OKABE_ITO["black"], linestyle="--", linewidth=1)
    ax.annotate(
        f"pool holds {pool_adapters}", (pool_adapters + 0.5, 5), xytext=(4, 0), textcoords="offset points", fontsize=8
    )
    chosen = results[highlight]
    ax.plot(
        [highlight],
        [chosen.p99_ms],
        marker="o",
        markersize=12,
        color=SIM_COLORS["p99"],
        markeredgecolor=OKABE_ITO["black"],
        zorder=4,
    )
    ax.set_ylim(0, max(r.p99_ms for r in results.values()) * 1.25)
    set_axis_units(ax, x=("Tenants sharing the pool", None), y=("Latency", "ms"))
    miss = ax.twinx()
    miss.bar(
        xs,
        [100 * (1 - results[x].hit_rate) for x in xs],
        color=SIM_COLORS["hit_rate"],
        alpha=0.25,
        width=0.6,
        label="miss rate",
    )
    miss.axhline(1.0, color=SIM_COLORS["hit_rate"], linestyle=":", linewidth=1)
    miss.set_ylim(0, max(5.0, max(100 * (1 - r.hit_rate) for r in results.values()) * 1.3))
    miss.set_ylabel(axis_label("Miss rate", "%"), color=SIM_COLORS["hit_rate"])
    miss.grid(False)
    ax.set_zorder(miss.get_zorder() + 1)
    ax.patch.set_visible(False)
    ax.legend(loc="upper left", fontsize=8)
    ax.set_title(
        f"{highlight} tenants on a {pool_adapters}-adapter pool: p99 {chosen.p99_ms:.0f} ms "
        f"(miss rate {100 * (1 - chosen.hit_rate):.1f}%)"
    )
    return fig


@needs_matplotlib
def plot_ms_bars(
    values: Mapping[str, float],
    *,
    title: str,
    quantity: str = "p99 latency",
    colors: Sequence[str] | None = None,
    ax: Axes | None = None,
) -> Figure:
    """Plot one horizontal bar per labelled value in milliseconds, value printed at the bar's end.

    >>> plot_ms_bars({"before": 42.0, "after": 109.5}, title="p99").axes[0].get_title()
    'p99'
    """
    fig, ax = _axes(ax)
    labels = list(values)
    palette = list(colors) if colors else [OKABE_ITO["blue"]] * len(labels)
    ys = range(len(labels))
    ax.barh(list(ys), [values[k] for k in labels], color=palette[: len(labels)])
    top = max(list(values.values()) + [1.0])
    for y, k in zip(ys, labels, strict=True):
        ax.annotate(
            f"{values[k]:,.1f} ms", (values[k], y), xytext=(4, 0), textcoords="offset points", va="center", fontsize=8
        )
    ax.set_yticks(list(ys), labels)
    ax.invert_yaxis()
    ax.set_xlim(0, top * 1.25)
    set_axis_units(ax, x=(quantity, "ms"))
    ax.set_title(title)
    return fig
