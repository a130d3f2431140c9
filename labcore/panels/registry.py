"""Panels for the registry: what "latest" resolves to as releases pile up, semver against a string sort.

>>> release_panel().row()["releases_behind"]    # after 1.12.0 a string sort still answers 1.9.0
3
"""

from __future__ import annotations

from typing import Any

from ..plots import OKABE_ITO
from ..sim import release_timeline
from ._panel import Control, Lines, Panel, Series

__all__ = ["release_panel"]


def _release_state(minor_releases: int, pinned_pct: int) -> dict[str, Any]:
    t = release_timeline(minor_releases)
    unpinned = 1 - pinned_pct / 100
    return {"semver_latest": t.semver_latest[-1], "string_latest": t.string_latest[-1],
            "releases_behind": t.releases_behind, "stale_unpinned_pct": 100 * t.stale_share,
            "stale_all_pct": 100 * t.stale_share * unpinned}


def _release_readout(r: Any) -> str:
    head = (f"after 1.{r['minor_releases']}.0: semver picks {r['semver_latest']},\n"
            f"a string sort {r['string_latest']}")
    if r["releases_behind"] == 0:
        return head + "\nno unpinned request has gone to a stale adapter yet"
    return (f"{head} ({r['releases_behind']} releases behind)\n"
            f"{r['stale_unpinned_pct']:.0f}% of unpinned traffic went to a stale adapter;\n"
            f"with {r['pinned_pct']}% of requests pinned, {r['stale_all_pct']:.0f}% of all traffic")


def release_panel() -> Panel:
    """Publish 1.0.0 ... 1.N.0 and watch a string sort's "latest" fall behind (chapter 3)."""
    return Panel(
        "release_panel",
        title='"Latest" under semver and under a string sort',
        controls=[
            Control("minor_releases", "minor releases (1.1.0 to 1.N.0)", values=tuple(range(1, 31)), default=12),
            Control("pinned_pct", "requests that pin a version (%)", values=(0, 25, 50, 75, 90), default=0),
        ],
        compute=_release_state,
        readout=_release_readout,
        chart=Lines("minor_releases", (
            Series("stale_unpinned_pct", "stale share of unpinned traffic", OKABE_ITO["vermillion"]),
            Series("stale_all_pct", "stale share of all traffic", OKABE_ITO["orange"], dashed=True)),
            y_title="traffic served by a stale adapter (%)", y_domain=(0, 100)),
    )
