"""Tenant-affinity routing: spread adapters over R replicas so each replica's cache holds a slice.

With R replicas each running its own ``MultiLoRARouter`` and ``AdapterCache``, the placement
policy decides which replica's VRAM a tenant's adapter lives in. Round-robin and least-loaded
balance requests perfectly but send every adapter everywhere, so every cache has to hold the
whole working set. Hashing the adapter key to a replica gives each replica 1/R of the adapters,
which is what makes its cache hit — until one hot tenant overloads "its" replica. Bounded-load
rendezvous hashing keeps the affinity but spills the overflow to the tenant's second choice.

Rendezvous (highest-random-weight) hashing scores every (replica, key) pair with a stable hash
and picks the highest score, so adding a replica moves only the keys that now score highest on
the new one: about 1/(R+1) of them, where ``hash mod R`` moves about R/(R+1).

>>> replicas = ["replica-0", "replica-1", "replica-2"]
>>> rendezvous_owner("support-bot@1.10.0", replicas)
'replica-0'
>>> keys = [f"tenant-{i:03d}@1.0.0" for i in range(1000)]
>>> round(moved_fraction(keys, replicas, replicas + ["replica-3"]), 3)   # about 1/4
0.249
>>> round(moved_fraction(keys, replicas, replicas + ["replica-3"], owner=modulo_owner), 3)  # about 3/4
0.748

The hash is :func:`labcore.hashing.stable_hash` (the same in every process, unlike Python's ``hash``).
Whole traces through a fleet, per policy, and chapter 10's runs are :mod:`labcore.sim.scenarios.affinity`.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ._validate import choice, distinct, fraction, number, one_each
from ._validate import count as _count  # ``count`` is an argument name here
from .cache import AdapterCache
from .capacity import DYNAMIC_OVERHEAD
from .hashing import stable_hash
from .links import LAB_HOST_TO_GPU
from .percentiles import percentiles
from .registry import AdapterRegistry
from .router import MODE_DYNAMIC, ModelRef, MultiLoRARouter, RouteDecision, parse_model_ref

__all__ = [
    "POLICY_ROUND_ROBIN",
    "POLICY_LEAST_LOADED",
    "POLICY_RENDEZVOUS",
    "POLICY_BOUNDED",
    "POLICIES",
    "LOAD_BOUNDED_POLICIES",
    "rendezvous_ranking",
    "rendezvous_owner",
    "modulo_owner",
    "moved_fraction",
    "replica_names",
    "FleetRoute",
    "FleetRun",
    "AffinityFleet",
    "bounded_capacity",
    "bounded_choice",
]

POLICY_ROUND_ROBIN = "round-robin"
POLICY_LEAST_LOADED = "least-loaded"
POLICY_RENDEZVOUS = "rendezvous"
POLICY_BOUNDED = "bounded-rendezvous"
POLICIES = (POLICY_ROUND_ROBIN, POLICY_LEAST_LOADED, POLICY_RENDEZVOUS, POLICY_BOUNDED)
#: The policies that read ``load_factor`` (the bound c); the others place every request the same whatever c is.
LOAD_BOUNDED_POLICIES = (POLICY_BOUNDED,)


def _check_replicas(replicas: Sequence[str]) -> None:
    distinct("replica names", replicas, nonempty=True)


def rendezvous_ranking(key: str, replicas: Sequence[str]) -> list[str]:
    """Order ``replicas`` by their rendezvous weight for ``key``, highest (the owner) first.

    >>> rendezvous_ranking("support-bot@1.10.0", ["replica-0", "replica-1", "replica-2"])
    ['replica-0', 'replica-2', 'replica-1']
    """
    _check_replicas(replicas)
    return sorted(replicas, key=lambda r: (stable_hash(f"{r}|{key}"), r), reverse=True)


def rendezvous_owner(key: str, replicas: Sequence[str]) -> str:
    """Return the replica with the highest rendezvous weight for ``key``."""
    _check_replicas(replicas)
    return max(replicas, key=lambda r: (stable_hash(f"{r}|{key}"), r))


def modulo_owner(key: str, replicas: Sequence[str]) -> str:
    """Return ``replicas[hash(key) mod R]``: the naive placement that reshuffles on every resize.

    >>> modulo_owner("support-bot@1.10.0", ["replica-0", "replica-1"]) in ("replica-0", "replica-1")
    True
    """
    _check_replicas(replicas)
    return replicas[stable_hash(key) % len(replicas)]


def moved_fraction(
    keys: Iterable[str],
    before: Sequence[str],
    after: Sequence[str],
    *,
    owner: Callable[[str, Sequence[str]], str] = rendezvous_owner,
) -> float:
    """Return the fraction of ``keys`` whose owning replica changes from ``before`` to ``after``.

    >>> moved_fraction(["a", "b"], ["r0", "r1"], ["r0", "r1"])
    0.0
    """
    keys = list(keys)
    if not keys:
        raise ValueError("moved_fraction needs at least one key")
    moved = sum(owner(k, before) != owner(k, after) for k in keys)
    return moved / len(keys)


def bounded_capacity(total_in_flight: int, replicas: int, load_factor: float) -> int:
    """Return the most requests one replica may hold under bounded loads: ``ceil(c × (L + 1) / R)``.

    ``L`` is the fleet's requests in flight before the new one arrives; the ``+ 1`` counts it.

    >>> bounded_capacity(40, 4, 1.25)
    13
    """
    return math.ceil(load_factor * (total_in_flight + 1) / replicas)


def bounded_choice(ranking: Sequence[int], loads: Sequence[int], load_factor: float) -> int:
    """Return the replica bounded-load rendezvous sends a request to: the first in ``ranking`` under the cap.

    ``ranking`` lists replica indices in the tenant's rendezvous order (its home first); ``loads[i]`` is replica
    ``i``'s requests in flight before this one arrives. A replica may take the request while its load plus this
    one stays within :func:`bounded_capacity` of the fleet's load, so only the overflow leaves home, and always
    down the same ranking.

    >>> bounded_choice([2, 0, 1, 3], [3, 3, 3, 3], 1.25)     # cap ceil(1.25 × 13 / 4) = 5: home has room
    2
    >>> bounded_choice([2, 0, 1, 3], [3, 4, 5, 0], 1.25)     # cap ceil(1.25 × 13 / 4) = 5: home (2) is full
    0
    """
    if not ranking or sorted(ranking) != list(range(len(loads))):
        raise ValueError(f"ranking must order every replica index 0..{len(loads) - 1} once, got {list(ranking)!r}")
    cap = bounded_capacity(sum(loads), len(loads), load_factor)
    for i in ranking:
        if loads[i] + 1 <= cap:
            return i
    return ranking[0]  # unreachable: some replica is at or below the mean


def replica_names(count: int) -> list[str]:
    """Name ``count`` replicas ``replica-0 .. replica-{count-1}``.

    >>> replica_names(2)
    ['replica-0', 'replica-1']
    """
    _count("replica count", count)
    return [f"replica-{i}" for i in range(count)]


# --------------------------------------------------------------------------- records


@dataclass(frozen=True, slots=True)
class FleetRoute:
    """Where one request went and what it cost: the replica, its router decision, queueing and latency.

    ``latency_ms = queue_ms + decision.total_latency_ms``; ``spilled`` is True when bounded-load
    routing sent the request past the adapter's first-choice replica.
    """

    replica: int
    decision: RouteDecision
    arrival_ms: float
    queue_ms: float
    latency_ms: float
    spilled: bool = False

    def __post_init__(self) -> None:
        _count("replica index", self.replica, minimum=0)
        number("queue_ms", self.queue_ms, inclusive=True)


@dataclass(frozen=True, slots=True)
class FleetRun:
    """What one policy did with one trace: hit rate, latency percentiles and the load per replica.

    ``imbalance`` is the busiest replica's request count over the mean (1.0 is perfect balance);
    ``adapters_per_replica`` counts the distinct adapters each replica served (more than its cache holds: misses).
    """

    policy: str
    replicas: int
    requests: int
    hit_rate: float
    p50_ms: float
    p95_ms: float
    p99_ms: float
    mean_queue_ms: float
    requests_per_replica: tuple[int, ...]
    hit_rate_per_replica: tuple[float, ...]
    evictions: int
    spilled: int
    imbalance: float
    adapters_per_replica: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        choice("policy", self.policy, POLICIES)
        one_each("requests_per_replica", self.requests_per_replica, self.replicas, "replica")
        fraction("hit_rate", self.hit_rate)


# --------------------------------------------------------------------------- the fleet


class _Replica:
    """One replica: a router over its own cache, plus ``slots`` parallel servers in FIFO order."""

    __slots__ = (
        "name",
        "cache",
        "router",
        "free_at",
        "in_flight",
        "routed",
        "hits",
        "misses",
        "evictions_before",
        "adapters",
    )

    def __init__(self, name: str, router: MultiLoRARouter, cache: AdapterCache, slots: int) -> None:
        self.name = name
        self.cache = cache
        self.router = router
        self.free_at = [0.0] * slots  # a heap: when each slot is next free
        self.in_flight: list[float] = []  # a heap of finish times of admitted requests
        self.routed = 0
        self.hits = 0
        self.misses = 0
        self.evictions_before = 0
        self.adapters: set[str] = set()  # the distinct adapters routed here since the counters were reset

    def load(self, now_ms: float) -> int:
        heap = self.in_flight
        while heap and heap[0] <= now_ms:
            heapq.heappop(heap)
        return len(heap)


class AffinityFleet:
    """Route requests over ``replicas`` replicas, each a real ``MultiLoRARouter`` over its own ``AdapterCache``.

    Policies: ``"round-robin"``, ``"least-loaded"`` (fewest requests in flight), ``"rendezvous"``
    (the adapter key's highest-random-weight replica) and ``"bounded-rendezvous"`` (the same, but a
    replica whose in-flight load would exceed ``load_factor`` × the fleet's mean passes the request
    to the key's next-ranked replica, as in consistent hashing with bounded loads). Each replica
    serves ``slots`` requests at once (a stand-in for its batch); a request waits FIFO for a slot,
    so an overloaded replica shows up in the tail latency. Time is simulated: pass ``arrival_ms``.
    Each replica gets an ``AdapterCache(cache_budget_mb, transfer_mb_per_ms, load_overhead_ms=...)``,
    or whatever ``cache_factory()`` builds (e.g. ``labcore.tiers.single_tier_cache``).

    >>> from labcore import Adapter
    >>> reg = AdapterRegistry(); reg.register_base("llama-3-8b", "sha256:1111")
    >>> for n in ("support-bot", "legal-bot"):
    ...     reg.register(Adapter(n, "1.0.0", "llama-3-8b", "sha256:1111", rank=16, vram_mb=16.0))
    >>> fleet = AffinityFleet(reg, "llama-3-8b", replicas=2, policy="rendezvous", cache_budget_mb=32.0)
    >>> routes = [fleet.route(f"llama-3-8b:{n}", arrival_ms=100.0 * i) for i, n in
    ...           enumerate(["support-bot", "legal-bot", "support-bot", "legal-bot"])]
    >>> [(r.replica, r.decision.cache_hit) for r in routes]   # each tenant sticks to one replica
    [(1, False), (0, False), (1, True), (0, True)]
    """

    def __init__(
        self,
        registry: AdapterRegistry,
        base_model: str,
        *,
        replicas: int,
        policy: str,
        cache_budget_mb: float,
        transfer_mb_per_ms: float = LAB_HOST_TO_GPU.mb_per_ms,
        load_overhead_ms: float = 0.0,
        cache_factory: Callable[[], AdapterCache] | None = None,
        base_latency_ms: float = 40.0,
        dynamic_overhead: float = DYNAMIC_OVERHEAD,
        slots: int = 8,
        load_factor: float = 1.25,
    ) -> None:
        choice("policy", policy, POLICIES)
        _count("slots", slots)  # requests served at once per replica
        number("load_factor", load_factor, minimum=1.0, inclusive=True)  # c in "c x mean load"
        self.policy = policy
        self.load_factor = float(load_factor)
        self.names = replica_names(replicas)
        self._replicas = []
        for name in self.names:
            if cache_factory is None:
                cache = AdapterCache(cache_budget_mb, transfer_mb_per_ms, load_overhead_ms=load_overhead_ms)
            else:
                cache = cache_factory()
            router = MultiLoRARouter(
                registry, cache, base_model, base_latency_ms=base_latency_ms, dynamic_overhead=dynamic_overhead
            )
            self._replicas.append(_Replica(name, router, cache, slots))
        self._index = {name: i for i, name in enumerate(self.names)}
        self._requests: dict[str, tuple[ModelRef, tuple[int, ...]]] = {}  # by the ref's text
        self._next = 0
        self.spilled = 0
        self.routes = 0

    @property
    def caches(self) -> list[AdapterCache]:
        """Each replica's adapter cache, in replica order."""
        return [r.cache for r in self._replicas]

    @property
    def routers(self) -> list[MultiLoRARouter]:
        """Each replica's router, in replica order."""
        return [r.router for r in self._replicas]

    def ranking(self, ref: str | ModelRef) -> tuple[int, ...]:
        """Return replica indices in rendezvous order for a request's affinity key (its adapter name)."""
        return self._request(ref)[1]

    def _request(self, ref: str | ModelRef) -> tuple[ModelRef, tuple[int, ...]]:
        """Parse ``ref`` once and rank the replicas by its adapter's name, so every version of a tenant shares one."""
        text = ref.text if isinstance(ref, ModelRef) else ref
        known = self._requests.get(text)
        if known is None:
            parsed = ref if isinstance(ref, ModelRef) else parse_model_ref(ref)
            key = parsed.base if parsed.adapter is None else parsed.adapter
            known = (parsed, tuple(self._index[n] for n in rendezvous_ranking(key, self.names)))
            if len(self._requests) > 65_536:
                self._requests.clear()
            self._requests[text] = known
        return known

    def _choose(self, ranked: tuple[int, ...], now_ms: float) -> tuple[int, bool]:
        replicas = self._replicas
        if self.policy == POLICY_ROUND_ROBIN:
            i = self._next
            self._next = (i + 1) % len(replicas)
            return i, False
        if self.policy == POLICY_LEAST_LOADED:
            loads = [r.load(now_ms) for r in replicas]
            return loads.index(min(loads)), False
        if self.policy == POLICY_RENDEZVOUS:
            return ranked[0], False
        i = bounded_choice(ranked, [r.load(now_ms) for r in replicas], self.load_factor)
        return i, i != ranked[0]

    def route(self, ref: str | ModelRef, *, arrival_ms: float) -> FleetRoute:
        """Place one request (its model ref, text or parsed), route it through that replica's router, queue it for a slot."""
        parsed, ranked = self._request(ref)
        i, spilled = self._choose(ranked, arrival_ms)
        replica = self._replicas[i]
        decision = replica.router.route(parsed)  # parsed here once: the replica's router reads the record
        start = max(arrival_ms, replica.free_at[0])
        finish = start + decision.total_latency_ms
        heapq.heapreplace(replica.free_at, finish)
        replica.load(arrival_ms)
        heapq.heappush(replica.in_flight, finish)
        replica.routed += 1
        if parsed.adapter is not None:
            replica.adapters.add(parsed.adapter)
        if decision.mode == MODE_DYNAMIC:
            if decision.cache_hit:
                replica.hits += 1
            else:
                replica.misses += 1
        self.spilled += spilled
        self.routes += 1
        queue_ms = start - arrival_ms
        return FleetRoute(
            replica=i,
            decision=decision,
            arrival_ms=arrival_ms,
            queue_ms=queue_ms,
            latency_ms=queue_ms + decision.total_latency_ms,
            spilled=spilled,
        )

    def reset_counters(self) -> None:
        """Zero the per-replica request, hit, miss, eviction and spill counters (caches stay warm)."""
        for r in self._replicas:
            r.routed = r.hits = r.misses = 0
            r.evictions_before = len(r.cache.eviction_log)
            r.adapters = set()
        self.spilled = 0

    def summary(self, latencies_ms: Sequence[float], queue_ms_total: float = 0.0) -> FleetRun:
        """Summarise the fleet's counters and the given request latencies into a :class:`FleetRun`."""
        if not latencies_ms:
            raise ValueError("no requests were routed; nothing to summarise")
        p50, p95, p99 = percentiles(latencies_ms, (50, 95, 99))
        per = tuple(r.routed for r in self._replicas)
        hits = sum(r.hits for r in self._replicas)
        lookups = hits + sum(r.misses for r in self._replicas)
        mean = sum(per) / len(per)
        return FleetRun(
            policy=self.policy,
            replicas=len(per),
            requests=len(latencies_ms),
            hit_rate=hits / lookups if lookups else 0.0,
            p50_ms=p50,
            p95_ms=p95,
            p99_ms=p99,
            mean_queue_ms=queue_ms_total / len(latencies_ms),
            requests_per_replica=per,
            hit_rate_per_replica=tuple(
                r.hits / (r.hits + r.misses) if r.hits + r.misses else 0.0 for r in self._replicas
            ),
            evictions=sum(len(r.cache.eviction_log) - r.evictions_before for r in self._replicas),
            spilled=self.spilled,
            imbalance=max(per) / mean if mean else 0.0,
            adapters_per_replica=tuple(len(r.adapters) for r in self._replicas),
        )

    def __repr__(self) -> str:
        return f"AffinityFleet(policy={self.policy!r}, replicas={len(self._replicas)}, routes={self.routes})"
