"""Tests for labcore.batching: the SGMV-shaped batch cost, its fit to Punica's Figure 9, the break-even."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labcore.batching import (
    FLAT_OVERHEAD,
    PUNICA_FIG9_DISTINCT_US,
    PUNICA_FIG9_SINGLE_US,
    BatchCostModel,
    break_even_curve,
    break_even_utilisation,
    expected_distinct,
    fit_sgmv,
    merged_vs_dynamic,
    traffic_overhead,
)

MODEL = fit_sgmv()


def test_fit_reproduces_the_cited_points_within_a_few_microseconds():
    for rank, us in PUNICA_FIG9_DISTINCT_US.items():
        assert MODEL.kernel_us(64, rank) == pytest.approx(us, abs=3.0)
    assert MODEL.kernel_us(1, 8) == MODEL.kernel_us(1, 64) == PUNICA_FIG9_SINGLE_US


def test_fit_recovers_an_exact_line():
    m = fit_sgmv({8: 42 + 10 + 8 * 2, 32: 42 + 10 + 32 * 2}, single_us=42.0)
    assert m.extra_us_intercept == pytest.approx(10.0) and m.extra_us_per_rank == pytest.approx(2.0)


def test_one_adapter_batch_costs_the_flat_overhead_at_any_rank():
    for rank in (4, 16, 128):
        assert MODEL.overhead_fraction(1, rank) == pytest.approx(FLAT_OVERHEAD)


@given(st.integers(1, 200), st.integers(1, 256))
def test_overhead_grows_with_distinct_adapters_and_with_rank(d, r):
    assert MODEL.overhead_fraction(d + 1, r) >= MODEL.overhead_fraction(d, r)
    assert MODEL.overhead_fraction(d, r + 1) >= MODEL.overhead_fraction(d, r)


def test_sixty_four_distinct_rank_64_adapters_cost_almost_three_times_the_flat_overhead():
    ratio = MODEL.overhead_fraction(64, 64) / FLAT_OVERHEAD
    assert ratio == pytest.approx(118.0 / 42.0, rel=0.02)


def test_batch_latency_and_batch_overhead():
    assert MODEL.batch_latency_ms(40.0, 1, 16) == pytest.approx(42.0)
    assert MODEL.batch_overhead({}) == 0.0
    mixed = MODEL.batch_overhead({"a@1.0.0": 8, "b@1.0.0": 24})
    assert mixed == pytest.approx(MODEL.overhead_fraction(2, 16))


def test_max_loras_caps_distinct_adapters():
    capped = fit_sgmv(max_loras=4)
    assert capped.overhead_fraction(4, 16) > 0
    with pytest.raises(ValueError, match="max_loras is 4"):
        capped.overhead_fraction(5, 16)


def test_model_and_fit_validate_inputs():
    with pytest.raises(ValueError, match="distinct adapters"):
        MODEL.kernel_us(0, 16)
    with pytest.raises(ValueError, match="two"):
        fit_sgmv({16: 75.0})
    with pytest.raises(ValueError, match="reference_batch"):
        BatchCostModel(reference_batch=1)


def test_expected_distinct_limits():
    assert expected_distinct(64, [1.0]) == pytest.approx(1.0)
    uniform = [1 / 1000] * 1000
    assert expected_distinct(32, uniform) == pytest.approx(1000 * (1 - (1 - 1 / 1000) ** 32))
    assert expected_distinct(32, uniform) < 32
    with pytest.raises(ValueError, match="positive sum"):
        expected_distinct(4, [0.0, 0.0])
    with pytest.raises(ValueError, match="each popularity share must be a finite number >= 0, got -0.1"):
        expected_distinct(4, [0.5, -0.1])


def test_skew_lowers_distinct_adapters_and_overhead():
    d_flat, o_flat = traffic_overhead(MODEL, tenants=100, zipf_s=0.0, batch_size=32, rank=16)
    d_skew, o_skew = traffic_overhead(MODEL, tenants=100, zipf_s=1.5, batch_size=32, rank=16)
    assert d_skew < d_flat and o_skew < o_flat


def test_break_even_is_one_over_one_plus_overhead():
    assert break_even_utilisation(0.0) == 1.0
    assert break_even_utilisation(0.05) == pytest.approx(1 / 1.05)


def test_merged_vs_dynamic_flips_at_the_break_even():
    gpu = 20.0
    edge = gpu * break_even_utilisation(0.05)
    assert merged_vs_dynamic(edge * 0.99, gpu_qps=gpu, overhead=0.05).winner == "dynamic"
    assert merged_vs_dynamic(edge * 1.01, gpu_qps=gpu, overhead=0.05).winner == "merged"
    big = merged_vs_dynamic(30.0, gpu_qps=gpu, overhead=0.05)
    assert big.merged_gpus == 2 and big.winner == "dynamic" and big.utilisation == pytest.approx(0.75)


def test_honest_overhead_moves_the_break_even_down():
    curve = break_even_curve(MODEL, rank=64)
    assert curve[0].shift_points == pytest.approx(0.0)
    assert [p.break_even_utilisation for p in curve] == sorted((p.break_even_utilisation for p in curve), reverse=True)
    assert curve[-1].distinct == 64 and curve[-1].shift_points > 7.0
    # a tenant at 90% of a GPU: dynamic under the flat 5%, merged once the batch holds 64 rank-64 adapters
    assert merged_vs_dynamic(18.0, gpu_qps=20.0, overhead=FLAT_OVERHEAD).winner == "dynamic"
    assert merged_vs_dynamic(18.0, gpu_qps=20.0, overhead=curve[-1].overhead).winner == "merged"
    assert all(math.isfinite(p.overhead) for p in curve)
