"""Tests for labcore.panels.batching: the batch panel's default is chapter 12's quoted batch, its flat line the course's
one dynamic overhead."""

from __future__ import annotations

from labcore.batching import fit_sgmv
from labcore.capacity import DYNAMIC_OVERHEAD
from labcore.panels import batch_panel


def test_the_default_state_is_the_quoted_batch_and_the_flat_line_is_the_courses():
    row = batch_panel().row()
    assert (row["distinct"], row["rank"]) == (32, 16)
    assert row["overhead_pct"] == round(100 * fit_sgmv().overhead_fraction(32, 16), 6)
    assert row["flat_pct"] == 100 * DYNAMIC_OVERHEAD
    assert f"flat {100 * DYNAMIC_OVERHEAD:.0f}%" in row["readout"]
