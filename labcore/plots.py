"""Draw the course's figures: one style, stable colours, units on every axis, a title that states the takeaway.

Every ``plot_*`` function takes its data (labcore records or plain numbers) and an optional
``ax``; it draws on that axes (or on a new pyplot figure) and returns the figure. Nothing here
reads global state besides matplotlib's rcParams, so the same call gives the same picture in a
notebook, in a widget panel and in a test.

>>> use_course_style()
>>> tenant_color("support-bot") == tenant_color("support-bot")
True
>>> MODE_COLORS["dynamic"]
'#009E73'
"""

from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

try:  # optional: without matplotlib (the offline live version) every plot_* prints a note instead
    import matplotlib
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter
except ImportError:
    matplotlib = plt = FuncFormatter = None  # type: ignore[assignment]

from .router import MODE_BASE, MODE_DEDICATED, MODE_DYNAMIC
from .sizing import MB_PER_GB, GpuMemorySplit, adapter_vram_mb

if TYPE_CHECKING:  # pragma: no cover - typing only
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "OKABE_ITO",
    "MODE_COLORS",
    "MEMORY_COLORS",
    "course_rc",
    "use_course_style",
    "tenant_color",
    "mode_color",
    "axis_label",
    "set_axis_units",
    "usd_formatter",
    "plot_adapter_vram",
    "plot_gpu_split",
    "plot_fleet_costs",
]

# Okabe & Ito (2008), "Color Universal Design": distinguishable under the common colour-vision deficiencies.
OKABE_ITO: dict[str, str] = {
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "bluish_green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish_purple": "#CC79A7",
    "black": "#000000",
}
GREY = "#999999"

# One colour per serving mode, used by every chapter (the router's MODE_* strings are the keys).
MODE_COLORS: dict[str, str] = {
    MODE_BASE: OKABE_ITO["blue"],
    MODE_DYNAMIC: OKABE_ITO["bluish_green"],
    MODE_DEDICATED: OKABE_ITO["vermillion"],
}
# One colour per slice of GPU memory.
MEMORY_COLORS: dict[str, str] = {
    "base": OKABE_ITO["blue"],
    "kv_cache": OKABE_ITO["sky_blue"],
    "adapters": OKABE_ITO["bluish_green"],
    "free": "#DDDDDD",
}
# Tenants hash into the palette minus yellow (too pale on white for thin lines).
_TENANT_PALETTE: tuple[str, ...] = tuple(c for k, c in OKABE_ITO.items() if k != "yellow")


def course_rc() -> dict[str, Any]:
    """Return the course's matplotlib rcParams as a dict (for ``matplotlib.rc_context``).

    >>> course_rc()["axes.grid"]
    True
    """
    return {
        "axes.prop_cycle": matplotlib.cycler(color=list(OKABE_ITO.values())),
        "font.family": "DejaVu Sans",
        "font.size": 11,
        "text.hinting": "none",  # ~20% faster text drawing, which dominates a slider redraw
        "axes.titlesize": 12,
        "axes.titleweight": "bold",
        "axes.labelsize": 11,
        "axes.grid": True,
        "grid.color": "#DDDDDD",
        "grid.linewidth": 0.8,
        "axes.axisbelow": True,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "legend.frameon": False,
        "figure.figsize": (6.4, 3.6),
        "figure.dpi": 100,
        "savefig.bbox": "standard",
        "figure.autolayout": False,
        "figure.constrained_layout.use": True,
        # Figures are SVG in the book (crisp at any width): text stays text, ids are reproducible.
        "svg.fonttype": "none",
        "svg.hashsalt": "labcore",
    }


def use_course_style() -> None:
    """Apply the course style to every later matplotlib figure (call once, in the imports cell).

    >>> use_course_style()
    >>> import matplotlib
    >>> matplotlib.rcParams["axes.spines.top"]
    False
    """
    matplotlib.rcParams.update(course_rc())
    os.environ.setdefault("SOURCE_DATE_EPOCH", "0")  # no build date inside the SVGs: same input, same file
    try:  # in a notebook, figures are shown as SVG (vector: sharp on any screen, any zoom)
        from IPython import get_ipython
        from matplotlib_inline.backend_inline import set_matplotlib_formats
    except ImportError:  # pragma: no cover - no IPython here
        return
    if get_ipython() is not None:
        set_matplotlib_formats("svg")


def tenant_color(name: str) -> str:
    """Return the stable colour of a tenant: the same name gets the same colour in every chapter and run.

    Python's ``hash`` is salted per process, so the colour comes from a BLAKE2 digest instead.

    >>> tenant_color("tenant-07") in OKABE_ITO.values()
    True
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"tenant name must be a non-empty string, got {name!r}")
    digest = hashlib.blake2b(name.encode("utf-8"), digest_size=2).digest()
    return _TENANT_PALETTE[int.from_bytes(digest, "big") % len(_TENANT_PALETTE)]


def mode_color(mode: str) -> str:
    """Return the colour of a serving mode (``"base"``, ``"dynamic"`` or ``"dedicated"``).

    >>> mode_color("dedicated")
    '#D55E00'
    """
    try:
        return MODE_COLORS[mode]
    except KeyError:
        raise ValueError(f"unknown serving mode {mode!r}; valid modes: {sorted(MODE_COLORS)}") from None


def axis_label(quantity: str, unit: str | None = None) -> str:
    """Return an axis label with its unit in parentheses.

    >>> axis_label("Adapter VRAM", "MiB")
    'Adapter VRAM (MiB)'
    >>> axis_label("Tenants")
    'Tenants'
    """
    return f"{quantity} ({unit})" if unit else quantity


def set_axis_units(
    ax: Axes, *, x: tuple[str, str | None] | None = None, y: tuple[str, str | None] | None = None
) -> None:
    """Label an axes' x and/or y axis as ``(quantity, unit)`` pairs."""
    if x is not None:
        ax.set_xlabel(axis_label(*x))
    if y is not None:
        ax.set_ylabel(axis_label(*y))


def _usd(value: float, _pos: object = None) -> str:
    if abs(value) >= 1e6:
        return f"${value / 1e6:.1f}M"
    if abs(value) >= 1e3:
        return f"${value / 1e3:.0f}k"
    return f"${value:.0f}"


def usd_formatter() -> FuncFormatter:
    """Return a tick formatter that writes dollars compactly ($2k, $93k, $1.2M).

    >>> usd_formatter()(93440, None)
    '$93k'
    """
    return FuncFormatter(_usd)


def _axes(ax: Axes | None) -> tuple[Figure, Axes]:
    if ax is None:
        fig, ax = plt.subplots()
        return fig, ax
    return ax.figure, ax


def _fmt_mb(mb: float) -> str:
    return f"{mb / MB_PER_GB:,.1f} GiB" if mb >= MB_PER_GB else f"{mb:,.1f} MiB"


# --------------------------------------------------------------------------- chapter 2: adapter size

DEFAULT_RANKS: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64, 128, 256)


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


def plot_gpu_split(split: GpuMemorySplit, *, ax: Axes | None = None) -> Figure:
    """Plot one GPU as a bar split into base weights, KV-cache pool and adapter pool.

    >>> from labcore.sizing import gpu_memory_split
    >>> fig = plot_gpu_split(gpu_memory_split(80, base_vram_gb=16, kv_cache_gb=24, adapter_vram_mb=16))
    >>> fig.axes[0].get_title()
    '2,560 adapters fit in 40.0 GiB'
    """
    fig, ax = _axes(ax)
    pool_gb = split.adapter_pool_mb / MB_PER_GB
    used_gb = split.adapters_that_fit * split.adapter_vram_mb / MB_PER_GB
    parts = [
        ("base", split.base_vram_gb, MEMORY_COLORS["base"]),
        ("KV cache", split.kv_cache_gb, MEMORY_COLORS["kv_cache"]),
        ("adapters", used_gb, MEMORY_COLORS["adapters"]),
        ("unused", max(pool_gb - used_gb, 0.0), MEMORY_COLORS["free"]),
    ]
    left = 0.0
    for label, width, color in parts:
        ax.barh([0], [width], left=left, color=color, label=label, height=0.6)
        left += width
    ax.set_xlim(0, split.gpu_vram_gb)
    ax.set_ylim(-0.5, 1.0)
    ax.set_yticks([])
    ax.grid(axis="y", visible=False)
    set_axis_units(ax, x=("GPU memory", "GiB"))
    ax.legend(loc="upper center", ncol=4)
    ax.set_title(f"{split.adapters_that_fit:,} adapters fit in {pool_gb:,.1f} GiB")
    return fig


# --------------------------------------------------------------------------- chapter 1: the economic case


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
    for bar, bill, n in zip(bars, bills, gpus):
        ax.annotate(f"{n:,} GPU{'s' if n != 1 else ''}",
                    (bar.get_x() + bar.get_width() / 2, bill), textcoords="offset points",
                    xytext=(0, 4), ha="center", va="bottom", fontsize=10)
    ax.yaxis.set_major_formatter(usd_formatter())
    ax.grid(axis="x", visible=False)
    set_axis_units(ax, y=("Monthly GPU bill", "USD"))
    ax.set_title(f"{plan.tenants:,} tenants: multi-LoRA {plan.savings_pct:.1f}% cheaper")
    return fig


def legend_patches(colors: Mapping[str, str]) -> list[Any]:
    """Return legend handles for a ``{label: colour}`` mapping."""
    from matplotlib.patches import Patch

    return [Patch(color=c, label=k) for k, c in colors.items()]


# --- chapter 10: affinity ---------------------------------------------------------------------
# (appended by the fleet-routing engineer; plot functions for chapters 10-12 follow)

POLICY_COLORS: dict[str, str] = {
    "round-robin": GREY,
    "least-loaded": OKABE_ITO["sky_blue"],
    "rendezvous": OKABE_ITO["orange"],
    "bounded-rendezvous": OKABE_ITO["bluish_green"],
}


def plot_policy_comparison(runs: Mapping[str, Any], *, p99_max_ms: float | None = None,
                           ax: Axes | None = None) -> Figure:
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
    for bar, n in zip(bars, names):
        r = runs[n]
        ax.annotate(f"{r.p99_ms:,.0f} ms\nhit {r.hit_rate:.0%}\nload x{r.imbalance:.2f}",
                    (bar.get_x() + bar.get_width() / 2, r.p99_ms), textcoords="offset points", xytext=(0, 3),
                    ha="center", va="bottom", fontsize=8)
    ax.tick_params(axis="x", labelsize=9)
    ax.grid(axis="x", visible=False)
    set_axis_units(ax, y=("p99 latency", "ms, log scale"))
    best = min(names, key=lambda n: runs[n].p99_ms)
    ax.set_title(f"Lowest p99: {best}, {runs[best].p99_ms:,.0f} ms")
    return fig


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
        ax.axhline(load_factor, color=OKABE_ITO["vermillion"], linewidth=1, linestyle="--",
                   label=f"bound c = {load_factor:g} x mean")
        ax.legend(loc="upper left", fontsize=9)
    ax.set_xticks(range(len(names)), names, fontsize=9)
    ax.grid(axis="x", visible=False)
    set_axis_units(ax, y=("Requests per replica", "x fleet mean"))
    worst = max(names, key=lambda n: runs[n].imbalance)
    ax.set_title(f"Busiest replica: x{runs[worst].imbalance:.2f} the mean load ({worst})")
    return fig


def plot_moved_fraction(replicas: Sequence[int], rendezvous: Sequence[float], modulo: Sequence[float], *,
                        ax: Axes | None = None) -> Figure:
    """Plot the share of adapters that change replica when going from R to R+1 replicas.

    >>> plot_moved_fraction([2, 3], [0.33, 0.25], [0.66, 0.75]).axes[0].get_title()
    'Adding a replica: rendezvous moves ~1/(R+1), hash mod R moves most'
    """
    fig, ax = _axes(ax)
    ax.plot(replicas, [100 * f for f in modulo], marker="s", color=GREY, label="hash mod R")
    ax.plot(replicas, [100 * f for f in rendezvous], marker="o", color=POLICY_COLORS["rendezvous"],
            label="rendezvous (measured)")
    ax.plot(replicas, [100 / (r + 1) for r in replicas], linestyle=":", color=OKABE_ITO["black"], label="1/(R+1)")
    ax.set_ylim(0, 100)
    set_axis_units(ax, x=("Replicas before adding one (R)", None), y=("Adapters that move", "%"))
    ax.legend(loc="center right", fontsize=9)
    ax.set_title("Adding a replica: rendezvous moves ~1/(R+1), hash mod R moves most")
    return fig


# --- chapter 11: canary -------------------------------------------------------------------------

CANARY_ACTION_STYLE: dict[str, tuple[str, str]] = {
    "hold": ("o", GREY),
    "promote": ("^", OKABE_ITO["bluish_green"]),
    "complete": ("*", OKABE_ITO["blue"]),
    "abort": ("X", OKABE_ITO["vermillion"]),
}


def plot_canary_log(log: Sequence[Any], *, requests_max: int | None = None, legend: bool = True,
                    ax: Axes | None = None) -> Figure:
    """Plot a canary's traffic share over the rollout, one marker per decision (hold, promote, abort, complete).

    ``log`` is a list of ``labcore.canary.CanaryDecision`` records. ``legend=False`` leaves out the
    marker key (a live panel states it in its HTML readout instead; a legend costs ~40 ms per redraw).

    >>> from labcore.canary import VersionBehaviour, simulate_canary
    >>> plot_canary_log(simulate_canary(VersionBehaviour(error_rate=0.03), seed=0)).axes[0].get_title()
    'Candidate aborted at 5% after 4,000 requests'
    """
    fig, ax = _axes(ax)
    if not log:
        raise ValueError("the canary log is empty: nothing to plot")
    xs = [0] + [d.at_request for d in log]
    ys = [100 * log[0].fraction_before] + [100 * d.fraction_after for d in log]
    ax.step(xs, ys, where="post", color=OKABE_ITO["black"], linewidth=1.5)
    for action in dict.fromkeys(d.action for d in log):  # one line per action, in order of first appearance
        marker, color = CANARY_ACTION_STYLE[action]
        done = [d for d in log if d.action == action]
        ax.plot([d.at_request for d in done], [100 * d.fraction_after for d in done], marker=marker, color=color,
                markersize=9, linestyle="", label=action, zorder=3)
    ax.set_ylim(-5, 105)
    ax.set_xlim(0, requests_max if requests_max is not None else max(xs) * 1.05)
    set_axis_units(ax, x=("Requests observed", None), y=("Traffic on the candidate", "%"))
    if legend:
        ax.legend(loc="center right", fontsize=9)
    last = log[-1]
    verdict = {"abort": f"aborted at {last.fraction_before:.0%}", "complete": "promoted to 100%"}.get(
        last.action, f"still at {last.fraction_after:.0%}")
    ax.set_title(f"Candidate {verdict} after {last.at_request:,} requests")
    return fig


# --- chapter 12: batch overhead -----------------------------------------------------------------

RANK_COLORS: dict[int, str] = {8: OKABE_ITO["sky_blue"], 16: OKABE_ITO["bluish_green"], 32: OKABE_ITO["orange"],
                               64: OKABE_ITO["vermillion"]}


def plot_break_even(model: Any, *, rank: int, distinct: int, flat_overhead: float = 0.05,
                    distinct_range: Sequence[int] = (1, 2, 4, 8, 16, 32, 64), legend: bool = True,
                    ax: Axes | None = None) -> Figure:
    """Plot the utilisation a merged GPU needs to beat dynamic serving, against distinct adapters per batch.

    ``model`` is a ``labcore.batching.BatchCostModel``; one line per rank, the chosen ``rank`` bold,
    the flat-overhead break-even dashed, and the chosen batch composition marked. ``legend=False``
    leaves out the line key (a live panel states it in its HTML readout; a legend costs ~40 ms per redraw).

    >>> from labcore.batching import fit_sgmv
    >>> plot_break_even(fit_sgmv(), rank=64, distinct=64).axes[0].get_title()
    '64 distinct r=64 adapters: merged wins above 87.8% busy (flat: 95.2%)'
    """
    from .batching import break_even_utilisation

    fig, ax = _axes(ax)
    # A log2 axis drawn as a linear one over log2(d): the same picture, without a log transform per redraw.
    xs = [math.log2(d) for d in distinct_range]
    for r, color in RANK_COLORS.items():
        ys = [100 * break_even_utilisation(model.overhead_fraction(d, r)) for d in distinct_range]
        ax.plot(xs, ys, marker="o", markersize=4, color=color, label=f"r={r}",
                linewidth=2.5 if r == rank else 1.0, alpha=1.0 if r == rank else 0.6)
    flat = 100 * break_even_utilisation(flat_overhead)
    ax.axhline(flat, color=OKABE_ITO["black"], linestyle="--", linewidth=1, label=f"flat {flat_overhead:.0%}")
    now = 100 * break_even_utilisation(model.overhead_fraction(distinct, rank))
    ax.plot([math.log2(distinct)], [now], marker="o", markersize=12, color=RANK_COLORS.get(rank, OKABE_ITO["black"]),
            markeredgecolor=OKABE_ITO["black"], zorder=4)
    ax.set_xticks(xs, [str(d) for d in distinct_range])
    ax.set_ylim(85, 96.5)
    set_axis_units(ax, x=("Distinct adapters per batch", None), y=("Break-even GPU utilisation", "%"))
    if legend:
        ax.legend(loc="lower left", fontsize=8, ncol=5)
    ax.set_title(f"{distinct} distinct r={rank} adapters: merged wins above {now:.1f}% busy (flat: {flat:.1f}%)")
    return fig


# --- chapter 08: serving simulator (also chapters 09 and 13) -----------------------------------
# Appended by the simulator engineer; data come from labcore.sim / labcore.tiers / labcore.admission.

SIM_COLORS: dict[str, str] = {
    "p99": OKABE_ITO["vermillion"],
    "hit_rate": OKABE_ITO["blue"],
    "gpu_only": OKABE_ITO["vermillion"],
    "tiered": OKABE_ITO["bluish_green"],
    "admitted": OKABE_ITO["bluish_green"],
    "waited": OKABE_ITO["orange"],
    "refused": OKABE_ITO["vermillion"],
}


def plot_sim_timeline(result: Any, *, event_ms: float | None = None, event_label: str = "tenant #41 joins",
                      hit_rate: bool = True, ax: Axes | None = None) -> Figure:
    """Plot p99 latency and hit rate per window of simulated time, with an optional event marker.

    ``result`` is a ``labcore.sim.SimResult``; with two ``phases`` the title quotes p99 before and after.
    ``hit_rate=False`` draws the p99 line and the event line only (one axes, no legend or label): a
    live panel quotes the hit rates in its readout, and a twin axes costs ~30 ms per redraw.

    >>> from labcore.sim import Join, Workload, make_trace, simulate, standard_fleet
    >>> w = Workload(tenants=41, requests=6_000, zipf_s=0.5, seed=1, joins=(Join(15_000, 41),))
    >>> r = simulate(lambda: standard_fleet(41, budget_mb=640), make_trace(w), windows=12, phases=(15_000,),
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
            ax.set_title(f"p99 {before.p99_ms:.0f} ms before {event_label.replace(' joins', '')} joins (dashed), "
                         f"{after.p99_ms:.0f} ms after")
        else:
            ax.set_title(f"p99 {result.p99_ms:.0f} ms over the run")
        return fig
    rate = ax.twinx()
    rate.plot(xs, [100 * w.hit_rate for w in windows], color=SIM_COLORS["hit_rate"], linewidth=1.2,
              marker="o", markersize=3, label="hit rate")
    rate.set_ylim(min([100 * w.hit_rate for w in windows] + [95.0]) - 1, 100.5)
    rate.set_ylabel(axis_label("Cache hit rate", "%"), color=SIM_COLORS["hit_rate"])
    rate.grid(False)
    if event_ms is not None:
        ax.axvline(event_ms / 1000, color=OKABE_ITO["black"], linestyle="--", linewidth=1)
        ax.annotate(event_label, (event_ms / 1000, ax.get_ylim()[1] * 0.93), xytext=(4, 0),
                    textcoords="offset points", fontsize=8)
    lines = ax.get_lines()[:1] + rate.get_lines()[:1]
    ax.legend(lines, [ln.get_label() for ln in lines], loc="lower left", fontsize=8)
    if len(result.phases) == 2:
        before, after = result.phases
        ax.set_title(f"p99 {before.p99_ms:.0f} ms before {event_label.replace(' joins', '')} joins, "
                     f"{after.p99_ms:.0f} ms after")
    else:
        ax.set_title(f"p99 {result.p99_ms:.0f} ms over the run, hit rate {100 * result.hit_rate:.1f}%")
    return fig


def plot_p99_cliff(results: Mapping[int, Any], *, highlight: int, pool_adapters: int,
                   ax: Axes | None = None) -> Figure:
    """Plot steady-state p99 and miss rate against the number of tenants sharing a fixed adapter pool.

    ``results`` maps tenant counts to ``SimResult`` (``labcore.sim.tenant_sweep``); ``highlight``
    is marked and named in the title; a dashed line marks the pool's capacity in adapters.
    """
    fig, ax = _axes(ax)
    xs = sorted(results)
    ax.plot(xs, [results[x].p99_ms for x in xs], color=SIM_COLORS["p99"], marker="o", linewidth=2, label="p99")
    ax.plot(xs, [results[x].p50_ms for x in xs], color=GREY, marker=".", linewidth=1, label="p50")
    ax.axvline(pool_adapters + 0.5, color=OKABE_ITO["black"], linestyle="--", linewidth=1)
    ax.annotate(f"pool holds {pool_adapters}", (pool_adapters + 0.5, 5), xytext=(4, 0), textcoords="offset points",
                fontsize=8)
    chosen = results[highlight]
    ax.plot([highlight], [chosen.p99_ms], marker="o", markersize=12, color=SIM_COLORS["p99"],
            markeredgecolor=OKABE_ITO["black"], zorder=4)
    ax.set_ylim(0, max(r.p99_ms for r in results.values()) * 1.25)
    set_axis_units(ax, x=("Tenants sharing the pool", None), y=("Latency", "ms"))
    miss = ax.twinx()
    miss.bar(xs, [100 * (1 - results[x].hit_rate) for x in xs], color=SIM_COLORS["hit_rate"], alpha=0.25,
             width=0.6, label="miss rate")
    miss.axhline(1.0, color=SIM_COLORS["hit_rate"], linestyle=":", linewidth=1)
    miss.set_ylim(0, max(5.0, max(100 * (1 - r.hit_rate) for r in results.values()) * 1.3))
    miss.set_ylabel(axis_label("Miss rate", "%"), color=SIM_COLORS["hit_rate"])
    miss.grid(False)
    ax.set_zorder(miss.get_zorder() + 1)
    ax.patch.set_visible(False)
    ax.legend(loc="upper left", fontsize=8)
    ax.set_title(f"{highlight} tenants on a {pool_adapters}-adapter pool: p99 {chosen.p99_ms:.0f} ms "
                 f"(miss rate {100 * (1 - chosen.hit_rate):.1f}%)")
    return fig


def plot_ms_bars(values: Mapping[str, float], *, title: str, quantity: str = "p99 latency",
                 colors: Sequence[str] | None = None, ax: Axes | None = None) -> Figure:
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
    for y, k in zip(ys, labels):
        ax.annotate(f"{values[k]:,.1f} ms", (values[k], y), xytext=(4, 0), textcoords="offset points",
                    va="center", fontsize=8)
    ax.set_yticks(list(ys), labels)
    ax.invert_yaxis()
    ax.set_xlim(0, top * 1.25)
    set_axis_units(ax, x=(quantity, "ms"))
    ax.set_title(title)
    return fig


def plot_tier_churn(gpu_only: Mapping[int, Any], tiered: Mapping[int, Any], *, highlight: int,
                    gpu_adapters: int, host_adapters: int | None = None, ax: Axes | None = None) -> Figure:
    """Plot p99 against the tenants churning through a fixed GPU pool, without and with a host tier."""
    fig, ax = _axes(ax)
    xs = sorted(gpu_only)
    for name, runs, label in (("gpu_only", gpu_only, "GPU only (miss = fetch + copy)"),
                              ("tiered", tiered, "with host tier (miss = PCIe copy)")):
        ax.plot(xs, [runs[x].p99_ms for x in xs], color=SIM_COLORS[name], marker="o", linewidth=2, label=label)
        ax.plot([highlight], [runs[highlight].p99_ms], marker="o", markersize=11, color=SIM_COLORS[name],
                markeredgecolor=OKABE_ITO["black"], zorder=4)
    ax.axvline(gpu_adapters + 0.5, color=OKABE_ITO["black"], linestyle="--", linewidth=1)
    ax.annotate(f"GPU pool holds {gpu_adapters}", (gpu_adapters + 0.5, 5), xytext=(4, 0),
                textcoords="offset points", fontsize=8)
    if host_adapters is not None:
        ax.axvline(host_adapters + 0.5, color=GREY, linestyle="--", linewidth=1)
        ax.annotate(f"host tier holds {host_adapters}", (host_adapters + 0.5, 5), xytext=(4, 0),
                    textcoords="offset points", fontsize=8)
    ax.set_ylim(0, max(r.p99_ms for r in gpu_only.values()) * 1.25)
    set_axis_units(ax, x=("Tenants churning through the GPU pool", None), y=("p99 latency", "ms"))
    ax.legend(loc="upper left", fontsize=8)
    ax.set_title(f"{highlight} tenants: p99 {gpu_only[highlight].p99_ms:.0f} ms GPU-only, "
                 f"{tiered[highlight].p99_ms:.1f} ms with a host tier")
    return fig


def plot_admission(results: Mapping[int, Any], *, highlight: int, ax: Axes | None = None) -> Figure:
    """Plot, per adapter-pool size, the share of requests admitted at once, after waiting, or refused.

    ``results`` maps pool sizes (adapters) to in-flight ``SimResult`` runs (``simulate(..., hold_ms=...)``).
    """
    fig, ax = _axes(ax)
    xs = sorted(results)
    total = {x: results[x].requests for x in xs}
    refused = [100 * results[x].refused / total[x] for x in xs]
    waited = [100 * results[x].queued / total[x] for x in xs]
    at_once = [100 - r - w for r, w in zip(refused, waited)]
    pos = list(range(len(xs)))
    ax.bar(pos, at_once, color=SIM_COLORS["admitted"], label="admitted at once")
    ax.bar(pos, waited, bottom=at_once, color=SIM_COLORS["waited"], label="waited for VRAM")
    ax.bar(pos, refused, bottom=[a + w for a, w in zip(at_once, waited)], color=SIM_COLORS["refused"],
           label="refused (queue full)")
    i = xs.index(highlight)
    ax.bar([i], [100], fill=False, edgecolor=OKABE_ITO["black"], linewidth=2)
    ax.set_xticks(pos, [str(x) for x in xs])
    ax.set_ylim(0, 100)
    set_axis_units(ax, x=("Adapter pool size", "adapters"), y=("Share of requests", "%"))
    ax.legend(loc="lower right", fontsize=8)
    chosen = results[highlight]
    ax.set_title(f"{highlight}-adapter pool: {100 * chosen.refused / chosen.requests:.0f}% refused, "
                 f"p99 {chosen.p99_ms:,.0f} ms")
    return fig


__all__ += ["SIM_COLORS", "plot_sim_timeline", "plot_p99_cliff", "plot_ms_bars", "plot_tier_churn", "plot_admission"]


# --- chapter 03: versions_and_registry -----------------------------------------------------------
# (appended by the chapter 3-4 author)

VERSION_POLICY_COLORS: dict[str, str] = {"semver": OKABE_ITO["bluish_green"], "string sort": OKABE_ITO["vermillion"]}


def _minor(version: str) -> int:
    return int(version.split(".")[1])


def plot_release_timeline(timeline: Any, *, ax: Axes | None = None) -> Figure:
    """Plot which version unpinned traffic gets after each release, under semver and under a string sort.

    ``timeline`` is a ``labcore.sim.ReleaseTimeline`` (one entry per published 1.x.0 release).
    The gap between the two lines is traffic served by a stale adapter.

    >>> from labcore.sim import release_timeline
    >>> plot_release_timeline(release_timeline(12)).axes[0].get_title()
    'String sort stuck on 1.9.0 since 1.10.0: 23% of unpinned traffic stale'
    """
    fig, ax = _axes(ax)
    n = len(timeline.versions)
    steps = list(range(n + 1))  # each release is live for one period, until the next one
    semver = [_minor(v) for v in timeline.semver_latest]
    string = [_minor(v) for v in timeline.string_latest]
    semver, string = semver + semver[-1:], string + string[-1:]
    ax.fill_between(steps, string, semver, step="post", color=VERSION_POLICY_COLORS["string sort"], alpha=0.15,
                    linewidth=0)
    ax.step(steps, semver, where="post", color=VERSION_POLICY_COLORS["semver"], linewidth=2.5, label="semver")
    ax.step(steps, string, where="post", color=VERSION_POLICY_COLORS["string sort"], linewidth=2, linestyle="--",
            label="string sort")
    top = max(max(semver), 10)
    ax.set_xlim(0, n)
    ax.set_ylim(-0.5, top + 1)
    every = max(1, (n + 7) // 8)
    ax.set_xticks(steps[:n:every], [timeline.versions[i] for i in steps[:n:every]], fontsize=9)
    yticks = list(range(0, top + 1, max(1, (top + 6) // 6)))
    ax.set_yticks(yticks, [f"1.{m}.0" for m in yticks], fontsize=9)
    set_axis_units(ax, x=("Release published (one per period)", None), y=("Version unpinned traffic gets", None))
    ax.legend(loc="upper left")
    if timeline.stale_periods:
        first = timeline.versions[timeline.first_stale]
        ax.set_title(f"String sort stuck on {timeline.string_latest[-1]} since {first}: "
                     f"{timeline.stale_share:.0%} of unpinned traffic stale", fontsize=11)
    else:
        ax.set_title(f"Up to {timeline.versions[-1]} string sort and semver agree")
    return fig


# --- chapter 04: the_cache ------------------------------------------------------------------------
# (appended by the chapter 3-4 author)

CACHE_POLICY_COLORS: dict[str, str] = {"LRU": OKABE_ITO["bluish_green"], "FIFO": OKABE_ITO["orange"]}
CACHE_METRICS: dict[str, tuple[str, str | None]] = {
    "hit_rate": ("Hit rate", "% of requests"),
    "evictions": ("Evictions", "per window"),
    "load_ms": ("Adapter load time", "ms per request"),
}


def plot_cache_over_time(runs: Mapping[str, Any], *, metric: str = "hit_rate", title: str | None = None,
                         ax: Axes | None = None) -> Figure:
    """Plot one cache metric per window of requests, one line per eviction policy.

    ``runs`` maps a policy name (``"LRU"``, ``"FIFO"``) to a ``labcore.sim.CacheRun`` replayed on the
    same trace; ``metric`` is ``"hit_rate"``, ``"evictions"`` or ``"load_ms"``.

    >>> from labcore.sim import cache_runs
    >>> plot_cache_over_time(cache_runs(320, 40, 1.0)).axes[0].get_title()
    '320 MiB for 40 tenants: LRU 77% hits, FIFO 72%'
    """
    if metric not in CACHE_METRICS:
        raise ValueError(f"unknown cache metric {metric!r}; valid metrics: {sorted(CACHE_METRICS)}")
    if not runs:
        raise ValueError("no cache runs to plot")
    fig, ax = _axes(ax)
    for policy, run in runs.items():
        window = run.window
        xs = [window * (i + 1) for i in range(len(run.window_hits))]
        if metric == "hit_rate":
            ys = [100 * h / n for h, n in zip(run.window_hits, run.window_requests)]
        elif metric == "evictions":
            ys = list(run.window_evictions)
        else:
            ys = [ms / n for ms, n in zip(run.window_load_ms, run.window_requests)]
        ax.plot(xs, ys, color=CACHE_POLICY_COLORS.get(policy, GREY), linewidth=2, marker="o", markersize=3,
                label=policy)
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


def plot_hit_rate_vs_budget(sweep: Mapping[str, Sequence[Any]], *, budget_mb: float | None = None,
                            ax: Axes | None = None) -> Figure:
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
        ax.plot([r.budget_mb for r in runs], [100 * r.hit_rate for r in runs], marker="o", markersize=4,
                linewidth=2, color=CACHE_POLICY_COLORS.get(policy, GREY), label=policy)
        working_set_mb = runs[0].working_set_mb
    ax.axvline(working_set_mb, color=OKABE_ITO["black"], linestyle=":", linewidth=1.2,
               label=f"working set {working_set_mb:g} MiB")
    if budget_mb is not None:
        ax.axvline(budget_mb, color=OKABE_ITO["blue"], linewidth=1, alpha=0.6, label=f"budget {budget_mb:g} MiB")
    ax.set_ylim(0, 102)
    ax.set_xlim(0, None)
    set_axis_units(ax, x=("VRAM budget for adapters", "MiB"), y=("Hit rate", "% of requests"))
    ax.legend(loc="lower right", fontsize=9)
    ax.set_title(f"Below the {working_set_mb:g} MiB working set, every MiB of budget costs hits")
    return fig


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
    ax.step(steps, run.used_mb, where="post", color=CACHE_POLICY_COLORS.get(run.policy, GREY), linewidth=1.5,
            label=f"{run.policy}: used after each request")
    over = [(i + 1, peak) for i, peak in enumerate(run.load_first_peak_mb) if peak > run.budget_mb]
    if over:
        ax.plot([s for s, _ in over], [p for _, p in over], linestyle="", marker="x", markersize=4,
                color=OKABE_ITO["vermillion"], label="load-first peak (OOM)")
    ax.axhline(run.budget_mb, color=OKABE_ITO["black"], linewidth=1.2, linestyle="--",
               label=f"budget {run.budget_mb:g} MiB")
    ax.set_ylim(0, run.budget_mb * 1.25)
    ax.set_xlim(0, len(run.used_mb))
    set_axis_units(ax, x=("Requests", None), y=("Adapter VRAM in use", "MiB"))
    ax.legend(loc="lower right", fontsize=9)
    crossed = max(run.used_mb, default=0.0) > run.budget_mb
    ax.set_title(f"{'Over budget!' if crossed else 'Evict first'}: used VRAM "
                 f"{'crosses' if crossed else 'never crosses'} the {run.budget_mb:g} MiB budget")
    return fig


# --- chapter 14: real_stack ---------------------------------------------------------------------
# (appended by the chapter 14 author: exact sizing from config.json, and the wrong-base demo)

SIZE_COLORS: dict[str, str] = {
    "naive": GREY,  # the square formula of chapter 2 (every projection d x d)
    "exact": OKABE_ITO["bluish_green"],  # from config.json, at the serving dtype
    "file": OKABE_ITO["orange"],  # what PEFT writes to disk (F32 by default)
}
#: The wrong-base checkpoints of ``scripts/real_lora_demo.py``, in the order the chapter tells them.
DEMO_CHECKPOINTS: tuple[str, ...] = ("A", "B_prime_same_task", "B_prime_new_task", "B")
DEMO_CHECKPOINT_LABELS: dict[str, str] = {
    "A": "A\n(trained on)",
    "B_prime_same_task": "A + more\ncopy",
    "B_prime_new_task": "A + new\ntask",
    "B": "B\n(other seed)",
}
REGISTRY_COLORS: dict[str, str] = {"registered": OKABE_ITO["bluish_green"], "refused": OKABE_ITO["vermillion"]}


def plot_size_comparison(rows: Sequence[tuple[str, float, float]], *, title: str, ax: Axes | None = None) -> Figure:
    """Plot naive against exact adapter size as paired bars, one pair per ``(label, naive_mb, exact_mb)`` row.

    >>> fig = plot_size_comparison([("q_proj", 4.0, 4.0), ("v_proj", 4.0, 2.5)], title="v is narrower")
    >>> [t.get_text() for t in fig.axes[0].texts]
    ['4.0', '2.5']
    """
    if not rows:
        raise ValueError("plot_size_comparison needs at least one (label, naive_mb, exact_mb) row")
    fig, ax = _axes(ax)
    xs = list(range(len(rows)))
    width = 0.38
    naive = [r[1] for r in rows]
    exact = [r[2] for r in rows]
    ax.bar([x - width / 2 for x in xs], naive, width, color=SIZE_COLORS["naive"], label="naive (d x d)")
    ax.bar([x + width / 2 for x in xs], exact, width, color=SIZE_COLORS["exact"], label="exact (config.json)")
    for x, n, e in zip(xs, naive, exact):
        ax.annotate(f"{e:,.1f}", (x + width / 2, e), textcoords="offset points", xytext=(0, 2), ha="center",
                    va="bottom", fontsize=9)
    ax.set_xticks(xs, [r[0] for r in rows])
    ax.set_ylim(0, max(naive + exact) * 1.18)
    ax.grid(axis="x", visible=False)
    set_axis_units(ax, y=("Adapter size", "MiB"))
    ax.legend(loc="upper left")
    ax.set_title(title)
    return fig


def plot_exact_vs_naive(rank: int, *, model: str = "llama-3-8b", targets: Sequence[str] = ("q_proj", "v_proj"),
                        ranks: Sequence[int] = DEFAULT_RANKS, ax: Axes | None = None) -> Figure:
    """Plot three adapter sizes against rank: the naive bf16 formula, the exact bf16 size, the F32 PEFT file.

    >>> fig = plot_exact_vs_naive(16)
    >>> fig.axes[0].get_title()
    'r=16: 13.0 MiB served, 26.0 MiB on disk, naive 16.0'
    """
    from .model_config import exact_adapter_mb, load_model_config

    cfg = load_model_config(model)
    fig, ax = _axes(ax)
    sweep = sorted(set(ranks) | {rank})
    n_targets = len(targets)

    def naive(r: int) -> float:
        return adapter_vram_mb(r, cfg.hidden_size, cfg.num_hidden_layers, n_targets, 2)

    def exact(r: int, b: int = 2) -> float:
        return exact_adapter_mb(cfg, r, targets, bytes=b)

    lines = [("file", "PEFT file (F32)", lambda r: exact(r, 4)), ("naive", "naive formula (bf16)", naive),
             ("exact", "exact, served (bf16)", exact)]
    for key, label, size in lines:
        ax.plot(sweep, [size(r) for r in sweep], marker="o", markersize=4, color=SIZE_COLORS[key], label=label)
    for key, _label, size in lines:
        ax.plot([rank], [size(rank)], marker="o", markersize=10, color=SIZE_COLORS[key], zorder=3)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xticks(sweep, [f"{r:g}" for r in sweep])
    lo = math.floor(math.log2(min(exact(r) for r in sweep)))
    hi = math.ceil(math.log2(max(exact(r, 4) for r in sweep)))
    yticks = [2.0**e for e in range(lo, hi + 1, max(1, (hi - lo + 5) // 6))]
    ax.set_yticks(yticks, [f"{v:g}" for v in yticks])
    ax.minorticks_off()
    set_axis_units(ax, x=("LoRA rank r", None), y=("Adapter size", "MiB"))
    ax.legend(loc="upper left", fontsize=9)
    ax.set_title(f"r={rank}: {exact(rank):,.1f} MiB served, {exact(rank, 4):,.1f} MiB on disk, naive {naive(rank):,.1f}")
    return fig


def plot_wrong_base(deterministic: Mapping[str, Any], *, ax: Axes | None = None) -> Figure:
    """Plot the adapter's score on each checkpoint it was loaded onto, coloured by the registry's verdict.

    ``deterministic`` is the ``deterministic`` section of ``results/real_lora.json`` (``DemoResults.deterministic``).
    Each bar is labelled with the checkpoint's relative weight change from A; the black dots are the
    base model's own score on its task (every checkpoint is a good base).
    """
    fig, ax = _axes(ax)
    metrics, registry, change = deterministic["metrics"], deterministic["registry"], deterministic["weight_change"]
    keys = [k for k in DEMO_CHECKPOINTS if k in metrics]
    xs = list(range(len(keys)))
    scores = [metrics[k]["adapter_atbash_exact_match"] for k in keys]
    colors = [REGISTRY_COLORS["registered" if registry[k] == "registered" else "refused"] for k in keys]
    ax.bar(xs, scores, color=colors, width=0.6)
    ax.plot(xs, [metrics[k]["base_copy_exact_match"] for k in keys], "o", color=OKABE_ITO["black"],
            label="base model on its own task")
    for x, k, s in zip(xs, keys, scores):
        ax.annotate(f"{s:.2f}\nbase moved {change[k]:.0%}", (x, s), textcoords="offset points", xytext=(0, 3),
                    ha="center", va="bottom", fontsize=9)
    ax.set_xticks(xs, [DEMO_CHECKPOINT_LABELS.get(k, k) for k in keys])
    ax.set_ylim(0, 1.45)
    ax.set_yticks([0, 0.25, 0.5, 0.75, 1.0])
    ax.grid(axis="x", visible=False)
    set_axis_units(ax, y=("Adapter exact match", "fraction"))
    handles = legend_patches({"registry: registered": REGISTRY_COLORS["registered"],
                              "registry: refused": REGISTRY_COLORS["refused"]})
    ax.legend(handles=[*handles, *ax.get_legend_handles_labels()[0]], loc="upper right", fontsize=8, ncol=3)
    ax.set_title("Loads without error everywhere; works only on some")
    return fig


__all__ += ["SIZE_COLORS", "DEMO_CHECKPOINTS", "plot_size_comparison", "plot_exact_vs_naive", "plot_wrong_base"]


# --- chapter 05: the router ---------------------------------------------------------------------
# (appended by the chapter 5-7 author; plot functions for chapters 5 and 6 follow)

LATENCY_PART_COLORS: dict[str, str] = {
    "base": MODE_COLORS[MODE_BASE],
    "overhead": MODE_COLORS[MODE_DYNAMIC],
    "load": OKABE_ITO["orange"],
}


def plot_latency_breakdown(decisions: Mapping[str, Any], *, latency_max_ms: float | None = None,
                           ax: Axes | None = None) -> Figure:
    """Plot each route's latency as a stacked bar: base model, LoRA overhead (dynamic), adapter load (a miss).

    ``decisions`` maps a bar label to a ``labcore.router.RouteDecision``; the three parts come from its
    ``base_latency_ms``, ``overhead_ms`` and ``adapter_load_ms`` fields (they add up to ``total_latency_ms``).

    >>> from labcore.router import RouteDecision
    >>> hit = RouteDecision("dynamic", "a@1.0.0", True, (), 0.0, 42.0, base_latency_ms=40.0, overhead_ms=2.0)
    >>> miss = RouteDecision("dynamic", "a@1.0.0", False, (), 2.0, 44.0, base_latency_ms=40.0, overhead_ms=2.0)
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
        bottom = [b + v for b, v in zip(bottom, values)]
    for i, n in enumerate(names):
        ax.annotate(f"{decisions[n].total_latency_ms:.1f}", (i, bottom[i]), textcoords="offset points",
                    xytext=(0, 3), ha="center", va="bottom", fontsize=10)
    ax.set_ylim(0, latency_max_ms if latency_max_ms is not None else max(bottom) * 1.25)
    ax.grid(axis="x", visible=False)
    set_axis_units(ax, y=("Latency per request", "ms"))
    ax.legend(loc="upper left", fontsize=9, ncol=3)
    ax.yaxis.set_major_locator(matplotlib.ticker.MaxNLocator(4))
    ax.set_title(f"Miss +{max(parts['load']):.1f} ms, overhead +{max(parts['overhead']):.1f} ms")
    return fig


def plot_merge_vs_dynamic(cases: Mapping[str, Any], *, base_latency_ms: float, dynamic_overhead: float,
                          ax: Axes | None = None) -> Figure:
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
    options = (("merged", MODE_DEDICATED, "dedicated_gpus", base_latency_ms),
               ("dynamic", MODE_DYNAMIC, "multi_lora_gpus", base_latency_ms * (1 + dynamic_overhead)))
    for k, (label, mode, attr, latency) in enumerate(options):
        xs = [i + (k - 0.5) * width for i in range(len(names))]
        gpus = [getattr(cases[n], attr) for n in names]
        ax.bar(xs, gpus, width=width * 0.95, color=MODE_COLORS[mode], label=label)
        for x, g in zip(xs, gpus):
            ax.annotate(f"{g:,}\n{latency:.0f} ms", (x, g), textcoords="offset points", xytext=(0, 2),
                        ha="center", va="bottom", fontsize=9)
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


# --- chapter 06: fleet plan ---------------------------------------------------------------------


def plot_savings_sweep(xs: Sequence[float], plans: Sequence[Any], *, x_quantity: str, x_unit: str | None,
                       now: float | None = None, reference: Sequence[float] | None = None,
                       reference_label: str = "", log_x: bool = False, ax: Axes | None = None) -> Figure:
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
    ax.plot(xs, pct, marker="o", markersize=3, color=MODE_COLORS[MODE_DYNAMIC], label="multi-LoRA saving",
            drawstyle="steps-post" if not log_x else "default")
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


__all__ += ["LATENCY_PART_COLORS", "plot_latency_breakdown", "plot_merge_vs_dynamic", "plot_savings_sweep"]


# --- optional matplotlib: what still runs without it (the live version read offline) ---
# Appended last on purpose: it wraps every plot_* defined above, whichever chapter added it.
import functools as _functools
import sys as _sys


def figure_skipped_note() -> str:
    """Return the one line printed in place of each figure when matplotlib is missing.

    >>> figure_skipped_note().startswith("(figure skipped: matplotlib is not")
    True
    """
    if _sys.platform == "emscripten":
        return "(figure skipped: matplotlib is not available here — the live version loads it from the internet)"
    return "(figure skipped: matplotlib is not installed here — pip install matplotlib)"


class _OfflineArtist:
    """Stand in for a matplotlib Figure or Axes without matplotlib: every method call does nothing."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # keep IPython's display machinery and copy/pickle from treating it as real
            raise AttributeError(name)
        return _offline_call

    def __getitem__(self, key: Any) -> _OfflineArtist:
        return self

    def __repr__(self) -> str:
        return "<figure skipped>"

    def _ipython_display_(self) -> None:
        """Show nothing when a cell ends with a stand-in (the note was already printed)."""


def _offline_call(*args: Any, **kwargs: Any) -> _OfflineArtist:
    return _OfflineArtist()


class OfflinePyplot(_OfflineArtist):
    """Stand in for ``matplotlib.pyplot`` where matplotlib is missing, so notebook cells still run.

    ``show()`` and every other call do nothing; ``subplots()`` prints :func:`figure_skipped_note`
    once and returns stand-in axes, which the ``plot_*`` functions accept without a second note.

    >>> plt_offline = offline_pyplot()
    >>> plt_offline.show()
    >>> fig, axes = plt_offline.subplots(1, 2)  # doctest: +ELLIPSIS
    (figure skipped: matplotlib is not ...)
    >>> len(axes)
    2
    """

    def show(self, *args: Any, **kwargs: Any) -> None:
        """Do nothing (there is no figure to show)."""

    def subplots(self, nrows: int = 1, ncols: int = 1, **kwargs: Any) -> tuple[Any, Any]:
        """Print the figure-skipped note and return ``(figure, axes)`` stand-ins shaped like pyplot's."""
        print(figure_skipped_note())
        if nrows == 1 and ncols == 1:
            return _OfflineArtist(), _OfflineArtist()
        if nrows == 1 or ncols == 1:
            return _OfflineArtist(), tuple(_OfflineArtist() for _ in range(nrows * ncols))
        return _OfflineArtist(), tuple(tuple(_OfflineArtist() for _ in range(ncols)) for _ in range(nrows))


def offline_pyplot() -> OfflinePyplot:
    """Return a stand-in for ``matplotlib.pyplot`` whose ``show()`` does nothing (use it when the import fails).

    >>> offline_pyplot().show() is None
    True
    """
    return OfflinePyplot()


def _skip_figure(plot: Any) -> Any:
    """Wrap a ``plot_*`` function so that, without matplotlib, it prints one note and returns None."""

    @_functools.wraps(plot)
    def skipped(*args: Any, **kwargs: Any) -> None:
        if not any(isinstance(a, _OfflineArtist) for a in (*args, *kwargs.values())):
            print(figure_skipped_note())  # drawing on stand-in axes: subplots() already said it
        return None

    return skipped


if matplotlib is None:
    for _name in sorted({*__all__, *globals()}):
        if _name.startswith("plot_") and callable(globals().get(_name)):
            globals()[_name] = _skip_figure(globals()[_name])

    def use_course_style() -> None:  # noqa: F811 - the stand-in of the real one above
        """Print one line saying figures will be skipped (matplotlib is missing here)."""
        print(figure_skipped_note().replace("(figure skipped:", "(figures will be skipped:"))


__all__ += ["figure_skipped_note", "OfflinePyplot", "offline_pyplot"]
