"""Panels for the router: what each kind of request costs under the latency model.

>>> row = route_latency_panel().row()      # 40 ms base, 5% overhead, 16 MiB over 8 MiB/ms
>>> row["base_ms"], row["hit_ms"], row["miss_ms"]
(40.0, 42.0, 44.0)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..implementation import YOURS_COLOR, Implementation, Missing, on_your_code
from ..links import LAB_HOST_TO_GPU, LINKS, PCIE4_X16, PCIE5_X16
from ..plots import MODE_COLORS, OKABE_ITO
from ..sim import route_examples
from ..tables import html_table
from ._panel import Control, Lines, Panel, Series

__all__ = ["route_latency_panel", "decision_table_html", "your_router_panel", "your_router_state"]


#: the host-to-GPU rows of the course's transfer table (labcore.links) the panel offers
HOST_TO_GPU_LINKS = (LAB_HOST_TO_GPU, PCIE4_X16, PCIE5_X16)


def _route_state(adapter_vram_mb: float, base_latency_ms: float, overhead_pct: int, link: str) -> dict[str, Any]:
    hop = LINKS[link]
    d = route_examples(
        base_latency_ms, overhead_pct / 100, adapter_vram_mb, hop.mb_per_ms, load_overhead_ms=hop.overhead_ms
    )
    return {
        "base_ms": d["base"].total_latency_ms,
        "dedicated_ms": d["dedicated"].total_latency_ms,
        "hit_ms": d["dynamic hit"].total_latency_ms,
        "miss_ms": d["dynamic miss"].total_latency_ms,
        "load_ms": d["dynamic miss"].adapter_load_ms,
        "overhead_ms": d["dynamic hit"].overhead_ms,
    }


def _readout(r: Any) -> str:
    return (
        f"base and dedicated (merged): {r['base_ms']:,.1f} ms\n"
        f"dynamic hit: {r['hit_ms']:,.1f} ms (+{r['overhead_ms']:,.1f} ms LoRA overhead)\n"
        f"dynamic miss: {r['miss_ms']:,.1f} ms (+{r['load_ms']:,.1f} ms to copy "
        f"{r['adapter_vram_mb']:g} MiB)"
    )


def route_latency_panel() -> Panel:
    """Move the latency model's knobs and read each route's latency from the real router (chapter 5)."""
    return Panel(
        "route_latency_panel",
        title="Latency per route: base, dedicated, dynamic hit, dynamic miss",
        controls=[
            Control(
                "adapter_vram_mb",
                "adapter size (MiB)",
                values=(4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 320.0, 640.0),
                default=16.0,
            ),
            Control("base_latency_ms", "base model latency (ms)", values=(20.0, 40.0, 80.0, 160.0), default=40.0),
            Control("overhead_pct", "dynamic LoRA overhead (%)", values=(0, 5, 10, 15, 20, 25, 30), default=5),
            Control(
                "link",
                "host-to-GPU copy",
                values=tuple(h.name for h in HOST_TO_GPU_LINKS),
                default=LAB_HOST_TO_GPU.name,
                labels=tuple(f"{h.name}: {h.mb_per_ms:.1f} MiB/ms + {h.overhead_ms:g} ms" for h in HOST_TO_GPU_LINKS),
            ),
        ],
        compute=_route_state,
        readout=_readout,
        chart=Lines(
            "adapter_vram_mb",
            (
                Series("miss_ms", "dynamic miss", OKABE_ITO["vermillion"]),
                Series("hit_ms", "dynamic hit", MODE_COLORS["dynamic"]),
                Series("base_ms", "base / dedicated", MODE_COLORS["base"], dashed=True),
            ),
            y_title="request latency (ms, log)",
            x_log=True,
            y_log=True,
            y_domain=(15, 600),
            x_title="adapter size (MiB, log)",
        ),
    )


def decision_table_html(decisions: Sequence[Any]) -> str:
    """Render ``RouteDecision`` records as an HTML table, one row per request: the router's observability surface.

    >>> from labcore.router import RouteDecision
    >>> miss = RouteDecision(mode="dynamic", adapter="a@1.0.0", cache_hit=False, evicted=(), adapter_load_ms=2.0,
    ...                      total_latency_ms=44.0)
    >>> "<td>dynamic</td>" in decision_table_html([miss])
    True
    """
    columns = (
        "ref",
        "mode",
        "adapter",
        "version_pinned",
        "cache_hit",
        "evicted",
        "base_latency_ms",
        "overhead_ms",
        "adapter_load_ms",
        "total_latency_ms",
    )
    return html_table(decisions, {c: c for c in columns})


def your_router_state(lab: Implementation, overhead_pct: int, adapter_vram_mb: float) -> dict[str, Any]:
    """Route one request of each kind through the reference's router and through ``lab``'s, with the same knobs.

    >>> from labcore.implementation import implementation
    >>> s = your_router_state(implementation("reference"), 5, 16.0)
    >>> s["hit_ms"], s["yours_hit_ms"], s["yours_modes"]
    (42.0, 42.0, 'base, dedicated, dynamic, dynamic')
    """
    ref = route_examples(dynamic_overhead=overhead_pct / 100, adapter_vram_mb=adapter_vram_mb)
    yours = route_examples(dynamic_overhead=overhead_pct / 100, adapter_vram_mb=adapter_vram_mb, lab=lab)
    state: dict[str, Any] = {}
    for who, d in (("", ref), ("yours_", yours)):
        state |= {
            f"{who}hit_ms": d["dynamic hit"].total_latency_ms,
            f"{who}miss_ms": d["dynamic miss"].total_latency_ms,
            f"{who}dedicated_ms": d["dedicated"].total_latency_ms,
        }
    state["yours_modes"] = ", ".join(str(d.mode) for d in yours.values())
    return state


def _your_readout(r: Any, lab: Implementation) -> str:
    head = (
        f"{r['adapter_vram_mb']:g} MiB adapter, {r['overhead_pct']}% LoRA overhead, 40 ms base\n"
        f"reference: hit {r['hit_ms']:,.1f} ms, miss {r['miss_ms']:,.1f}, merged {r['dedicated_ms']:,.1f}"
    )
    if lab.is_reference:
        return head + '\nin the live version, "mine" routes with your router too'
    return (
        f"{head}\nyours: hit {r['yours_hit_ms']:,.1f} ms, miss {r['yours_miss_ms']:,.1f}, "
        f"merged {r['yours_dedicated_ms']:,.1f}\nyour modes: {r['yours_modes']}"
    )


def your_router_panel(lab: Implementation | None = None) -> Panel | Missing:
    """Route base, merged, miss and hit through ``lab``'s router (a learner's ``lab/mine``) beside the reference (ch. 5).

    Returns the :class:`~labcore.implementation.Missing` function where the learner's router is not written yet.
    """

    def build(code: Implementation) -> Panel:
        series = [
            Series("miss_ms", "reference: miss", OKABE_ITO["vermillion"]),
            Series("hit_ms", "reference: hit", MODE_COLORS["dynamic"]),
        ]
        if not code.is_reference:
            series += [
                Series("yours_miss_ms", "yours: miss", YOURS_COLOR, dashed=True),
                Series("yours_hit_ms", "yours: hit", YOURS_COLOR),
            ]
        return Panel(
            "your_router_panel",
            title="Your router against the reference: each route's latency",
            controls=[
                Control("overhead_pct", "dynamic LoRA overhead (%)", values=(0, 5, 10, 15, 20, 25, 30), default=5),
                Control("adapter_vram_mb", "adapter size (MiB)", values=(16.0, 64.0, 320.0), default=16.0),
            ],
            compute=lambda overhead_pct, adapter_vram_mb: your_router_state(code, overhead_pct, adapter_vram_mb),
            readout=lambda r: _your_readout(r, code),
            chart=Lines("overhead_pct", tuple(series), y_title="request latency (ms)", y_domain=(0, 100)),
            variant="" if code.is_reference else code.name,
        )

    return on_your_code(lab, build)
