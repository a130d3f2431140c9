"""Panels for the adapter cache: the thrash cliff as the VRAM budget crosses the working set.

>>> row = lru_thrash_panel().row()             # 320 MiB, 40 tenants, Zipf 1.0
>>> row["lru_hit_pct"] > row["fifo_hit_pct"]
True
"""

from __future__ import annotations

from typing import Any

from ..cache import AdapterCache, FifoAdapterCache
from ..implementation import YOURS_COLOR, Implementation, Missing, on_your_code
from ..plots import OKABE_ITO
from ..sim import (
    CACHE_TRANSFER_MB_PER_MS,
    cache_trace,
    cache_trace_adapters,
    replay_cache,
    simulate,
    single_replica_router,
)
from ._panel import Control, Lines, Panel, Series

__all__ = ["lru_thrash_panel", "thrash_state", "thrash_curve", "your_cache_panel", "your_cache_state"]

ADAPTER_MB = 16.0
#: Requests that warm the replica before its latency percentiles count (cold first loads are not thrash).
WARMUP = 500


def thrash_state(budget_mb: float, tenants: int, zipf_s: float) -> dict[str, Any]:
    """Replay one seeded trace through a FIFO cache, and through a replica whose cache is the LRU one.

    The replica is chapter 8's (:func:`labcore.sim.single_replica_router`): its cache is chapter 4's LRU
    ``AdapterCache`` at ``budget_mb``, so routing the trace through it is chapter 4's LRU run (the same hits and
    evictions as :func:`labcore.sim.cache_runs`, which the tests check), and it also gives the request p50 and p99.
    A replica's miss fetches the adapter from object storage, so its p99 is a cold load once more than 1% of the
    requests after the warmup miss. The FIFO cache meets the same requests, its counters read at the end (chapter
    4's :func:`~labcore.sim.replay_cache` also records each request, which a panel's sweep does not draw).

    >>> thrash_state(640, 40, 1.0)["lru_evictions"]     # the working set fits: nothing is evicted
    0
    """
    trace = cache_trace(tenants, zipf_s)
    assert trace.workload is not None  # cache_trace keeps the workload it drew the trace from
    replica = single_replica_router(trace.workload, budget_mb=budget_mb)
    sim = simulate(replica, trace, windows=0, warmup=WARMUP)
    lru = replica.cache.stats()
    adapters = cache_trace_adapters(tenants, zipf_s)
    fifo = _counted(FifoAdapterCache(budget_mb, CACHE_TRANSFER_MB_PER_MS), adapters)
    working_set_mb = sum({a.key: a.vram_mb for a in adapters}.values())
    return {
        "working_set_mb": working_set_mb,
        "lru_hit_pct": 100 * lru.hit_rate,
        "fifo_hit_pct": 100 * fifo.hit_rate,
        "lru_evictions": lru.evictions,
        "fifo_evictions": fifo.evictions,
        "p99_ms": sim.p99_ms,
        "p50_ms": sim.p50_ms,
    }


def _counted(cache: Any, adapters: Any) -> Any:
    """Send ``adapters`` through ``cache`` (it keeps its own wall) and return its counters."""
    for _ in map(cache.access, adapters):
        pass
    return cache.stats()


def thrash_curve(budget_mb: float, tenants: int, zipf_s: float) -> dict[str, float]:
    """Return the thrash chart's two hit rates alone: the same LRU and FIFO caches over the same requests, no replica.

    A live panel draws the budget sweep with this and computes :func:`thrash_state` at the current budget only.

    >>> thrash_curve(320, 40, 1.0) == {k: v for k, v in thrash_state(320, 40, 1.0).items() if k.endswith("hit_pct")}
    True
    """
    adapters = cache_trace_adapters(tenants, zipf_s)
    return {
        "lru_hit_pct": 100 * _counted(AdapterCache(budget_mb, CACHE_TRANSFER_MB_PER_MS), adapters).hit_rate,
        "fifo_hit_pct": 100 * _counted(FifoAdapterCache(budget_mb, CACHE_TRANSFER_MB_PER_MS), adapters).hit_rate,
    }


def _readout(r: Any) -> str:
    fits = min(int(r["budget_mb"] // ADAPTER_MB), r["tenants"])
    return (
        f"{r['budget_mb']:g} MiB holds {fits} of {r['tenants']} adapters "
        f"(working set {r['working_set_mb']:g} MiB)\n"
        f"LRU {r['lru_hit_pct']:.1f}% hits, {r['lru_evictions']:,} evictions; "
        f"FIFO {r['fifo_hit_pct']:.1f}%, {r['fifo_evictions']:,}\n"
        f"on a replica, misses from storage: p50 {r['p50_ms']:.0f}, p99 {r['p99_ms']:.1f} ms"
    )


def lru_thrash_panel() -> Panel:
    """Move the VRAM budget, the tenants and the popularity skew; watch LRU and FIFO fall off the cliff (ch. 4)."""
    return Panel(
        "lru_thrash_panel",
        title="Hit rate against the adapter budget: the thrash cliff",
        controls=[
            Control("budget_mb", "adapter VRAM budget (MiB)", values=tuple(range(64, 1281, 64)), default=320),
            Control("tenants", "tenants (16 MiB adapters)", values=(10, 20, 30, 40, 60, 80), default=40),
            Control("zipf_s", "popularity skew s (Zipf)", values=(0.0, 0.5, 1.0, 1.5), default=1.0),
        ],
        compute=thrash_state,
        curve=thrash_curve,
        readout=_readout,
        chart=Lines(
            "budget_mb",
            (
                Series("lru_hit_pct", "LRU", OKABE_ITO["bluish_green"]),
                Series("fifo_hit_pct", "FIFO", OKABE_ITO["orange"], dashed=True),
            ),
            y_title="cache hit rate (%)",
            y_domain=(0, 100),
        ),
        note=f"Each state replays 2,000 seeded requests. The p50 and p99 route them (after {WARMUP} warmup "
        "requests) through chapter 8's replica, where a miss also fetches the adapter from storage.",
    )


#: The comparison's budgets: 16 MiB adapters, 2 to 48 of them (the working set of 40 tenants is 640 MiB).
YOUR_BUDGETS_MB = tuple(range(32, 769, 32))


def _hit_pct(cache_cls: Any, adapters: Any, budget_mb: float) -> float:
    run = replay_cache(cache_cls(budget_mb, CACHE_TRANSFER_MB_PER_MS), adapters, tenants=40, zipf_s=1.0)
    return 100 * run.hit_rate


def your_cache_state(lab: Implementation, budget_mb: float, zipf_s: float) -> dict[str, Any]:
    """Replay chapter 4's trace through the reference's LRU and FIFO caches and through ``lab``'s ``AdapterCache``.

    Every cache meets the same requests; each implementation's own adapters carry them (the learner's
    ``tenant_adapters``). A cache that exceeds its budget at any step stops the replay: the wall is the lab's
    first rule (``replay_cache`` checks it after every request).

    >>> from labcore.implementation import implementation
    >>> s = your_cache_state(implementation("reference"), 320, 1.0)
    >>> s["yours_hit_pct"] == s["lru_hit_pct"] > s["fifo_hit_pct"]
    True
    """
    trace = cache_trace_adapters(40, zipf_s)
    mine = lab.get("tenant_adapters")(40, vram_mb=ADAPTER_MB)
    yours = [mine[i] for i in cache_trace(40, zipf_s).tenant_index]
    return {
        "lru_hit_pct": _hit_pct(AdapterCache, trace, budget_mb),
        "fifo_hit_pct": _hit_pct(FifoAdapterCache, trace, budget_mb),
        "yours_hit_pct": _hit_pct(lab.get("AdapterCache"), yours, budget_mb),
    }


def _your_readout(r: Any, lab: Implementation) -> str:
    fits = min(int(r["budget_mb"] // ADAPTER_MB), 40)
    head = (
        f"{r['budget_mb']:g} MiB: room for {fits} of 40 adapters, skew {r['zipf_s']:.1f}\n"
        f"reference: LRU {r['lru_hit_pct']:.1f}% hits, FIFO {r['fifo_hit_pct']:.1f}%"
    )
    if lab.is_reference:
        return head + '\nin the live version, "mine" adds your own cache here'
    return head + f"\nyour AdapterCache: {r['yours_hit_pct']:.1f}% hits"


def your_cache_panel(lab: Implementation | None = None) -> Panel | Missing:
    """Draw the thrash curve of ``lab``'s cache (a learner's ``lab/mine``) beside the reference's LRU and FIFO (ch. 4).

    With the reference (the default) the panel shows the reference alone; on a learner's code whose cache is not
    written yet, it returns the :class:`~labcore.implementation.Missing` function to write.
    """

    def build(code: Implementation) -> Panel:
        series = [
            Series("lru_hit_pct", "reference LRU", OKABE_ITO["bluish_green"]),
            Series("fifo_hit_pct", "reference FIFO", OKABE_ITO["orange"], dashed=True),
        ]
        if not code.is_reference:
            series.append(Series("yours_hit_pct", "your AdapterCache", YOURS_COLOR))
        return Panel(
            "your_cache_panel",
            title="Your cache against the reference: the thrash curve",
            controls=[
                Control("budget_mb", "adapter VRAM budget (MiB)", values=YOUR_BUDGETS_MB, default=320),
                Control("zipf_s", "popularity skew s (Zipf)", values=(0.0, 1.0), default=1.0),
            ],
            compute=lambda budget_mb, zipf_s: your_cache_state(code, budget_mb, zipf_s),
            readout=lambda r: _your_readout(r, code),
            chart=Lines("budget_mb", tuple(series), y_title="cache hit rate (%)", y_domain=(0, 100)),
            note="Each state replays chapter 4's 2,000 seeded requests through each cache.",
            variant="" if code.is_reference else code.name,
        )

    return on_your_code(lab, build)
