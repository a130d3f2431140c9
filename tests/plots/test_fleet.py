"""Tests for labcore.plots.fleet: the two monthly bills, and savings swept over one input."""

from __future__ import annotations

import math

import matplotlib
import pytest

from labcore import fleet_plan, tenant_adapters
from labcore.plots import MODE_COLORS, plot_fleet_costs, plot_savings_sweep


def test_plot_fleet_costs_bars_are_the_two_bills():
    plan = fleet_plan(tenant_adapters(40))
    ax = plot_fleet_costs(plan).axes[0]
    assert [p.get_height() for p in ax.patches] == [plan.dedicated_monthly_usd, plan.multi_lora_monthly_usd]
    assert ax.get_title() == "40 tenants: multi-LoRA 97.5% cheaper"
    assert [t.get_text() for t in ax.texts] == ["40 GPUs", "1 GPU"]
    assert [p.get_facecolor() for p in ax.patches] == [
        matplotlib.colors.to_rgba(MODE_COLORS["dedicated"]),
        matplotlib.colors.to_rgba(MODE_COLORS["dynamic"]),
    ]


def test_plot_fleet_costs_fixed_range_keeps_states_comparable():
    ax = plot_fleet_costs(fleet_plan(tenant_adapters(2)), usd_max=500_000).axes[0]
    assert ax.get_ylim() == (0, 500_000)


def test_savings_sweep_marks_the_value_in_use_and_checks_lengths():
    sizes = [16, 1024, 2048]
    plans = [fleet_plan(tenant_adapters(40, vram_mb=mb)) for mb in sizes]
    fig = plot_savings_sweep(sizes, plans, x_quantity="Adapter size", x_unit="MiB", now=2048)
    assert fig.axes[0].get_title() == "Saving at 2048: 95.0% (range 95.0% to 97.5%)"
    assert fig.axes[0].get_ylabel() == "Saving vs dedicated (%)"
    with pytest.raises(ValueError, match="one plan per x"):
        plot_savings_sweep(sizes, plans[:2], x_quantity="Adapter size", x_unit="MiB")


def test_savings_sweep_draws_a_reference_curve():
    loads = [1, 5, 20]
    plans = [fleet_plan(tenant_adapters(40), tenant_qps=q, gpu_qps=20) for q in loads]
    idle = [100 * (1 - q / 20) for q in loads]
    fig = plot_savings_sweep(
        loads, plans, x_quantity="Load per tenant", x_unit="requests/s", reference=idle, reference_label="idle share"
    )
    (line, ref) = fig.axes[0].get_lines()
    assert list(ref.get_ydata()) == idle
    assert list(line.get_ydata()) == [p.savings_pct for p in plans]
    # the saving is the dedicated fleet's idle share, less what the 5% overhead costs on the shared GPUs
    assert [p.savings_pct for p in plans] == pytest.approx(
        [100 * (1 - math.ceil(40 * q * 1.05 / 20) / 40) for q in loads]
    )
    assert all(p.savings_pct < i for p, i in zip(plans, idle, strict=True))
