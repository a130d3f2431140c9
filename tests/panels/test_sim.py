"""labcore.panels.sim: the customer #41 panels open on the chapters' own run, and the pool and skew move the tail."""

from labcore.panels.sim import PANEL_REQUESTS, customer41_panel, onboarding_panel
from labcore.sim import ONBOARDING, onboarding_timeline


def test_both_panels_default_to_the_chapters_run():
    """One experiment, one number: chapters 5 and 8 quote the run the panels open on."""
    assert PANEL_REQUESTS == ONBOARDING.requests
    before, after = onboarding_timeline().phases
    for row in (onboarding_panel().row(), customer41_panel().row()):
        assert (row["p99_before_ms"], row["p99_after_ms"]) == (round(before.p99_ms, 6), round(after.p99_ms, 6))
        assert row["hit_after_pct"] == round(100 * after.hit_rate, 6)
    assert "98.14%" in onboarding_panel().row()["readout"]


def test_a_pool_that_holds_everyone_keeps_the_p99_at_a_hit():
    panel = onboarding_panel()
    assert panel.row(pool_adapters=48)["p99_after_ms"] == panel.row(tenants=40)["p99_after_ms"] == 42.0
    uniform = panel.row(tenants=44, zipf_s=0.0)
    assert abs(uniform["hit_after_pct"] - 100 * 40 / 44) < 1.0  # LRU keeps the pool's share of equal tenants
