"""Panels for the adapter cache: the thrash cliff as the VRAM budget crosses the working set.

>>> row = lru_thrash_panel().row()             # 320 MiB, 40 tenants, Zipf 1.0
>>> row["lru_hit_pct"] > row["fifo_hit_pct"]
True
"""

from __future__ import annotations

from typing import Any

from ..plots import OKABE_ITO
from ..sim import (CACHE_REQUESTS, CACHE_SEED, Workload, cache_runs, make_trace, simulate,
                   single_replica_router)
from ._panel import Control, Lines, Panel, Series

__all__ = ["lru_thrash_panel", "thrash_state"]

ADAPTER_MB = 16.0
#: Requests that warm the replica before its latency percentiles count (cold first loads are not thrash).
WARMUP = 500


def thrash_state(budget_mb: float, tenants: int, zipf_s: float) -> dict[str, Any]:
    """Replay one seeded trace through LRU and FIFO caches, and through a router for the request p99.

    >>> thrash_state(640, 40, 1.0)["lru_evictions"]     # the working set fits: nothing is evicted
    0
    """
    runs = cache_runs(budget_mb, tenants, zipf_s)
    w = Workload(tenants=tenants, requests=CACHE_REQUESTS, zipf_s=zipf_s, seed=CACHE_SEED)
    sim = simulate(lambda: single_replica_router(w, budget_mb=budget_mb), make_trace(w), windows=0, warmup=WARMUP)
    lru, fifo = runs["LRU"], runs["FIFO"]
    return {"working_set_mb": lru.working_set_mb, "lru_hit_pct": 100 * lru.hit_rate,
            "fifo_hit_pct": 100 * fifo.hit_rate, "lru_evictions": lru.evictions, "fifo_evictions": fifo.evictions,
            "p99_ms": sim.p99_ms, "p50_ms": sim.p50_ms}


def _readout(r: Any) -> str:
    fits = min(int(r["budget_mb"] // ADAPTER_MB), r["tenants"])
    return (f"{r['budget_mb']:g} MiB holds {fits} of {r['tenants']} adapters "
            f"(working set {r['working_set_mb']:g} MiB)\n"
            f"LRU {r['lru_hit_pct']:.1f}% hits, {r['lru_evictions']:,} evictions; "
            f"FIFO {r['fifo_hit_pct']:.1f}%, {r['fifo_evictions']:,}\n"
            f"after {WARMUP} warmup requests: p50 {r['p50_ms']:.0f} ms, p99 {r['p99_ms']:.1f} ms")


def lru_thrash_panel() -> Panel:
    """Move the VRAM budget, the tenants and the popularity skew; watch LRU and FIFO fall off the cliff (ch. 4)."""
    return Panel(
        "lru_thrash_panel",
        title="Hit rate against the adapter budget: the thrash cliff",
        controls=[
            Control("budget_mb", "adapter VRAM budget (MiB)", values=tuple(range(64, 1281, 64)), default=320),
            Control("tenants", "tenants (16 MiB adapters)", values=(10, 20, 30, 40, 60, 80), default=40),
            Control("zipf_s", "popularity skew s (Zipf)", values=(0.0, 0.5, 1.0, 1.5), default=1.0),
        ],
        compute=thrash_state,
        readout=_readout,
        chart=Lines("budget_mb", (Series("lru_hit_pct", "LRU", OKABE_ITO["bluish_green"]),
                                  Series("fifo_hit_pct", "FIFO", OKABE_ITO["orange"], dashed=True)),
                    y_title="cache hit rate (%)", y_domain=(0, 100)),
        note="Each state replays 2,000 seeded requests.",
    )
