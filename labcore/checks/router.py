"""Check the router exercises: a routed request's latency and the cache budget a fleet needs (chapter 5)."""

from __future__ import annotations

from typing import Any

from ..adapter import Adapter
from ..cache import AdapterCache
from ..links import LAB_HOST_TO_GPU
from ..registry import AdapterRegistry
from ..router import MultiLoRARouter
from ..sizing import MIB, adapter_vram_mb
from .exercise import Exercise
from .verdict import Mistake, Verdict, _grade, _printer

__all__ = [
    "grade_route_latency_ms",
    "grade_cache_budget_mb",
    "check_route_latency_ms",
    "check_cache_budget_mb",
]


def _routed_miss_ms(base_latency_ms: float, dynamic_overhead: float, adapter_vram_mb: float,
                    transfer_mb_per_ms: float) -> tuple[float, float, float]:
    """Route one cold dynamic request through a real router; return (total, overhead, load) in ms."""
    reg = AdapterRegistry()
    reg.register_base("llama-3-8b", "sha256:check")
    reg.register(Adapter("support-bot", "2.1.0", "llama-3-8b", "sha256:check", rank=16, vram_mb=adapter_vram_mb))
    router = MultiLoRARouter(reg, AdapterCache(max(adapter_vram_mb, 1024.0), transfer_mb_per_ms), "llama-3-8b",
                             base_latency_ms=base_latency_ms, dynamic_overhead=dynamic_overhead)
    d = router.route("llama-3-8b:support-bot@2.1.0")
    return d.total_latency_ms, d.overhead_ms, d.adapter_load_ms


def grade_route_latency_ms(answer: Any, *, base_latency_ms: float = 50.0, dynamic_overhead: float = 0.08,
                           adapter_vram_mb: float = 64.0,
                           transfer_mb_per_ms: float = LAB_HOST_TO_GPU.mb_per_ms) -> Verdict:
    """Grade the latency (ms) of a dynamic request whose adapter is not resident (default: 62 ms).

    >>> grade_route_latency_ms(54).message
    '✗ 54 ms leaves out the adapter load: a miss also copies 64 MiB at 8 MiB/ms.'
    """
    expected, overhead, load = _routed_miss_ms(base_latency_ms, dynamic_overhead, adapter_vram_mb,
                                               transfer_mb_per_ms)
    mistakes: list[Mistake] = [
        (expected - load, f"leaves out the adapter load: a miss also copies {adapter_vram_mb:g} MiB at "
                          f"{transfer_mb_per_ms:g} MiB/ms."),
        (expected - overhead, f"leaves out the LoRA overhead: a dynamic request costs base × (1 + "
                              f"{dynamic_overhead:g})."),
        (base_latency_ms, "is the base latency alone; add the LoRA overhead and the load of a miss."),
        ((base_latency_ms + load) * (1 + dynamic_overhead), "applies the overhead to the load as well; the overhead "
                                                           "multiplies the base compute only."),
        (base_latency_ms * (1 + 100 * dynamic_overhead) + load, "uses the overhead as a whole number; "
                                                                f"{100 * dynamic_overhead:g}% is {dynamic_overhead:g}."),
        (base_latency_ms * (1 + dynamic_overhead) + adapter_vram_mb * transfer_mb_per_ms,
         "multiplies size by bandwidth; the load time is size / bandwidth."),
    ]
    return _grade(answer, expected, unit="ms", what="the latency of the miss", mistakes=mistakes,
                  fallback="total = base × (1 + overhead) + adapter size / bandwidth.", rel_tol=0.001)


def grade_cache_budget_mb(answer: Any, *, tenants: int = 41, adapter_vram_mb: float = 16.0) -> Verdict:
    """Grade the smallest adapter-cache budget (MiB) that holds every tenant's adapter (default: 656 MiB).

    >>> grade_cache_budget_mb(640).message
    '✗ 640 MiB holds 40 adapters: the 41st still evicts one on every swap, and LRU thrashes.'
    """
    expected = tenants * adapter_vram_mb
    mistakes: list[Mistake] = [
        ((tenants - 1) * adapter_vram_mb, f"holds {tenants - 1} adapters: the {tenants}st still evicts one on every "
                                          "swap, and LRU thrashes." if tenants % 10 == 1 else
         f"holds {tenants - 1} adapters: one tenant too few, so LRU thrashes."),
        (expected * MIB / 1e6, "is in MB (10^6 bytes); the budget is in MiB (2^20 bytes)."),
        (expected / 1024, "is in GiB; the budget is asked in MiB."),
        (tenants, "counts adapters; multiply by each adapter's size in MiB."),
    ]
    return _grade(answer, expected, unit="MiB", what="the smallest budget", mistakes=mistakes,
                  fallback=f"Every one of the {tenants} working adapters must stay resident: tenants × adapter size.",
                  rel_tol=0.001)


check_route_latency_ms = _printer(grade_route_latency_ms)
check_cache_budget_mb = _printer(grade_cache_budget_mb)


#: This module's exercises, as the pages ask them (see :class:`labcore.checks.exercise.Exercise`).
EXERCISES: tuple[Exercise, ...] = ()
