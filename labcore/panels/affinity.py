"""Panels for affinity routing: where a tenant's adapter lives decides the hit rate and the hot spots.

Each state is chapter 10's experiment (:func:`labcore.sim.scenarios.affinity.affinity_runs`: its trace, its seed,
its length) at one skew, fleet size and bound, so the default state is the chapter's own table.

>>> row = affinity_panel().row()
>>> row["p99_bounded_ms"] < row["p99_round_robin_ms"]
True
"""

from __future__ import annotations

from typing import Any

from ..plots import OKABE_ITO
from ..sim.scenarios.affinity import AFFINITY_DEFAULTS, AFFINITY_TRACE, affinity_runs
from ._panel import Control, Lines, Panel, Series

__all__ = ["affinity_panel"]

POLICIES = ("round-robin", "rendezvous", "bounded-rendezvous")


def _affinity_state(zipf_s: float, replicas: int, load_factor: float) -> dict[str, Any]:
    runs = affinity_runs(zipf_s, replicas, load_factor, policies=POLICIES)
    rr, rv, bd = (runs[p] for p in POLICIES)
    return {
        "p99_round_robin_ms": rr.p99_ms,
        "p99_rendezvous_ms": rv.p99_ms,
        "p99_bounded_ms": bd.p99_ms,
        "hit_round_robin_pct": 100 * rr.hit_rate,
        "hit_rendezvous_pct": 100 * rv.hit_rate,
        "hit_bounded_pct": 100 * bd.hit_rate,
        "imbalance_rendezvous": rv.imbalance,
        "imbalance_bounded": bd.imbalance,
    }


def _readout(r: Any) -> str:
    return (
        f"round-robin: p99 {r['p99_round_robin_ms']:,.0f} ms, hit {r['hit_round_robin_pct']:.0f}%\n"
        f"rendezvous: p99 {r['p99_rendezvous_ms']:,.0f} ms, hit {r['hit_rendezvous_pct']:.0f}%, "
        f"busiest x{r['imbalance_rendezvous']:.2f}\n"
        f"bounded c={r['load_factor']:g}: p99 {r['p99_bounded_ms']:,.0f} ms, hit {r['hit_bounded_pct']:.0f}%, "
        f"busiest x{r['imbalance_bounded']:.2f}"
    )


def affinity_panel() -> Panel:
    """Skew the popularity, change the replicas and the bounded-load factor; compare placements (chapter 10)."""
    return Panel(
        "affinity_panel",
        title="Placement policy against popularity skew: p99 per policy",
        controls=[
            Control(
                "zipf_s",
                "popularity skew s (Zipf)",
                values=(0.0, 0.2, 0.4, 0.6, 0.8, 1.0, 1.2),
                default=AFFINITY_DEFAULTS["zipf_s"],
            ),
            Control("replicas", "replicas (GPUs)", values=(2, 4, 8), default=int(AFFINITY_DEFAULTS["replicas"])),
            Control(
                "load_factor",
                "bounded-load factor c (x mean)",
                values=(1.1, 1.25, 1.5, 2.0),
                default=AFFINITY_DEFAULTS["load_factor"],
            ),
        ],
        compute=_affinity_state,
        readout=_readout,
        chart=Lines(
            "zipf_s",
            (
                Series("p99_round_robin_ms", "round-robin", OKABE_ITO["orange"]),
                Series("p99_rendezvous_ms", "rendezvous", OKABE_ITO["blue"]),
                Series("p99_bounded_ms", "bounded rendezvous", OKABE_ITO["bluish_green"]),
            ),
            y_title="p99 request latency (ms, log)",
            y_log=True,
            y_domain=(30, 100_000),
        ),
        note=f"Each state is the chapter's run: {AFFINITY_TRACE['requests']:,.0f} seeded requests, the first "
        f"{AFFINITY_TRACE['warmup']:,.0f} warming the caches.",
    )
