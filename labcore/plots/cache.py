"""Figures of the adapter cache: hit rate and load time over a trace, hit rate against budget, VRAM in use."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._validate import choice
from .offline import needs_matplotlib
from .style import GREY, OKABE_ITO, _axes, set_axis_units

if TYPE_CHECKING:  # pragma: no cover - typing only
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["CACHE_POLICY_COLORS", "CACHE_METRICS", "plot_cache_over_time", "plot_hit_rate_vs_budget", "plot_vram_used"]

CACHE_POLICY_COLORS: dict[str, str] = {"LRU": OKABE_ITO["bluish_green"], "FIFO": OKABE_ITO["orange"]}


CACHE_METRICS: dict[str, tuple[str, str | None]] = {
    "hit_rate": ("Hit rate", "% of requests"),
    "evictions": ("Evictions", "per window"),
    "load_ms": ("Adapter load time", "ms per request"),
}


@needs_matplotlib
def plot_cache_over_time(
    runs: Mapping[str, Any], *, metric: str = "hit_rate", title: str | None = None, ax: Axes | None = None
) -> Figure:
    """Plot one cache metric per window of requests, one line per eviction policy.

    ``runs`` maps a policy name (``"LRU"``, ``"FIFO"``) to a ``labcore.sim.CacheRun`` replayed on the
    same trace; ``metric`` is ``"hit_rate"``, ``"evictions"`` or ``"load_ms"``.

    >>> from labcore.sim import cache_runs
    >>> plot_cache_over_time(cache_runs(320, 40, 1.0)).axes[0].get_title()
    '320 MiB for 40 tenants: LRU 77% hits, FIFO 72%'
    """
    choice("metric", metric, sorted(CACHE_METRICS))
    if not runs:
        raise ValueError("no cache runs to plot")
    fig, ax = _axes(ax)
    for policy, run in runs.items():
        window = run.window
        xs = [window * (i + 1) for i in range(len(run.window_hits))]
        if metric == "hit_rate":
            ys = [100 * h / n for h, n in zip(run.window_hits, run.window_requests, strict=True)]
        elif metric == "evictions":
            ys = list(run.window_evictions)
        else:
            ys = [ms / n for ms, n in zip(run.window_load_ms, run.window_requests, strict=True)]
        ax.plot(
            xs, ys, color=CACHE_POLICY_COLORS.get(policy, GREY), linewidth=2, marker="o", markersize=3, label=policy
        )
    if metric == "hit_rate":
        ax.set_ylim(0, 102)
    else:
        ax.set_ylim(bottom=0)
    ax.set_xlim(0, None)
    set_axis_units(ax, x=("Requests", None), y=CACHE_METRICS[metric])
    ax.legend(loc="lower right", ncol=len(runs))
    if title is None:
        first = next(iter(runs.values()))
        rates = [f"{p} {100 * r.hit_rate:.0f}%{' hits' if i == 0 else ''}" for i, (p, r) in enumerate(runs.items())]
        title = f"{first.budget_mb:g} MiB for {first.tenants} tenants: {', '.join(rates)}"
    ax.set_title(title)
    return fig


@needs_matplotlib
def plot_hit_rate_vs_budget(
    sweep: Mapping[str, Sequence[Any]], *, budget_mb: float | None = None, ax: Axes | None = None
) -> Figure:
    """Plot the hit rate against the VRAM budget, one line per policy, with the working set marked.

    ``sweep`` maps a policy name to a list of ``CacheRun`` at increasing budgets (``labcore.sim.budget_sweep``).

    >>> from labcore.sim import budget_sweep
    >>> plot_hit_rate_vs_budget(budget_sweep([320, 640], 40, 1.0), budget_mb=320).axes[0].get_title()
    'Below the 640 MiB working set, every MiB of budget costs hits'
    """
    if not sweep:
        raise ValueError("no budget sweep to plot")
    fig, ax = _axes(ax)
    working_set_mb = None
    for policy, runs in sweep.items():
        ax.plot(
            [r.budget_mb for r in runs],
            [100 * r.hit_rate for r in runs],
            marker="o",
            markersize=4,
            linewidth=2,
            color=CACHE_POLICY_COLORS.get(policy, GREY),
            label=policy,
        )
        working_set_mb = runs[0].working_set_mb
    if working_set_mb is None:
        raise ValueError(f"the sweep holds no policy's runs: {sweep!r}")
    ax.axvline(
        working_set_mb,
        color=OKABE_ITO["black"],
        linestyle=":",
        linewidth=1.2,
        label=f"working set {working_set_mb:g} MiB",
    )
    if budget_mb is not None:
        ax.axvline(budget_mb, color=OKABE_ITO["blue"], linewidth=1, alpha=0.6, label=f"budget {budget_mb:g} MiB")
    ax.set_ylim(0, 102)
    ax.set_xlim(0, None)
    set_axis_units(ax, x=("VRAM budget for adapters", "MiB"), y=("Hit rate", "% of requests"))
    ax.legend(loc="lower right", fontsize=9)
    ax.set_title(f"Below the {working_set_mb:g} MiB working set, every MiB of budget costs hits")
    return fig


@needs_matplotlib
def plot_vram_used(run: Any, *, ax: Axes | None = None) -> Figure:
    """Plot the adapter VRAM in use after every request against the budget, and the peaks a load-first cache hits.

    The real cache evicts before it copies, so ``used_mb`` never crosses the budget. A cache that
    started the copy before freeing its victims would peak at ``used + size`` during each eviction (crosses).

    >>> from labcore.sim import cache_runs
    >>> plot_vram_used(cache_runs(320, 40, 1.0)["LRU"]).axes[0].get_title()
    'Evict first: used VRAM never crosses the 320 MiB budget'
    """
    fig, ax = _axes(ax)
    steps = range(1, len(run.used_mb) + 1)
    ax.step(
        steps,
        run.used_mb,
        where="post",
        color=CACHE_POLICY_COLORS.get(run.policy, GREY),
        linewidth=1.5,
        label=f"{run.policy}: used after each request",
    )
    over = [(i + 1, peak) for i, peak in enumerate(run.load_first_peak_mb) if peak > run.budget_mb]
    if over:
        ax.plot(
            [s for s, _ in over],
            [p for _, p in over],
            linestyle="",
            marker="x",
            markersize=4,
            color=OKABE_ITO["vermillion"],
            label="load-first peak (OOM)",
        )
    ax.axhline(
        run.budget_mb, color=OKABE_ITO["black"], linewidth=1.2, linestyle="--", label=f"budget {run.budget_mb:g} MiB"
    )
    ax.set_ylim(0, run.budget_mb * 1.25)
    ax.set_xlim(0, len(run.used_mb))
    set_axis_units(ax, x=("Requests", None), y=("Adapter VRAM in use", "MiB"))
    ax.legend(loc="lower right", fontsize=9)
    crossed = max(run.used_mb, default=0.0) > run.budget_mb
    ax.set_title(
        f"{'Over budget!' if crossed else 'Evict first'}: used VRAM "
        f"{'crosses' if crossed else 'never crosses'} the {run.budget_mb:g} MiB budget"
    )
    return fig
