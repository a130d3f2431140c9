"""Chapter 9's runs: a GPU adapter pool alone, and the same pool over a host-memory spill tier.

>>> SPILL["gpu_adapters"], SPILL.host_adapters
(32, 96)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...tiers import TieredCache
from ..._validate import count
from ..replay import tenant_sweep
from ..result import SimResult
from ._by_name import ByName

__all__ = ["SpillScenario", "SPILL_TENANTS", "SPILL", "spill_runs"]


@dataclass(frozen=True, slots=True)
class SpillScenario(ByName):
    """Chapter 9's setup: a GPU pool of ``gpu_adapters`` over a host tier of ``host_adapters`` (16 MiB each)."""

    gpu_adapters: int
    host_adapters: int
    requests: int
    seed: int
    warmup: int

    def __post_init__(self) -> None:
        count("gpu_adapters", self.gpu_adapters)
        count("host_adapters", self.host_adapters)
        count("requests", self.requests)
        count("seed", self.seed, minimum=0)
        count("warmup", self.warmup, minimum=0)


SPILL_TENANTS: tuple[int, ...] = (24, 32, 40, 48, 64, 80, 96, 128)
#: The chapter 9 setup: a 32-adapter GPU pool over a 96-adapter host tier (16 MiB adapters).
SPILL = SpillScenario(gpu_adapters=32, host_adapters=96, requests=20_000, seed=9, warmup=2_000)


def spill_runs() -> tuple[dict[int, SimResult], dict[int, SimResult]]:
    """Return chapter 9's runs, ``(gpu_only, tiered)``, each ``{tenants: SimResult}`` over ``SPILL_TENANTS``."""
    s = SPILL
    gpu_mb, host_mb = 16.0 * s.gpu_adapters, 16.0 * s.host_adapters
    common: dict[str, Any] = dict(budget_mb=gpu_mb, requests=s.requests, seed=s.seed, warmup=s.warmup)
    return (tenant_sweep(SPILL_TENANTS, **common),
            tenant_sweep(SPILL_TENANTS, cache_factory=lambda: TieredCache(gpu_mb, host_mb), **common))
