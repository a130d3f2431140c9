"""Tests for labcore.panels.tiers: the spill panel's default state is chapter 9's own run, and its grid is the
scenario's."""

from __future__ import annotations

from labcore.panels import spill_panel
from labcore.sim.scenarios.spill import SPILL, SPILL_GRID, spill_pair


def test_the_default_state_is_the_chapters_run():
    panel = spill_panel()
    row = panel.row()
    gpu_only, tiered = spill_pair(row["tenants"])
    assert (row["host_adapters"], row["gpu_adapters"]) == (SPILL.host_adapters, SPILL.gpu_adapters)
    assert row["gpu_hit_pct"] == round(100 * gpu_only.hit_rate, 6)
    assert (row["p99_gpu_only_ms"], row["p99_tiered_ms"]) == (round(gpu_only.p99_ms, 6), round(tiered.p99_ms, 6))
    assert f"GPU hit rate {100 * gpu_only.hit_rate:.1f}%" in row["readout"]


def test_the_controls_are_the_scenarios_grid():
    assert {c.name: c.values for c in spill_panel().controls} == SPILL_GRID
