"""Tests for labcore.plots: pure figure functions, the course style and the stable colours (no ipywidgets)."""

from __future__ import annotations

import subprocess
import sys

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
from hypothesis import given
from hypothesis import strategies as st

from labcore import MODES, fleet_plan, gpu_memory_split, tenant_adapters
from labcore.plots import (
    MODE_COLORS,
    OKABE_ITO,
    axis_label,
    mode_color,
    plot_adapter_vram,
    plot_fleet_costs,
    plot_gpu_split,
    tenant_color,
    usd_formatter,
    use_course_style,
)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_use_course_style_sets_palette_grid_and_spines():
    with matplotlib.rc_context():
        use_course_style()
        rc = matplotlib.rcParams
        assert rc["axes.grid"] is True
        assert rc["axes.spines.top"] is False
        assert rc["axes.prop_cycle"].by_key()["color"] == list(OKABE_ITO.values())


def test_every_router_mode_has_its_own_colour():
    assert set(MODE_COLORS) == set(MODES)
    assert len(set(MODE_COLORS.values())) == len(MODES)
    assert mode_color("dynamic") == MODE_COLORS["dynamic"]
    with pytest.raises(ValueError, match="'merged'.*valid modes"):
        mode_color("merged")


@given(st.text(min_size=1, max_size=40))
def test_tenant_colour_is_a_palette_colour_and_deterministic(name):
    assert tenant_color(name) == tenant_color(name)
    assert tenant_color(name) in OKABE_ITO.values()
    assert tenant_color(name) != OKABE_ITO["yellow"]


def test_tenant_colour_is_stable_across_processes():
    # Python's hash() is salted per process; the colour must not be.
    code = "from labcore.plots import tenant_color; print(tenant_color('support-bot'))"
    runs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
            for _ in range(2)}
    assert runs == {tenant_color("support-bot") + "\n"}


def test_tenant_colours_spread_over_the_palette():
    colours = {tenant_color(a.name) for a in tenant_adapters(40)}
    assert len(colours) >= 5


def test_tenant_colour_rejects_empty_name():
    with pytest.raises(ValueError, match="non-empty"):
        tenant_color("")


def test_axis_label_and_usd_formatter():
    assert axis_label("Monthly bill", "USD") == "Monthly bill (USD)"
    assert axis_label("Tenants", None) == "Tenants"
    fmt = usd_formatter()
    assert [fmt(v, None) for v in (0, 2336, 93440, 1_200_000)] == ["$0", "$2k", "$93k", "$1.2M"]


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
    assert [y / x for x, y in zip(xs, ys)] == [1.0] * 5  # 1 MiB per unit of rank for this shape


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


def test_plot_fleet_costs_bars_are_the_two_bills():
    plan = fleet_plan(tenant_adapters(40))
    ax = plot_fleet_costs(plan).axes[0]
    assert [p.get_height() for p in ax.patches] == [plan.dedicated_monthly_usd, plan.multi_lora_monthly_usd]
    assert ax.get_title() == "40 tenants: multi-LoRA 97.5% cheaper"
    assert [t.get_text() for t in ax.texts] == ["40 GPUs", "1 GPU"]
    assert [p.get_facecolor() for p in ax.patches] == [
        matplotlib.colors.to_rgba(MODE_COLORS["dedicated"]), matplotlib.colors.to_rgba(MODE_COLORS["dynamic"])]


def test_plot_fleet_costs_fixed_range_keeps_states_comparable():
    ax = plot_fleet_costs(fleet_plan(tenant_adapters(2)), usd_max=500_000).axes[0]
    assert ax.get_ylim() == (0, 500_000)
