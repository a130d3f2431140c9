"""Chapter 4's runs: a seeded trace replayed through one cache, the budget checked after every access.

:func:`replay_cache` sends one adapter per request through any cache and records the hits, evictions,
load time and VRAM in use after each; :func:`cache_runs` and :func:`budget_sweep` replay the same Zipf
trace through an LRU and a FIFO :class:`labcore.cache.AdapterCache`.

>>> runs = cache_runs(320)
>>> runs["LRU"].hit_rate > runs["FIFO"].hit_rate
True
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..._validate import count
from ...cache import AdapterCache, FifoAdapterCache
from ...links import LAB_HOST_TO_GPU
from ...refs import AdapterKey
from ..workload import Trace, Workload, make_trace

__all__ = [
    "CACHE_REQUESTS",
    "CACHE_WINDOW",
    "CACHE_SEED",
    "CACHE_TRANSFER_MB_PER_MS",
    "CacheRun",
    "cache_trace",
    "cache_trace_adapters",
    "replay_cache",
    "cache_runs",
    "budget_sweep",
]

CACHE_REQUESTS = 2_000  # long enough for a steady state, short enough for a 100 ms slider update
CACHE_WINDOW = 100
CACHE_SEED = 0
#: the lab's host-to-GPU copy (labcore.links.LAB_HOST_TO_GPU): a 16 MiB adapter loads in 2 ms
CACHE_TRANSFER_MB_PER_MS = LAB_HOST_TO_GPU.mb_per_ms


@dataclass(frozen=True, slots=True)
class CacheRun:
    """One trace replayed through one cache: totals, per-window series and the VRAM in use after each request.

    ``load_first_peak_mb[i]`` is the VRAM a cache that copied the new adapter *before* evicting its
    victims would hold during request ``i`` (equal to ``used_mb[i]`` when nothing was evicted).
    ``hot_evictions`` counts evictions of the most popular adapter (``hot_key``).
    """

    policy: str
    budget_mb: float
    tenants: int
    zipf_s: float
    working_set_mb: float
    requests: int
    hits: int
    evictions: int
    hot_key: AdapterKey | None
    hot_evictions: int
    load_ms: float
    window: int
    window_requests: tuple[int, ...]
    window_hits: tuple[int, ...]
    window_evictions: tuple[int, ...]
    window_load_ms: tuple[float, ...]
    used_mb: tuple[float, ...]
    load_first_peak_mb: tuple[float, ...]

    @property
    def hit_rate(self) -> float:
        """Hits over requests."""
        return self.hits / self.requests if self.requests else 0.0

    @property
    def misses(self) -> int:
        """Requests that had to load their adapter."""
        return self.requests - self.hits

    @property
    def first_load_first_oom(self) -> int | None:
        """The 1-based request at which a load-first cache would first exceed the budget (None if never)."""
        return next((i + 1 for i, p in enumerate(self.load_first_peak_mb) if p > self.budget_mb), None)


def replay_cache(
    cache: Any, adapters: Sequence[Any], *, tenants: int, zipf_s: float, window: int = CACHE_WINDOW
) -> CacheRun:
    """Send each adapter of ``adapters`` (one per request) through ``cache`` and record what happened.

    Asserts the budget invariant after every single request, as the contract tests do.

    >>> from labcore import AdapterCache, tenant_adapters
    >>> a, b, c = tenant_adapters(3)
    >>> run = replay_cache(AdapterCache(32, 8.0), [a, b, a, c], tenants=3, zipf_s=1.0, window=2)
    >>> run.hits, run.evictions, run.used_mb, run.load_first_peak_mb
    (1, 1, (16.0, 32.0, 32.0, 32.0), (16.0, 32.0, 32.0, 48.0))
    """
    count("window", window)
    counts: dict[AdapterKey, int] = {}
    sizes: dict[AdapterKey, float] = {}
    for a in adapters:
        counts[a.key] = counts.get(a.key, 0) + 1
        sizes[a.key] = a.vram_mb
    hot_key = max(counts, key=counts.__getitem__) if counts else None
    budget = cache.budget_mb
    access = cache.access
    used: list[float] = []
    peaks: list[float] = []
    w_req, w_hits, w_ev, w_ms = [], [], [], []
    hits = evictions = hot = 0
    load_ms = 0.0
    n_in = h_in = e_in = 0
    ms_in = 0.0
    for a in adapters:
        before = cache.used_mb
        step = access(a)
        after = cache.used_mb
        assert after <= budget, f"{cache!r} is over its budget after loading {a.key}"  # the hard wall
        used.append(after)
        peaks.append(before + a.vram_mb if step.evicted else after)
        n_in += 1
        if step.hit:
            h_in += 1
        else:
            e_in += len(step.evicted)
            ms_in += step.load_ms
            if hot_key in step.evicted:
                hot += 1
        if n_in == window:
            w_req.append(n_in)
            w_hits.append(h_in)
            w_ev.append(e_in)
            w_ms.append(ms_in)
            hits, evictions, load_ms = hits + h_in, evictions + e_in, load_ms + ms_in
            n_in = h_in = e_in = 0
            ms_in = 0.0
    if n_in:
        w_req.append(n_in)
        w_hits.append(h_in)
        w_ev.append(e_in)
        w_ms.append(ms_in)
        hits, evictions, load_ms = hits + h_in, evictions + e_in, load_ms + ms_in
    policy = "FIFO" if isinstance(cache, FifoAdapterCache) else "LRU"
    return CacheRun(
        policy=policy,
        budget_mb=budget,
        tenants=tenants,
        zipf_s=zipf_s,
        working_set_mb=sum(sizes.values()),
        requests=len(used),
        hits=hits,
        evictions=evictions,
        hot_key=hot_key,
        hot_evictions=hot,
        load_ms=load_ms,
        window=window,
        window_requests=tuple(w_req),
        window_hits=tuple(w_hits),
        window_evictions=tuple(w_ev),
        window_load_ms=tuple(w_ms),
        used_mb=tuple(used),
        load_first_peak_mb=tuple(peaks),
    )


@functools.lru_cache(maxsize=64)
def cache_trace(
    tenants: int = 40, zipf_s: float = 1.0, requests: int = CACHE_REQUESTS, seed: int = CACHE_SEED
) -> Trace:
    """Return chapter 4's seeded Zipf trace (a trace is immutable: made once per mix, as a panel sweep replays it
    at every budget).

    >>> cache_trace(40, 1.0) is cache_trace(40, 1.0), len(cache_trace(40, 1.0))
    (True, 2000)
    """
    return make_trace(Workload(tenants=tenants, requests=requests, zipf_s=zipf_s, seed=seed))


@functools.lru_cache(maxsize=64)
def cache_trace_adapters(
    tenants: int = 40, zipf_s: float = 1.0, requests: int = CACHE_REQUESTS, seed: int = CACHE_SEED
) -> tuple[Any, ...]:
    """Return the adapter each request of :func:`cache_trace` asks for, in order (what a cache replay sends).

    >>> [a.name for a in cache_trace_adapters(40, 1.0)[:3]]
    ['tenant-01', 'tenant-29', 'tenant-01']
    """
    trace = cache_trace(tenants, zipf_s, requests, seed)
    assert trace.workload is not None  # cache_trace keeps the workload it drew the trace from
    adapters = trace.workload.adapters()
    return tuple(adapters[i] for i in trace.tenant_index)


def cache_runs(
    budget_mb: float, tenants: int = 40, zipf_s: float = 1.0, *, requests: int = CACHE_REQUESTS, seed: int = CACHE_SEED
) -> dict[str, CacheRun]:
    """Replay one seeded Zipf trace of 16 MiB adapters through an LRU and a FIFO cache of ``budget_mb``.

    >>> runs = cache_runs(320, 40, 1.0)
    >>> runs["LRU"].hit_rate > runs["FIFO"].hit_rate, runs["LRU"].hot_evictions < runs["FIFO"].hot_evictions
    (True, True)
    """
    trace = cache_trace_adapters(tenants, zipf_s, requests, seed)
    return {
        policy: replay_cache(cls(budget_mb, CACHE_TRANSFER_MB_PER_MS), trace, tenants=tenants, zipf_s=zipf_s)
        for policy, cls in (("LRU", AdapterCache), ("FIFO", FifoAdapterCache))
    }


def budget_sweep(
    budgets_mb: Sequence[float],
    tenants: int = 40,
    zipf_s: float = 1.0,
    *,
    requests: int = CACHE_REQUESTS,
    seed: int = CACHE_SEED,
) -> dict[str, list[CacheRun]]:
    """Replay the same trace at each budget, LRU and FIFO: the data of the hit-rate-vs-budget curve.

    >>> [round(r.hit_rate, 3) for r in budget_sweep([320, 640])["LRU"]]
    [0.771, 0.98]
    """
    trace = cache_trace_adapters(tenants, zipf_s, requests, seed)
    return {
        policy: [
            replay_cache(cls(b, CACHE_TRANSFER_MB_PER_MS), trace, tenants=tenants, zipf_s=zipf_s) for b in budgets_mb
        ]
        for policy, cls in (("LRU", AdapterCache), ("FIFO", FifoAdapterCache))
    }
