"""labcore.cache beyond the contract: pins (in-flight protection), the fixed load cost, stats."""

import pytest

from labcore import Adapter, AdapterCache, AdapterInUseError, AdapterNotFoundError, FifoAdapterCache
from labcore.refs import AdapterKey

K = AdapterKey.parse  # a key from its text, as a client writes it


def lora(name, vram_mb=16.0):
    return Adapter(name, "1.0.0", "llama-3-8b", "sha256:1", rank=16, vram_mb=vram_mb)


def test_pinned_adapter_is_skipped_by_eviction():
    cache = AdapterCache(32, 8.0)
    cache.access(lora("a"), pin=True)
    cache.access(lora("b"))
    assert cache.access(lora("c")).evicted == (K("b@1.0.0"),)
    assert cache.pinned == [K("a@1.0.0")]


def test_only_pinned_residents_means_in_use_error_and_no_change():
    cache = AdapterCache(32, 8.0)
    cache.access(lora("a"), pin=True)
    cache.access(lora("b"), pin=True)
    before = (cache.resident, cache.used_mb, cache.hits, cache.misses)
    with pytest.raises(AdapterInUseError) as info:
        cache.access(lora("c"))
    assert "c@1.0.0" in str(info.value) and "a@1.0.0" in str(info.value)
    assert (cache.resident, cache.used_mb, cache.hits, cache.misses) == before


def test_pins_nest_and_unpin_releases():
    cache = AdapterCache(16, 8.0)
    cache.access(lora("a"), pin=True)
    cache.pin(K("a@1.0.0"))
    assert cache.pin_count(K("a@1.0.0")) == 2
    cache.unpin(K("a@1.0.0"))
    with pytest.raises(AdapterInUseError):
        cache.access(lora("b"))
    cache.unpin(K("a@1.0.0"))
    assert cache.access(lora("b")).evicted == (K("a@1.0.0"),)


def test_pin_unknown_or_unpin_unpinned_is_an_error_naming_the_key():
    cache = AdapterCache(16, 8.0)
    with pytest.raises(AdapterNotFoundError, match="ghost@1.0.0"):
        cache.pin(K("ghost@1.0.0"))
    cache.access(lora("a"))
    with pytest.raises(AdapterNotFoundError, match="a@1.0.0"):
        cache.unpin(K("a@1.0.0"))


def test_fixed_load_overhead_is_added_to_every_miss():
    cache = AdapterCache(64, 8.0, load_overhead_ms=0.5)
    assert cache.access(lora("a")).load_ms == 2.5
    assert cache.access(lora("a")).load_ms == 0.0


@pytest.mark.parametrize("overhead", [-1.0, float("inf"), float("nan")])
def test_bad_load_overhead_is_refused(overhead):
    with pytest.raises(ValueError, match="load_overhead_ms"):
        AdapterCache(64, 8.0, load_overhead_ms=overhead)


def test_stats_snapshot_and_hit_rate():
    cache = AdapterCache(16, 8.0)
    assert cache.stats().hit_rate == 0.0
    for name in ["a", "a", "b", "a"]:
        cache.access(lora(name))
    stats = cache.stats()
    assert (stats.hits, stats.misses, stats.evictions, stats.resident) == (1, 3, 2, 1)
    assert stats.hit_rate == 0.25


def test_fifo_evicts_the_hot_adapter_that_lru_keeps():

    results = {}
    for cls in (AdapterCache, FifoAdapterCache):
        cache = cls(32, 8.0)
        cache.access(lora("hot"))
        cache.access(lora("cold"))
        for _ in range(100):
            assert cache.access(lora("hot")).hit
        results[cls.__name__] = cache.access(lora("new")).evicted
    assert results == {"AdapterCache": (K("cold@1.0.0"),), "FifoAdapterCache": (K("hot@1.0.0"),)}
