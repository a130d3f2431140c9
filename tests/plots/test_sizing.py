"""Tests for labcore.plots.sizing: adapter VRAM against rank, and one GPU's memory split."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pytest

from labcore import gpu_memory_split
from labcore.plots import plot_adapter_vram, plot_gpu_split


def test_plot_adapter_vram_marks_the_chosen_rank_and_labels_units():
    fig = plot_adapter_vram(32, hidden=8192, layers=80, targets=4)
    ax = fig.axes[0]
    assert ax.texts[0].get_text() == "r=32: 320.0 MiB"
    assert "MiB" in ax.get_ylabel() and "rank" in ax.get_xlabel()
    marker = ax.lines[1]
    assert list(marker.get_xdata()) == [32] and list(marker.get_ydata()) == [320.0]


def test_plot_adapter_vram_curve_is_linear_in_rank():
    fig = plot_adapter_vram(16, hidden=4096, layers=32, targets=2, ranks=(1, 2, 4, 8))
    xs, ys = fig.axes[0].lines[0].get_data()
    assert list(xs) == [1, 2, 4, 8, 16]
    assert [y / x for x, y in zip(xs, ys, strict=True)] == [1.0] * 5  # 1 MiB per unit of rank for this shape


def test_plot_draws_on_a_given_axes_and_returns_its_figure():
    fig, (left, right) = plt.subplots(1, 2)
    out = plot_gpu_split(gpu_memory_split(80, base_vram_gb=16, kv_cache_gb=24, adapter_vram_mb=16), ax=right)
    assert out is fig
    assert not left.patches and right.patches


def test_plot_gpu_split_segments_add_up_to_the_gpu():
    split = gpu_memory_split(80, base_vram_gb=16, kv_cache_gb=24, adapter_vram_mb=300)
    ax = plot_gpu_split(split).axes[0]
    widths = [p.get_width() for p in ax.patches]
    assert widths[:2] == [16, 24]
    assert sum(widths) == pytest.approx(80)
    assert ax.get_title() == f"{split.adapters_that_fit} adapters fit in 40.0 GiB"
    assert "GiB" in ax.get_xlabel()


def test_plot_gpu_split_draws_the_courses_split_of_a_real_gpu():
    from labcore.capacity import memory_split

    split = memory_split(adapter_mb=13.0)  # Llama-3-8B in 0.9 of an H100 as its driver reports it, 24 sequences
    ax = plot_gpu_split(split).axes[0]
    widths = [p.get_width() for p in ax.patches]
    assert widths[:2] == [split.base_gib, split.kv_gib] and ax.get_xlim() == (0, split.budget_gib)
    assert sum(widths) == pytest.approx(split.budget_gib) and split.budget_gib == pytest.approx(0.9 * split.gpu_gib)
    assert ax.get_title() == f"{split.adapters_that_fit:,} adapters fit in {split.pool_gib:.1f} GiB"
