"""Panels for the router: what each kind of request costs under the latency model.

>>> row = route_latency_panel().row()      # 40 ms base, 5% overhead, 16 MiB over 8 MiB/ms
>>> row["base_ms"], row["hit_ms"], row["miss_ms"]
(40.0, 42.0, 44.0)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..links import LAB_HOST_TO_GPU, LINKS, PCIE4_X16, PCIE5_X16
from ..plots import MODE_COLORS, OKABE_ITO
from ..sim import route_examples
from ..tables import html_table
from ._panel import Control, Lines, Panel, Series

__all__ = ["route_latency_panel", "decision_table_html"]


#: the host-to-GPU rows of the course's transfer table (labcore.links) the panel offers
HOST_TO_GPU_LINKS = (LAB_HOST_TO_GPU, PCIE4_X16, PCIE5_X16)


def _route_state(adapter_vram_mb: float, base_latency_ms: float, overhead_pct: int, link: str) -> dict[str, Any]:
    hop = LINKS[link]
    d = route_examples(base_latency_ms, overhead_pct / 100, adapter_vram_mb, hop.mb_per_ms,
                       load_overhead_ms=hop.overhead_ms)
    return {"base_ms": d["base"].total_latency_ms, "dedicated_ms": d["dedicated"].total_latency_ms,
            "hit_ms": d["dynamic hit"].total_latency_ms, "miss_ms": d["dynamic miss"].total_latency_ms,
            "load_ms": d["dynamic miss"].adapter_load_ms, "overhead_ms": d["dynamic hit"].overhead_ms}


def _readout(r: Any) -> str:
    return (f"base and dedicated (merged): {r['base_ms']:,.1f} ms\n"
            f"dynamic hit: {r['hit_ms']:,.1f} ms (+{r['overhead_ms']:,.1f} ms LoRA overhead)\n"
            f"dynamic miss: {r['miss_ms']:,.1f} ms (+{r['load_ms']:,.1f} ms to copy "
            f"{r['adapter_vram_mb']:g} MiB)")


def route_latency_panel() -> Panel:
    """Move the latency model's knobs and read each route's latency from the real router (chapter 5)."""
    return Panel(
        "route_latency_panel",
        title="Latency per route: base, dedicated, dynamic hit, dynamic miss",
        controls=[
            Control("adapter_vram_mb", "adapter size (MiB)", values=(4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 320.0, 640.0),
                    default=16.0),
            Control("base_latency_ms", "base model latency (ms)", values=(20.0, 40.0, 80.0, 160.0), default=40.0),
            Control("overhead_pct", "dynamic LoRA overhead (%)", values=(0, 5, 10, 15, 20, 25, 30), default=5),
            Control("link", "host-to-GPU copy", values=tuple(h.name for h in HOST_TO_GPU_LINKS),
                    default=LAB_HOST_TO_GPU.name,
                    labels=tuple(f"{h.name}: {h.mb_per_ms:.1f} MiB/ms + {h.overhead_ms:g} ms" for h in HOST_TO_GPU_LINKS)),
        ],
        compute=_route_state,
        readout=_readout,
        chart=Lines("adapter_vram_mb", (
            Series("miss_ms", "dynamic miss", OKABE_ITO["vermillion"]),
            Series("hit_ms", "dynamic hit", MODE_COLORS["dynamic"]),
            Series("base_ms", "base / dedicated", MODE_COLORS["base"], dashed=True)),
            y_title="request latency (ms, log)", x_log=True, y_log=True, y_domain=(15, 600),
            x_title="adapter size (MiB, log)"),
    )


def decision_table_html(decisions: Sequence[Any]) -> str:
    """Render ``RouteDecision`` records as an HTML table, one row per request: the router's observability surface.

    >>> from labcore.router import RouteDecision
    >>> miss = RouteDecision(mode="dynamic", adapter="a@1.0.0", cache_hit=False, evicted=(), adapter_load_ms=2.0,
    ...                      total_latency_ms=44.0)
    >>> "<td>dynamic</td>" in decision_table_html([miss])
    True
    """
    columns = ("ref", "mode", "adapter", "version_pinned", "cache_hit", "evicted", "base_latency_ms", "overhead_ms",
               "adapter_load_ms", "total_latency_ms")
    return html_table(decisions, {c: c for c in columns})
