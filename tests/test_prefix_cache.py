"""Tests for labcore.prefix_cache: keyed by name a replaced adapter is served stale prefixes; keyed as the registry does, never."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labcore.adapter import Adapter
from labcore.prefix_cache import (
    KEY_BY_IDENTITY,
    KEY_BY_NAME,
    KEY_POLICIES,
    PrefixCache,
    PrefixLookup,
    prefix_key,
)
from labcore.prefix_cache import VLLM_ISSUE_30931 as bug
from labcore.refs import AdapterKey

K = AdapterKey.parse  # a key from its text, as a client writes it


def lora(name: str = "support-bot", version: str = "1.0.0", digest: str = "sha256:1111") -> Adapter:
    return Adapter(name, version, "llama-3-8b", digest, rank=16, vram_mb=16.0)


@pytest.mark.parametrize("policy", KEY_POLICIES)
def test_a_second_lookup_of_the_same_adapter_and_prefix_hits(policy):
    cache = PrefixCache(4, key_policy=policy)
    assert cache.lookup(lora(), "p") == PrefixLookup(
        hit=False, stale=False, computed_with=K("support-bot@1.0.0"), base_digest="sha256:1111"
    )
    assert cache.lookup(lora(), "p") == PrefixLookup(
        hit=True, stale=False, computed_with=K("support-bot@1.0.0"), base_digest="sha256:1111"
    )
    assert (cache.hits, cache.misses, cache.stale_hits, len(cache)) == (1, 1, 0, 1)


def test_by_name_a_new_version_or_base_is_served_the_old_entry():
    cache = PrefixCache(4, key_policy=KEY_BY_NAME)
    cache.lookup(lora(), "p")
    assert cache.lookup(lora(version="2.0.0"), "p").stale
    assert cache.lookup(lora(digest="sha256:2222"), "p").stale
    assert cache.stale_hits == 2 and cache.misses == 1


def test_by_identity_a_new_version_or_base_is_a_miss():
    cache = PrefixCache(4, key_policy=KEY_BY_IDENTITY)
    cache.lookup(lora(), "p")
    assert not cache.lookup(lora(version="2.0.0"), "p").hit
    assert not cache.lookup(lora(digest="sha256:2222"), "p").hit
    assert cache.lookup(lora(), "p").hit and cache.stale_hits == 0


def test_least_recently_used_entries_are_evicted():
    cache = PrefixCache(2, key_policy=KEY_BY_IDENTITY)
    for prefix in ("a", "b", "a", "c"):  # "b" is the least recently used when "c" needs room
        cache.lookup(lora(), prefix)
    assert cache.evictions == 1 and cache.lookup(lora(), "a").hit and not cache.lookup(lora(), "b").hit


def test_keys_and_bad_input():
    assert prefix_key(lora(), "p", key_policy=KEY_BY_NAME) == ("support-bot", "p")
    assert prefix_key(lora(), "p", key_policy=KEY_BY_IDENTITY) == (K("support-bot@1.0.0"), "sha256:1111", "p")
    with pytest.raises(ValueError, match="key_policy must be one of .*, got 'lora_int_id'"):
        PrefixCache(4, key_policy="lora_int_id")
    with pytest.raises(ValueError, match="capacity_entries must be a positive int, got 0"):
        PrefixCache(0, key_policy=KEY_BY_NAME)
    with pytest.raises(ValueError, match="adapter must be an Adapter"):
        PrefixCache(4, key_policy=KEY_BY_NAME).lookup("support-bot", "p")
    with pytest.raises(ValueError, match="only a hit can be stale"):
        PrefixLookup(hit=False, stale=True, computed_with="a@1.0.0", base_digest="sha256:1")


ADAPTERS = st.builds(
    lora,
    name=st.sampled_from(["a", "b"]),
    version=st.sampled_from(["1.0.0", "1.1.0", "2.0.0"]),
    digest=st.sampled_from(["sha256:1111", "sha256:2222"]),
)
LOOKUPS = st.lists(st.tuples(ADAPTERS, st.sampled_from(["p0", "p1", "p2"])), max_size=60)


@settings(max_examples=200)
@given(LOOKUPS, st.integers(1, 8))
def test_the_registry_key_never_serves_an_entry_computed_under_another_version_or_base(lookups, capacity):
    """The property the chapter quotes: with the registry's key, every hit was computed under the request's own
    name@version and base digest, whatever the sequence of versions, bases and evictions."""
    cache = PrefixCache(capacity, key_policy=KEY_BY_IDENTITY)
    for adapter, prefix in lookups:
        result = cache.lookup(adapter, prefix)
        assert not result.stale
        assert (result.computed_with, result.base_digest) == (adapter.key, adapter.base_digest)
    assert cache.stale_hits == 0 and len(cache) <= capacity


@settings(max_examples=200)
@given(LOOKUPS, st.integers(1, 8))
def test_by_name_stale_hits_are_exactly_the_hits_computed_under_something_else(lookups, capacity):
    cache = PrefixCache(capacity, key_policy=KEY_BY_NAME)
    stale = 0
    for adapter, prefix in lookups:
        result = cache.lookup(adapter, prefix)
        wrong = (result.computed_with, result.base_digest) != (adapter.key, adapter.base_digest)
        assert result.stale == (result.hit and wrong)
        stale += result.stale
    assert cache.stale_hits == stale


def test_the_name_key_does_serve_stale_entries_after_a_same_name_replacement():
    """The test above is not vacuous: the name key fails the property on the simplest replacement."""
    cache = PrefixCache(4, key_policy=KEY_BY_NAME)
    cache.lookup(lora(), "p")
    assert cache.lookup(lora(version="1.1.0"), "p").computed_with == K("support-bot@1.0.0")


def test_the_quoted_report():

    assert "#30931" in bug.source and "same name but different id" in bug.title
    assert "same `lora_name` but different `lora_int_id`" in bug.summary and "v0.11.1" in bug.reported_against
