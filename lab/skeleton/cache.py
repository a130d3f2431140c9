# Generated from labcore/cache.py by scripts/make_skeleton.py. Do not edit this copy:
# cp -r lab/skeleton lab/mine, fill in every TODO(lab), then LAB_MODULE=lab.mine pytest tests/contract

"""A VRAM-budgeted LRU cache of adapters: the budget is a hard wall, never an average.

On a GPU, going over budget is not a slow path, it is an out-of-memory crash that takes every
in-flight request with it. So the cache evicts least-recently-used adapters *before* a load,
refuses an adapter that could never fit, and keeps ``used_mb <= budget_mb`` after every call.

>>> from labcore.adapter import Adapter
>>> def lora(name): return Adapter(name, "1.0.0", "llama-3-8b", "sha256:1111", rank=16, vram_mb=16.0)
>>> cache = AdapterCache(vram_budget_mb=32, transfer_mb_per_ms=8.0)   # room for two; 8 GB/s ≈ 8 MiB/ms
>>> cache.access(lora("a")), cache.access(lora("b")).hit, cache.access(lora("a")).hit
(CacheAccess(hit=False, evicted=(), load_ms=2.0), False, True)
>>> cache.access(lora("c"))           # "b" is the least recently used, so it goes
CacheAccess(hit=False, evicted=('b@1.0.0',), load_ms=2.0)
>>> cache.resident, cache.used_mb, (cache.hits, cache.misses)
(['a@1.0.0', 'c@1.0.0'], 32.0, (1, 3))

The bare cache is not thread-safe; ``MultiLoRARouter`` guards the cache it drives with a lock.
"""
from __future__ import annotations
from collections import OrderedDict
from dataclasses import dataclass
from .adapter import Adapter
from .errors import AdapterInUseError, AdapterNotFoundError, AdapterTooLargeError
from ._validate import number
__all__ = ['AdapterCache', 'FifoAdapterCache', 'CacheAccess', 'CacheStats']

@dataclass(frozen=True, slots=True)
class CacheAccess:
    """What one ``access`` did: hit or miss, which keys it evicted (in order) and the load time paid."""
    hit: bool
    evicted: tuple[str, ...]
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
        raise NotImplementedError('TODO(lab): implement cache.CacheStats.hit_rate: Hits over accesses (0.0 before the first access).')
_HIT = CacheAccess(hit=True, evicted=(), load_ms=0.0)

class AdapterCache:
    """Keep adapters resident in a fixed VRAM budget, evicting the least recently used first.

    ``transfer_mb_per_ms`` is the host-to-device bandwidth (8 GB/s is about 8 MiB/ms), and
    ``load_overhead_ms`` an optional fixed cost per load (allocation, kernel setup), so a miss
    costs ``load_overhead_ms + vram_mb / transfer_mb_per_ms``.
    """
    refresh_on_hit = True

    def __init__(self, vram_budget_mb: float, transfer_mb_per_ms: float, *, load_overhead_ms: float=0.0) -> None:
        raise NotImplementedError('TODO(lab): implement cache.AdapterCache.__init__: see what tests/contract/test_cache.py asks of it')

    def access(self, adapter: Adapter, *, pin: bool=False) -> CacheAccess:
        """Make ``adapter`` resident and most recently used; evict LRU adapters first if needed.

        With ``pin=True`` the adapter is also pinned (see :meth:`pin`) in the same step.
        Raises ``AdapterTooLargeError`` (nothing changes) if it exceeds the whole budget, and
        ``AdapterInUseError`` (nothing changes) if only pinned adapters could make room.
        """
        raise NotImplementedError('TODO(lab): implement cache.AdapterCache.access: Make ``adapter`` resident and most recently used; evict LRU adapters first if needed.')

    def transfer_ms(self, adapter: Adapter) -> float:
        """Return the time to load ``adapter`` into this tier: fixed overhead plus bytes over bandwidth.

        >>> from labcore.adapter import Adapter
        >>> AdapterCache(64, 8.0).transfer_ms(Adapter("a", "1.0.0", "m", "sha256:1", rank=16, vram_mb=16.0))
        2.0
        """
        raise NotImplementedError('TODO(lab): implement cache.AdapterCache.transfer_ms: Return the time to load ``adapter`` into this tier: fixed overhead plus bytes over bandwidth.')

    def pin(self, key: str) -> None:
        """Protect a resident adapter from eviction while a request uses it (pins nest)."""
        raise NotImplementedError('TODO(lab): implement cache.AdapterCache.pin: Protect a resident adapter from eviction while a request uses it (pins nest).')

    def unpin(self, key: str) -> None:
        """Release one pin taken by :meth:`pin` or ``access(..., pin=True)``."""
        raise NotImplementedError('TODO(lab): implement cache.AdapterCache.unpin: Release one pin taken by :meth:`pin` or ``access(..., pin=True)``.')

    def pin_count(self, key: str) -> int:
        """Return how many in-flight requests pin ``key`` (0 if none)."""
        raise NotImplementedError('TODO(lab): implement cache.AdapterCache.pin_count: Return how many in-flight requests pin ``key`` (0 if none).')

    @property
    def pinned(self) -> list[str]:
        """Keys with at least one pin, least recently used first."""
        raise NotImplementedError('TODO(lab): implement cache.AdapterCache.pinned: Keys with at least one pin, least recently used first.')

    @property
    def free_mb(self) -> float:
        """VRAM left in the budget."""
        raise NotImplementedError('TODO(lab): implement cache.AdapterCache.free_mb: VRAM left in the budget.')

    @property
    def resident(self) -> list[str]:
        """Resident keys from least to most recently used."""
        raise NotImplementedError('TODO(lab): implement cache.AdapterCache.resident: Resident keys from least to most recently used.')

    def stats(self) -> CacheStats:
        """Return a snapshot of the counters."""
        raise NotImplementedError('TODO(lab): implement cache.AdapterCache.stats: Return a snapshot of the counters.')

    def __len__(self) -> int:
        raise NotImplementedError('TODO(lab): implement cache.AdapterCache.__len__: see what tests/contract/test_cache.py asks of it')

    def __contains__(self, item: object) -> bool:
        raise NotImplementedError('TODO(lab): implement cache.AdapterCache.__contains__: see what tests/contract/test_cache.py asks of it')

    def __repr__(self) -> str:
        raise NotImplementedError('TODO(lab): implement cache.AdapterCache.__repr__: see what tests/contract/test_cache.py asks of it')

class FifoAdapterCache(AdapterCache):
    """The same cache evicting in insertion order: the wrong policy for adapters, kept to show why.

    A hot adapter loaded early is evicted before a cold one loaded later, however often it is used.

    >>> from labcore.adapter import tenant_adapters
    >>> hot, cold, new = tenant_adapters(3)
    >>> fifo = FifoAdapterCache(32, 8.0)
    >>> _ = fifo.access(hot), fifo.access(cold), fifo.access(hot)
    >>> fifo.access(new).evicted          # LRU would have evicted tenant-02
    ('tenant-01@1.0.0',)
    """
    refresh_on_hit = False
