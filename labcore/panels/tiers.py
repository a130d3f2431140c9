"""Panels for the spill tier: p99 under adapter churn with and without a host-RAM tier.

Each state is one pair of chapter 9's runs (:func:`labcore.sim.scenarios.spill.spill_pair`: the chapter's
seeded trace, its requests and warmup), so the default state is the chapter's own experiment.

>>> row = spill_panel().row()          # 64 tenants over a 32-adapter GPU pool and a 96-adapter host tier
>>> row["p99_tiered_ms"] < row["p99_gpu_only_ms"]
True
"""

from __future__ import annotations

from typing import Any

from ..plots import OKABE_ITO
from ..sim.scenarios.spill import SPILL, SPILL_ADAPTER_MB, SPILL_GRID, spill_pair
from ._panel import Control, Lines, Panel, Series

__all__ = ["spill_panel"]

#: The chapter's highlighted run: this many tenants churn through the GPU pool.
DEFAULT_TENANTS = 64


def _spill_state(tenants: int, host_adapters: int, gpu_adapters: int) -> dict[str, Any]:
    single, tiered = spill_pair(tenants, host_adapters=host_adapters, gpu_adapters=gpu_adapters)
    return {
        "p99_gpu_only_ms": single.p99_ms,
        "p99_tiered_ms": tiered.p99_ms,
        "gpu_hit_pct": 100 * single.hit_rate,
        "p50_ms": tiered.p50_ms,
    }


def _readout(r: Any) -> str:
    return (
        f"{r['tenants']} tenants; GPU pool {r['gpu_adapters']}, host tier {r['host_adapters']} adapters\n"
        f"GPU hit rate {r['gpu_hit_pct']:.1f}%\n"
        f"p99 {r['p99_gpu_only_ms']:,.1f} ms GPU-only, {r['p99_tiered_ms']:,.1f} ms with the host tier"
    )


def spill_panel() -> Panel:
    """Grow the tenants past the GPU pool and the host tier; read p99 with and without spilling (chapter 9)."""
    size = f"{SPILL_ADAPTER_MB:g} MiB adapters"
    return Panel(
        "spill_panel",
        title="A host-RAM tier under the GPU cache: p99 as tenants churn",
        controls=[
            Control("tenants", "tenants", values=SPILL_GRID["tenants"], default=DEFAULT_TENANTS),
            Control(
                "host_adapters", f"host tier ({size})", values=SPILL_GRID["host_adapters"], default=SPILL.host_adapters
            ),
            Control(
                "gpu_adapters", f"GPU pool ({size})", values=SPILL_GRID["gpu_adapters"], default=SPILL.gpu_adapters
            ),
        ],
        compute=_spill_state,
        readout=_readout,
        chart=Lines(
            "tenants",
            (
                Series("p99_gpu_only_ms", "GPU only", OKABE_ITO["vermillion"]),
                Series("p99_tiered_ms", "with host tier", OKABE_ITO["bluish_green"]),
            ),
            y_title="p99 request latency (ms)",
            y_domain=(0, 120),
        ),
        note=f"Each state is the chapter's run: {SPILL.requests:,} seeded requests, the first {SPILL.warmup:,} "
        "warming the caches.",
    )
