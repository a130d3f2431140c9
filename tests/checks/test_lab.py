"""Tests for labcore.checks.lab: the lab's mistakes as implementations, and chapter 7's three checks."""

from __future__ import annotations

import pytest

import labcore
from labcore.checks.lab import (
    MISTAKES,
    check_lru_test,
    grade_lru_case_evicts,
    grade_lru_test,
    grade_mistake_miss_ms,
    lru_case,
    mistaken_lab,
)
from labcore.implementation import implementation
from labcore.panels import your_cache_panel, your_router_panel
from labcore.panels.cache import your_cache_state
from labcore.panels.router import your_router_state


def test_a_mistaken_lab_is_labcore_with_one_piece_swapped():
    for name, (_, attribute, replacement) in MISTAKES.items():
        lab = mistaken_lab(name)
        assert not lab.is_reference and lab.name == name
        assert lab.get(attribute) is replacement and issubclass(replacement, getattr(labcore, attribute))
        others = [n for n in labcore.__all__ if n != attribute]
        assert all(lab.get(n) is getattr(labcore, n) for n in others)
    with pytest.raises(ValueError, match="mistake must be one of"):
        mistaken_lab("no-such-slip")


def test_the_slips_show_on_the_on_your_code_panels():
    cache = your_cache_state(mistaken_lab("cache-without-refresh"), 320, 1.0)
    assert cache["yours_hit_pct"] == cache["fifo_hit_pct"] < cache["lru_hit_pct"]
    router = your_router_state(mistaken_lab("router-without-overhead"), 10, 64.0)
    assert (router["yours_hit_ms"], router["yours_miss_ms"], router["miss_ms"]) == (40.0, 48.0, 52.0)
    panel = your_router_panel(mistaken_lab("router-without-overhead"))
    assert panel.variant == "router-without-overhead" and "yours: hit 40.0 ms" in panel.lookup()["readout"]
    assert your_cache_panel(mistaken_lab("cache-without-refresh")).variant == "cache-without-refresh"


def test_lru_case_is_the_suites_test_and_only_the_reference_passes_it():
    assert lru_case(implementation("reference")) == ("cold@1.0.0",)
    assert lru_case(mistaken_lab("cache-without-refresh")) == ("hot@1.0.0",)


@pytest.mark.parametrize("answer", ["hot", "hot@1.0.0", " 'Hot' "])
def test_lru_case_prediction_accepts_the_name_in_any_form(answer):
    assert grade_lru_case_evicts(answer).ok


@pytest.mark.parametrize(
    ("answer", "hint"),
    [
        ("cold", "what the reference evicts"),
        ("new", "the adapter being loaded"),
        ("nothing", "must evict one"),
        ("warm", "not one of the test's adapters"),
        (None, "Not answered"),
        (1, "Expected an adapter's name"),
    ],
)
def test_lru_case_prediction_hints(answer, hint):
    verdict = grade_lru_case_evicts(answer)
    assert not verdict.ok and hint in verdict.message, verdict.message


def _lru(cache_class):
    a, b, c = labcore.tenant_adapters(3)
    cache = cache_class(32, 8.0)
    cache.access(a), cache.access(b), cache.access(a)
    assert cache.access(c).evicted == (b.key,)


def _contract_like(cache_class):
    hot, cold, new = labcore.tenant_adapters(3)
    cache = cache_class(32, 8.0)
    cache.access(hot), cache.access(cold)
    for _ in range(10):
        assert cache.access(hot).hit
    assert cold.key in cache.access(new).evicted


def _todo(cache_class):
    raise NotImplementedError("your accesses and your assert")


def _misses_only(cache_class):
    a, _, _ = labcore.tenant_adapters(3)
    cache = cache_class(32, 8.0)
    assert not cache.access(a).hit


def _fifo(cache_class):
    a, b, c = labcore.tenant_adapters(3)
    cache = cache_class(32, 8.0)
    cache.access(a), cache.access(b), cache.access(a)
    assert cache.access(c).evicted == (a.key,)


def _crashes_on_fifo(cache_class):
    a, b, c = labcore.tenant_adapters(3)
    cache = cache_class(32, 8.0)
    cache.access(a), cache.access(b), cache.access(a)
    if cache.access(c).evicted != (b.key,):
        raise RuntimeError("wrong victim")


@pytest.mark.parametrize("test", [_lru, _contract_like])
def test_lru_test_accepts_a_test_that_tells_lru_from_fifo(test):
    assert grade_lru_test(test).ok


@pytest.mark.parametrize(
    ("test", "hint"),
    [
        (_todo, "Not answered yet"),
        (None, "Not answered yet"),
        (_misses_only, "passes on the cache that does not"),
        (_fifo, "fails on labcore's own LRU cache"),
        (lambda cache_class: cache_class(), "raised TypeError"),
        (_crashes_on_fifo, "with RuntimeError, not with a failed assert"),
        ("a test", "Expected a function"),
    ],
)
def test_lru_test_hints(test, hint):
    verdict = grade_lru_test(test)
    assert not verdict.ok and hint in verdict.message, verdict.message


def test_mistake_miss_is_the_panels_yours_line():
    assert grade_mistake_miss_ms(48).ok and grade_mistake_miss_ms(48.0, overhead_pct=10, adapter_vram_mb=64.0).ok
    assert grade_mistake_miss_ms(42, overhead_pct=5, adapter_vram_mb=16.0).ok
    assert grade_mistake_miss_ms(80, overhead_pct=30, adapter_vram_mb=320.0).ok


@pytest.mark.parametrize(
    ("answer", "hint"),
    [
        (52, "the reference's miss"),
        (44, "the reference's hit"),
        (40, "its hit, the base alone"),
        (47, "base latency plus the load"),
        (None, "Not answered"),
    ],
)
def test_mistake_miss_hints(answer, hint):
    verdict = grade_mistake_miss_ms(answer)
    assert not verdict.ok and hint in verdict.message, verdict.message


def test_the_check_prints_one_line(capsys):
    check_lru_test(_lru)
    assert capsys.readouterr().out.startswith("✓ Correct")
