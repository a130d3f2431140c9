"""Panels for batch slots: TTFT as the active adapters cross the slot count, with a fix applied.

>>> row = slot_cliff_panel().row()           # 16 adapters, 8 slots, no fix
>>> row["waited"] > 0 and row["p99_ms"] > 1000 > row["p50_ms"]
True
"""

from __future__ import annotations

from typing import Any

from ..plots.slots import TTFT_COLORS
from ..sim.scenarios.slots import FIX_AFFINITY, FIX_NONE, FIX_PIN, FIX_ROUND_ROBIN, SLOT_CLIFF, slot_run
from ..slots import slot_pool_mb
from ._panel import Control, Lines, Panel, Series

__all__ = ["slot_cliff_panel", "slot_state", "PANEL_FIXES", "SLOT_RANK"]

#: The fixes the panel offers (more slots is the slot control itself).
PANEL_FIXES: tuple[str, ...] = (FIX_NONE, FIX_PIN, FIX_ROUND_ROBIN, FIX_AFFINITY)
#: What the slots cost in the readout: vLLM's buffers for Llama-3-8B at its default --max-lora-rank 16, bf16, over
#: every module it supports (no --lora-target-modules), as labcore.engines.lora_slot_bytes sizes them.
SLOT_RANK = 16


def slot_state(max_slots: int, active_adapters: int, fix: str) -> dict[str, Any]:
    """Run chapter 15's trace with ``active_adapters`` adapters on ``max_slots`` slots and ``fix``; return the panel row.

    >>> slot_state(8, 8, "none")["waited"]
    0
    """
    run = slot_run(SLOT_CLIFF, fix=fix, max_slots=max_slots, active_adapters=active_adapters)
    return {
        "p50_ms": run.p50_ms,
        "p99_ms": run.p99_ms,
        "waited": run.waited,
        "requests": run.requests,
        "replicas": run.replicas,
        "pinned": len(run.pinned),
        "pool_mb": slot_pool_mb(run.max_slots, max_lora_rank=SLOT_RANK) * run.replicas,
        "per_replica": "/".join(map(str, run.adapters_per_replica)),
    }


def _ms(ms: float) -> str:
    return f"{ms / 1000:,.1f} s" if ms >= 1000 else f"{ms:.0f} ms"


def _readout(r: Any) -> str:
    how = {
        FIX_NONE: "one replica",
        FIX_PIN: f"{r['pinned']} hottest pinned",
        FIX_ROUND_ROBIN: f"2 replicas, adapters {r['per_replica']}",
        FIX_AFFINITY: f"2 replicas, adapters {r['per_replica']}",
    }[r["fix"]]
    return (
        f"{r['active_adapters']} adapters on {r['max_slots']} slots, {how}\n"
        f"TTFT median {_ms(r['p50_ms'])}, p99 {_ms(r['p99_ms'])}\n"
        f"{r['waited']:,} of {r['requests']:,} requests waited for a slot\n"
        f"vLLM slot buffers: {r['pool_mb']:,.0f} MiB (rank {SLOT_RANK}, all modules)"
    )


def slot_cliff_panel() -> Panel:
    """Move the slots, the active adapters and the fix; watch TTFT fall off the cliff past the slot count (ch. 15)."""
    return Panel(
        "slot_cliff_panel",
        title="Time to first token as the adapters outnumber the slots",
        controls=[
            Control("max_slots", "slots (--max-loras)", values=(4, 8, 16), default=SLOT_CLIFF.max_slots),
            Control(
                "active_adapters", "active adapters", values=tuple(range(2, 25, 2)), default=SLOT_CLIFF.active_adapters
            ),
            Control("fix", "fix", values=PANEL_FIXES, default=FIX_NONE),
        ],
        compute=slot_state,
        readout=_readout,
        chart=Lines(
            "active_adapters",
            (Series("p50_ms", "TTFT median", TTFT_COLORS["p50"]), Series("p99_ms", "TTFT p99", TTFT_COLORS["p99"])),
            y_title="time to first token (ms, log)",
            y_log=True,
            y_domain=(20, 100_000),
        ),
        note=f"Each state replays {SLOT_CLIFF.requests} seeded requests at {SLOT_CLIFF.rate_per_s:g} per second.",
    )
