"""Tests for labcore.checks.sizing: an adapter's VRAM and how many adapters fit, with a hint per known mistake."""

from __future__ import annotations

import pytest

from labcore import adapter_vram_mb
from labcore.checks import grade_adapter_vram_mb, grade_adapters_that_fit


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
    verdict = grade_adapter_vram_mb(adapter_vram_mb(8, 4096, 32, 2, 4) / 4, rank=8, hidden=4096, layers=32,
                                    targets=2, bytes_per_param=4)
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
