"""Tests for labcore.plots.slots: the TTFT cliff against active adapters, and the fixes side by side."""

from __future__ import annotations

import matplotlib
import pytest

from labcore.plots import FIX_COLORS, TTFT_COLORS, plot_slot_fixes, plot_ttft_cliff
from labcore.sim.scenarios.slots import FIXES, slot_fixes, slot_sweep


def test_cliff_draws_both_percentiles_and_marks_the_slots():
    runs = slot_sweep([4, 8, 12, 16])
    ax = plot_ttft_cliff(runs).axes[0]
    lines = ax.get_lines()
    assert [line.get_label() for line in lines] == ["TTFT median", "TTFT p99", "8 slots"]
    assert [line.get_color() for line in lines[:2]] == [TTFT_COLORS["p50"], TTFT_COLORS["p99"]]
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
    assert {matplotlib.colors.to_hex(b.get_facecolor()[:3]).upper() for b in bars} == {
        c.upper() for c in FIX_COLORS.values()
    }
    assert ax.get_xscale() == "log" and ax.get_xlim()[1] > 10 * max(widths)  # room for the labels
    assert "lowest with\na slot per adapter" in ax.get_title()
    with pytest.raises(ValueError, match="no slot runs"):
        plot_slot_fixes({})
