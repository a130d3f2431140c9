"""The seeded scenarios the chapters quote and their panels draw, each a plain function of its arguments.

A release history replayed through a real registry (chapter 3), a trace replayed through one cache
with the budget checked after every access (chapter 4), one request of each kind (chapter 5), the
customer #41 incident (told in chapter 5 and taken apart in chapter 8, one run with one set of
parameters), and the runs of chapters 9 and 13. Their setups are typed, frozen records
(:class:`OnboardingScenario`, :class:`SpillScenario`, :class:`AdmissionScenario`) that the chapters
may also read by key:

>>> ONBOARDING.pool_adapters, ONBOARDING["pool_adapters"], SPILL["gpu_adapters"], ADMISSION.hold_ms
(40, 40, 32, 300.0)
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

from ..adapter import Adapter
from ..cache import AdapterCache, FifoAdapterCache
from ..links import LAB_HOST_TO_GPU
from ..registry import AdapterRegistry
from ..router import MultiLoRARouter
from ..tiers import TieredCache
from .._validate import count, number
from .replay import Progress, SimResult, simulate, single_replica_router, tenant_sweep
from .workload import Join, Trace, Workload, make_trace

__all__ = [
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
    "OnboardingScenario",
    "SpillScenario",
    "AdmissionScenario",
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
    "CapstoneScenario",
    "CAPSTONE",
    "capstone_day",
]


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
    count("minor_releases", minor_releases, minimum=0)
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
    count("window", window)
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


# --- chapter 05: one request of each kind

ROUTER_BASE = "llama-3-8b"
ROUTER_DIGEST = "sha256:llama-3-8b-demo"


def route_examples(base_latency_ms: float = 40.0, dynamic_overhead: float = 0.05, adapter_vram_mb: float = 16.0,
                   transfer_mb_per_ms: float = LAB_HOST_TO_GPU.mb_per_ms, *,
                   load_overhead_ms: float = LAB_HOST_TO_GPU.overhead_ms) -> dict[str, Any]:
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
    cache = AdapterCache(max(1024.0, adapter_vram_mb), transfer_mb_per_ms, load_overhead_ms=load_overhead_ms)
    router = MultiLoRARouter(registry, cache, ROUTER_BASE, base_latency_ms=base_latency_ms,
                             dynamic_overhead=dynamic_overhead)
    return {
        "base": router.route(ROUTER_BASE),
        "dedicated": router.route(f"{ROUTER_BASE}:flagship@1.0.0"),
        "dynamic miss": router.route(f"{ROUTER_BASE}:support-bot@2.1.0"),
        "dynamic hit": router.route(f"{ROUTER_BASE}:support-bot@2.1.0"),
    }


# --- chapters 08, 09 and 13: the onboarding cliff, the spill tier, in-flight admission

class _ByName:
    """Read a scenario record's fields by name too, ``ONBOARDING["seed"]``, as the chapters' glue cells do."""

    __slots__ = ()

    def __getitem__(self, name: str) -> Any:
        if name not in {f.name for f in fields(self)}:  # type: ignore[arg-type]
            raise KeyError(f"{type(self).__name__} has no field {name!r}; fields: {[f.name for f in fields(self)]}")  # type: ignore[arg-type]
        return getattr(self, name)


@dataclass(frozen=True, slots=True)
class OnboardingScenario(_ByName):
    """The customer #41 incident (chapters 5 and 8): tenant ``tenants`` joins halfway through a run on a pool
    of ``pool_adapters`` 16 MiB adapters, under Zipf-``zipf_s`` popularity at ``rate_per_s`` requests per second.

    >>> ONBOARDING.join_ms
    50000.0
    """

    tenants: int
    pool_adapters: int
    zipf_s: float
    requests: int
    rate_per_s: float
    seed: int
    warmup: int

    def __post_init__(self) -> None:
        count("tenants", self.tenants)
        count("pool_adapters", self.pool_adapters)
        number("zipf_s", self.zipf_s, inclusive=True)
        count("requests", self.requests)
        number("rate_per_s", self.rate_per_s)
        count("seed", self.seed, minimum=0)
        count("warmup", self.warmup, minimum=0)

    @property
    def join_ms(self) -> float:
        """When the last tenant starts sending: halfway through the run (simulated ms)."""
        return self.requests / self.rate_per_s * 1000.0 / 2


@dataclass(frozen=True, slots=True)
class SpillScenario(_ByName):
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


@dataclass(frozen=True, slots=True)
class AdmissionScenario(_ByName):
    """Chapter 13's setup: each request holds its adapter ``hold_ms`` past its latency; ``max_queue`` may wait."""

    tenants: int
    requests: int
    zipf_s: float
    rate_per_s: float
    seed: int
    hold_ms: float
    max_queue: int

    def __post_init__(self) -> None:
        count("tenants", self.tenants)
        count("requests", self.requests)
        number("zipf_s", self.zipf_s, inclusive=True)
        number("rate_per_s", self.rate_per_s)
        count("seed", self.seed, minimum=0)
        number("hold_ms", self.hold_ms, inclusive=True)
        count("max_queue", self.max_queue, minimum=0)


ONBOARDING_TENANTS: tuple[int, ...] = (36, 38, 39, 40, 41, 42, 44, 46, 48)
#: The customer #41 incident, told in chapter 5 and taken apart in chapter 8: a 640 MiB pool (forty 16 MiB
#: adapters), Zipf s=0.5, 20,000 requests at 200 per second, tenant 41 joining at 50 s.
ONBOARDING = OnboardingScenario(tenants=41, pool_adapters=40, zipf_s=0.5, requests=20_000, rate_per_s=200.0, seed=41,
                                warmup=2_000)
SPILL_TENANTS: tuple[int, ...] = (24, 32, 40, 48, 64, 80, 96, 128)
#: The chapter 9 setup: a 32-adapter GPU pool over a 96-adapter host tier (16 MiB adapters).
SPILL = SpillScenario(gpu_adapters=32, host_adapters=96, requests=20_000, seed=9, warmup=2_000)
ADMISSION_POOLS: tuple[int, ...] = (8, 12, 16, 20, 24, 28, 32, 40)
#: The chapter 13 setup: 40 tenants, 100 requests/s, each request holds its adapter 300 ms past its latency.
ADMISSION = AdmissionScenario(tenants=40, requests=5_000, zipf_s=0.8, rate_per_s=100.0, seed=13, hold_ms=300.0,
                              max_queue=32)


def onboarding_runs() -> dict[int, SimResult]:
    """Return chapter 8's steady-state runs, ``{tenants: SimResult}``, on a forty-adapter pool.

    >>> sorted(onboarding_runs())[:3]
    [36, 38, 39]
    """
    o = ONBOARDING
    return tenant_sweep(ONBOARDING_TENANTS, budget_mb=16.0 * o.pool_adapters, zipf_s=o.zipf_s,
                        requests=o.requests, seed=o.seed, warmup=o.warmup)


def onboarding_timeline(tenants: int = ONBOARDING.tenants, pool_adapters: int = ONBOARDING.pool_adapters,
                        zipf_s: float = ONBOARDING.zipf_s, *, requests: int = ONBOARDING.requests,
                        rate_per_s: float = ONBOARDING.rate_per_s, seed: int = ONBOARDING.seed,
                        progress: Progress | None = None, progress_every: int = 100_000) -> SimResult:
    """Simulate tenant #``tenants`` joining halfway through a run on a ``pool_adapters`` pool (16 MiB adapters).

    The defaults are :data:`ONBOARDING`, the customer #41 incident. Returns a :class:`SimResult` with two
    ``phases`` (before and after the join); the first requests warm the cache and are not counted.
    ``progress(done, total)`` is called every ``progress_every`` requests (see :func:`simulate`); the
    trace depends on the tenants and the skew only, so changing the pool alone reuses it.

    >>> before, after = onboarding_timeline(requests=4_000).phases
    >>> after.p99_ms > before.p99_ms
    True
    """
    join_ms = requests / rate_per_s * 1000 / 2
    w = Workload(tenants=tenants, requests=requests, zipf_s=zipf_s, rate_per_s=rate_per_s, seed=seed,
                 joins=(Join(join_ms, tenants),))
    return simulate(lambda: single_replica_router(w, budget_mb=16.0 * pool_adapters), _onboarding_trace(w), windows=20,
                    phases=(join_ms,), warmup=min(ONBOARDING.warmup, requests // 4), progress=progress,
                    progress_every=progress_every)


@functools.lru_cache(maxsize=2)  # bounded: the last two workloads
def _onboarding_trace(w: Workload) -> Trace:
    """Return ``make_trace(w)``, kept for the last two workloads (the pool size does not change the trace)."""
    return make_trace(w)


def spill_runs() -> tuple[dict[int, SimResult], dict[int, SimResult]]:
    """Return chapter 9's runs, ``(gpu_only, tiered)``, each ``{tenants: SimResult}`` over ``SPILL_TENANTS``."""
    s = SPILL
    gpu_mb, host_mb = 16.0 * s.gpu_adapters, 16.0 * s.host_adapters
    common: dict[str, Any] = dict(budget_mb=gpu_mb, requests=s.requests, seed=s.seed, warmup=s.warmup)
    return (tenant_sweep(SPILL_TENANTS, **common),
            tenant_sweep(SPILL_TENANTS, cache_factory=lambda: TieredCache(gpu_mb, host_mb), **common))


def admission_runs() -> dict[int, SimResult]:
    """Return chapter 13's in-flight runs, ``{pool adapters: SimResult}`` over ``ADMISSION_POOLS``."""
    a = ADMISSION
    w = Workload(tenants=a.tenants, requests=a.requests, zipf_s=a.zipf_s, rate_per_s=a.rate_per_s,
                 seed=a.seed)
    trace = make_trace(w)
    return {pool: simulate(lambda: single_replica_router(w, budget_mb=16.0 * pool), trace, hold_ms=a.hold_ms,
                           max_queue=a.max_queue, windows=0) for pool in ADMISSION_POOLS}


# --- chapter 16: the whole path, from one request to the fleet bill

@dataclass(frozen=True, slots=True)
class CapstoneScenario(_ByName):
    """Chapter 16's customer: ``tenants`` support bots on ``model``, each an adapter of ``rank`` on ``targets``,
    each sending ``tenant_qps`` requests per second (Zipf-``zipf_s`` popularity), served on ``gpu`` GPUs at
    ``gpu_hourly_usd``; a day on one replica is ``requests`` seeded arrivals.

    >>> CAPSTONE.rate_per_s
    20.0
    """

    model: str
    gpu: str
    tenants: int
    rank: int
    targets: tuple[str, ...]
    tenant_qps: float
    gpu_hourly_usd: float
    zipf_s: float
    requests: int
    seed: int

    def __post_init__(self) -> None:
        count("tenants", self.tenants)
        count("rank", self.rank)
        number("tenant_qps", self.tenant_qps)
        number("gpu_hourly_usd", self.gpu_hourly_usd)
        number("zipf_s", self.zipf_s, inclusive=True)
        count("requests", self.requests)
        count("seed", self.seed, minimum=0)
        object.__setattr__(self, "targets", tuple(self.targets))

    @property
    def rate_per_s(self) -> float:
        """Requests per second the whole customer base sends: ``tenants * tenant_qps``."""
        return self.tenants * self.tenant_qps


#: Forty support bots on Llama-3-8B (r=16 on q and v), 0.5 requests per second each, H100s at $3.20 an hour.
CAPSTONE = CapstoneScenario(model="llama-3-8b", gpu="H100-80GB", tenants=40, rank=16, targets=("q_proj", "v_proj"),
                            tenant_qps=0.5, gpu_hourly_usd=3.20, zipf_s=1.0, requests=20_000, seed=16)


def capstone_day(scenario: CapstoneScenario = CAPSTONE, *, adapter_mb: float, budget_mb: float) -> SimResult:
    """Replay ``scenario.requests`` seeded requests through one replica whose cache holds ``budget_mb`` MiB.

    Every tenant's adapter is ``adapter_mb`` MiB (the exact size from the model's config); a miss is a cold
    load from the object store over PCIe 4.0 (labcore.links), as on a real replica.

    >>> r = capstone_day(adapter_mb=13.0, budget_mb=13.0 * 40)
    >>> r.misses, r.p99_ms
    (40, 42.0)
    """
    w = Workload(tenants=scenario.tenants, requests=scenario.requests, zipf_s=scenario.zipf_s,
                 rate_per_s=scenario.rate_per_s, seed=scenario.seed, adapter_mb=adapter_mb, rank=scenario.rank,
                 base_model=scenario.model)
    return simulate(lambda: single_replica_router(w, budget_mb=budget_mb), make_trace(w), windows=20)
