"""Panels for in-flight admission: a full pool makes requests wait or be refused, never evicts one in flight.

>>> row = admission_panel().row(pool_adapters=40)      # room for every tenant: nobody waits
>>> row["refused"], row["queued"]
(0, 0)
"""

from __future__ import annotations

from typing import Any

from ..plots import OKABE_ITO
from ..sim import ADMISSION, Workload, make_trace, simulate, single_replica_router
from ._panel import Control, Lines, Panel, Series

__all__ = ["admission_panel"]


def _admission_state(pool_adapters: int, hold_ms: float, max_queue: int) -> dict[str, Any]:
    a = ADMISSION
    w = Workload(tenants=a["tenants"], requests=a["requests"], zipf_s=a["zipf_s"], rate_per_s=a["rate_per_s"],
                 seed=a["seed"])
    r = simulate(lambda: single_replica_router(w, budget_mb=16.0 * pool_adapters), make_trace(w), hold_ms=hold_ms,
                 max_queue=max_queue, windows=0)
    return {"queued": r.queued, "refused": r.refused, "requests": r.requests, "max_wait_ms": r.max_wait_ms,
            "p99_ms": r.p99_ms, "queued_pct": 100 * r.queued / r.requests,
            "refused_pct": 100 * r.refused / r.requests}


def _readout(r: Any) -> str:
    return (f"{r['pool_adapters']}-adapter pool, adapters held {r['hold_ms']:g} ms extra,\n"
            f"a queue of {r['max_queue']}\n"
            f"{r['queued']:,} of {r['requests']:,} waited (longest {r['max_wait_ms']:,.0f} ms)\n"
            f"{r['refused']:,} refused, p99 {r['p99_ms']:,.0f} ms")


def admission_panel() -> Panel:
    """Shrink the adapter pool under in-flight load; read who waits and who is refused (chapter 13)."""
    return Panel(
        "admission_panel",
        title="In-flight admission: waiting and refusals as the pool shrinks",
        controls=[
            Control("pool_adapters", "adapter pool (16 MiB adapters)", values=(8, 12, 16, 20, 24, 28, 32, 36, 40),
                    default=24),
            Control("hold_ms", "extra time a request holds its adapter (ms)", values=(100.0, 300.0, 600.0),
                    default=300.0),
            Control("max_queue", "admission queue (requests)", values=(8, 32, 128), default=32),
        ],
        compute=_admission_state,
        readout=_readout,
        chart=Lines("pool_adapters", (Series("queued_pct", "waited", OKABE_ITO["orange"]),
                                      Series("refused_pct", "refused", OKABE_ITO["vermillion"])),
                    y_title="share of requests (%)", y_domain=(0, 100)),
    )
