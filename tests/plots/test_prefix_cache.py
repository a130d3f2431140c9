"""Tests for labcore.plots.prefix_cache: the stale hits over time, one line per key policy, the swap marked."""

from __future__ import annotations

import pytest

from labcore.plots import KEY_POLICY_COLORS, plot_stale_hits
from labcore.prefix_cache import KEY_BY_IDENTITY, KEY_BY_NAME, KEY_POLICIES
from labcore.sim.scenarios.prefix_cache import prefix_cache_runs


def test_stale_hits_step_up_only_after_the_replacement():
    runs = prefix_cache_runs()
    ax = plot_stale_hits(runs).axes[0]
    by_name, by_id, swap = ax.get_lines()
    assert (
        by_name.get_color() == KEY_POLICY_COLORS[KEY_BY_NAME]
        and by_id.get_color() == KEY_POLICY_COLORS[KEY_BY_IDENTITY]
    )
    assert max(by_name.get_ydata()) == runs[KEY_BY_NAME].stale_hits and max(by_id.get_ydata()) == 0
    assert swap.get_xdata()[0] == pytest.approx(runs[KEY_BY_NAME].replace_at_ms / 1000)
    assert set(KEY_POLICY_COLORS) == set(KEY_POLICIES)
    assert ax.get_ylim()[0] < 0  # the zero line stays visible
    with pytest.raises(ValueError, match="no prefix-cache runs"):
        plot_stale_hits({})


def test_the_title_and_legend_read_the_run_keys():
    ax = plot_stale_hits(prefix_cache_runs()).axes[0]
    assert ax.get_title().startswith("Keyed by name, all 385 tenant-01 requests after the swap")
    assert "tenant-01@1.0.0 replaced by 1.1.0" in [t.get_text() for t in ax.get_legend().get_texts()]
