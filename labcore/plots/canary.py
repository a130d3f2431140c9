"""Figures of a canary rollout: the controller's decision log step by step."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .offline import needs_matplotlib
from .style import GREY, OKABE_ITO, _axes, set_axis_units

if TYPE_CHECKING:  # pragma: no cover - typing only
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["CANARY_ACTION_STYLE", "plot_canary_log"]

CANARY_ACTION_STYLE: dict[str, tuple[str, str]] = {
    "hold": ("o", GREY),
    "promote": ("^", OKABE_ITO["bluish_green"]),
    "complete": ("*", OKABE_ITO["blue"]),
    "abort": ("X", OKABE_ITO["vermillion"]),
}


@needs_matplotlib
def plot_canary_log(
    log: Sequence[Any], *, requests_max: int | None = None, legend: bool = True, ax: Axes | None = None
) -> Figure:
    """Plot a canary's traffic share over the rollout, one marker per decision (hold, promote, abort, complete).

    ``log`` is a list of ``labcore.canary.CanaryDecision`` records. ``legend=False`` leaves out the
    marker key (a live panel states it in its HTML readout instead; a legend costs ~40 ms per redraw).

    >>> from labcore.sim.scenarios.canary import VersionBehaviour, simulate_canary
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
        ax.plot(
            [d.at_request for d in done],
            [100 * d.fraction_after for d in done],
            marker=marker,
            color=color,
            markersize=9,
            linestyle="",
            label=action,
            zorder=3,
        )
    ax.set_ylim(-5, 105)
    ax.set_xlim(0, requests_max if requests_max is not None else max(xs) * 1.05)
    set_axis_units(ax, x=("Requests observed", None), y=("Traffic on the candidate", "%"))
    if legend:
        ax.legend(loc="center right", fontsize=9)
    last = log[-1]
    verdict = {"abort": f"aborted at {last.fraction_before:.0%}", "complete": "promoted to 100%"}.get(
        last.action, f"still at {last.fraction_after:.0%}"
    )
    ax.set_title(f"Candidate {verdict} after {last.at_request:,} requests")
    return fig
