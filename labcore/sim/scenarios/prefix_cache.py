"""Chapter 15's prefix-cache run: one tenant republishes its adapter under the same name halfway through a trace.

Replayed through a real registry and a :class:`labcore.prefix_cache.PrefixCache` under each key
policy, the run counts the requests served prefixes computed with the old weights.

>>> PREFIX_REPLACE.replaced_tenant, PREFIX_REPLACE.replace_at
(1, 0.5)
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from dataclasses import dataclass

from ..._validate import choice, count, fraction, number
from ...adapter import Adapter
from ...prefix_cache import KEY_POLICIES, PrefixCache
from ...refs import AdapterKey
from ...registry import AdapterRegistry
from ..workload import DEFAULT_BASE, DEFAULT_BASE_DIGEST, Workload, make_trace

__all__ = ["PrefixScenario", "PREFIX_REPLACE", "PrefixCacheRun", "prefix_cache_run", "prefix_cache_runs"]


@dataclass(frozen=True, slots=True)
class PrefixScenario:
    """Chapter 15's setup: tenants' requests share a few system prompts; one adapter is replaced mid-trace.

    Arrivals and tenant popularity come from :func:`labcore.sim.workload.make_trace`; each request
    opens with one of its tenant's ``prompts_per_tenant`` system prompts (drawn with
    ``random.Random(seed)``). At ``replace_at`` (a fraction of the trace's duration) tenant number
    ``replaced_tenant`` publishes version ``new_version`` of its adapter under the same name, and
    from then on its requests are served by the new weights.

    >>> PREFIX_REPLACE.tenants, PREFIX_REPLACE.new_version
    (8, '1.1.0')
    """

    tenants: int = 8
    requests: int = 2_000
    zipf_s: float = 1.0
    rate_per_s: float = 50.0
    prompts_per_tenant: int = 3
    capacity_entries: int = 32
    replaced_tenant: int = 1
    new_version: str = "1.1.0"
    replace_at: float = 0.5
    seed: int = 30931

    def __post_init__(self) -> None:
        count("tenants", self.tenants)
        count("requests", self.requests)
        number("zipf_s", self.zipf_s, inclusive=True)
        number("rate_per_s", self.rate_per_s)
        count("prompts_per_tenant", self.prompts_per_tenant)
        count("capacity_entries", self.capacity_entries)
        count("replaced_tenant", self.replaced_tenant, maximum=self.tenants)
        Adapter("probe", self.new_version, DEFAULT_BASE, DEFAULT_BASE_DIGEST, rank=16, vram_mb=16.0)  # a valid semver
        fraction("replace_at", self.replace_at)
        count("seed", self.seed, minimum=0)

    def workload(self) -> Workload:
        """The :class:`labcore.sim.workload.Workload` whose seeded trace drives the run."""
        return Workload(
            tenants=self.tenants, requests=self.requests, zipf_s=self.zipf_s, rate_per_s=self.rate_per_s, seed=self.seed
        )


#: The chapter 15 story: the most popular of 8 tenants republishes its adapter halfway through.
PREFIX_REPLACE = PrefixScenario()


@dataclass(frozen=True, slots=True)
class PrefixCacheRun:
    """One key policy on the scenario's trace: hits, stale hits, and where in time the stale ones fell.

    ``after_requests`` / ``after_hits`` count the replaced tenant's requests after the replacement;
    ``stale_at_ms`` is the arrival time of each stale hit (for the figure).
    """

    key_policy: str
    requests: int
    hits: int
    stale_hits: int
    misses: int
    evictions: int
    replaced: AdapterKey
    replaced_with: AdapterKey
    replace_at_ms: float
    duration_ms: float
    after_requests: int
    after_hits: int
    stale_at_ms: tuple[float, ...]

    def __post_init__(self) -> None:
        choice("key_policy", self.key_policy, KEY_POLICIES)
        if self.hits + self.misses != self.requests or self.stale_hits > self.hits:
            raise ValueError(
                f"counters do not add up: {self.hits} hits + {self.misses} misses for "
                f"{self.requests} requests, {self.stale_hits} stale"
            )

    @property
    def hit_rate(self) -> float:
        """Hits over requests."""
        return self.hits / self.requests

    @property
    def stale_share_after(self) -> float:
        """The share of the replaced tenant's requests after the replacement that were served stale values."""
        return self.stale_hits / self.after_requests if self.after_requests else 0.0


@functools.lru_cache(maxsize=4)
def _requests(scenario: PrefixScenario) -> tuple[tuple[float, ...], tuple[int, ...], tuple[str, ...]]:
    """The trace's arrival times, tenant indices and prompt prefixes (kept for a few scenarios)."""
    trace = make_trace(scenario.workload())
    rng = random.Random(scenario.seed)
    prefixes = tuple(
        f"tenant-{t + 1:02d}/system-prompt-{rng.randrange(scenario.prompts_per_tenant)}" for t in trace.tenant_index
    )
    return trace.arrival_ms, trace.tenant_index, prefixes


def prefix_cache_run(scenario: PrefixScenario = PREFIX_REPLACE, *, key_policy: str) -> PrefixCacheRun:
    """Replay ``scenario`` through a real registry and one :class:`PrefixCache` keyed by ``key_policy``.

    Requests name only the tenant; the registry resolves the name to its latest version (semver),
    so after the replacement the replaced tenant's requests are served by the new version.

    >>> from labcore.prefix_cache import KEY_BY_IDENTITY
    >>> run = prefix_cache_run(key_policy=KEY_BY_IDENTITY)
    >>> run.stale_hits, run.after_requests > 0
    (0, True)
    """
    arrivals, tenants, prefixes = _requests(scenario)
    workload = scenario.workload()
    registry = AdapterRegistry()
    registry.register_base(workload.base_model, DEFAULT_BASE_DIGEST)
    for adapter in workload.adapters():
        registry.register(adapter)
    names = [a.name for a in workload.adapters()]
    replaced = names[scenario.replaced_tenant - 1]
    old = registry.resolve(replaced)
    new = Adapter(replaced, scenario.new_version, old.base_model, old.base_digest, rank=old.rank, vram_mb=old.vram_mb)
    duration = arrivals[-1]
    replace_at_ms = scenario.replace_at * duration
    cache = PrefixCache(scenario.capacity_entries, key_policy=key_policy)
    replaced_yet = False
    after_requests = after_hits = 0
    stale_at: list[float] = []
    for at_ms, tenant, prefix in zip(arrivals, tenants, prefixes, strict=True):
        if not replaced_yet and at_ms >= replace_at_ms:
            registry.register(new)  # same name, new weights: "latest" now resolves to it
            replaced_yet = True
        adapter = registry.resolve(names[tenant])
        result = cache.lookup(adapter, prefix)
        if replaced_yet and adapter.name == replaced:
            after_requests += 1
            after_hits += result.hit
        if result.stale:
            stale_at.append(at_ms)
    return PrefixCacheRun(
        key_policy=key_policy,
        requests=len(arrivals),
        hits=cache.hits,
        stale_hits=cache.stale_hits,
        misses=cache.misses,
        evictions=cache.evictions,
        replaced=old.key,
        replaced_with=new.key,
        replace_at_ms=replace_at_ms,
        duration_ms=duration,
        after_requests=after_requests,
        after_hits=after_hits,
        stale_at_ms=tuple(stale_at),
    )


def prefix_cache_runs(
    scenario: PrefixScenario = PREFIX_REPLACE, key_policies: Sequence[str] = KEY_POLICIES
) -> dict[str, PrefixCacheRun]:
    """Run the same scenario under each key policy: ``{policy: PrefixCacheRun}``.

    >>> from labcore.prefix_cache import KEY_BY_IDENTITY, KEY_BY_NAME
    >>> runs = prefix_cache_runs()
    >>> runs[KEY_BY_NAME].stale_hits > 0 == runs[KEY_BY_IDENTITY].stale_hits
    True
    """
    return {policy: prefix_cache_run(scenario, key_policy=policy) for policy in key_policies}
