"""Panels for the canary: how the controller's decisions follow the candidate's true behaviour.

>>> canary_panel().row(candidate_error_pct=5.0)["final_share_pct"]   # a flaky candidate stays at 5%
5.0
"""

from __future__ import annotations

import textwrap
from typing import Any

from ..plots import OKABE_ITO
from ..sim.scenarios.canary import canary_log
from ._panel import Control, Lines, Panel, Series

__all__ = ["canary_panel"]


def _canary_state(candidate_error_pct: float, candidate_latency_ms: float, candidate_quality: float) -> dict[str, Any]:
    log = canary_log(candidate_error_pct, candidate_latency_ms, candidate_quality)
    last = log[-1]
    promoted = last.action == "complete"
    return {
        "decisions": len(log),
        "outcome": last.action,
        "at_request": last.at_request,
        "final_share_pct": 100 * (last.fraction_after if not last.action == "abort" else last.fraction_before),
        "promoted": promoted,
        "reason": last.reason,
    }


def _readout(r: Any) -> str:
    reason = textwrap.fill(r["reason"], 54)
    return (
        f"candidate: {r['candidate_error_pct']:g}% errors, {r['candidate_latency_ms']:g} ms, "
        f"eval pass {r['candidate_quality']:.2f}\n"
        f"{r['decisions']} decisions; last: {r['outcome']} at {r['at_request']:,} requests,\n"
        f"with {r['final_share_pct']:.0f}% of traffic on the candidate. Why:\n{reason}"
    )


def canary_panel() -> Panel:
    """Set the candidate's true error rate, latency and quality; read what the controller decides (chapter 11)."""
    return Panel(
        "canary_panel",
        title="Canary of support-bot 2.0.0: how far does the rollout get?",
        controls=[
            Control(
                "candidate_error_pct", "candidate error rate (%)", values=tuple(x / 2 for x in range(11)), default=0.5
            ),
            Control("candidate_latency_ms", "candidate base latency (ms)", values=(42.0, 48.0, 55.0), default=42.0),
            Control("candidate_quality", "candidate eval pass rate", values=(0.75, 0.85, 0.9), default=0.9),
        ],
        compute=_canary_state,
        readout=_readout,
        chart=Lines(
            "candidate_error_pct",
            (Series("final_share_pct", "candidate's share when the rollout ends", OKABE_ITO["bluish_green"]),),
            y_title="traffic on the candidate at the end (%)",
            y_domain=(0, 100),
        ),
    )
