"""Contract: parse_model_ref splits ``base[:adapter[@version]]``; the router turns it into base, dynamic or dedicated
with a latency model."""

import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from .conftest import BASE, DIGEST


def test_route_bare_base_uses_no_adapter_and_leaves_the_cache_alone(lab, router_for):
    router = router_for()
    decision = router.route(BASE)
    assert decision.mode == lab.MODE_BASE == "base"
    assert (decision.adapter, decision.cache_hit, decision.evicted) == (None, None, ())
    assert (decision.adapter_load_ms, decision.total_latency_ms) == (0.0, 40.0)
    assert (router.cache.hits, router.cache.misses, len(router.cache)) == (0, 0, 0)


def test_route_dynamic_miss_pays_overhead_and_load(lab, registry, make, router_for, key):
    registry.register(make("support-bot", "2.1.0", vram_mb=16.0))
    decision = router_for().route("llama-3-8b:support-bot@2.1.0")
    assert decision.mode == lab.MODE_DYNAMIC == "dynamic"
    assert decision.adapter == key("support-bot@2.1.0")
    assert decision.cache_hit is False
    assert decision.adapter_load_ms == 2.0
    assert decision.total_latency_ms == pytest.approx(40.0 * 1.05 + 2.0)


def test_route_dynamic_hit_pays_only_overhead(lab, registry, make, router_for):
    registry.register(make("support-bot", "2.1.0"))
    router = router_for()
    router.route("llama-3-8b:support-bot@2.1.0")
    decision = router.route("llama-3-8b:support-bot@2.1.0")
    assert (decision.cache_hit, decision.adapter_load_ms, decision.evicted) == (True, 0.0, ())
    assert decision.total_latency_ms == pytest.approx(42.0)


def test_route_merged_adapter_is_dedicated_with_zero_overhead(lab, registry, make, router_for, key):
    # A merged adapter has ΔW folded into its own copy of the base: no per-token LoRA overhead,
    # no hot-swap, and a whole replica to itself. Latency wins; density loses.
    registry.register(make("flagship", "3.0.0", merged=True, rank=64, vram_mb=64.0))
    router = router_for(overhead=0.05)
    decision = router.route("llama-3-8b:flagship@3.0.0")
    assert decision.mode == lab.MODE_DEDICATED == "dedicated"
    assert decision.adapter == key("flagship@3.0.0")
    assert decision.cache_hit is None and decision.evicted == ()
    assert decision.adapter_load_ms == 0.0
    assert decision.total_latency_ms == 40.0  # base latency, no overhead
    assert len(router.cache) == 0 and router.cache.misses == 0


def test_route_unpinned_ref_follows_the_latest_semver(registry, make, router_for, key):
    for version in ["1.9.0", "1.10.0"]:
        registry.register(make("support-bot", version))
    router = router_for()
    assert router.route("llama-3-8b:support-bot").adapter == key("support-bot@1.10.0")
    registry.register(make("support-bot", "2.0.0"))
    assert router.route("llama-3-8b:support-bot").adapter == key("support-bot@2.0.0")


def test_route_pinned_ref_gets_exactly_that_version(registry, make, router_for, key):
    for version in ["1.9.0", "1.10.0"]:
        registry.register(make("support-bot", version))
    assert router_for().route("llama-3-8b:support-bot@1.9.0").adapter == key("support-bot@1.9.0")


def test_route_reports_evictions(registry, make, router_for, key):
    for name in ["a", "b", "c"]:
        registry.register(make(name))
    router = router_for(budget_mb=32.0)
    router.route("llama-3-8b:a")
    router.route("llama-3-8b:b")
    assert router.route("llama-3-8b:c").evicted == (key("a@1.0.0"),)


def test_route_ref_for_another_base_raises_wrong_base(lab, registry, make, router_for):
    registry.register(make("support-bot"))
    with pytest.raises(lab.WrongBaseError) as info:
        router_for().route("mistral-7b:support-bot")
    assert "mistral-7b" in str(info.value)


def test_route_adapter_bound_to_another_base_raises_wrong_base(lab, registry, make, router_for):
    registry.register_base("llama-3-70b", "sha256:70b")
    registry.register(make("big-bot", base="llama-3-70b", digest="sha256:70b"))
    with pytest.raises(lab.WrongBaseError) as info:
        router_for().route("llama-3-8b:big-bot")
    assert "big-bot" in str(info.value)


def test_route_unknown_adapter_raises_not_found(lab, router_for):
    with pytest.raises(lab.AdapterNotFoundError):
        router_for().route("llama-3-8b:ghost")
    with pytest.raises(ValueError):
        router_for().route("llama-3-8b:ghost@1.0")


@pytest.mark.parametrize(
    "kwargs", [dict(base_latency_ms=0, dynamic_overhead=0.05), dict(base_latency_ms=40, dynamic_overhead=-0.1)]
)
def test_router_rejects_bad_latency_model(lab, registry, kwargs):
    with pytest.raises(ValueError):
        lab.MultiLoRARouter(registry, lab.AdapterCache(64, 8.0), BASE, **kwargs)


@pytest.mark.parametrize(
    "ref, expected",
    [
        ("llama-3-8b:support-bot@2.1.0", ("llama-3-8b", "support-bot", "2.1.0")),
        ("llama-3-8b:support-bot", ("llama-3-8b", "support-bot", None)),
        ("llama-3-8b", ("llama-3-8b", None, None)),
    ],
)
def test_parse_model_ref_accepts_the_three_forms(lab, ref, expected):
    parsed = lab.parse_model_ref(ref)
    assert (parsed.base, parsed.adapter, parsed.version) == expected


@pytest.mark.parametrize(
    "bad",
    [
        "",
        ":",
        "llama-3-8b:",
        ":support-bot",
        "llama-3-8b:support-bot:x",
        "llama-3-8b:support-bot@",
        "llama-3-8b:support-bot@2.1",
        "llama-3-8b@2.1.0",
        "llama-3-8b:support-bot@2.1.0@3.0.0",
        "llama-3-8b:@2.1.0",
        "llama-3-8b:support-bot@v2.1.0",
    ],
)
def test_parse_model_ref_rejects_malformed_refs(lab, bad):
    with pytest.raises(ValueError) as info:
        lab.parse_model_ref(bad)
    assert repr(bad) in str(info.value) or bad in str(info.value)


ref_text = st.text(alphabet=string.ascii_letters + string.digits + ":@.-_ v0", max_size=30)


@given(st.one_of(st.text(max_size=40), ref_text))
def test_parse_model_ref_parses_or_raises_value_error(lab, text):
    try:
        ref = lab.parse_model_ref(text)
    except ValueError:
        return
    rebuilt = ref.base + (f":{ref.adapter}" if ref.adapter else "") + (f"@{ref.version}" if ref.version else "")
    assert rebuilt == text


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["a", "b", "c", "d", "ghost"]),
            st.sampled_from([None, "1.0.0", "1.1.0", "2.0.0"]),
            st.sampled_from([BASE, "llama-3-70b"]),
        ),
        max_size=40,
    )
)
def test_router_only_returns_registered_adapters_bound_to_its_base(lab, requests):
    registry = lab.AdapterRegistry()
    registry.register_base(BASE, DIGEST)
    registry.register_base("llama-3-70b", "sha256:70b")
    registry.register(lab.Adapter("a", "1.0.0", BASE, DIGEST, 8, 8.0))
    registry.register(lab.Adapter("a", "1.1.0", BASE, DIGEST, 8, 8.0))
    registry.register(lab.Adapter("b", "2.0.0", BASE, DIGEST, 8, 8.0, True))
    registry.register(lab.Adapter("d", "1.0.0", "llama-3-70b", "sha256:70b", 8, 8.0))
    router = lab.MultiLoRARouter(
        registry, lab.AdapterCache(16.0, 8.0), BASE, base_latency_ms=30.0, dynamic_overhead=0.1
    )
    for name, version, base in requests:
        ref = f"{base}:{name}" + (f"@{version}" if version else "")
        try:
            decision = router.route(ref)
        except (lab.AdapterNotFoundError, lab.WrongBaseError):
            continue
        assert decision.adapter in registry
        assert registry.resolve(decision.adapter).base_model == BASE
        assert router.cache.used_mb <= router.cache.budget_mb
