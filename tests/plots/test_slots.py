"""Tests for labcore.plots.slots and labcore.plots.prefix_cache: the TTFT cliff, the fixes, the stale hits over time."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from labcore.plots import (  # noqa: E402
    FIX_COLORS,
    KEY_POLICY_COLORS,
    TTFT_COLORS,
    plot_slot_fixes,
    plot_stale_hits,
    plot_ttft_cliff,
)
from labcore.prefix_cache import KEY_BY_IDENTITY, KEY_BY_NAME, KEY_POLICIES, prefix_cache_runs  # noqa: E402
from labcore.slots import FIXES, SLOT_CLIFF, slot_fixes, slot_sweep  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_cliff_draws_both_percentiles_and_marks_the_slots():
    runs = slot_sweep([4, 8, 12, 16])
    ax = plot_ttft_cliff(runs).axes[0]
    lines = ax.get_lines()
    assert [l.get_label() for l in lines] == ["TTFT median", "TTFT p99", "8 slots"]
    assert [l.get_color() for l in lines[:2]] == [TTFT_COLORS["p50"], TTFT_COLORS["p99"]]
    assert list(lines[1].get_ydata()) == [r.p99_ms for r in runs]
    assert ax.get_yscale() == "log" and ax.get_xlabel() == "Active adapters"
    assert "from 42 ms to" in ax.get_title() and "(12 adapters)" in ax.get_title()


def test_cliff_refuses_mixed_slot_counts_and_nothing():
    with pytest.raises(ValueError, match="one slot count at a time"):
        plot_ttft_cliff(slot_sweep([4], max_slots=4) + slot_sweep([4], max_slots=8))
    with pytest.raises(ValueError, match="no slot runs"):
        plot_ttft_cliff([])


def test_fixes_draw_two_bars_per_fix_in_the_fix_colours():
    runs = slot_fixes()
    ax = plot_slot_fixes(runs).axes[0]
    bars = ax.patches
    assert len(bars) == 2 * len(FIXES)
    widths = [b.get_width() for b in bars]
    assert widths == [v for r in runs.values() for v in (r.p50_ms, r.p99_ms)]
    assert {matplotlib.colors.to_hex(b.get_facecolor()[:3]).upper() for b in bars} == {c.upper() for c in FIX_COLORS.values()}
    assert ax.get_xscale() == "log" and ax.get_xlim()[1] > 10 * max(widths)  # room for the labels
    assert "lowest with\na slot per adapter" in ax.get_title()
    with pytest.raises(ValueError, match="no slot runs"):
        plot_slot_fixes({})


def test_stale_hits_step_up_only_after_the_replacement():
    runs = prefix_cache_runs()
    ax = plot_stale_hits(runs).axes[0]
    by_name, by_id, swap = ax.get_lines()
    assert by_name.get_color() == KEY_POLICY_COLORS[KEY_BY_NAME] and by_id.get_color() == KEY_POLICY_COLORS[KEY_BY_IDENTITY]
    assert max(by_name.get_ydata()) == runs[KEY_BY_NAME].stale_hits and max(by_id.get_ydata()) == 0
    assert swap.get_xdata()[0] == pytest.approx(runs[KEY_BY_NAME].replace_at_ms / 1000)
    assert set(KEY_POLICY_COLORS) == set(KEY_POLICIES)
    assert ax.get_ylim()[0] < 0  # the zero line stays visible
    with pytest.raises(ValueError, match="no prefix-cache runs"):
        plot_stale_hits({})
    assert SLOT_CLIFF.max_slots == 8
