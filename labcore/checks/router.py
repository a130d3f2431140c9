"""Check the router exercises: a routed request's latency, the cache budget a fleet needs, and a prediction of a
miss over another host-to-GPU link read off the latency panel (chapter 5)."""

from __future__ import annotations

from ..adapter import Adapter
from ..cache import AdapterCache
from ..capacity import DYNAMIC_OVERHEAD
from ..links import LAB_HOST_TO_GPU, LINKS, PCIE4_X16
from ..panels.router import route_latency_panel
from ..registry import AdapterRegistry
from ..router import MultiLoRARouter
from ..sizing import MIB
from .exercise import Exercise
from .rules import NumberRule, graded
from .verdict import Mistake, _printer

__all__ = [
    "grade_route_latency_ms",
    "grade_cache_budget_mb",
    "check_route_latency_ms",
    "check_cache_budget_mb",
    "grade_link_miss_ms",
    "check_link_miss_ms",
]


def _routed_miss_ms(
    base_latency_ms: float, dynamic_overhead: float, adapter_vram_mb: float, transfer_mb_per_ms: float
) -> tuple[float, float, float]:
    """Route one cold dynamic request through a real router; return (total, overhead, load) in ms."""
    reg = AdapterRegistry()
    reg.register_base("llama-3-8b", "sha256:check")
    reg.register(Adapter("support-bot", "2.1.0", "llama-3-8b", "sha256:check", rank=16, vram_mb=adapter_vram_mb))
    router = MultiLoRARouter(
        reg,
        AdapterCache(max(adapter_vram_mb, 1024.0), transfer_mb_per_ms),
        "llama-3-8b",
        base_latency_ms=base_latency_ms,
        dynamic_overhead=dynamic_overhead,
    )
    d = router.route("llama-3-8b:support-bot@2.1.0")
    return d.total_latency_ms, d.overhead_ms, d.adapter_load_ms


def rule_route_latency_ms(
    *,
    base_latency_ms: float = 50.0,
    dynamic_overhead: float = DYNAMIC_OVERHEAD,
    adapter_vram_mb: float = 64.0,
    transfer_mb_per_ms: float = LAB_HOST_TO_GPU.mb_per_ms,
) -> NumberRule:
    """Grade the latency (ms) of a dynamic request whose adapter is not resident (default: 60.5 ms).

    >>> grade_route_latency_ms(52.5).message
    '✗ 52.5 ms leaves out the adapter load: a miss also copies 64 MiB at 8 MiB/ms.'
    """
    expected, overhead, load = _routed_miss_ms(base_latency_ms, dynamic_overhead, adapter_vram_mb, transfer_mb_per_ms)
    mistakes: list[Mistake] = [
        (
            expected - load,
            f"leaves out the adapter load: a miss also copies {adapter_vram_mb:g} MiB at "
            f"{transfer_mb_per_ms:g} MiB/ms.",
        ),
        (
            expected - overhead,
            f"leaves out the LoRA overhead: a dynamic request costs base × (1 + {dynamic_overhead:g}).",
        ),
        (base_latency_ms, "is the base latency alone; add the LoRA overhead and the load of a miss."),
        (
            (base_latency_ms + load) * (1 + dynamic_overhead),
            "applies the overhead to the load as well; the overhead multiplies the base compute only.",
        ),
        (
            base_latency_ms * (1 + 100 * dynamic_overhead) + load,
            f"uses the overhead as a whole number; {100 * dynamic_overhead:g}% is {dynamic_overhead:g}.",
        ),
        (
            base_latency_ms * (1 + dynamic_overhead) + adapter_vram_mb * transfer_mb_per_ms,
            "multiplies size by bandwidth; the load time is size / bandwidth.",
        ),
    ]
    return NumberRule(
        expected,
        unit="ms",
        what="the latency of the miss",
        mistakes=mistakes,
        fallback="total = base × (1 + overhead) + adapter size / bandwidth.",
        rel_tol=0.001,
    )


def rule_cache_budget_mb(*, tenants: int = 41, adapter_vram_mb: float = 16.0) -> NumberRule:
    """Grade the smallest adapter-cache budget (MiB) that holds every tenant's adapter (default: 656 MiB).

    >>> grade_cache_budget_mb(640).message
    '✗ 640 MiB holds 40 adapters: the 41st still evicts one on every swap, and LRU thrashes.'
    """
    expected = tenants * adapter_vram_mb
    mistakes: list[Mistake] = [
        (
            (tenants - 1) * adapter_vram_mb,
            f"holds {tenants - 1} adapters: the {tenants}st still evicts one on every swap, and LRU thrashes."
            if tenants % 10 == 1
            else f"holds {tenants - 1} adapters: one tenant too few, so LRU thrashes.",
        ),
        (expected * MIB / 1e6, "is in MB (10^6 bytes); the budget is in MiB (2^20 bytes)."),
        (expected / 1024, "is in GiB; the budget is asked in MiB."),
        (tenants, "counts adapters; multiply by each adapter's size in MiB."),
    ]
    return NumberRule(
        expected,
        unit="MiB",
        what="the smallest budget",
        mistakes=mistakes,
        fallback=f"Every one of the {tenants} working adapters must stay resident: tenants × adapter size.",
        rel_tol=0.001,
    )


grade_route_latency_ms = graded(rule_route_latency_ms)
check_route_latency_ms = _printer(grade_route_latency_ms)
grade_cache_budget_mb = graded(rule_cache_budget_mb)
check_cache_budget_mb = _printer(grade_cache_budget_mb)


def rule_link_miss_ms(
    *, adapter_vram_mb: float = 320.0, link: str = PCIE4_X16.name, base_latency_ms: float = 40.0, overhead_pct: int = 5
) -> NumberRule:
    """Grade a prediction of a dynamic miss's latency (ms) over one host-to-GPU ``link`` of the transfer table.

    The expected value is chapter 5's latency panel at that state (``miss_ms``, the real router's number).

    >>> grade_link_miss_ms(55.5).ok
    True
    >>> print(grade_link_miss_ms(82).message)
    ✗ 82 ms copies over the lab's link (8 MiB/ms); this miss comes over PCIe 4.0 x16 from pinned memory.
    """
    panel = route_latency_panel()
    row = panel.row(
        adapter_vram_mb=adapter_vram_mb, link=link, base_latency_ms=base_latency_ms, overhead_pct=overhead_pct
    )
    expected = row["miss_ms"]
    hop = LINKS[link]
    lab = panel.row(
        adapter_vram_mb=adapter_vram_mb,
        link=LAB_HOST_TO_GPU.name,
        base_latency_ms=base_latency_ms,
        overhead_pct=overhead_pct,
    )["miss_ms"]
    mistakes: list[Mistake] = [
        (
            lab,
            f"copies over the lab's link ({LAB_HOST_TO_GPU.mb_per_ms:g} MiB/ms); this miss comes over {hop.name} "
            "from pinned memory.",
        ),
        (expected - hop.overhead_ms, f"leaves out the link's fixed {hop.overhead_ms:g} ms per copy."),
        (
            row["hit_ms"] + hop.overhead_ms + adapter_vram_mb / hop.gb_per_s,
            f"treats {hop.gb_per_s:g} GB/s as {hop.gb_per_s:g} MiB/ms; a GB/s is 10^9 bytes a second, "
            f"{1e6 / MIB:.3f} MiB per ms.",
        ),
        (
            expected - row["overhead_ms"],
            f"leaves out the LoRA overhead: a dynamic request costs base × "
            f"(1 + {overhead_pct / 100:g}) before the load.",
        ),
    ]
    return NumberRule(
        expected,
        unit="ms",
        what=f"the miss over {hop.name}",
        rel_tol=0.001,
        mistakes=[(v, h) for v, h in mistakes if abs(v - expected) > 0.001 * expected],
        fallback="total = base × (1 + overhead) + the link's fixed cost + size / the link's bandwidth.",
    )


grade_link_miss_ms = graded(rule_link_miss_ms)
check_link_miss_ms = _printer(grade_link_miss_ms)


#: This module's exercises, as the pages ask them (see :class:`labcore.checks.exercise.Exercise`).
EXERCISES: tuple[Exercise, ...] = (
    Exercise(
        label="5.1",
        kind="compute",
        grade=grade_route_latency_ms,
        right=60.5,
        wrong=(52.5, 58.0, 60.9),
        kwargs={"base_latency_ms": 50.0, "dynamic_overhead": DYNAMIC_OVERHEAD, "adapter_vram_mb": 64.0},
        gives_away=("60.5 ms", "60.5"),
    ),
    Exercise(
        label="5.2",
        kind="predict",
        grade=grade_link_miss_ms,
        right=55.5,
        wrong=(82.0, 55.42, 54.9),
        kwargs={"adapter_vram_mb": 320.0, "link": PCIE4_X16.name},
        gives_away=("55.5 ms", "55.52"),
        tool="route_latency_panel",
    ),
)
