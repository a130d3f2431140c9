"""labcore.router beyond the contract: the observability fields, in-flight pins, memo invalidation."""

import threading

import pytest

from labcore import Adapter, AdapterCache, AdapterInUseError, AdapterRegistry, MultiLoRARouter, parse_model_ref
from labcore.refs import AdapterKey
from labcore.sim import Trace, simulate

K = AdapterKey.parse  # a key from its text, as a client writes it


@pytest.fixture
def router():
    reg = AdapterRegistry()
    reg.register_base("llama-3-8b", "sha256:1")
    for name in ["a", "b"]:
        reg.register(Adapter(name, "1.0.0", "llama-3-8b", "sha256:1", rank=16, vram_mb=16.0))
    return MultiLoRARouter(reg, AdapterCache(16, 8.0), "llama-3-8b", base_latency_ms=40.0, dynamic_overhead=0.05)


def test_decision_records_the_request_and_the_cost_breakdown(router):
    d = router.route("llama-3-8b:a@1.0.0")
    assert (d.ref, d.base, d.version_pinned) == ("llama-3-8b:a@1.0.0", "llama-3-8b", True)
    assert d.total_latency_ms == pytest.approx(d.base_latency_ms + d.overhead_ms + d.adapter_load_ms)
    assert router.route("llama-3-8b:a").version_pinned is False


def test_equal_situations_give_equal_decisions(router):
    router.route("llama-3-8b:a")
    assert router.route("llama-3-8b:a") == router.route("llama-3-8b:a")


def test_pinned_route_blocks_eviction_until_release(router):
    held = router.route("llama-3-8b:a", pin=True)
    with pytest.raises(AdapterInUseError):
        router.route("llama-3-8b:b")
    assert router.requests_by_mode["dynamic"] == 1  # the refused request is not counted
    router.release(held)
    assert router.route("llama-3-8b:b").evicted == (K("a@1.0.0"),)


def test_requests_are_counted_by_mode(router):
    for ref in ["llama-3-8b", "llama-3-8b:a", "llama-3-8b:a"]:
        router.route(ref)
    assert router.requests_by_mode == {"base": 1, "dynamic": 2, "dedicated": 0}
    assert router.requests == 3


def test_model_ref_round_trips_to_text():
    for text in ["llama-3-8b", "llama-3-8b:a", "llama-3-8b:a@1.2.3"]:
        assert str(parse_model_ref(text)) == text
    assert parse_model_ref("llama-3-8b:a@1.2.3").adapter_ref == "a@1.2.3"


def test_router_is_safe_from_many_threads():
    """Eight threads route over a cache with room for 4 of 12 adapters: the budget holds at every step.

    Not in the learner's contract (``tests/contract``): the suite runs in the browser's Python too, which has
    no threads, and must report the same there as here.
    """
    registry = AdapterRegistry()
    registry.register_base("llama-3-8b", "sha256:1")
    for i in range(12):
        registry.register(Adapter(f"t{i}", "1.0.0", "llama-3-8b", "sha256:1", rank=16, vram_mb=16.0))
    router = MultiLoRARouter(
        registry, AdapterCache(64.0, 8.0), "llama-3-8b", base_latency_ms=40.0, dynamic_overhead=0.05
    )  # room for 4 of 12: constant eviction
    over_budget, errors = [], []

    def worker(offset):
        try:
            for i in range(400):
                router.route(f"llama-3-8b:t{(i * 7 + offset) % 12}")
                if router.cache.used_mb > router.cache.budget_mb:
                    over_budget.append(router.cache.used_mb)
        except Exception as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and over_budget == []
    cache = router.cache
    assert cache.hits + cache.misses == 8 * 400
    assert cache.used_mb <= cache.budget_mb and len(cache) <= 4


def _twin_routers():
    """Two equal routers over 6 adapters, 2 resident at a time, one of them merged (dedicated)."""

    def build():
        reg = AdapterRegistry()
        reg.register_base("llama-3-8b", "sha256:1")
        for i in range(6):
            reg.register(Adapter(f"t{i}", "1.0.0", "llama-3-8b", "sha256:1", rank=16, vram_mb=16.0, merged=i == 5))
        return MultiLoRARouter(reg, AdapterCache(32.0, 8.0), "llama-3-8b", base_latency_ms=40.0, dynamic_overhead=0.05)

    return build(), build()


def test_route_many_gives_what_route_gives_one_by_one():
    one_by_one, batch = _twin_routers()
    refs = [f"llama-3-8b:t{(i * 5) % 6}" for i in range(60)] + ["llama-3-8b", parse_model_ref("llama-3-8b:t1")]
    expected = []
    for ref in refs:
        expected.append(one_by_one.route(ref))
        assert one_by_one.cache.used_mb <= one_by_one.cache.budget_mb
    assert batch.route_many(refs) == expected
    assert batch.requests_by_mode == one_by_one.requests_by_mode == {"base": 1, "dynamic": 51, "dedicated": 10}
    assert batch.cache.resident == one_by_one.cache.resident and batch.cache.used_mb <= batch.cache.budget_mb
    assert {d.cache_hit for d in expected if d.mode == "dynamic"} == {True, False}  # both paths were taken


def test_route_many_stops_at_a_bad_ref_with_the_requests_before_it_counted():
    router, _ = _twin_routers()
    with pytest.raises(Exception, match="no-such") as raised:
        router.route_many(["llama-3-8b:t0", "llama-3-8b", "llama-3-8b:no-such"])
    assert raised.type.__name__ == "AdapterNotFoundError"
    assert router.requests_by_mode == {"base": 1, "dynamic": 1, "dedicated": 0}
    assert router.cache.resident == [K("t0@1.0.0")]


def test_the_simulator_keeps_a_subclass_route():
    """A router whose class overrides ``route`` alone is replayed through that ``route``, not the batch loop."""

    class Counting(MultiLoRARouter):
        calls = 0

        def route(self, ref, *, pin=False):
            Counting.calls += 1
            return super().route(ref, pin=pin)

    plain, _ = _twin_routers()
    counting = Counting(
        plain.registry, AdapterCache(32.0, 8.0), "llama-3-8b", base_latency_ms=40.0, dynamic_overhead=0.05
    )
    trace = Trace.from_pairs([(i, f"llama-3-8b:t{i % 3}") for i in range(9)])
    assert simulate(counting, trace, windows=1) == simulate(plain, trace, windows=1)
    assert Counting.calls == 9
