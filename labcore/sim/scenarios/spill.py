"""Chapter 9's runs: a GPU adapter pool alone, and the same pool over a host-memory spill tier.

One experiment, read three ways: :func:`spill_runs` sweeps the chapter's tenant counts, :func:`spill_pair` is
one state of the chapter's panel (any tenants, host-tier and GPU-pool size, on the same seeded trace) and the
exercise checks call it too, so the chapter, its panel and its checks quote the same numbers.

>>> SPILL["gpu_adapters"], SPILL.host_adapters
(32, 96)
>>> gpu_only, tiered = spill_pair(40)          # 40 tenants over a 32-adapter GPU pool: every miss costs less
>>> gpu_only.hit_rate == tiered.hit_rate, tiered.p99_ms < gpu_only.p99_ms
(True, True)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from ..._validate import count
from ...tiers import TieredCache
from ..replay import tenant_sweep
from ..result import SimResult
from ..workload import Workload
from ._by_name import ByName

__all__ = ["SpillScenario", "SPILL_TENANTS", "SPILL_GRID", "SPILL_ADAPTER_MB", "SPILL", "spill_pair", "spill_runs"]


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
#: Every state the chapter's panel offers (its controls' values), around the chapter's own run.
SPILL_GRID: dict[str, tuple[int, ...]] = {
    "tenants": SPILL_TENANTS + (160,),
    "host_adapters": (48, 96, 192),
    "gpu_adapters": (16, 32, 48),
}
#: Every tenant's adapter in these runs: the simulator's (the lab's 16 MiB, by chapter 2's square formula).
SPILL_ADAPTER_MB: float = Workload(tenants=1, requests=1).adapter_mb


def _sweep(tenants: tuple[int, ...], host_adapters: int | None, gpu_adapters: int) -> dict[int, SimResult]:
    s = SPILL
    gpu_mb = SPILL_ADAPTER_MB * gpu_adapters
    common: dict[str, Any] = dict(budget_mb=gpu_mb, requests=s.requests, seed=s.seed, warmup=s.warmup)
    if host_adapters is None:
        return tenant_sweep(tenants, **common)
    host_mb = SPILL_ADAPTER_MB * host_adapters
    return tenant_sweep(tenants, cache_factory=lambda: TieredCache(gpu_mb, host_mb), **common)


@functools.lru_cache(maxsize=512)
def spill_pair(
    tenants: int, *, host_adapters: int = SPILL.host_adapters, gpu_adapters: int = SPILL.gpu_adapters
) -> tuple[SimResult, SimResult]:
    """Return ``(gpu_only, tiered)`` for ``tenants`` tenants on chapter 9's trace (``SPILL``'s requests and seed).

    The same GPU pool of ``gpu_adapters`` both times; ``tiered`` adds a host tier of ``host_adapters``.
    """
    count("tenants", tenants)
    return (
        _gpu_only(tenants, count("gpu_adapters", gpu_adapters)),
        _sweep((tenants,), count("host_adapters", host_adapters), gpu_adapters)[tenants],
    )


@functools.lru_cache(maxsize=128)
def _gpu_only(tenants: int, gpu_adapters: int) -> SimResult:
    """The GPU-only run: the host tier's size does not enter it, so the panel's host values share one run."""
    return _sweep((tenants,), None, gpu_adapters)[tenants]


def spill_runs() -> tuple[dict[int, SimResult], dict[int, SimResult]]:
    """Return chapter 9's runs, ``(gpu_only, tiered)``, each ``{tenants: SimResult}`` over ``SPILL_TENANTS``."""
    pairs = {n: spill_pair(n) for n in SPILL_TENANTS}
    return {n: p[0] for n, p in pairs.items()}, {n: p[1] for n, p in pairs.items()}
