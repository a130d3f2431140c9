"""Tests for labcore.panels.affinity: the placement panel's default state is chapter 10's own table."""

from __future__ import annotations

from labcore.panels import affinity_panel
from labcore.sim.scenarios.affinity import AFFINITY_DEFAULTS, affinity_runs


def test_the_default_state_is_the_chapters_experiment():
    panel = affinity_panel()
    row = panel.row()
    assert {k: row[k] for k in ("zipf_s", "replicas", "load_factor")} == {
        k: AFFINITY_DEFAULTS[k] for k in ("zipf_s", "replicas", "load_factor")
    }
    runs = affinity_runs()  # the chapter's call: its trace, seed and length
    for key, policy in (
        ("round_robin", "round-robin"),
        ("rendezvous", "rendezvous"),
        ("bounded", "bounded-rendezvous"),
    ):
        assert row[f"p99_{key}_ms"] == round(runs[policy].p99_ms, 6)
        assert row[f"hit_{key}_pct"] == round(100 * runs[policy].hit_rate, 6)
