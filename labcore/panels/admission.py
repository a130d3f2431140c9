"""Panels for in-flight admission: a full pool makes requests wait or be refused, never evicts one in flight.

Each state is one of chapter 13's runs (:func:`labcore.sim.scenarios.admission.admission_run`: the chapter's trace
and seed), so the default state is the chapter's 24-slot run.

>>> row = admission_panel().row(pool_adapters=40)      # room for every tenant: nobody waits
>>> row["refused"], row["queued"]
(0, 0)
"""

from __future__ import annotations

from typing import Any

from ..plots import OKABE_ITO
from ..sim import ADMISSION
from ..sim.scenarios.admission import ADMISSION_GRID, admission_run
from ._panel import Control, Lines, Panel, Series

__all__ = ["admission_panel"]


def _admission_state(pool_adapters: int, hold_ms: float, max_queue: int) -> dict[str, Any]:
    r = admission_run(pool_adapters, hold_ms=hold_ms, max_queue=max_queue)
    return {
        "queued": r.queued,
        "refused": r.refused,
        "requests": r.requests,
        "max_wait_ms": r.max_wait_ms,
        "p99_ms": r.p99_ms,
        "queued_pct": 100 * r.queued / r.requests,
        "refused_pct": 100 * r.refused / r.requests,
    }


def _readout(r: Any) -> str:
    return (
        f"{r['pool_adapters']}-adapter pool, adapters held {r['hold_ms']:g} ms extra,\n"
        f"a queue of {r['max_queue']}\n"
        f"{r['queued']:,} of {r['requests']:,} waited (longest {r['max_wait_ms']:,.0f} ms)\n"
        f"{r['refused']:,} refused, p99 {r['p99_ms']:,.0f} ms"
    )


def admission_panel() -> Panel:
    """Shrink the adapter pool under in-flight load; read who waits and who is refused (chapter 13)."""
    return Panel(
        "admission_panel",
        title="In-flight admission: waiting and refusals as the pool shrinks",
        controls=[
            Control(
                "pool_adapters", "adapter pool (16 MiB adapters)", values=ADMISSION_GRID["pool_adapters"], default=24
            ),
            Control(
                "hold_ms",
                "extra time a request holds its adapter (ms)",
                values=ADMISSION_GRID["hold_ms"],
                default=ADMISSION.hold_ms,
            ),
            Control(
                "max_queue",
                "admission queue (requests)",
                values=ADMISSION_GRID["max_queue"],
                default=ADMISSION.max_queue,
            ),
        ],
        compute=_admission_state,
        readout=_readout,
        chart=Lines(
            "pool_adapters",
            (
                Series("queued_pct", "waited", OKABE_ITO["orange"]),
                Series("refused_pct", "refused", OKABE_ITO["vermillion"]),
            ),
            y_title="share of requests (%)",
            y_domain=(0, 100),
        ),
    )
