"""Figures of the registry: which version "latest" resolves to under semver and under string order."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .offline import needs_matplotlib
from .style import OKABE_ITO, _axes, set_axis_units

if TYPE_CHECKING:  # pragma: no cover - typing only
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["VERSION_POLICY_COLORS", "plot_release_timeline"]

VERSION_POLICY_COLORS: dict[str, str] = {"semver": OKABE_ITO["bluish_green"], "string sort": OKABE_ITO["vermillion"]}


def _minor(version: str) -> int:
    return int(version.split(".")[1])


@needs_matplotlib
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
    ax.fill_between(
        steps, string, semver, step="post", color=VERSION_POLICY_COLORS["string sort"], alpha=0.15, linewidth=0
    )
    ax.step(steps, semver, where="post", color=VERSION_POLICY_COLORS["semver"], linewidth=2.5, label="semver")
    ax.step(
        steps,
        string,
        where="post",
        color=VERSION_POLICY_COLORS["string sort"],
        linewidth=2,
        linestyle="--",
        label="string sort",
    )
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
        ax.set_title(
            f"String sort stuck on {timeline.string_latest[-1]} since {first}: "
            f"{timeline.stale_share:.0%} of unpinned traffic stale",
            fontsize=11,
        )
    else:
        ax.set_title(f"Up to {timeline.versions[-1]} string sort and semver agree")
    return fig
