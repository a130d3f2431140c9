"""A VRAM-budgeted LRU cache of adapters: the budget is a hard wall, never an average.

On a GPU, going over budget is not a slow path, it is an out-of-memory crash that takes every
in-flight request with it. So the cache evicts least-recently-used adapters *before* a load,
refuses an adapter that could never fit, and keeps ``used_mb <= budget_mb`` after every call.

>>> from labcore.adapter import Adapter
>>> def lora(name): return Adapter(name, "1.0.0", "llama-3-8b", "sha256:1111", rank=16, vram_mb=16.0)
>>> cache = AdapterCache(vram_budget_mb=32, transfer_mb_per_ms=8.0)   # room for two; 8 GB/s ≈ 8 MiB/ms
>>> cache.access(lora("a")), cache.access(lora("b")).hit, cache.access(lora("a")).hit
(CacheAccess(hit=False, evicted=(), load_ms=2.0), False, True)
>>> [str(key) for key in cache.access(lora("c")).evicted]   # "b" is the least recently used, so it goes
['b@1.0.0']
>>> [str(key) for key in cache.resident], cache.used_mb, (cache.hits, cache.misses)
(['a@1.0.0', 'c@1.0.0'], 32.0, (1, 3))

Keys are values (:class:`labcore.refs.AdapterKey`), printed as their text ``name@version``.

The bare cache is not thread-safe; ``MultiLoRARouter`` guards the cache it drives with a lock.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

from ._validate import number
from .adapter import Adapter
from .errors import AdapterInUseError, AdapterNotFoundError, AdapterTooLargeError
from .refs import AdapterKey

__all__ = ["AdapterCache", "FifoAdapterCache", "CacheAccess", "CacheStats", "EvictionPolicy", "LruPolicy", "FifoPolicy"]

#: What a policy orders: an adapter key, a prefix cache's entry key, a letter in a doctest.
K = TypeVar("K", bound=Hashable)


class EvictionPolicy(Generic[K]):
    """Keep a cache's keys in the order it gives them up: the cache tells it what it holds and asks it for victims.

    The one eviction hook of the course: the adapter cache, the engine's slots and the prefix cache each hold a
    policy and ask it, never a flag, what goes first (the shape of cachetools, where a cache's ``popitem`` names its
    victim). A subclass decides one thing, what a hit does to the order (:meth:`touch`).

    >>> policy = LruPolicy()
    >>> for key in "abc":
    ...     policy.admit(key)
    >>> policy.touch("a"); list(policy.victims())
    ['b', 'c', 'a']
    """

    def __init__(self) -> None:
        self._order: OrderedDict[K, None] = OrderedDict()

    def admit(self, key: K) -> None:
        """Start tracking ``key``, which just became resident (it goes last in line)."""
        self._order[key] = None

    def touch(self, key: K) -> None:
        """Record a hit on ``key``; raise ``KeyError`` if the policy does not hold it (a miss)."""
        raise NotImplementedError

    def discard(self, key: K) -> None:
        """Stop tracking ``key``, which left the cache."""
        del self._order[key]

    def victims(self) -> Iterator[K]:
        """Yield the tracked keys, the first to give up first (the cache skips any it cannot evict)."""
        return iter(self._order)

    def __iter__(self) -> Iterator[K]:
        return iter(self._order)

    def __len__(self) -> int:
        return len(self._order)

    def __contains__(self, key: object) -> bool:
        return key in self._order


class LruPolicy(EvictionPolicy[K]):
    """Give up the least recently used key first: a hit moves its key to the back of the line.

    >>> policy = LruPolicy()
    >>> policy.admit("hot"); policy.admit("cold"); policy.touch("hot")
    >>> next(policy.victims())
    'cold'
    """

    def touch(self, key: K) -> None:
        """Move ``key`` to the back of the line (``KeyError`` on a miss)."""
        self._order.move_to_end(key)


class FifoPolicy(EvictionPolicy[K]):
    """Give up the oldest key first, however often it hits: the wrong policy for adapters, kept to show why.

    >>> policy = FifoPolicy()
    >>> policy.admit("hot"); policy.admit("cold"); policy.touch("hot")
    >>> next(policy.victims())
    'hot'
    """

    def touch(self, key: K) -> None:
        """Leave ``key`` where it is, only checking it is held (``KeyError`` on a miss)."""
        self._order[key]


@dataclass(frozen=True, slots=True)
class CacheAccess:
    """What one ``access`` did: hit or miss, which keys it evicted (in order) and the load time paid."""

    hit: bool
    evicted: tuple[AdapterKey, ...]
    load_ms: float


@dataclass(frozen=True, slots=True)
class CacheStats:
    """A snapshot of a cache's counters."""

    hits: int
    misses: int
    evictions: int
    resident: int
    used_mb: float
    budget_mb: float

    @property
    def hit_rate(self) -> float:
        """Hits over accesses (0.0 before the first access)."""
        total = self.hits + self.misses
        return self.hits / total if total else 0.0


_HIT = CacheAccess(hit=True, evicted=(), load_ms=0.0)


def _key_of(item: AdapterKey | Adapter) -> AdapterKey:
    """The key of an adapter, or the key itself (any adapter-like value with a ``key``, such as a lab's own)."""
    return cast(AdapterKey, getattr(item, "key", item))


def _texts(keys: list[AdapterKey]) -> list[str]:
    """The keys as a message shows them: their text, ``name@version``."""
    return [str(key) for key in keys]


class AdapterCache:
    """Keep adapters resident in a fixed VRAM budget, evicting the least recently used first.

    ``transfer_mb_per_ms`` is the host-to-device bandwidth (8 GB/s is about 8 MiB/ms), and
    ``load_overhead_ms`` an optional fixed cost per load (allocation, kernel setup), so a miss
    costs ``load_overhead_ms + vram_mb / transfer_mb_per_ms``.
    """

    #: The order the cache gives adapters up in (see :class:`EvictionPolicy`); FIFO is the subclass below.
    policy_class: type[EvictionPolicy[Any]] = LruPolicy

    def __init__(self, vram_budget_mb: float, transfer_mb_per_ms: float, *, load_overhead_ms: float = 0.0) -> None:
        self.budget_mb = number("vram_budget_mb", vram_budget_mb)
        self.transfer_mb_per_ms = number("transfer_mb_per_ms", transfer_mb_per_ms)
        self.load_overhead_ms = number("load_overhead_ms", load_overhead_ms, inclusive=True)
        self.used_mb = 0.0
        self.hits = 0
        self.misses = 0
        #: Every evicted key, oldest eviction first.
        self.eviction_log: list[AdapterKey] = []
        self._entries: dict[AdapterKey, float] = {}  # key -> vram_mb
        self._pins: dict[AdapterKey, int] = {}
        self._policy: EvictionPolicy[AdapterKey] = self.policy_class()
        self._touch = self._policy.touch  # a hit: the policy updates its order, KeyError on a miss

    # -- the hot path --------------------------------------------------------------------
    def access(self, adapter: Adapter, *, pin: bool = False) -> CacheAccess:
        """Make ``adapter`` resident and most recently used; evict LRU adapters first if needed.

        With ``pin=True`` the adapter is also pinned (see :meth:`pin`) in the same step.
        Raises ``AdapterTooLargeError`` (nothing changes) if it exceeds the whole budget, and
        ``AdapterInUseError`` (nothing changes) if only pinned adapters could make room.
        """
        key = adapter.key
        try:
            self._touch(key)  # the policy finds the entry and records the hit; KeyError on a miss
        except KeyError:
            return self._load(adapter, key, pin)
        self.hits += 1
        if pin:
            self._pins[key] = self._pins.get(key, 0) + 1
        return _HIT

    def _load(self, adapter: Adapter, key: AdapterKey, pin: bool) -> CacheAccess:
        """Handle a miss: evict the policy's first unpinned victims until ``adapter`` fits, then load it."""
        entries, policy = self._entries, self._policy
        size = adapter.vram_mb
        if size > self.budget_mb:
            raise AdapterTooLargeError(
                f"adapter {key} needs {size:g} MiB but the whole cache budget is {self.budget_mb:g} MiB; "
                "it can never be resident (raise the budget or serve it from a dedicated replica)"
            )
        victims: list[AdapterKey] = []
        if self.used_mb + size > self.budget_mb:
            victims = self._choose_victims(key, size)
            for victim in victims:
                self.used_mb -= entries.pop(victim)
                policy.discard(victim)
            self.eviction_log.extend(victims)
            if not entries:
                self.used_mb = 0.0  # forget float drift whenever the cache empties
        entries[key] = size
        policy.admit(key)
        self.used_mb += size
        self.misses += 1
        if pin:
            self._pins[key] = 1
        return CacheAccess(hit=False, evicted=tuple(victims), load_ms=self.transfer_ms(adapter))

    def _choose_victims(self, key: AdapterKey, size: float) -> list[AdapterKey]:
        """Pick the policy's first unpinned keys whose removal lets ``size`` fit; change nothing."""
        pins, entries = self._pins, self._entries
        victims: list[AdapterKey] = []
        used = self.used_mb
        for resident in self._policy.victims():
            if resident in pins:
                continue
            victims.append(resident)
            used -= entries[resident]
            if used + size <= self.budget_mb:
                return victims
        raise AdapterInUseError(
            f"cannot load {key} ({size:g} MiB): {self.used_mb:g} of {self.budget_mb:g} MiB are in use and "
            f"{len(pins)} pinned adapter(s) with in-flight requests cannot be evicted ({_texts(sorted(pins))})"
        )

    def transfer_ms(self, adapter: Adapter) -> float:
        """Return the time to load ``adapter`` into this tier: fixed overhead plus bytes over bandwidth.

        >>> from labcore.adapter import Adapter
        >>> AdapterCache(64, 8.0).transfer_ms(Adapter("a", "1.0.0", "m", "sha256:1", rank=16, vram_mb=16.0))
        2.0
        """
        return self.load_overhead_ms + adapter.vram_mb / self.transfer_mb_per_ms

    # -- in-flight protection ------------------------------------------------------------
    def pin(self, key: AdapterKey | Adapter) -> None:
        """Protect a resident adapter (given by its key or itself) from eviction while a request uses it (pins nest)."""
        key = _key_of(key)
        if key not in self._entries:
            raise AdapterNotFoundError(f"cannot pin '{key}': it is not resident (resident: {_texts(self.resident)})")
        self._pins[key] = self._pins.get(key, 0) + 1

    def unpin(self, key: AdapterKey | Adapter) -> None:
        """Release one pin taken by :meth:`pin` or ``access(..., pin=True)``."""
        key = _key_of(key)
        count = self._pins.get(key)
        if count is None:
            raise AdapterNotFoundError(f"cannot unpin '{key}': it is not pinned (pinned: {_texts(sorted(self._pins))})")
        if count == 1:
            del self._pins[key]
        else:
            self._pins[key] = count - 1

    def pin_count(self, key: AdapterKey | Adapter) -> int:
        """Return how many in-flight requests pin ``key`` (0 if none)."""
        return self._pins.get(_key_of(key), 0)

    @property
    def pinned(self) -> list[AdapterKey]:
        """Keys with at least one pin, in the policy's order (least recently used first under LRU)."""
        return [key for key in self._policy if key in self._pins]

    # -- inspection ----------------------------------------------------------------------
    @property
    def free_mb(self) -> float:
        """VRAM left in the budget."""
        return self.budget_mb - self.used_mb

    @property
    def resident(self) -> list[AdapterKey]:
        """Resident keys in the policy's order, the next victim first (least to most recently used under LRU)."""
        return list(self._policy)

    def stats(self) -> CacheStats:
        """Return a snapshot of the counters."""
        return CacheStats(
            hits=self.hits,
            misses=self.misses,
            evictions=len(self.eviction_log),
            resident=len(self._entries),
            used_mb=self.used_mb,
            budget_mb=self.budget_mb,
        )

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, item: object) -> bool:
        return getattr(item, "key", item) in self._entries

    def __repr__(self) -> str:
        return (
            f"AdapterCache(used_mb={self.used_mb:g}, budget_mb={self.budget_mb:g}, resident={len(self._entries)}, "
            f"hits={self.hits}, misses={self.misses}, evictions={len(self.eviction_log)})"
        )


class FifoAdapterCache(AdapterCache):
    """The same cache evicting in insertion order: the wrong policy for adapters, kept to show why.

    A hot adapter loaded early is evicted before a cold one loaded later, however often it is used.

    >>> from labcore.adapter import tenant_adapters
    >>> hot, cold, new = tenant_adapters(3)
    >>> fifo = FifoAdapterCache(32, 8.0)
    >>> _ = fifo.access(hot), fifo.access(cold), fifo.access(hot)
    >>> [str(key) for key in fifo.access(new).evicted]          # LRU would have evicted tenant-02
    ['tenant-01@1.0.0']
    """

    policy_class = FifoPolicy
