"""Simulate a multi-LoRA replica on a seeded request trace: p50/p95/p99, hit rate, evictions.

A :class:`Workload` describes the traffic (tenants with Zipf-skewed popularity, a Poisson
arrival rate, tenants that join later); :func:`make_trace` turns it into a :class:`Trace` of
``(arrival_ms, ref)`` pairs; :func:`simulate` pushes the trace through a real router and returns
a :class:`SimResult`. Same workload, same seed, same numbers: simulated time comes from the trace,
never from the wall clock, and randomness only from ``random.Random(seed)``.

>>> w = Workload(tenants=4, requests=1_000, zipf_s=1.0, seed=7)
>>> result = simulate(lambda: standard_fleet(4, budget_mb=48.0), make_trace(w))   # room for 3 of 4
>>> result.requests, result.p50_ms, round(result.p99_ms, 2), result.misses, result.hit_rate
(1000, 42.0, 109.55, 180, 0.82)

Latency model: each request costs exactly the router's ``total_latency_ms`` (base latency times
``1 + dynamic_overhead``, plus the adapter load time on a miss). There is no compute queue; the
only waiting the simulator models is the in-flight admission queue of :mod:`labcore.admission`
(``hold_ms=...``), which adds the time a request waited for VRAM to its latency.

The end of the module holds the seeded scenarios the chapters quote and their panels draw: a
release history replayed through a registry (chapter 3), a trace replayed through one cache with
the budget checked after every access (chapter 4), customer #41's onboarding (chapter 5), and the
runs of chapters 8, 9 and 13.
"""

from __future__ import annotations

import functools
import heapq
import itertools
import math
import operator
import random
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from .adapter import Adapter, tenant_adapters
from .cache import AdapterCache, FifoAdapterCache
from .registry import AdapterRegistry
from .router import MODE_DYNAMIC, MODES, MultiLoRARouter, RouteDecision
from .tiers import OBJECT_STORE, PCIE4_X16, Link, TieredCache, single_tier_cache
from ._validate import count, number

__all__ = [
    "Join",
    "Workload",
    "Trace",
    "make_trace",
    "zipf_weights",
    "nearest_rank",
    "percentile",
    "percentiles",
    "Window",
    "SimResult",
    "simulate",
    "standard_fleet",
    "tenant_sweep",
    "DEFAULT_BASE",
    "DEFAULT_BASE_DIGEST",
    "ReleaseTimeline",
    "release_timeline",
    "CACHE_REQUESTS",
    "CACHE_WINDOW",
    "CACHE_SEED",
    "CACHE_TRANSFER_MB_PER_MS",
    "CacheRun",
    "replay_cache",
    "cache_runs",
    "budget_sweep",
    "ROUTER_BASE",
    "ROUTER_DIGEST",
    "route_examples",
    "CUSTOMER41_TENANTS",
    "CUSTOMER41_JOIN_MS",
    "customer41_run",
    "ONBOARDING_TENANTS",
    "ONBOARDING",
    "onboarding_runs",
    "onboarding_timeline",
    "SPILL_TENANTS",
    "SPILL",
    "spill_runs",
    "ADMISSION_POOLS",
    "ADMISSION",
    "admission_runs",
]

DEFAULT_BASE = "llama-3-8b"
DEFAULT_BASE_DIGEST = "sha256:llama-3-8b-demo"


# --------------------------------------------------------------------------- the workload
@dataclass(frozen=True, slots=True)
class Join:
    """Onboard tenant number ``tenant`` (1-based popularity rank) at simulated time ``at_ms``.

    Before ``at_ms`` the tenant sends nothing; from then on it gets its Zipf share.

    >>> Join(at_ms=60_000, tenant=41)
    Join(at_ms=60000.0, tenant=41)
    """

    at_ms: float
    tenant: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "at_ms", number("Join.at_ms", self.at_ms, inclusive=True))
        count("Join.tenant", self.tenant)


@dataclass(frozen=True, slots=True)
class Workload:
    """Describe the traffic of one simulation: who asks, how skewed, how fast, with which seed.

    * ``tenants`` adapters ``tenant-01`` .. ``tenant-NN``; tenant *i* has popularity weight
      ``1 / i**zipf_s`` (``zipf_s=0`` is uniform, ``1`` is classic Zipf, larger is more skewed);
    * ``requests`` arrivals, Poisson at ``rate_per_s`` requests per second of simulated time;
    * ``joins``: tenants that only start sending at some time (``Join(60_000, 41)``);
    * ``adapter_mb`` / ``rank``: every tenant's adapter (16 MiB is Llama-3-8B, r=16 on q and v);
    * ``base_share``: the fraction of requests that name no adapter (served by the bare base).

    >>> Workload(tenants=3, requests=10, zipf_s=-1)
    Traceback (most recent call last):
    ...
    ValueError: zipf_s must be a finite number >= 0, got -1
    """

    tenants: int
    requests: int
    zipf_s: float = 1.0
    rate_per_s: float = 200.0
    seed: int = 0
    adapter_mb: float = 16.0
    rank: int = 16
    joins: tuple[Join, ...] = ()
    base_share: float = 0.0
    base_model: str = DEFAULT_BASE

    def __post_init__(self) -> None:
        count("tenants", self.tenants)
        count("requests", self.requests)
        object.__setattr__(self, "zipf_s", number("zipf_s", self.zipf_s, inclusive=True))
        object.__setattr__(self, "rate_per_s", number("rate_per_s", self.rate_per_s))
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise ValueError(f"seed must be an int, got {self.seed!r}")
        object.__setattr__(self, "adapter_mb", number("adapter_mb", self.adapter_mb))
        count("rank", self.rank)
        joins = tuple(self.joins)
        for join in joins:
            if not isinstance(join, Join):
                raise ValueError(f"joins must hold Join records, got {join!r}")
            if join.tenant > self.tenants:
                raise ValueError(f"{join} names tenant #{join.tenant}, but the workload has tenants 1..{self.tenants}")
        if len({j.tenant for j in joins}) != len(joins):
            raise ValueError(f"each tenant may join once, got {joins!r}")
        if len(joins) >= self.tenants and not any(j.at_ms == 0 for j in joins):
            raise ValueError("at least one tenant must be active at t=0 (every tenant has a later Join)")
        object.__setattr__(self, "joins", joins)
        share = self.base_share
        if isinstance(share, bool) or not isinstance(share, (int, float)) or not 0 <= share < 1:
            raise ValueError(f"base_share must be a fraction in [0, 1), got {share!r}")
        object.__setattr__(self, "base_share", float(share))
        if not isinstance(self.base_model, str) or not self.base_model:
            raise ValueError(f"base_model must be a non-empty string, got {self.base_model!r}")

    @property
    def duration_ms(self) -> float:
        """The expected length of the trace: ``requests / rate``."""
        return self.requests / self.rate_per_s * 1000.0

    def adapters(self) -> list[Adapter]:
        """Return the tenants' adapters, most popular first."""
        return tenant_adapters(
            self.tenants, vram_mb=self.adapter_mb, rank=self.rank, base_model=self.base_model,
            base_digest=DEFAULT_BASE_DIGEST,
        )

    def refs(self) -> list[str]:
        """Return the model ref each tenant sends, most popular first."""
        return [f"{self.base_model}:{a.name}" for a in self.adapters()]


def zipf_weights(n: int, s: float) -> list[float]:
    """Return the Zipf popularity weights ``1 / i**s`` for ranks 1..n, normalised to sum to 1.

    >>> [round(w, 3) for w in zipf_weights(3, 1.0)]
    [0.545, 0.273, 0.182]
    >>> zipf_weights(2, 0.0)
    [0.5, 0.5]
    """
    count("n", n)
    number("s", s, inclusive=True)
    raw = [1.0 / i**s for i in range(1, n + 1)]
    total = math.fsum(raw)
    return [w / total for w in raw]


# --------------------------------------------------------------------------- the trace
@dataclass(frozen=True, slots=True, eq=False)
class Trace:
    """A request trace: arrival times (ms, non-decreasing) and the model ref of each request.

    ``tenant_index`` is each request's tenant (0-based popularity rank, -1 for a base request).
    Two traces are equal when their arrivals and refs are equal.
    """

    arrival_ms: tuple[float, ...]
    refs: tuple[str, ...]
    tenant_index: tuple[int, ...] = ()
    workload: Workload | None = None

    def __post_init__(self) -> None:
        if len(self.arrival_ms) != len(self.refs):
            raise ValueError(f"a trace needs one arrival per ref, got {len(self.arrival_ms)} arrivals and {len(self.refs)} refs")
        if self.tenant_index and len(self.tenant_index) != len(self.refs):
            raise ValueError(f"tenant_index must be empty or one per ref, got {len(self.tenant_index)} for {len(self.refs)} refs")
        if not all(map(operator.le, self.arrival_ms, self.arrival_ms[1:])):
            raise ValueError("arrival_ms must be non-decreasing")

    def __len__(self) -> int:
        return len(self.refs)

    def __iter__(self) -> Iterator[tuple[float, str]]:
        return zip(self.arrival_ms, self.refs)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Trace):
            return NotImplemented
        return self.arrival_ms == other.arrival_ms and self.refs == other.refs

    __hash__ = None  # type: ignore[assignment]

    @property
    def duration_ms(self) -> float:
        """The time of the last arrival (0 for an empty trace)."""
        return self.arrival_ms[-1] if self.arrival_ms else 0.0

    @classmethod
    def from_pairs(cls, pairs: Sequence[tuple[float, str]]) -> Trace:
        """Build a trace from ``(arrival_ms, ref)`` pairs (handy in tests).

        >>> len(Trace.from_pairs([(0.0, "llama-3-8b"), (5.0, "llama-3-8b:tenant-01")]))
        2
        """
        return cls(tuple(float(t) for t, _ in pairs), tuple(r for _, r in pairs))


def make_trace(workload: Workload) -> Trace:
    """Generate the seeded trace of ``workload``: Poisson arrivals, Zipf-popular tenants, joins.

    >>> t = make_trace(Workload(tenants=3, requests=5, seed=1))
    >>> [r.split(":")[1] for r in t.refs]
    ['tenant-01', 'tenant-02', 'tenant-02', 'tenant-01', 'tenant-01']
    >>> t == make_trace(Workload(tenants=3, requests=5, seed=1))
    True
    """
    rng = random.Random(workload.seed)
    n = workload.requests
    # Poisson arrivals: exponential gaps -ln(1 - U) / rate, built from C-level maps (fast).
    rand = rng.random
    scale = -1000.0 / workload.rate_per_s
    gaps = map(scale.__mul__, map(math.log, map((1.0).__sub__, [rand() for _ in range(n)])))
    arrivals = list(itertools.accumulate(gaps))
    weights = [1.0 / i**workload.zipf_s for i in range(1, workload.tenants + 1)]
    join_at = {j.tenant - 1: j.at_ms for j in workload.joins}
    # Popularity only changes when someone joins: one inverse-CDF draw per segment between joins.
    cuts = sorted({j.at_ms for j in workload.joins if j.at_ms > 0})
    tenants: list[int] = []
    start = 0
    for boundary in [*cuts, math.inf]:
        end = bisect_left(arrivals, boundary, lo=start)
        if end > start:
            seg_t = arrivals[start]
            cum = list(itertools.accumulate(w if join_at.get(i, 0.0) <= seg_t else 0.0 for i, w in enumerate(weights)))
            total = cum[-1]
            draws = map(total.__mul__, [rand() for _ in range(end - start)])
            tenants.extend(map(bisect_right, itertools.repeat(cum), draws))
        start = end
    refs_by_tenant = workload.refs()
    if workload.base_share > 0:
        share = workload.base_share
        tenants = [-1 if rand() < share else t for t in tenants]
        lookup = [*refs_by_tenant, workload.base_model]  # index -1 is the bare base
    else:
        lookup = refs_by_tenant
    refs = tuple(map(lookup.__getitem__, tenants))
    return Trace(tuple(arrivals), refs, tuple(tenants), workload)


# --------------------------------------------------------------------------- percentiles
def percentile(values: Sequence[float], p: float) -> float:
    """Return the nearest-rank ``p``-th percentile: the smallest value with at least p% of values <= it.

    Exactly: sort the n values, take the one at 1-based rank ``ceil(p/100 * n)`` (rank 1 for p=0).
    No interpolation, so the answer is always one of the observed latencies.

    >>> percentile([15, 20, 35, 40, 50], 30), percentile([15, 20, 35, 40, 50], 40), percentile([15, 20, 35, 40, 50], 100)
    (20, 20, 50)
    >>> percentile([], 50)
    Traceback (most recent call last):
    ...
    ValueError: percentile of an empty sequence is undefined
    """
    return percentiles(values, (p,))[0]


def nearest_rank(p: float, n: int) -> int:
    """Return the 1-based rank of the ``p``-th percentile among ``n`` sorted values (nearest-rank method).

    >>> nearest_rank(99, 200), nearest_rank(50, 5)
    (198, 3)
    """
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 100:
        raise ValueError(f"percentile p must be a number in [0, 100], got {p!r}")
    # p/100*n in exact rational arithmetic via integers where possible, to avoid 0.95*100 = 94.999...
    rank = math.ceil(round(p * n, 9) / 100)
    return max(1, min(n, rank))


def percentiles(values: Sequence[float] | Counter, ps: Sequence[float]) -> tuple[float, ...]:
    """Return nearest-rank percentiles for each ``p`` in ``ps`` (one pass; accepts a value Counter).

    >>> percentiles([1, 2, 3, 4, 100], (50, 99))
    (3, 100)
    """
    counts = values if isinstance(values, Counter) else Counter(values)
    n = sum(counts.values())
    if n == 0:
        raise ValueError("percentile of an empty sequence is undefined")
    ranks = [nearest_rank(p, n) for p in ps]
    order = sorted(range(len(ranks)), key=ranks.__getitem__)
    out: list[float] = [0.0] * len(ranks)
    seen = 0
    k = 0
    for value in sorted(counts):
        seen += counts[value]
        while k < len(order) and ranks[order[k]] <= seen:
            out[order[k]] = value
            k += 1
        if k == len(order):
            break
    return tuple(out)


# --------------------------------------------------------------------------- results
@dataclass(frozen=True, slots=True)
class Window:
    """One slice of simulated time: how many requests arrived, their hit rate and latency tail."""

    start_ms: float
    end_ms: float
    requests: int
    misses: int
    evictions: int
    hit_rate: float
    p50_ms: float
    p95_ms: float
    p99_ms: float


@dataclass(frozen=True, slots=True)
class SimResult:
    """The outcome of one simulation: latency percentiles, cache behaviour, a time series.

    ``hit_rate`` is over the adapter (dynamic) requests counted; ``misses``/``evictions`` too.
    Requests before ``warmup`` are routed (they warm the cache) but left out of every statistic
    except ``windows``, which always covers the whole trace (equal slices of time for plots);
    ``phases`` hold exact statistics between the ``phases=`` boundaries, after the warmup. ``refused`` requests (admission
    queue full) have no latency and are left out of the percentiles.
    """

    requests: int
    p50_ms: float
    p95_ms: float
    p99_ms: float
    mean_ms: float
    max_ms: float
    hit_rate: float
    hits: int
    misses: int
    evictions: int
    by_mode: dict[str, int]
    windows: tuple[Window, ...]
    warmup: int = 0
    queued: int = 0
    refused: int = 0
    max_wait_ms: float = 0.0
    phases: tuple[Window, ...] = ()

    def __post_init__(self) -> None:
        if self.hits + self.misses > self.requests:
            raise ValueError(f"hits + misses ({self.hits} + {self.misses}) exceed the requests ({self.requests})")

    def summary(self) -> dict[str, float]:
        """Return the headline numbers as a flat dict (for tables and glue)."""
        return {
            "requests": self.requests, "p50_ms": self.p50_ms, "p95_ms": self.p95_ms, "p99_ms": self.p99_ms,
            "hit_rate": round(self.hit_rate, 6), "misses": self.misses, "evictions": self.evictions,
        }


# --------------------------------------------------------------------------- the fleet
def standard_fleet(
    tenants: int | Workload,
    *,
    budget_mb: float,
    adapter_mb: float = 16.0,
    rank: int = 16,
    storage: Link = OBJECT_STORE,
    pcie: Link = PCIE4_X16,
    base_latency_ms: float = 40.0,
    dynamic_overhead: float = 0.05,
    cache: Any = None,
    base_model: str = DEFAULT_BASE,
) -> MultiLoRARouter:
    """Build a registry of ``tenants`` adapters, a VRAM cache and a router over them: one replica.

    Pass a :class:`Workload` instead of a count to take its tenants, adapter size and rank. The
    cache is GPU-only: a miss fetches the adapter from ``storage`` and copies it over ``pcie``
    (see :func:`labcore.tiers.single_tier_cache`); ``cache`` replaces it (e.g. with a
    :class:`labcore.tiers.TieredCache`).

    >>> router = standard_fleet(40, budget_mb=640)
    >>> router.cache.budget_mb, len(router.registry), round(router.route("llama-3-8b:tenant-07").adapter_load_ms, 2)
    (640.0, 40, 67.55)
    """
    if isinstance(tenants, Workload):
        adapter_mb, rank, base_model, tenants = tenants.adapter_mb, tenants.rank, tenants.base_model, tenants.tenants
    registry = AdapterRegistry()
    registry.register_base(base_model, DEFAULT_BASE_DIGEST)
    for adapter in tenant_adapters(tenants, vram_mb=adapter_mb, rank=rank, base_model=base_model,
                                   base_digest=DEFAULT_BASE_DIGEST):
        registry.register(adapter)
    if cache is None:
        cache = single_tier_cache(budget_mb, storage=storage, pcie=pcie)
    return MultiLoRARouter(registry, cache, base_model, base_latency_ms=base_latency_ms,
                           dynamic_overhead=dynamic_overhead)


# --------------------------------------------------------------------------- simulate
class Router(Protocol):
    """Anything that routes a ref to a :class:`RouteDecision` (one replica or a whole fleet)."""

    def route(self, ref: str, *, pin: bool = False) -> RouteDecision: ...


RouterOrFactory = Router | Callable[[], Router]
Progress = Callable[[int, int], None]


def _windows(arrivals: Sequence[float], latency: Sequence[float], miss_at: Sequence[int],
             miss_evictions: Sequence[int], dynamic: Sequence[int], edges: Sequence[float],
             served: Sequence[bool] | None, first: int = 0) -> tuple[Window, ...]:
    """Slice the run at the time ``edges`` (first = start, last = end) and summarise each slice.

    Requests before index ``first`` (the warmup) are left out of every slice.
    """
    n = len(arrivals)
    out = []
    lo = first
    for k in range(len(edges) - 1):
        w_start, w_end = edges[k], edges[k + 1]
        hi = n if k == len(edges) - 2 else max(lo, bisect_left(arrivals, w_end, lo=lo))
        m_lo, m_hi = bisect_left(miss_at, lo), bisect_left(miss_at, hi)
        misses = m_hi - m_lo
        if served is None:
            lat = latency[lo:hi]
        else:
            lat = [x for x, ok in zip(latency[lo:hi], served[lo:hi]) if ok]
        dyn = dynamic[hi] - dynamic[lo]
        p50, p95, p99 = percentiles(lat, (50, 95, 99)) if lat else (0.0, 0.0, 0.0)
        out.append(Window(w_start, w_end, hi - lo, misses, sum(miss_evictions[m_lo:m_hi]),
                          (dyn - misses) / dyn if dyn else 1.0, p50, p95, p99))
        lo = hi
    return tuple(out)


def _edges(arrivals: Sequence[float], count: int) -> list[float]:
    if not arrivals or count == 0:
        return []
    end = arrivals[-1]
    width = end / count if end > 0 else 1.0
    return [k * width for k in range(count)] + [end]


def simulate(
    router: RouterOrFactory,
    trace: Trace,
    *,
    windows: int = 40,
    warmup: int = 0,
    progress: Progress | None = None,
    progress_every: int = 100_000,
    hold_ms: float | None = None,
    max_queue: int = 64,
    phases: Sequence[float] = (),
) -> SimResult:
    """Route every request of ``trace`` through ``router`` and measure what each one cost.

    ``router`` is a router (anything with ``route(ref)``) or a zero-argument factory that builds a
    fresh one (preferred: every run then starts cold and runs are independent). ``warmup``
    requests are routed but excluded from the statistics. ``windows`` equal slices of simulated
    time give the time series for plots; ``phases`` (boundaries in ms, e.g. the time a tenant
    joins) give exact statistics for "before" and "after". ``progress(done, total)`` is called
    every ``progress_every`` requests and at the end.

    With ``hold_ms`` set, each request pins its adapter while in flight — from admission to
    admission + its latency + ``hold_ms`` — through a :class:`labcore.admission.AdmissionController`
    with a FIFO queue of ``max_queue``; a request that waited has the wait added to its latency,
    and one that found the queue full is counted in ``refused`` (and has no latency).

    >>> trace = Trace.from_pairs([(0, "llama-3-8b:tenant-01"), (1, "llama-3-8b:tenant-01"), (2, "llama-3-8b")])
    >>> r = simulate(lambda: standard_fleet(2, budget_mb=16), trace, windows=1)
    >>> r.misses, r.hits, r.by_mode["base"], round(r.p99_ms, 2)
    (1, 1, 1, 109.55)
    """
    if not hasattr(router, "route"):
        router = router()
    if isinstance(windows, bool) or not isinstance(windows, int) or windows < 0:
        raise ValueError(f"windows must be an int >= 0, got {windows!r}")
    n = len(trace)
    if isinstance(warmup, bool) or not isinstance(warmup, int) or not 0 <= warmup < max(n, 1):
        raise ValueError(f"warmup must be an int in [0, {max(n - 1, 0)}] for a trace of {n} requests, got {warmup!r}")
    if isinstance(progress_every, bool) or not isinstance(progress_every, int) or progress_every < 1:
        raise ValueError(f"progress_every must be a positive int, got {progress_every!r}")
    bounds = sorted(float(b) for b in phases)
    if any(not 0 < b < math.inf for b in bounds):
        raise ValueError(f"phases must be times in ms inside the trace, got {tuple(phases)!r}")
    if hold_ms is None:
        log = _run_plain(router, trace, progress, progress_every)
    else:
        log = _run_in_flight(router, trace, progress, progress_every,
                             number("hold_ms", hold_ms, inclusive=True), max_queue)
    return log.result(trace.arrival_ms, warmup, windows, bounds)


class _Log:
    """What a run recorded, per request, in the cheapest form the statistics need."""

    __slots__ = ("latency", "served", "dynamic_prefix", "miss_at", "miss_evictions", "other_modes", "waits")

    def __init__(self, n: int) -> None:
        self.latency = [0.0] * n
        self.served: list[bool] | None = None  # None: every request was served
        self.dynamic_prefix = [0] * (n + 1)  # dynamic requests among the first i
        self.miss_at: list[int] = []  # request indices of cache misses, ascending
        self.miss_evictions: list[int] = []  # evictions caused by each miss
        self.other_modes: list[tuple[int, str]] = []  # (index, mode) of base/dedicated requests
        self.waits: list[tuple[int, float]] = []  # (index, wait_ms) of requests that queued

    def result(self, arrivals: Sequence[float], warmup: int, windows: int, bounds: list[float]) -> SimResult:
        n = len(self.latency)
        served = self.served
        if served is None:
            counted = self.latency[warmup:] if warmup else self.latency
            refused = 0
        else:
            counted = [x for x, ok in zip(self.latency[warmup:], served[warmup:]) if ok]
            refused = (n - warmup) - len(counted)
        if counted:
            counts = Counter(counted)
            p50, p95, p99 = percentiles(counts, (50, 95, 99))
            mean, worst = math.fsum(counted) / len(counted), max(counts)
        else:
            p50 = p95 = p99 = mean = worst = 0.0
        first = bisect_left(self.miss_at, warmup)
        misses = len(self.miss_at) - first
        dynamic = self.dynamic_prefix[n] - self.dynamic_prefix[warmup]
        by_mode = {mode: 0 for mode in MODES}
        by_mode[MODE_DYNAMIC] = dynamic
        for index, mode in self.other_modes:
            if index >= warmup:
                by_mode[mode] += 1
        waits = [w for index, w in self.waits if index >= warmup]
        return SimResult(
            requests=n - warmup, p50_ms=p50, p95_ms=p95, p99_ms=p99, mean_ms=round(mean, 9), max_ms=worst,
            hit_rate=(dynamic - misses) / dynamic if dynamic else 1.0, hits=dynamic - misses, misses=misses,
            evictions=sum(self.miss_evictions[first:]), by_mode=by_mode,
            windows=_windows(arrivals, self.latency, self.miss_at, self.miss_evictions, self.dynamic_prefix,
                             _edges(arrivals, windows), served),
            warmup=warmup, queued=len(waits), refused=refused, max_wait_ms=max(waits, default=0.0),
            phases=_windows(arrivals, self.latency, self.miss_at, self.miss_evictions, self.dynamic_prefix,
                            [0.0, *bounds, arrivals[-1] if arrivals else 0.0], served, warmup) if bounds else (),
        )


def _run_plain(router: Router, trace: Trace, progress: Progress | None, every: int) -> _Log:
    n = len(trace)
    log = _Log(n)
    refs = trace.refs
    route = router.route
    decisions: list[RouteDecision] = []
    if progress is None:
        decisions = list(map(route, refs))  # the hot loop runs in C: map over the bound method
    else:
        for start in range(0, n, every):
            stop = min(n, start + every)
            decisions.extend(map(route, refs[start:stop]))
            progress(stop, n)
    log.latency = list(map(operator.attrgetter("total_latency_ms"), decisions))
    hits = list(map(operator.attrgetter("cache_hit"), decisions))  # True/False: dynamic; None: other
    log.miss_at = [i for i, hit in enumerate(hits) if hit is False]
    log.miss_evictions = [len(decisions[i].evicted) for i in log.miss_at]
    log.other_modes = [(i, decisions[i].mode) for i, hit in enumerate(hits) if hit is None]
    log.dynamic_prefix = list(itertools.accumulate(map(operator.is_not, hits, itertools.repeat(None)), initial=0))
    return log


def _run_in_flight(router: Router, trace: Trace, progress: Progress | None, every: int,
                   hold_ms: float, max_queue: int) -> _Log:
    from .admission import AdmissionController, QueueFullError  # admission does not import sim

    controller = AdmissionController(router, max_queue=max_queue)
    n = len(trace)
    log = _Log(n)
    log.served = served = [True] * n
    arrivals, refs, latency = trace.arrival_ms, trace.refs, log.latency
    dyn_flags = bytearray(n)
    misses: list[tuple[int, int]] = []
    finishing: list[tuple[float, int, int]] = []  # (finish_ms, request index, ticket id)

    def admitted(index: int, ticket_id: int, decision: RouteDecision, at_ms: float) -> None:
        wait = at_ms - arrivals[index]
        if wait > 0:
            log.waits.append((index, wait))
        latency[index] = wait + decision.total_latency_ms
        if decision.mode == MODE_DYNAMIC:
            dyn_flags[index] = 1
            if not decision.cache_hit:
                misses.append((index, len(decision.evicted)))
        else:
            log.other_modes.append((index, decision.mode))
        heapq.heappush(finishing, (at_ms + decision.total_latency_ms + hold_ms, index, ticket_id))

    def finish_until(t: float) -> None:
        while finishing and finishing[0][0] <= t:
            done_ms, _, ticket_id = heapq.heappop(finishing)
            for adm in controller.finish(ticket_id):
                admitted(adm.ticket.tag, adm.ticket.id, adm.decision, done_ms)

    for i in range(n):
        finish_until(arrivals[i])
        try:
            adm = controller.start(refs[i], tag=i)
        except QueueFullError:
            served[i] = False
            continue
        if adm.decision is not None:
            admitted(i, adm.ticket.id, adm.decision, arrivals[i])
        if progress is not None and (i + 1) % every == 0:
            progress(i + 1, n)
    finish_until(math.inf)
    if controller.queue_length:
        raise RuntimeError(f"{controller.queue_length} request(s) still queued after every request finished")
    if progress is not None:
        progress(n, n)
    misses.sort()
    log.miss_at = [i for i, _ in misses]
    log.miss_evictions = [e for _, e in misses]
    log.other_modes.sort()
    log.waits.sort()
    prefix = log.dynamic_prefix
    for i in range(n):
        prefix[i + 1] = prefix[i] + dyn_flags[i]
    return log


def tenant_sweep(
    tenant_counts: Sequence[int],
    *,
    budget_mb: float,
    zipf_s: float = 0.5,
    requests: int = 20_000,
    seed: int = 0,
    warmup: int = 2_000,
    cache_factory: Callable[[], Any] | None = None,
    **workload_options: Any,
) -> dict[int, SimResult]:
    """Simulate the same pool under each tenant count: ``{tenants: SimResult}`` (steady state).

    Each run is a fresh replica (``standard_fleet``, or the cache ``cache_factory()`` builds) on
    its own seeded trace; the first ``warmup`` requests fill the cache and are not counted.

    >>> cliff = tenant_sweep([40, 41], budget_mb=640, requests=20_000, seed=41)
    >>> [(n, r.p99_ms == 42.0, round(100 * (1 - r.hit_rate), 1)) for n, r in cliff.items()]
    [(40, True, 0.0), (41, False, 1.8)]
    """
    out: dict[int, SimResult] = {}
    for tenants in tenant_counts:
        workload = Workload(tenants=tenants, requests=requests, zipf_s=zipf_s, seed=seed, **workload_options)
        cache = cache_factory() if cache_factory is not None else None
        out[tenants] = simulate(standard_fleet(workload, budget_mb=budget_mb, cache=cache), make_trace(workload),
                                warmup=warmup, windows=0)
    return out


# --------------------------------------------------------------------------- chapter scenarios
# The seeded runs the chapters quote and their panels draw. Each is a plain function of its
# arguments (no memo here: a panel that redraws often keeps its own memo in labcore.widgets).


# --- chapter 03: a release history replayed through a real registry


@dataclass(frozen=True, slots=True)
class ReleaseTimeline:
    """What unpinned traffic got after each release of one adapter, under semver and under a string sort.

    ``versions[i]`` is the i-th release (``1.0.0``, ``1.1.0``, ...); ``semver_latest[i]`` is what
    ``AdapterRegistry.resolve(name)`` returned right after it, and ``string_latest[i]`` what
    ``max(registry.versions(name))`` (plain string comparison) returned. Each release is live
    for one equal period of unpinned traffic.
    """

    name: str
    versions: tuple[str, ...]
    semver_latest: tuple[str, ...]
    string_latest: tuple[str, ...]

    @property
    def stale_periods(self) -> int:
        """Periods in which the string sort served an older version than semver."""
        return sum(s != v for s, v in zip(self.string_latest, self.semver_latest))

    @property
    def stale_share(self) -> float:
        """The share of unpinned traffic that a string-sorting router sent to a stale version."""
        return self.stale_periods / len(self.versions)

    @property
    def first_stale(self) -> int | None:
        """The index of the first release after which the string sort was wrong (None if never)."""
        return next((i for i, (s, v) in enumerate(zip(self.string_latest, self.semver_latest)) if s != v), None)

    @property
    def releases_behind(self) -> int:
        """How many releases the string sort's "latest" trails the real latest, at the end."""
        return self.versions.index(self.semver_latest[-1]) - self.versions.index(self.string_latest[-1])


def release_timeline(minor_releases: int, *, name: str = "support-bot") -> ReleaseTimeline:
    """Publish ``name`` 1.0.0, 1.1.0, ... 1.N.0 into a real registry and record what "latest" resolves to.

    >>> t = release_timeline(12)
    >>> t.semver_latest[-1], t.string_latest[-1], t.releases_behind, t.stale_periods
    ('1.12.0', '1.9.0', 3, 3)
    """
    if isinstance(minor_releases, bool) or not isinstance(minor_releases, int) or minor_releases < 0:
        raise ValueError(f"minor_releases must be an int >= 0, got {minor_releases!r}")
    registry = AdapterRegistry()
    registry.register_base("llama-3-8b", "sha256:llama-3-8b-demo")
    versions, semver, string = [], [], []
    for minor in range(minor_releases + 1):
        version = f"1.{minor}.0"
        registry.register(Adapter(name, version, "llama-3-8b", "sha256:llama-3-8b-demo", rank=16, vram_mb=16.0))
        versions.append(version)
        semver.append(registry.resolve(name).version)
        string.append(max(registry.versions(name)))  # the bug: compares strings character by character
    return ReleaseTimeline(name, tuple(versions), tuple(semver), tuple(string))


# --- chapter 04: a trace replayed through one cache, checking the budget after every access

CACHE_REQUESTS = 2_000  # long enough for a steady state, short enough for a 100 ms slider update
CACHE_WINDOW = 100
CACHE_SEED = 0
CACHE_TRANSFER_MB_PER_MS = 8.0  # host-to-device at 8 GB/s: a 16 MiB adapter loads in 2 ms


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
    hot_key: str
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


def replay_cache(cache: Any, adapters: Sequence[Any], *, tenants: int, zipf_s: float,
                 window: int = CACHE_WINDOW) -> CacheRun:
    """Send each adapter of ``adapters`` (one per request) through ``cache`` and record what happened.

    Asserts the budget invariant after every single request, as the contract tests do.

    >>> from labcore import AdapterCache, tenant_adapters
    >>> a, b, c = tenant_adapters(3)
    >>> run = replay_cache(AdapterCache(32, 8.0), [a, b, a, c], tenants=3, zipf_s=1.0, window=2)
    >>> run.hits, run.evictions, run.used_mb, run.load_first_peak_mb
    (1, 1, (16.0, 32.0, 32.0, 32.0), (16.0, 32.0, 32.0, 48.0))
    """
    if isinstance(window, bool) or not isinstance(window, int) or window < 1:
        raise ValueError(f"window must be a positive int, got {window!r}")
    counts: dict[str, int] = {}
    sizes: dict[str, float] = {}
    for a in adapters:
        counts[a.key] = counts.get(a.key, 0) + 1
        sizes[a.key] = a.vram_mb
    hot_key = max(counts, key=counts.__getitem__) if counts else ""
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
            w_req.append(n_in), w_hits.append(h_in), w_ev.append(e_in), w_ms.append(ms_in)
            hits, evictions, load_ms = hits + h_in, evictions + e_in, load_ms + ms_in
            n_in = h_in = e_in = 0
            ms_in = 0.0
    if n_in:
        w_req.append(n_in), w_hits.append(h_in), w_ev.append(e_in), w_ms.append(ms_in)
        hits, evictions, load_ms = hits + h_in, evictions + e_in, load_ms + ms_in
    policy = "FIFO" if isinstance(cache, FifoAdapterCache) else "LRU"
    return CacheRun(policy, budget, tenants, zipf_s, sum(sizes.values()), len(used), hits, evictions, hot_key, hot,
                    load_ms, window, tuple(w_req), tuple(w_hits), tuple(w_ev), tuple(w_ms), tuple(used), tuple(peaks))


def _trace_adapters(tenants: int, zipf_s: float, requests: int, seed: int) -> list[Any]:
    workload = Workload(tenants=tenants, requests=requests, zipf_s=zipf_s, seed=seed)
    adapters = workload.adapters()
    return [adapters[i] for i in make_trace(workload).tenant_index]


def cache_runs(budget_mb: float, tenants: int = 40, zipf_s: float = 1.0, *, requests: int = CACHE_REQUESTS,
               seed: int = CACHE_SEED) -> dict[str, CacheRun]:
    """Replay one seeded Zipf trace of 16 MiB adapters through an LRU and a FIFO cache of ``budget_mb``.

    >>> runs = cache_runs(320, 40, 1.0)
    >>> runs["LRU"].hit_rate > runs["FIFO"].hit_rate, runs["LRU"].hot_evictions < runs["FIFO"].hot_evictions
    (True, True)
    """
    trace = _trace_adapters(tenants, zipf_s, requests, seed)
    return {
        policy: replay_cache(cls(budget_mb, CACHE_TRANSFER_MB_PER_MS), trace, tenants=tenants, zipf_s=zipf_s)
        for policy, cls in (("LRU", AdapterCache), ("FIFO", FifoAdapterCache))
    }


def budget_sweep(budgets_mb: Sequence[float], tenants: int = 40, zipf_s: float = 1.0, *,
                 requests: int = CACHE_REQUESTS, seed: int = CACHE_SEED) -> dict[str, list[CacheRun]]:
    """Replay the same trace at each budget, LRU and FIFO: the data of the hit-rate-vs-budget curve.

    >>> [round(r.hit_rate, 3) for r in budget_sweep([320, 640])["LRU"]]
    [0.771, 0.98]
    """
    trace = _trace_adapters(tenants, zipf_s, requests, seed)
    return {
        policy: [replay_cache(cls(b, CACHE_TRANSFER_MB_PER_MS), trace, tenants=tenants, zipf_s=zipf_s)
                 for b in budgets_mb]
        for policy, cls in (("LRU", AdapterCache), ("FIFO", FifoAdapterCache))
    }


# --- chapter 05: one request of each kind, and customer #41's onboarding

ROUTER_BASE = "llama-3-8b"
ROUTER_DIGEST = "sha256:llama-3-8b-demo"
CUSTOMER41_TENANTS = 41  # customer #41 joins a pool sized for 40
CUSTOMER41_JOIN_MS = 50_000.0


def route_examples(base_latency_ms: float = 40.0, dynamic_overhead: float = 0.05, adapter_vram_mb: float = 16.0,
                   transfer_mb_per_ms: float = 8.0) -> dict[str, Any]:
    """Route one request of each kind through a fresh router: base, dedicated, dynamic miss, dynamic hit.

    Returns ``{label: RouteDecision}`` from the real ``MultiLoRARouter`` (a merged ``flagship`` adapter and a
    dynamic ``support-bot``), so the latency parts in the figure are the router's own numbers.

    >>> d = route_examples()
    >>> [(k, v.mode, v.total_latency_ms) for k, v in d.items()]
    [('base', 'base', 40.0), ('dedicated', 'dedicated', 40.0), ('dynamic miss', 'dynamic', 44.0), ('dynamic hit', 'dynamic', 42.0)]
    """
    registry = AdapterRegistry()
    registry.register_base(ROUTER_BASE, ROUTER_DIGEST)
    registry.register(Adapter("support-bot", "2.1.0", ROUTER_BASE, ROUTER_DIGEST, rank=16, vram_mb=adapter_vram_mb))
    registry.register(Adapter("flagship", "1.0.0", ROUTER_BASE, ROUTER_DIGEST, rank=16, vram_mb=adapter_vram_mb,
                              merged=True))
    cache = AdapterCache(max(1024.0, adapter_vram_mb), transfer_mb_per_ms)
    router = MultiLoRARouter(registry, cache, ROUTER_BASE, base_latency_ms=base_latency_ms,
                             dynamic_overhead=dynamic_overhead)
    return {
        "base": router.route(ROUTER_BASE),
        "dedicated": router.route(f"{ROUTER_BASE}:flagship@1.0.0"),
        "dynamic miss": router.route(f"{ROUTER_BASE}:support-bot@2.1.0"),
        "dynamic hit": router.route(f"{ROUTER_BASE}:support-bot@2.1.0"),
    }


def customer41_run(budget_adapters: int = 40, *, requests: int = 20_000, seed: int = 41) -> SimResult:
    """Simulate customer #41 joining halfway through a seeded trace, with a cache of ``budget_adapters`` x 16 MiB.

    Forty tenants with equal traffic share one replica; tenant 41 starts sending at
    ``CUSTOMER41_JOIN_MS``. Returns the ``labcore.sim.SimResult`` with two ``phases`` (before, after the join);
    the first 2,000 requests warm the cache and are not counted.

    >>> r = customer41_run(41, requests=4_000)
    >>> r.phases[1].misses <= 41
    True
    """
    workload = Workload(tenants=CUSTOMER41_TENANTS, requests=requests, zipf_s=0.0, rate_per_s=200.0, seed=seed,
                        joins=(Join(CUSTOMER41_JOIN_MS, CUSTOMER41_TENANTS),))
    return simulate(lambda: standard_fleet(workload, budget_mb=16.0 * budget_adapters), make_trace(workload),
                    windows=25, warmup=2_000, phases=(CUSTOMER41_JOIN_MS,))


# --- chapters 08, 09 and 13: the onboarding cliff, the spill tier, in-flight admission

ONBOARDING_TENANTS: tuple[int, ...] = (36, 38, 39, 40, 41, 42, 44, 46, 48)
#: The chapter 8 story: a 640 MiB pool (forty 16 MiB adapters), Zipf s=0.5, 20k requests per run.
ONBOARDING: dict[str, Any] = {"pool_adapters": 40, "zipf_s": 0.5, "requests": 20_000, "seed": 41, "warmup": 2_000}
SPILL_TENANTS: tuple[int, ...] = (24, 32, 40, 48, 64, 80, 96, 128)
#: The chapter 9 setup: a 32-adapter GPU pool over a 96-adapter host tier (16 MiB adapters).
SPILL: dict[str, Any] = {"gpu_adapters": 32, "host_adapters": 96, "requests": 20_000, "seed": 9, "warmup": 2_000}
ADMISSION_POOLS: tuple[int, ...] = (8, 12, 16, 20, 24, 28, 32, 40)
#: The chapter 13 setup: 40 tenants, 100 requests/s, each request holds its adapter 300 ms past its latency.
ADMISSION: dict[str, Any] = {"tenants": 40, "requests": 5_000, "zipf_s": 0.8, "rate_per_s": 100.0, "seed": 13,
                             "hold_ms": 300.0, "max_queue": 32}


def onboarding_runs() -> dict[int, SimResult]:
    """Return chapter 8's steady-state runs, ``{tenants: SimResult}``, on a forty-adapter pool.

    >>> sorted(onboarding_runs())[:3]
    [36, 38, 39]
    """
    o = ONBOARDING
    return tenant_sweep(ONBOARDING_TENANTS, budget_mb=16.0 * o["pool_adapters"], zipf_s=o["zipf_s"],
                        requests=o["requests"], seed=o["seed"], warmup=o["warmup"])


def onboarding_timeline(tenants: int = 41, pool_adapters: int = 40, zipf_s: float = 0.5, *,
                        requests: int = 20_000, rate_per_s: float = 200.0, seed: int = 41,
                        progress: Progress | None = None, progress_every: int = 100_000) -> SimResult:
    """Simulate tenant #``tenants`` joining halfway through a run on a ``pool_adapters`` pool.

    ``progress(done, total)`` is called every ``progress_every`` requests (see :func:`simulate`); the
    trace depends on the tenants and the skew only, so changing the pool alone reuses it.

    >>> before, after = onboarding_timeline(requests=4_000).phases
    >>> after.p99_ms > before.p99_ms
    True
    """
    join_ms = requests / rate_per_s * 1000 / 2
    w = Workload(tenants=tenants, requests=requests, zipf_s=zipf_s, rate_per_s=rate_per_s, seed=seed,
                 joins=(Join(join_ms, tenants),))
    return simulate(lambda: standard_fleet(w, budget_mb=16.0 * pool_adapters), _onboarding_trace(w), windows=20,
                    phases=(join_ms,), warmup=min(2_000, requests // 4), progress=progress,
                    progress_every=progress_every)


@functools.lru_cache(maxsize=2)
def _onboarding_trace(w: Workload) -> Trace:
    """Return ``make_trace(w)``, kept for the last two workloads (the pool size does not change the trace)."""
    return make_trace(w)


def spill_runs() -> tuple[dict[int, SimResult], dict[int, SimResult]]:
    """Return chapter 9's runs, ``(gpu_only, tiered)``, each ``{tenants: SimResult}`` over ``SPILL_TENANTS``."""
    s = SPILL
    gpu_mb, host_mb = 16.0 * s["gpu_adapters"], 16.0 * s["host_adapters"]
    common: dict[str, Any] = dict(budget_mb=gpu_mb, requests=s["requests"], seed=s["seed"], warmup=s["warmup"])
    return (tenant_sweep(SPILL_TENANTS, **common),
            tenant_sweep(SPILL_TENANTS, cache_factory=lambda: TieredCache(gpu_mb, host_mb), **common))


def admission_runs() -> dict[int, SimResult]:
    """Return chapter 13's in-flight runs, ``{pool adapters: SimResult}`` over ``ADMISSION_POOLS``."""
    a = ADMISSION
    w = Workload(tenants=a["tenants"], requests=a["requests"], zipf_s=a["zipf_s"], rate_per_s=a["rate_per_s"],
                 seed=a["seed"])
    trace = make_trace(w)
    return {pool: simulate(lambda: standard_fleet(w, budget_mb=16.0 * pool), trace, hold_ms=a["hold_ms"],
                           max_queue=a["max_queue"], windows=0) for pool in ADMISSION_POOLS}
