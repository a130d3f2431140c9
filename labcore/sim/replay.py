"""Replay a trace through a real router: :func:`simulate` returns a :class:`labcore.sim.result.SimResult`.

Latency model: each request costs exactly the router's ``total_latency_ms`` (base latency times
``1 + dynamic_overhead``, plus the adapter load time on a miss). There is no compute queue; the
only waiting modelled is the in-flight admission queue of :mod:`labcore.admission`
(``hold_ms=...``), which adds the time a request waited for VRAM to its latency. Simulated time
comes from the trace, never from the wall clock.

>>> from labcore.sim.workload import Workload, make_trace
>>> w = Workload(tenants=4, requests=1_000, zipf_s=1.0, seed=7)
>>> result = simulate(lambda: single_replica_router(4, budget_mb=48.0), make_trace(w))   # room for 3 of 4
>>> result.requests, result.p50_ms, round(result.p99_ms, 2), result.misses, result.hit_rate
(1000, 42.0, 109.55, 180, 0.82)
"""

from __future__ import annotations

import functools
import heapq
import itertools
import math
import operator
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

from .._validate import count, number
from ..admission import AdmissionController
from ..capacity import DYNAMIC_OVERHEAD
from ..errors import QueueFullError
from ..implementation import Implementation, implementation
from ..links import OBJECT_STORE, PCIE4_X16, Link, serial
from ..percentiles import percentiles
from ..router import MODE_DYNAMIC, MODES, ModelRef, RouteDecision
from .result import SimResult, Window
from .workload import DEFAULT_BASE, DEFAULT_BASE_DIGEST, Trace, Workload, make_trace

__all__ = [
    "single_replica_router",
    "simulate",
    "tenant_sweep",
]


# --------------------------------------------------------------------------- the fleet
def single_replica_router(
    tenants: int | Workload,
    *,
    budget_mb: float,
    adapter_mb: float = 16.0,
    rank: int = 16,
    storage: Link = OBJECT_STORE,
    pcie: Link = PCIE4_X16,
    base_latency_ms: float = 40.0,
    dynamic_overhead: float = DYNAMIC_OVERHEAD,
    cache: Any = None,
    base_model: str = DEFAULT_BASE,
    lab: Implementation | None = None,
) -> Any:
    """Build a registry of ``tenants`` adapters, a VRAM cache and a router over them: one replica.

    Pass a :class:`Workload` instead of a count to take its tenants, adapter size and rank. The
    cache is GPU-only: a miss fetches the adapter from ``storage`` and copies it over ``pcie``
    (see :func:`labcore.tiers.single_tier_cache`); ``cache`` replaces it (e.g. with a
    :class:`labcore.tiers.TieredCache`). ``lab`` builds the replica from another implementation of the lab's
    contract (:func:`labcore.implementation.implementation`, a learner's ``lab/mine``): its registry, adapters,
    cache and router, with the same costs.

    >>> router = single_replica_router(40, budget_mb=640)
    >>> router.cache.budget_mb, len(router.registry), round(router.route("llama-3-8b:tenant-07").adapter_load_ms, 2)
    (640.0, 40, 67.55)
    """
    if isinstance(tenants, Workload):
        adapter_mb, rank, base_model, tenants = tenants.adapter_mb, tenants.rank, tenants.base_model, tenants.tenants
    code = lab if lab is not None else implementation("reference")
    registry = code.get("AdapterRegistry")()
    registry.register_base(base_model, DEFAULT_BASE_DIGEST)
    for adapter in code.get("tenant_adapters")(
        tenants, vram_mb=adapter_mb, rank=rank, base_model=base_model, base_digest=DEFAULT_BASE_DIGEST
    ):
        registry.register(adapter)
    if cache is None:
        overhead_ms, mb_per_ms = serial(storage, pcie)
        cache = code.get("AdapterCache")(budget_mb, mb_per_ms, load_overhead_ms=overhead_ms)
    return code.get("MultiLoRARouter")(
        registry, cache, base_model, base_latency_ms=base_latency_ms, dynamic_overhead=dynamic_overhead
    )


# --------------------------------------------------------------------------- simulate
class Router(Protocol):
    """Anything that routes a ref, its text or parsed, to a :class:`RouteDecision` (one replica or a whole fleet).

    A router may also offer ``route_many(refs)``, the same decisions for a slice at once (``MultiLoRARouter`` does);
    :func:`simulate` uses it when the class that defines ``route`` defines it too.
    """

    def route(self, ref: str | ModelRef, *, pin: bool = False) -> RouteDecision: ...


RouterOrFactory = Router | Callable[[], Router]
Progress = Callable[[int, int], None]


def _windows(
    arrivals: Sequence[float],
    latency: Sequence[float],
    miss_at: Sequence[int],
    miss_evictions: Sequence[int],
    dynamic: Sequence[int],
    edges: Sequence[float],
    served: Sequence[bool] | None,
    first: int = 0,
    counts: list[Counter[float]] | None = None,
) -> tuple[Window, ...]:
    """Slice the run at the time ``edges`` (first = start, last = end) and summarise each slice.

    Requests before index ``first`` (the warmup) are left out of every slice. Each slice's latency
    Counter is appended to ``counts`` when given (the whole run's is their sum).
    """
    n = len(arrivals)
    out = []
    lo = first
    for k in range(len(edges) - 1):
        w_start, w_end = edges[k], edges[k + 1]
        hi = n if k == len(edges) - 2 else max(lo, bisect_left(arrivals, w_end, lo=lo))
        m_lo, m_hi = bisect_left(miss_at, lo), bisect_left(miss_at, hi)
        misses = m_hi - m_lo
        lat = Counter(latency[lo:hi] if served is None else itertools.compress(latency[lo:hi], served[lo:hi]))
        if counts is not None:
            counts.append(lat)
        dyn = dynamic[hi] - dynamic[lo]
        p50, p95, p99 = percentiles(lat, (50, 95, 99)) if lat else (0.0, 0.0, 0.0)
        out.append(
            Window(
                start_ms=w_start,
                end_ms=w_end,
                requests=hi - lo,
                misses=misses,
                evictions=sum(miss_evictions[m_lo:m_hi]),
                hit_rate=(dyn - misses) / dyn if dyn else 1.0,
                p50_ms=p50,
                p95_ms=p95,
                p99_ms=p99,
            )
        )
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
    >>> r = simulate(lambda: single_replica_router(2, budget_mb=16), trace, windows=1)
    >>> r.misses, r.hits, r.by_mode["base"], round(r.p99_ms, 2)
    (1, 1, 1, 109.55)
    """
    if not hasattr(router, "route"):
        router = router()
    count("windows", windows, minimum=0)
    n = len(trace)
    count(f"warmup (a trace of {n} requests)", warmup, minimum=0, maximum=max(n - 1, 0))
    count("progress_every", progress_every)
    bounds = sorted(number("each of phases (a time in ms)", float(b)) for b in phases)
    if hold_ms is None:
        log = _run_plain(router, trace, progress, progress_every)
    else:
        log = _run_in_flight(
            router, trace, progress, progress_every, number("hold_ms", hold_ms, inclusive=True), max_queue
        )
    return log.result(trace.arrival_ms, warmup, windows, bounds)


class _Log:
    """What a run recorded, per request, in the cheapest form the statistics need."""

    __slots__ = ("latency", "served", "dynamic_prefix", "miss_at", "miss_evictions", "other_modes", "waits")

    def __init__(self, n: int) -> None:
        self.latency = [0.0] * n
        self.served: list[bool] | None = None  # None: every request was served
        self.dynamic_prefix: Sequence[int] = [0] * (n + 1)  # dynamic requests among the first i
        self.miss_at: list[int] = []  # request indices of cache misses, ascending
        self.miss_evictions: list[int] = []  # evictions caused by each miss
        self.other_modes: list[tuple[int, str]] = []  # (index, mode) of base/dedicated requests
        self.waits: list[tuple[int, float]] = []  # (index, wait_ms) of requests that queued

    def result(self, arrivals: Sequence[float], warmup: int, windows: int, bounds: list[float]) -> SimResult:
        n = len(self.latency)
        served = self.served
        slices: list[Counter[float]] = []
        timeline = _windows(
            arrivals,
            self.latency,
            self.miss_at,
            self.miss_evictions,
            self.dynamic_prefix,
            _edges(arrivals, windows),
            served,
            counts=slices,
        )
        if slices:  # the windows cover the whole run: their latencies, less the warmup's, are the run's
            counts = sum(slices, Counter())
            if warmup:
                counts.subtract(self._counted(0, warmup))
                counts = +counts
        else:
            counts = Counter(self._counted(warmup, n))
        counted = sum(counts.values())
        if counted:
            p50, p95, p99 = percentiles(counts, (50, 95, 99))
            mean, worst = math.fsum(self._counted(warmup, n)) / counted, max(counts)
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
            requests=n - warmup,
            p50_ms=p50,
            p95_ms=p95,
            p99_ms=p99,
            mean_ms=round(mean, 9),
            max_ms=worst,
            hit_rate=(dynamic - misses) / dynamic if dynamic else 1.0,
            hits=dynamic - misses,
            misses=misses,
            evictions=sum(self.miss_evictions[first:]),
            by_mode=by_mode,
            windows=timeline,
            warmup=warmup,
            queued=len(waits),
            refused=(n - warmup) - counted,
            max_wait_ms=max(waits, default=0.0),
            phases=_windows(
                arrivals,
                self.latency,
                self.miss_at,
                self.miss_evictions,
                self.dynamic_prefix,
                [0.0, *bounds, arrivals[-1] if arrivals else 0.0],
                served,
                warmup,
            )
            if bounds
            else (),
        )

    def _counted(self, start: int, stop: int) -> Iterable[float]:
        """The latencies of the served requests among ``start:stop``, in request order."""
        latency = self.latency[start:stop] if start or stop < len(self.latency) else self.latency
        return latency if self.served is None else itertools.compress(latency, self.served[start:stop])


def _run_plain(router: Router, trace: Trace, progress: Progress | None, every: int) -> _Log:
    n = len(trace)
    log = _Log(n)
    refs = _refs_for(router, trace)
    route_many = _batch_route(router)
    decisions: list[RouteDecision] = []
    if progress is None:
        decisions.extend(route_many(refs))
    else:
        for start in range(0, n, every):
            stop = min(n, start + every)
            decisions.extend(route_many(refs[start:stop]))
            progress(stop, n)
    log.latency = list(map(operator.attrgetter("total_latency_ms"), decisions))
    hits = list(map(operator.attrgetter("cache_hit"), decisions))  # True/False: dynamic; None: other
    log.miss_at = _positions(hits, False)
    log.miss_evictions = [len(decisions[i].evicted) for i in log.miss_at]
    others = _positions(hits, None)
    log.other_modes = [(i, decisions[i].mode) for i in others]
    if others:
        log.dynamic_prefix = list(itertools.accumulate(map(operator.is_not, hits, itertools.repeat(None)), initial=0))
    else:  # every request was dynamic: the first i requests hold i of them
        log.dynamic_prefix = range(n + 1)
    return log


def _batch_route(router: Any) -> Callable[[Sequence[Any]], Iterable[RouteDecision]]:
    """Return how to route a slice of refs: the router's ``route_many`` when it is its own ``route``'s loop (a
    subclass that overrides ``route`` alone keeps its ``route``), else ``map`` over ``route`` (the loop runs in C)."""
    cls = type(router)
    owner = next((c for c in cls.__mro__ if "route" in vars(c)), None)
    if owner is not None and "route_many" in vars(owner):
        return router.route_many
    return functools.partial(map, router.route)


def _refs_for(router: Any, trace: Trace) -> Sequence[Any]:
    """Return the trace's refs as ``router`` takes them: labcore's routers the parsed records (nothing to parse
    again), any other router (a learner's, whose contract is a ``str``) the text."""
    if trace.model_refs and type(router).__module__.startswith("labcore."):
        return trace.model_refs
    return trace.refs


def _positions(values: list[object], target: object) -> list[int]:
    """Return the indices at which ``values`` holds ``target``, ascending (``list.index`` scans in C between them)."""
    found: list[int] = []
    index = values.index
    at = -1
    try:
        while True:
            at = index(target, at + 1)
            found.append(at)
    except ValueError:
        return found


def _run_in_flight(
    router: Router, trace: Trace, progress: Progress | None, every: int, hold_ms: float, max_queue: int
) -> _Log:

    controller = AdmissionController(router, max_queue=max_queue)
    n = len(trace)
    log = _Log(n)
    log.served = served = [True] * n
    arrivals, refs, latency = trace.arrival_ms, _refs_for(router, trace), log.latency
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
                index, decision = adm.ticket.tag, adm.decision
                # the replay tags each ticket with its request's index; a request a finish admits has its route
                assert isinstance(index, int) and decision is not None
                admitted(index, adm.ticket.id, decision, done_ms)

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
    prefix = [0] * (n + 1)  # dynamic requests among the first i
    for i in range(n):
        prefix[i + 1] = prefix[i] + dyn_flags[i]
    log.dynamic_prefix = prefix
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

    Each run is a fresh replica (``single_replica_router``, or the cache ``cache_factory()`` builds) on
    its own seeded trace; the first ``warmup`` requests fill the cache and are not counted.

    >>> cliff = tenant_sweep([40, 41], budget_mb=640, requests=20_000, seed=41)
    >>> [(n, r.p99_ms == 42.0, round(100 * (1 - r.hit_rate), 1)) for n, r in cliff.items()]
    [(40, True, 0.0), (41, False, 1.8)]
    """
    out: dict[int, SimResult] = {}
    for tenants in tenant_counts:
        workload = Workload(tenants=tenants, requests=requests, zipf_s=zipf_s, seed=seed, **workload_options)
        cache = cache_factory() if cache_factory is not None else None
        out[tenants] = simulate(
            single_replica_router(workload, budget_mb=budget_mb, cache=cache),
            make_trace(workload),
            warmup=warmup,
            windows=0,
        )
    return out
