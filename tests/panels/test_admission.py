"""Tests for labcore.panels.admission: the admission panel's default state is chapter 13's 24-slot run."""

from __future__ import annotations

from labcore.panels import admission_panel
from labcore.sim.scenarios.admission import ADMISSION, ADMISSION_GRID, admission_runs


def test_the_default_state_is_the_chapters_run():
    panel = admission_panel()
    row = panel.row()
    run = admission_runs()[row["pool_adapters"]]
    assert (row["hold_ms"], row["max_queue"]) == (ADMISSION.hold_ms, ADMISSION.max_queue)
    assert (row["queued"], row["refused"], row["p99_ms"]) == (run.queued, run.refused, round(run.p99_ms, 6))
    assert {c.name: c.values for c in panel.controls} == ADMISSION_GRID
