"""A prefix (KV) cache whose key says which adapter computed an entry: by name, or by registry identity.

Serving engines reuse the attention keys and values of a prompt prefix they have already computed
(a system prompt shared by many requests). Under a LoRA those values depend on the adapter's
weights, so the cache key must name the adapter. vLLM's block hash adds the adapter's *name*
(``_gen_lora_extra_hash_keys`` returns ``lora_request.lora_name``), and vLLM issue #30931 reports
what follows: two adapters with the same name but different weights share KV blocks, and requests
are served activations computed with the wrong weights. Replace an adapter under the same name and
every cached prefix of the old one is still a hit.

labcore identifies an adapter the way :class:`labcore.registry.AdapterRegistry` does: by
``name@version`` and the digest of the base checkpoint it was trained on. Keyed that way, an entry
computed under one version or base can never answer a request for another:

>>> from labcore.adapter import Adapter
>>> old = Adapter("support-bot", "1.0.0", "llama-3-8b", "sha256:1111", rank=16, vram_mb=16.0)
>>> new = Adapter("support-bot", "1.1.0", "llama-3-8b", "sha256:1111", rank=16, vram_mb=16.0)
>>> by_name, by_id = PrefixCache(8, key_policy=KEY_BY_NAME), PrefixCache(8, key_policy=KEY_BY_IDENTITY)
>>> _ = by_name.lookup(old, "system-prompt"), by_id.lookup(old, "system-prompt")
>>> by_name.lookup(new, "system-prompt")          # a hit, computed with the old weights
PrefixLookup(hit=True, stale=True, computed_with='support-bot@1.0.0', base_digest='sha256:1111')
>>> by_id.lookup(new, "system-prompt").hit        # a miss: recomputed under 1.1.0
False
"""

from __future__ import annotations

import functools
import random
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from .adapter import Adapter
from .registry import AdapterRegistry
from .sim.workload import DEFAULT_BASE, DEFAULT_BASE_DIGEST, Workload, make_trace
from ._validate import count, fraction, instance, number, text

__all__ = [
    "KEY_BY_NAME",
    "KEY_BY_IDENTITY",
    "KEY_POLICIES",
    "prefix_key",
    "PrefixLookup",
    "PrefixCache",
    "ReportedBug",
    "VLLM_ISSUE_30931",
    "PrefixScenario",
    "PREFIX_REPLACE",
    "PrefixCacheRun",
    "prefix_cache_run",
    "prefix_cache_runs",
]

#: Key by the adapter's name only, as vLLM's prefix-cache block hash does.
KEY_BY_NAME = "adapter name"
#: Key by ``name@version`` and the base checkpoint's digest, as labcore's registry identifies adapters.
KEY_BY_IDENTITY = "name@version + base digest"
KEY_POLICIES: tuple[str, ...] = (KEY_BY_NAME, KEY_BY_IDENTITY)


def prefix_key(adapter: Adapter, prefix: str, *, key_policy: str) -> tuple[str, ...]:
    """Return the cache key of ``prefix`` computed under ``adapter``, by ``key_policy``.

    >>> a = Adapter("support-bot", "1.0.0", "llama-3-8b", "sha256:1111", rank=16, vram_mb=16.0)
    >>> prefix_key(a, "p", key_policy=KEY_BY_NAME), prefix_key(a, "p", key_policy=KEY_BY_IDENTITY)
    (('support-bot', 'p'), ('support-bot@1.0.0', 'sha256:1111', 'p'))
    """
    instance("adapter", adapter, Adapter, error=ValueError)
    text("prefix", prefix, blank_ok=True)
    if key_policy == KEY_BY_NAME:
        return (adapter.name, prefix)
    if key_policy == KEY_BY_IDENTITY:
        return (adapter.key, adapter.base_digest, prefix)
    raise ValueError(f"unknown key policy {key_policy!r}; valid policies: {KEY_POLICIES}")


@dataclass(frozen=True, slots=True)
class PrefixLookup:
    """What one lookup did: hit or miss, and which adapter version and base the served entry was computed under.

    ``stale`` is True for a hit whose entry was computed under another ``name@version`` or base
    digest than the request's adapter: the request got the wrong attention values.
    """

    hit: bool
    stale: bool
    computed_with: str
    base_digest: str

    def __post_init__(self) -> None:
        if self.stale and not self.hit:
            raise ValueError("only a hit can be stale: a miss recomputes the entry under the request's adapter")


class PrefixCache:
    """Hold computed prefixes, least recently used evicted first, keyed by ``key_policy``.

    ``capacity_entries`` bounds the entries (one per adapter and prefix, as the key tells them
    apart). :meth:`lookup` returns a hit with the stored entry, or computes and stores the prefix
    under the request's adapter (a miss). Counters: ``hits``, ``misses``, ``stale_hits``, ``evictions``.
    """

    def __init__(self, capacity_entries: int, *, key_policy: str) -> None:
        self.capacity_entries = count("capacity_entries", capacity_entries)
        if key_policy not in KEY_POLICIES:
            raise ValueError(f"unknown key policy {key_policy!r}; valid policies: {KEY_POLICIES}")
        self.key_policy = key_policy
        self._entries: OrderedDict[tuple[str, ...], tuple[str, str]] = OrderedDict()
        self.hits = self.misses = self.stale_hits = self.evictions = 0

    def lookup(self, adapter: Adapter, prefix: str) -> PrefixLookup:
        """Serve ``prefix`` for a request under ``adapter``: the cached entry if its key is there, else compute it."""
        key = prefix_key(adapter, prefix, key_policy=self.key_policy)
        entry = self._entries.get(key)
        if entry is not None:
            self._entries.move_to_end(key)
            stale = entry != (adapter.key, adapter.base_digest)
            self.hits += 1
            self.stale_hits += stale
            return PrefixLookup(True, stale, *entry)
        if len(self._entries) >= self.capacity_entries:
            self._entries.popitem(last=False)
            self.evictions += 1
        self._entries[key] = (adapter.key, adapter.base_digest)
        self.misses += 1
        return PrefixLookup(False, False, adapter.key, adapter.base_digest)

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return (f"PrefixCache(key_policy={self.key_policy!r}, entries={len(self._entries)}/{self.capacity_entries}, "
                f"hits={self.hits}, stale_hits={self.stale_hits}, misses={self.misses})")


@dataclass(frozen=True, slots=True)
class ReportedBug:
    """A failure an engine's users reported, as they wrote it (quoted, not reproduced): where, against what, in their words."""

    engine: str
    source: str
    title: str
    reported_against: str
    summary: str


#: vLLM issue #30931 as read with the course's search tool (open, labels bug and unstale), its Summary section.
VLLM_ISSUE_30931 = ReportedBug(
    engine="vLLM",
    source="vllm-project/vllm issue #30931 (open when read), Summary and Environment",
    title="[Bug]: Prefix Cache Corruption with LoRA with the same name but different id",
    reported_against="vLLM v0.11.1, Llama-3.3-70B-Instruct, tensor parallelism 4, enable_prefix_caching=True",
    summary=("When using vLLM with LoRA adapters and prefix caching enabled, different LoRA configurations with the "
             "same `lora_name` but different `lora_int_id` values incorrectly share KV cache blocks. This causes the "
             "model to generate outputs using cached activations from the wrong LoRA weights, leading to "
             "incorrect/inconsistent behavior."),
)


# --------------------------------------------------------------------------- the chapter's run

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
        count("replaced_tenant", self.replaced_tenant)
        if self.replaced_tenant > self.tenants:
            raise ValueError(f"replaced_tenant must be one of 1..{self.tenants}, got {self.replaced_tenant}")
        Adapter("probe", self.new_version, DEFAULT_BASE, DEFAULT_BASE_DIGEST, rank=16, vram_mb=16.0)  # a valid semver
        fraction("replace_at", self.replace_at)
        count("seed", self.seed, minimum=0)

    def workload(self) -> Workload:
        """The :class:`labcore.sim.workload.Workload` whose seeded trace drives the run."""
        return Workload(tenants=self.tenants, requests=self.requests, zipf_s=self.zipf_s,
                        rate_per_s=self.rate_per_s, seed=self.seed)


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
    replaced: str
    replaced_with: str
    replace_at_ms: float
    duration_ms: float
    after_requests: int
    after_hits: int
    stale_at_ms: tuple[float, ...]

    def __post_init__(self) -> None:
        if self.key_policy not in KEY_POLICIES:
            raise ValueError(f"unknown key policy {self.key_policy!r}; valid policies: {KEY_POLICIES}")
        if self.hits + self.misses != self.requests or self.stale_hits > self.hits:
            raise ValueError(f"counters do not add up: {self.hits} hits + {self.misses} misses for "
                             f"{self.requests} requests, {self.stale_hits} stale")

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
    prefixes = tuple(f"tenant-{t + 1:02d}/system-prompt-{rng.randrange(scenario.prompts_per_tenant)}"
                     for t in trace.tenant_index)
    return trace.arrival_ms, trace.tenant_index, prefixes


def prefix_cache_run(scenario: PrefixScenario = PREFIX_REPLACE, *, key_policy: str) -> PrefixCacheRun:
    """Replay ``scenario`` through a real registry and one :class:`PrefixCache` keyed by ``key_policy``.

    Requests name only the tenant; the registry resolves the name to its latest version (semver),
    so after the replacement the replaced tenant's requests are served by the new version.

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
    for at_ms, tenant, prefix in zip(arrivals, tenants, prefixes):
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
    return PrefixCacheRun(key_policy, len(arrivals), cache.hits, cache.stale_hits, cache.misses, cache.evictions,
                          old.key, new.key, replace_at_ms, duration, after_requests, after_hits, tuple(stale_at))


def prefix_cache_runs(scenario: PrefixScenario = PREFIX_REPLACE,
                      key_policies: Sequence[str] = KEY_POLICIES) -> dict[str, PrefixCacheRun]:
    """Run the same scenario under each key policy: ``{policy: PrefixCacheRun}``.

    >>> runs = prefix_cache_runs()
    >>> runs[KEY_BY_NAME].stale_hits > 0 == runs[KEY_BY_IDENTITY].stale_hits
    True
    """
    return {policy: prefix_cache_run(scenario, key_policy=policy) for policy in key_policies}
