"""Figures of batch slots: time to first token as the active adapters cross the slot count, and what each fix does."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .offline import needs_matplotlib
from .style import GREY, OKABE_ITO, _axes, set_axis_units

if TYPE_CHECKING:  # pragma: no cover - typing only
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["TTFT_COLORS", "FIX_COLORS", "plot_ttft_cliff", "plot_slot_fixes"]

#: One colour per percentile, the same in the figures and the panel.
TTFT_COLORS: dict[str, str] = {"p50": OKABE_ITO["blue"], "p99": OKABE_ITO["vermillion"]}
#: One colour per fix (the keys are labcore.sim.scenarios.slots.FIXES).
FIX_COLORS: dict[str, str] = {
    "none": OKABE_ITO["vermillion"],
    "pin the hottest": OKABE_ITO["reddish_purple"],
    "a slot per adapter": OKABE_ITO["bluish_green"],
    "2 replicas, round-robin": OKABE_ITO["orange"],
    "2 replicas, affinity": OKABE_ITO["blue"],
}


def _fmt_ms(ms: float) -> str:
    return f"{ms / 1000:.1f} s" if ms >= 1000 else f"{ms:.0f} ms"


@needs_matplotlib
def plot_ttft_cliff(runs: Sequence[Any], *, ax: Axes | None = None) -> Figure:
    """Plot TTFT p50 and p99 (log scale) against the number of active adapters, the slot count marked.

    ``runs`` are ``labcore.sim.scenarios.slots.SlotRun`` records of one slot count, in increasing active
    adapters (``labcore.sim.scenarios.slots.slot_sweep``).

    >>> from labcore.sim.scenarios.slots import slot_sweep
    >>> plot_ttft_cliff(slot_sweep([4, 8, 16])).axes[0].get_title()
    'Past 8 slots the p99 time to first token jumps\\nfrom 42 ms to 10.2 s (16 adapters)'
    """
    if not runs:
        raise ValueError("no slot runs to plot")
    slots = {r.max_slots for r in runs}
    if len(slots) != 1:
        raise ValueError(f"plot one slot count at a time, got {sorted(slots)}")
    (max_slots,) = slots
    fig, ax = _axes(ax)
    xs = [r.active_adapters for r in runs]
    for key, label in (("p50", "median"), ("p99", "p99")):
        ax.plot(
            xs,
            [getattr(r, f"{key}_ms") for r in runs],
            marker="o",
            markersize=4,
            linewidth=2,
            color=TTFT_COLORS[key],
            label=f"TTFT {label}",
        )
    ax.axvline(max_slots, color=OKABE_ITO["black"], linestyle=":", linewidth=1.2, label=f"{max_slots} slots")
    ax.set_yscale("log")
    ax.set_xlim(0, max(xs) + 1)
    set_axis_units(ax, x=("Active adapters", None), y=("Time to first token", "ms, log scale"))
    ax.legend(loc="upper left", fontsize=9)
    inside = [r for r in runs if r.active_adapters <= max_slots]
    outside = [r for r in runs if r.active_adapters > max_slots]
    if inside and outside:
        ax.set_title(
            f"Past {max_slots} slots the p99 time to first token jumps\nfrom {_fmt_ms(inside[-1].p99_ms)} "
            f"to {_fmt_ms(outside[0].p99_ms)} ({outside[0].active_adapters} adapters)"
        )
    else:
        ax.set_title(f"TTFT with {max_slots} slots")
    return fig


@needs_matplotlib
def plot_slot_fixes(runs: Mapping[str, Any], *, ax: Axes | None = None) -> Figure:
    """Plot TTFT p50 and p99 (log scale) for each fix, as pairs of horizontal bars, the values written beside.

    ``runs`` maps a fix to its ``labcore.sim.scenarios.slots.SlotRun`` (``labcore.sim.scenarios.slots.slot_fixes``).

    >>> from labcore.sim.scenarios.slots import slot_fixes
    >>> plot_slot_fixes(slot_fixes()).axes[0].get_title()
    '16 adapters on 8 slots: p99 TTFT is lowest with\\na slot per adapter, highest with pin the hottest'
    """
    if not runs:
        raise ValueError("no slot runs to plot")
    fig, ax = _axes(ax)
    labels = list(runs)
    height = 0.38
    for i, fix in enumerate(labels):
        run = runs[fix]
        color = FIX_COLORS.get(fix, GREY)
        for offset, key, alpha in ((-height / 2, "p50", 0.45), (height / 2, "p99", 1.0)):
            value = getattr(run, f"{key}_ms")
            ax.barh(i + offset, value, height=height, color=color, alpha=alpha)
            ax.annotate(
                f"{key} {_fmt_ms(value)}",
                (value, i + offset),
                xytext=(3, 0),
                textcoords="offset points",
                va="center",
                fontsize=8,
            )
    ax.set_yticks(
        range(len(labels)),
        [
            f"{fix}\n({runs[fix].max_slots} slots{' x ' + str(runs[fix].replicas) if runs[fix].replicas > 1 else ''})"
            for fix in labels
        ],
        fontsize=9,
    )
    ax.set_xscale("log")
    ax.set_ylim(len(labels) - 0.5, -0.5)
    top = max(r.p99_ms for r in runs.values())
    ax.set_xlim(10, top * 12)  # room for the value labels right of the longest bar
    ax.grid(axis="y", visible=False)
    set_axis_units(ax, x=("Time to first token (light: median, dark: p99)", "ms, log scale"))
    first = next(iter(runs.values()))
    best = min(runs, key=lambda fix: (runs[fix].p99_ms, runs[fix].max_slots * runs[fix].replicas))
    worst = max(runs, key=lambda fix: runs[fix].p99_ms)
    ax.set_title(
        f"{first.active_adapters} adapters on {first.max_slots} slots: p99 TTFT is lowest with\n"
        f"{best}, highest with {worst}"
    )
    return fig
