"""A CPU spill tier: a small GPU adapter cache over a larger host-memory cache.

Where an adapter comes from decides what a miss costs:

* GPU hit — resident in VRAM: nothing to load;
* GPU miss, host hit — a copy in (pinned) host RAM: one host-to-device copy over PCIe;
* miss in both — fetch from storage (local NVMe or an object store) into host RAM, then copy.

Each hop is a :class:`labcore.links.Link` from the course's one table of transfer assumptions
(:mod:`labcore.links`): a fixed cost per load plus bytes over bandwidth. An adapter the GPU tier
evicts is *spilled* to the host tier, so when it comes back it pays only the PCIe copy.

>>> from labcore.adapter import Adapter
>>> a = Adapter("a", "1.0.0", "llama-3-8b", "sha256:1", rank=16, vram_mb=16.0)
>>> b = Adapter("b", "1.0.0", "llama-3-8b", "sha256:1", rank=16, vram_mb=16.0)
>>> tiers = TieredCache(gpu_budget_mb=16, host_budget_mb=64)
>>> [round(tiers.access(x).load_ms, 2) for x in (a, b, a)]   # storage+PCIe, storage+PCIe, PCIe only
[67.55, 67.55, 0.77]
>>> [str(k) for k in tiers.gpu.resident], [str(k) for k in tiers.host.resident], tiers.spills
(['a@1.0.0'], ['a@1.0.0', 'b@1.0.0'], 2)
"""

from __future__ import annotations

from dataclasses import dataclass

from ._validate import instance
from .adapter import Adapter
from .cache import AdapterCache, CacheAccess, CacheStats
from .errors import AdapterTooLargeError
from .links import OBJECT_STORE, PCIE4_X16, Link, serial
from .refs import AdapterKey

__all__ = [
    "TieredCache",
    "TierStats",
    "single_tier_cache",
]


def single_tier_cache(gpu_budget_mb: float, *, storage: Link = OBJECT_STORE, pcie: Link = PCIE4_X16) -> AdapterCache:
    """Build a GPU-only ``AdapterCache`` whose every miss comes from ``storage`` then over ``pcie``.

    The baseline for a :class:`TieredCache`: the same GPU budget, no host copy to fall back on.

    >>> round(single_tier_cache(64).transfer_ms(Adapter("a", "1.0.0", "m", "sha256:1", rank=16, vram_mb=16.0)), 2)
    67.55
    """
    overhead_ms, mb_per_ms = serial(storage, pcie)
    return AdapterCache(gpu_budget_mb, mb_per_ms, load_overhead_ms=overhead_ms)


@dataclass(frozen=True, slots=True)
class TierStats:
    """Where each access of a :class:`TieredCache` was served from, and what moved between tiers."""

    gpu_hits: int
    host_hits: int
    storage_loads: int
    spills: int
    gpu: CacheStats
    host: CacheStats

    @property
    def accesses(self) -> int:
        """Every access: ``gpu_hits + host_hits + storage_loads``."""
        return self.gpu_hits + self.host_hits + self.storage_loads


class TieredCache:
    """Serve adapters from a GPU ``AdapterCache`` backed by a larger host-RAM ``AdapterCache``.

    A drop-in for ``AdapterCache`` in :class:`labcore.router.MultiLoRARouter`: ``access`` returns a
    ``CacheAccess`` whose ``evicted`` lists the GPU evictions and whose ``load_ms`` is 0 (GPU hit),
    the PCIe copy (host hit), or storage fetch + PCIe copy (miss in both). Each tier is a plain
    ``AdapterCache`` with its own budget, LRU order, eviction log and counters:

    * the GPU tier's ``transfer_ms`` is the PCIe copy; the host tier's is the storage fetch;
    * the host tier is looked up only on a GPU miss (so its LRU order is "last needed from host");
    * every GPU eviction is written to the host tier (a *spill*): free if the host still holds a
      copy (adapters are read-only), otherwise a device-to-host copy off the request path. A spill
      makes the adapter the host's most recently used, so the host tier prefers adapters that are
      *not* on the GPU over redundant copies of ones that are.

    Host counters therefore count both lookups and spills; ``stats()`` splits them. ``pin``/``unpin``
    act on the GPU tier (in-flight protection is about VRAM).
    """

    def __init__(
        self,
        gpu_budget_mb: float,
        host_budget_mb: float,
        *,
        pcie: Link = PCIE4_X16,
        storage: Link = OBJECT_STORE,
    ) -> None:
        instance("pcie", pcie, Link, error=ValueError)
        instance("storage", storage, Link, error=ValueError)
        self.gpu = AdapterCache(gpu_budget_mb, pcie.mb_per_ms, load_overhead_ms=pcie.overhead_ms)
        self.host = AdapterCache(host_budget_mb, storage.mb_per_ms, load_overhead_ms=storage.overhead_ms)
        if self.host.budget_mb < self.gpu.budget_mb:
            raise ValueError(
                f"host_budget_mb ({host_budget_mb!r}) must be at least gpu_budget_mb ({gpu_budget_mb!r}): "
                "the host tier must be able to hold whatever the GPU tier spills"
            )
        self.pcie = pcie
        self.storage = storage
        self.gpu_hits = 0
        self.host_hits = 0
        self.storage_loads = 0
        self.spills = 0
        self._known: dict[AdapterKey, Adapter] = {}

    def access(self, adapter: Adapter, *, pin: bool = False) -> CacheAccess:
        """Make ``adapter`` GPU-resident; return the GPU evictions and the load time paid.

        Raises ``AdapterTooLargeError`` if it exceeds either tier's budget, and
        ``AdapterInUseError`` if only pinned GPU entries could make room; both leave every tier
        and counter unchanged.
        """
        key, host = adapter.key, self.host
        if adapter.vram_mb > host.budget_mb:  # never true of a GPU-resident adapter (host budget >= GPU budget)
            raise AdapterTooLargeError(
                f"adapter {key} needs {adapter.vram_mb:g} MiB but the host tier holds only "
                f"{host.budget_mb:g} MiB; raise host_budget_mb"
            )
        placed = self.gpu.access(adapter, pin=pin)  # raises before any change if it cannot fit
        if placed.hit:
            self.gpu_hits += 1
            return placed
        self._known[key] = adapter
        from_host = key in host  # the GPU tier's access changed nothing on the host
        host.access(adapter)  # fetch from storage on a host miss; refresh recency on a host hit
        if from_host:
            self.host_hits += 1
            load_ms = placed.load_ms
        else:
            self.storage_loads += 1
            load_ms = host.transfer_ms(adapter) + placed.load_ms
        for victim in placed.evicted:
            host.access(self._known[victim])
            self.spills += 1
        return CacheAccess(hit=False, evicted=placed.evicted, load_ms=load_ms)

    # -- the parts of the AdapterCache interface the router and admission use ------------------
    def transfer_ms(self, adapter: Adapter) -> float:
        """Return the worst-case load time: storage fetch plus PCIe copy."""
        return self.host.transfer_ms(adapter) + self.gpu.transfer_ms(adapter)

    def pin(self, key: AdapterKey) -> None:
        """Pin a GPU-resident adapter (see ``AdapterCache.pin``)."""
        self.gpu.pin(key)

    def unpin(self, key: AdapterKey) -> None:
        """Release one GPU pin."""
        self.gpu.unpin(key)

    def pin_count(self, key: AdapterKey) -> int:
        """Return the GPU pin count of ``key``."""
        return self.gpu.pin_count(key)

    @property
    def budget_mb(self) -> float:
        """The GPU tier's budget (what the VRAM invariant is about)."""
        return self.gpu.budget_mb

    @property
    def used_mb(self) -> float:
        """VRAM used by the GPU tier."""
        return self.gpu.used_mb

    @property
    def free_mb(self) -> float:
        """VRAM left in the GPU tier."""
        return self.gpu.free_mb

    @property
    def hits(self) -> int:
        """GPU hits."""
        return self.gpu.hits

    @property
    def misses(self) -> int:
        """GPU misses (served from host or storage)."""
        return self.gpu.misses

    @property
    def eviction_log(self) -> list[AdapterKey]:
        """The GPU tier's evictions (each one was spilled to the host tier)."""
        return self.gpu.eviction_log

    @property
    def resident(self) -> list[AdapterKey]:
        """GPU-resident keys, least recently used first."""
        return self.gpu.resident

    @property
    def pinned(self) -> list[AdapterKey]:
        """GPU keys pinned by in-flight requests."""
        return self.gpu.pinned

    def stats(self) -> TierStats:
        """Return where accesses were served from, plus both tiers' own counters."""
        return TierStats(
            gpu_hits=self.gpu_hits,
            host_hits=self.host_hits,
            storage_loads=self.storage_loads,
            spills=self.spills,
            gpu=self.gpu.stats(),
            host=self.host.stats(),
        )

    def __len__(self) -> int:
        return len(self.gpu)

    def __contains__(self, item: object) -> bool:
        return item in self.gpu

    def __repr__(self) -> str:
        return (
            f"TieredCache(gpu={self.gpu.used_mb:g}/{self.gpu.budget_mb:g} MiB, "
            f"host={self.host.used_mb:g}/{self.host.budget_mb:g} MiB, gpu_hits={self.gpu_hits}, "
            f"host_hits={self.host_hits}, storage_loads={self.storage_loads}, spills={self.spills})"
        )
