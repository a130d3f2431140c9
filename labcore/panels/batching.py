"""Panels for batch overhead: distinct adapters per batch make dynamic LoRA dearer, and merging wins sooner.

The dashed line is the flat overhead every other chapter charges (:data:`labcore.capacity.DYNAMIC_OVERHEAD`); the
default state (32 distinct rank-16 adapters) is the one chapter 12 quotes.

>>> batch_panel().row(distinct=1)["overhead_pct"]          # one adapter per batch: the flat 5%
5.0
"""

from __future__ import annotations

from typing import Any

from ..batching import FLAT_OVERHEAD, break_even_view
from ..plots import OKABE_ITO
from ._panel import Control, Lines, Panel, Series

__all__ = ["batch_panel"]


def _batch_state(distinct: int, rank: int) -> dict[str, Any]:
    v = break_even_view(distinct, rank)
    return {
        "overhead_pct": 100 * v.overhead,
        "flat_pct": 100 * FLAT_OVERHEAD,
        "break_even_pct": 100 * v.break_even_utilisation,
        "flat_break_even_pct": 100 * v.flat_break_even_utilisation,
    }


def _readout(r: Any) -> str:
    return (
        f"{r['distinct']} distinct r={r['rank']} adapters per decode batch\n"
        f"overhead {r['overhead_pct']:.1f}% per decode step\n"
        f"a merged GPU wins above {r['break_even_pct']:.1f}% utilisation\n"
        f"(with the flat {r['flat_pct']:.0f}%: above {r['flat_break_even_pct']:.1f}%)"
    )


def batch_panel() -> Panel:
    """Move the distinct adapters per batch and the rank; read the overhead and the break-even (chapter 12)."""
    return Panel(
        "batch_panel",
        title="Dynamic LoRA overhead per decode step, fitted to Punica's SGMV timings",
        controls=[
            Control("distinct", "distinct adapters per batch", values=(1, 2, 4, 8, 16, 32, 64), default=32),
            Control("rank", "LoRA rank r", values=(8, 16, 32, 64), default=16),
        ],
        compute=_batch_state,
        readout=_readout,
        chart=Lines(
            "distinct",
            (
                Series("overhead_pct", "fitted overhead", OKABE_ITO["vermillion"]),
                Series("flat_pct", f"flat {FLAT_OVERHEAD:.0%} (every other chapter)", OKABE_ITO["blue"], dashed=True),
            ),
            y_title="overhead per decode step (%)",
            x_log=True,
            y_domain=(0, 20),
            x_title="distinct adapters per batch (log)",
        ),
    )
