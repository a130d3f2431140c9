"""Tests for labcore.checks.sizing: an adapter's VRAM and how many adapters fit, with a hint per known mistake."""

from __future__ import annotations

import math

import pytest

from labcore import adapter_vram_mb
from labcore.checks import grade_adapter_vram_mb, grade_adapters_that_fit
from labcore.checks.sizing import KV_PROBE_MODELS, TRADE_CASE, grade_adapters_beside_kv, grade_kv_bytes_per_token
from labcore.kv_cache import kv_bytes_per_token
from labcore.model_config import load_model_config
from labcore.panels.sizing import gpu_split_panel


@pytest.mark.parametrize(
    ("answer", "hint"),
    [
        (160, "half the answer"),  # forgot A and B
        (335.54, "MB (10^6 bytes)"),  # MB, not MiB
        (640, "4 bytes per parameter"),  # fp32
        (80, "one target module"),  # forgot targets
        (4, "one layer"),  # forgot layers
        (320 * 8192, "d twice"),  # d x d instead of 2 r d
        (42, "layers · targets · 2 · r · d · bytes"),  # anything else: the formula
    ],
)
def test_adapter_vram_hints_name_the_mistake(answer, hint):
    verdict = grade_adapter_vram_mb(answer)
    assert not verdict.ok and verdict.message.startswith("✗") and hint in verdict.message


def test_adapter_vram_params_mode_hint():
    # 167.77 million parameters, reported as if it were MiB
    verdict = grade_adapter_vram_mb(adapter_vram_mb(32, 8192, 80, 4) / 2)
    assert "half" in verdict.message  # with 2 bytes/param "params" and "half" coincide: the first hint wins
    verdict = grade_adapter_vram_mb(
        adapter_vram_mb(8, 4096, 32, 2, 4) / 4, rank=8, hidden=4096, layers=32, targets=2, bytes_per_param=4
    )
    assert "parameters in millions" in verdict.message


@pytest.mark.parametrize(
    ("answer", "hint"),
    [
        (26, "rounds up"),
        (25.6, "fraction of an adapter"),
        (23, "decimal GB"),
        (24.5, "round down"),
        (3, "Divide the pool"),
    ],
)
def test_adapters_that_fit_hints(answer, hint):
    verdict = grade_adapters_that_fit(answer)
    assert not verdict.ok and hint in verdict.message


def test_adapters_that_fit_thousand_mib_hint_when_it_differs():
    verdict = grade_adapters_that_fit(7, pool_gb=10, adapter_vram_mb=1400)  # 10240/1400 = 7.3 -> 7 is right
    assert verdict.ok
    verdict = grade_adapters_that_fit(2, pool_gb=3, adapter_vram_mb=1010)  # 3072/1010 -> 3; 3000/1010 -> 2
    assert not verdict.ok and "1000 MiB per GiB" in verdict.message


def test_counts_accept_whole_floats():
    assert grade_adapters_that_fit(25.0).ok
    assert grade_adapters_that_fit(8192 // 320).ok


def _right_kv(cfg):
    return cfg.num_hidden_layers * cfg.num_key_value_heads * cfg.head_dim * 2 * 2


@pytest.mark.parametrize(
    ("function", "hint"),
    [
        (lambda c: c.num_hidden_layers * c.num_key_value_heads * c.head_dim * 2, "half"),
        (lambda c: c.num_hidden_layers * c.num_key_value_heads * c.head_dim, "two factors of 2"),
        (lambda c: c.num_hidden_layers * c.num_key_value_heads * c.head_dim * 2 * 4, "not 4 (fp32)"),
        (lambda c: c.num_hidden_layers * c.num_attention_heads * c.head_dim * 4, "query width"),
        (lambda c: c.num_key_value_heads * c.head_dim * 4, "one layer's"),
        (lambda c: c.num_hidden_layers * c.num_key_value_heads * c.head_dim * 4 / 1024, "in KiB"),
        (lambda c: 7, "labcore 57,344 bytes"),
        (lambda c: c.no_such_field, "raised AttributeError"),
        (lambda c: None, "returns None"),
        (lambda c: "lots", "return a number"),
        (None, "Not answered"),
        (42, "Expected a function"),
    ],
)
def test_kv_bytes_per_token_hints_name_the_mistake(function, hint):
    verdict = grade_kv_bytes_per_token(function)
    assert not verdict.ok and hint in verdict.message, verdict.message


def test_kv_bytes_per_token_accepts_the_formula_and_agrees_with_labcore():
    assert grade_kv_bytes_per_token(_right_kv).ok
    assert all(_right_kv(load_model_config(m)) == kv_bytes_per_token(m) for m in KV_PROBE_MODELS)
    assert "llama-3-8b" not in KV_PROBE_MODELS  # the chapter's worked example is not a probe


def test_adapters_beside_kv_is_the_split_panels_state():

    shown = gpu_split_panel().row(**TRADE_CASE)["adapters"]
    assert grade_adapters_beside_kv(shown, **TRADE_CASE).ok and shown == 1947


@pytest.mark.parametrize(
    ("answer", "hint"),
    [
        (2577, "chapter's split"),
        (1582, "square formula"),
        (1972, "spec sheet"),
        (1865, "16 GiB base"),
        (1901, "1000 MiB per GiB"),
        (1000, "⌊(0.9 × GPU − base − KV) / adapter⌋"),
        (1947.5, "not a whole number"),
    ],
)
def test_adapters_beside_kv_hints(answer, hint):
    verdict = grade_adapters_beside_kv(answer)
    assert not verdict.ok and hint in verdict.message, verdict.message


def test_adapters_beside_kv_accepts_a_prediction_from_rounded_figures():
    assert grade_adapters_beside_kv(math.floor((0.9 * 79.6 - 15.0 - 32) * 1024 / 13)).ok
