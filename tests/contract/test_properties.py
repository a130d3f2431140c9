"""Contract properties (hypothesis): semver order, total parsers, the cache budget under any sequence."""

import string

import pytest
from hypothesis import given, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from .conftest import BASE, DIGEST

parts = st.integers(min_value=0, max_value=10**6)
versions = st.tuples(parts, parts, parts)
ref_text = st.text(alphabet=string.ascii_letters + string.digits + ":@.-_ v0", max_size=30)


@given(versions, versions)
def test_semver_order_is_numeric_tuple_order(lab, a, b):
    parsed_a = lab.parse_version(".".join(map(str, a)))
    parsed_b = lab.parse_version(".".join(map(str, b)))
    assert parsed_a == a and parsed_b == b
    assert (parsed_a < parsed_b) == (a < b)


@given(st.one_of(st.text(max_size=30), ref_text))
def test_parse_version_parses_or_raises_value_error(lab, text):
    try:
        parsed = lab.parse_version(text)
    except ValueError:
        return
    assert ".".join(map(str, parsed)) == text  # anything accepted is canonical semver


@given(st.one_of(st.text(max_size=40), ref_text))
def test_parse_model_ref_parses_or_raises_value_error(lab, text):
    try:
        ref = lab.parse_model_ref(text)
    except ValueError:
        return
    rebuilt = ref.base + (f":{ref.adapter}" if ref.adapter else "") + (f"@{ref.version}" if ref.version else "")
    assert rebuilt == text


@given(name=st.text(max_size=20), version=st.one_of(st.text(max_size=12), ref_text),
       rank=st.integers(-4, 64), vram_mb=st.floats(allow_nan=True, allow_infinity=True))
def test_adapter_validates_or_raises_value_error(lab, name, version, rank, vram_mb):
    try:
        adapter = lab.Adapter(name, version, BASE, DIGEST, rank, vram_mb)
    except ValueError:
        return
    assert ":" not in adapter.name and "@" not in adapter.name and adapter.rank > 0 and adapter.vram_mb > 0


class CacheAgainstModel(RuleBasedStateMachine):
    """Drive an AdapterCache with random accesses and compare it to a plain-list LRU model."""

    def __init__(self):
        super().__init__()
        self.lab = pytest.importorskip("importlib").import_module(_lab_module())
        self.budget = 100.0
        self.cache = self.lab.AdapterCache(self.budget, 10.0)
        self.model = []  # (key, vram_mb), least recently used first
        self.log = []

    @rule(index=st.integers(0, 11), vram_mb=st.sampled_from([5.0, 10.0, 25.0, 40.0, 100.0, 120.0]))
    def access(self, index, vram_mb):
        adapter = self.lab.Adapter(f"t{index}-{int(vram_mb)}", "1.0.0", BASE, DIGEST, 8, vram_mb)
        key = adapter.key
        if vram_mb > self.budget:
            with pytest.raises(self.lab.AdapterTooLargeError):
                self.cache.access(adapter)
            return
        keys = [k for k, _ in self.model]
        result = self.cache.access(adapter)
        if key in keys:
            assert result.hit and result.evicted == () and result.load_ms == 0.0
            self.model.append(self.model.pop(keys.index(key)))
            return
        evicted = []
        while sum(size for _, size in self.model) + vram_mb > self.budget:
            evicted.append(self.model.pop(0)[0])
        self.model.append((key, vram_mb))
        self.log.extend(evicted)
        assert not result.hit and result.evicted == tuple(evicted)
        assert result.load_ms == pytest.approx(vram_mb / 10.0)

    @invariant()
    def matches_model_and_stays_in_budget(self):
        assert self.cache.used_mb <= self.cache.budget_mb
        assert self.cache.resident == [k for k, _ in self.model]
        assert self.cache.used_mb == pytest.approx(sum(size for _, size in self.model))
        assert self.cache.eviction_log == self.log


def _lab_module():
    from .conftest import LAB_MODULE

    return LAB_MODULE


TestCacheAgainstModel = CacheAgainstModel.TestCase


@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c", "d", "ghost"]),
                          st.sampled_from([None, "1.0.0", "1.1.0", "2.0.0"]),
                          st.sampled_from([BASE, "llama-3-70b"])), max_size=40))
def test_router_only_returns_registered_adapters_bound_to_its_base(lab, requests):
    registry = lab.AdapterRegistry()
    registry.register_base(BASE, DIGEST)
    registry.register_base("llama-3-70b", "sha256:70b")
    registry.register(lab.Adapter("a", "1.0.0", BASE, DIGEST, 8, 8.0))
    registry.register(lab.Adapter("a", "1.1.0", BASE, DIGEST, 8, 8.0))
    registry.register(lab.Adapter("b", "2.0.0", BASE, DIGEST, 8, 8.0, True))
    registry.register(lab.Adapter("d", "1.0.0", "llama-3-70b", "sha256:70b", 8, 8.0))
    router = lab.MultiLoRARouter(registry, lab.AdapterCache(16.0, 8.0), BASE, base_latency_ms=30.0, dynamic_overhead=0.1)
    for name, version, base in requests:
        ref = f"{base}:{name}" + (f"@{version}" if version else "")
        try:
            decision = router.route(ref)
        except (lab.AdapterNotFoundError, lab.WrongBaseError):
            continue
        assert decision.adapter in registry
        assert registry.resolve(decision.adapter).base_model == BASE
        assert router.cache.used_mb <= router.cache.budget_mb
