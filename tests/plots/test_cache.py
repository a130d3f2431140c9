"""Tests for labcore.plots.cache: hit rate, evictions and load time over a trace, hit rate against budget, VRAM in use."""

from __future__ import annotations

import pytest

from labcore.plots import (
    CACHE_POLICY_COLORS,
    plot_cache_over_time,
    plot_hit_rate_vs_budget,
    plot_vram_used,
)
from labcore.sim import budget_sweep, cache_runs


@pytest.fixture(scope="module")
def runs():
    return cache_runs(320, 40, 1.0)


@pytest.mark.parametrize("metric", ["hit_rate", "evictions", "load_ms"])
def test_plot_cache_over_time_one_line_per_policy(runs, metric):
    ax = plot_cache_over_time(runs, metric=metric).axes[0]
    lines = ax.get_lines()
    assert [line.get_label() for line in lines] == ["LRU", "FIFO"]
    assert [line.get_color() for line in lines] == [CACHE_POLICY_COLORS["LRU"], CACHE_POLICY_COLORS["FIFO"]]
    assert ax.get_ylabel().endswith(")") and ax.get_xlabel() == "Requests"
    if metric == "evictions":
        assert sum(lines[0].get_ydata()) == runs["LRU"].evictions


def test_plot_cache_over_time_rejects_unknown_metric(runs):
    with pytest.raises(ValueError, match="metric must be one of .*, got .p99."):
        plot_cache_over_time(runs, metric="p99")
    with pytest.raises(ValueError, match="no cache runs"):
        plot_cache_over_time({})


def test_plot_hit_rate_vs_budget_marks_working_set_and_budget():
    ax = plot_hit_rate_vs_budget(budget_sweep([128, 640], 40, 1.0), budget_mb=320).axes[0]
    labels = [line.get_label() for line in ax.get_lines()]
    assert labels == ["LRU", "FIFO", "working set 640 MiB", "budget 320 MiB"]
    assert ax.get_xlabel() == "VRAM budget for adapters (MiB)"


def test_plot_vram_used_stays_under_budget_line(runs):
    run = runs["LRU"]
    ax = plot_vram_used(run).axes[0]
    used = ax.get_lines()[0]
    assert max(used.get_ydata()) <= run.budget_mb
    crosses = ax.get_lines()[1]
    assert len(crosses.get_xdata()) == sum(p > run.budget_mb for p in run.load_first_peak_mb) > 0
    assert ax.get_title().startswith("Evict first")
