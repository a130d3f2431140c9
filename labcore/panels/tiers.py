"""Panels for the spill tier: p99 under adapter churn with and without a host-RAM tier.

>>> row = spill_panel().row()          # 64 tenants over a 32-adapter GPU pool and a 96-adapter host tier
>>> row["p99_tiered_ms"] < row["p99_gpu_only_ms"]
True
"""

from __future__ import annotations

from typing import Any

from ..plots import OKABE_ITO
from ..sim import tenant_sweep
from ..tiers import TieredCache
from ._panel import Control, Lines, Panel, Series

__all__ = ["spill_panel"]

PANEL_REQUESTS = 6_000
WARMUP = 1_500
SEED = 9


def _spill_state(tenants: int, host_adapters: int, gpu_adapters: int) -> dict[str, Any]:
    gpu_mb, host_mb = 16.0 * gpu_adapters, 16.0 * host_adapters
    common: dict[str, Any] = dict(budget_mb=gpu_mb, requests=PANEL_REQUESTS, seed=SEED, warmup=WARMUP)
    single = tenant_sweep([tenants], **common)[tenants]
    tiered = tenant_sweep([tenants], cache_factory=lambda: TieredCache(gpu_mb, host_mb), **common)[tenants]
    return {"p99_gpu_only_ms": single.p99_ms, "p99_tiered_ms": tiered.p99_ms,
            "gpu_hit_pct": 100 * single.hit_rate, "p50_ms": tiered.p50_ms}


def _readout(r: Any) -> str:
    return (f"{r['tenants']} tenants; GPU pool {r['gpu_adapters']}, host tier {r['host_adapters']} adapters\n"
            f"GPU hit rate {r['gpu_hit_pct']:.1f}%\n"
            f"p99 {r['p99_gpu_only_ms']:,.1f} ms GPU-only, {r['p99_tiered_ms']:,.1f} ms with the host tier")


def spill_panel() -> Panel:
    """Grow the tenants past the GPU pool and the host tier; read p99 with and without spilling (chapter 9)."""
    return Panel(
        "spill_panel",
        title="A host-RAM tier under the GPU cache: p99 as tenants churn",
        controls=[
            Control("tenants", "tenants", values=(24, 32, 40, 48, 64, 80, 96, 128, 160), default=64),
            Control("host_adapters", "host tier (16 MiB adapters)", values=(48, 96, 192), default=96),
            Control("gpu_adapters", "GPU pool (16 MiB adapters)", values=(16, 32, 48), default=32),
        ],
        compute=_spill_state,
        readout=_readout,
        chart=Lines("tenants", (Series("p99_gpu_only_ms", "GPU only", OKABE_ITO["vermillion"]),
                                Series("p99_tiered_ms", "with host tier", OKABE_ITO["bluish_green"])),
                    y_title="p99 request latency (ms)", y_domain=(0, 120)),
        note=f"Each state replays {PANEL_REQUESTS:,} seeded requests after a {WARMUP:,}-request warmup.",
    )
