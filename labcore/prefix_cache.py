"""A prefix (KV) cache whose key says which adapter computed an entry: by name, or by registry identity.

Serving engines reuse the attention keys and values of a prompt prefix they have already computed
(a system prompt shared by many requests). Under a LoRA those values depend on the adapter's
weights, so the cache key must name the adapter. vLLM 0.33.0's block hash adds the adapter's *name and
path* and nothing of its weights (``_gen_lora_extra_hash_keys`` in ``vllm/v1/core/kv_cache_utils.py`` returns
``("lora", lora_request.lora_name, lora_request.lora_path)``); vLLM issue #30931 (reported against v0.11.1) shows
what follows when the key does not see the weights: two adapters under one name but with different weights share
KV blocks, and requests are served activations computed with the wrong weights. At 0.33.0 that still happens when an
adapter is replaced in place (new weights at the same name and path): every cached prefix of the old one is a hit.

labcore identifies an adapter the way :class:`labcore.registry.AdapterRegistry` does: by
``name@version`` and the digest of the base checkpoint it was trained on. Keyed that way, an entry
computed under one version or base can never answer a request for another:

>>> from labcore.adapter import Adapter
>>> old = Adapter("support-bot", "1.0.0", "llama-3-8b", "sha256:1111", rank=16, vram_mb=16.0)
>>> new = Adapter("support-bot", "1.1.0", "llama-3-8b", "sha256:1111", rank=16, vram_mb=16.0)
>>> by_name, by_id = PrefixCache(8, key_policy=KEY_BY_NAME), PrefixCache(8, key_policy=KEY_BY_IDENTITY)
>>> _ = by_name.lookup(old, "system-prompt"), by_id.lookup(old, "system-prompt")
>>> hit = by_name.lookup(new, "system-prompt")    # a hit, computed with the old weights
>>> hit.hit, hit.stale, str(hit.computed_with)
(True, True, 'support-bot@1.0.0')
>>> by_id.lookup(new, "system-prompt").hit        # a miss: recomputed under 1.1.0
False

Chapter 15's run (one tenant republishes its adapter mid-trace) is :mod:`labcore.sim.scenarios.prefix_cache`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._validate import choice, count, instance, text
from .adapter import Adapter
from .cache import EvictionPolicy, LruPolicy
from .refs import AdapterKey

__all__ = [
    "KEY_BY_NAME",
    "KEY_BY_IDENTITY",
    "KEY_POLICIES",
    "prefix_key",
    "PrefixLookup",
    "PrefixCache",
    "ReportedBug",
    "VLLM_ISSUE_30931",
]

#: Key by the adapter's name only: vLLM's prefix-cache key for an adapter replaced in place (same name and path).
KEY_BY_NAME = "adapter name"
#: Key by ``name@version`` and the base checkpoint's digest, as labcore's registry identifies adapters.
KEY_BY_IDENTITY = "name@version + base digest"
KEY_POLICIES: tuple[str, ...] = (KEY_BY_NAME, KEY_BY_IDENTITY)


#: A prefix cache's key: what the entry was computed under (by the key policy), then the prefix text.
PrefixKey = tuple[str | AdapterKey, ...]


def prefix_key(adapter: Adapter, prefix: str, *, key_policy: str) -> PrefixKey:
    """Return the cache key of ``prefix`` computed under ``adapter``, by ``key_policy``.

    >>> a = Adapter("support-bot", "1.0.0", "llama-3-8b", "sha256:1111", rank=16, vram_mb=16.0)
    >>> prefix_key(a, "p", key_policy=KEY_BY_NAME), prefix_key(a, "p", key_policy=KEY_BY_IDENTITY)
    (('support-bot', 'p'), (AdapterKey(name='support-bot', version=(1, 0, 0)), 'sha256:1111', 'p'))
    """
    instance("adapter", adapter, Adapter, error=ValueError)
    text("prefix", prefix, blank_ok=True)
    if choice("key_policy", key_policy, KEY_POLICIES) == KEY_BY_NAME:
        return (adapter.name, prefix)
    return (adapter.key, adapter.base_digest, prefix)


@dataclass(frozen=True, slots=True)
class PrefixLookup:
    """What one lookup did: hit or miss, and which adapter version and base the served entry was computed under.

    ``stale`` is True for a hit whose entry was computed under another ``name@version`` or base
    digest than the request's adapter: the request got the wrong attention values.
    """

    hit: bool
    stale: bool
    computed_with: AdapterKey
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
        self.key_policy = choice("key_policy", key_policy, KEY_POLICIES)
        self._entries: dict[PrefixKey, tuple[AdapterKey, str]] = {}  # key -> (adapter key, base digest) computed under
        self._policy: EvictionPolicy[PrefixKey] = LruPolicy()
        self.hits = self.misses = self.stale_hits = self.evictions = 0

    def lookup(self, adapter: Adapter, prefix: str) -> PrefixLookup:
        """Serve ``prefix`` for a request under ``adapter``: the cached entry if its key is there, else compute it."""
        key = prefix_key(adapter, prefix, key_policy=self.key_policy)
        entry = self._entries.get(key)
        if entry is not None:
            self._policy.touch(key)
            stale = entry != (adapter.key, adapter.base_digest)
            self.hits += 1
            self.stale_hits += stale
            return PrefixLookup(True, stale, *entry)
        if len(self._entries) >= self.capacity_entries:
            victim = next(self._policy.victims())
            self._policy.discard(victim)
            del self._entries[victim]
            self.evictions += 1
        self._entries[key] = (adapter.key, adapter.base_digest)
        self._policy.admit(key)
        self.misses += 1
        return PrefixLookup(hit=False, stale=False, computed_with=adapter.key, base_digest=adapter.base_digest)

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return (
            f"PrefixCache(key_policy={self.key_policy!r}, entries={len(self._entries)}/{self.capacity_entries}, "
            f"hits={self.hits}, stale_hits={self.stale_hits}, misses={self.misses})"
        )


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
    summary=(
        "When using vLLM with LoRA adapters and prefix caching enabled, different LoRA configurations with the "
        "same `lora_name` but different `lora_int_id` values incorrectly share KV cache blocks. This causes the "
        "model to generate outputs using cached activations from the wrong LoRA weights, leading to "
        "incorrect/inconsistent behavior."
    ),
)
