"""labcore.panels.cache: the thrash cliff sits at the working set."""

from labcore.links import OBJECT_STORE, PCIE4_X16
from labcore.panels.cache import lru_thrash_panel, thrash_state
from labcore.sim import cache_runs


def test_hit_rate_jumps_when_the_budget_reaches_the_working_set():
    """The states read here are computed one by one (``row``); the grid's rows equal them (tests/panels/test_catalogue)."""
    panel = lru_thrash_panel()
    below, at = panel.row(budget_mb=576), panel.row(budget_mb=640)  # 40 tenants x 16 MiB = 640
    assert below["lru_evictions"] > 0 and at["lru_evictions"] == 0
    assert at["p99_ms"] < below["p99_ms"]
    rows = [panel.row(budget_mb=b) for b in (128, 320, 512)]
    assert all(row["lru_hit_pct"] >= row["fifo_hit_pct"] for row in rows)


def test_the_readout_names_the_cost_its_p99_charges():
    """The p99 comes from chapter 8's replica, whose miss is a cold load from storage: the readout and the note say so."""

    panel = lru_thrash_panel()
    row = panel.row()
    assert "misses from storage" in row["readout"] and "chapter 8" in panel.note
    assert row["p99_ms"] == round(row["p50_ms"] + OBJECT_STORE.transfer_ms(16.0) + PCIE4_X16.transfer_ms(16.0), 6)


def test_the_default_state_is_the_chapters_run():

    runs, row = cache_runs(320, tenants=40, zipf_s=1.0), lru_thrash_panel().row()
    assert row["lru_hit_pct"] == round(100 * runs["LRU"].hit_rate, 6) and row["lru_evictions"] == runs["LRU"].evictions
    assert row["fifo_hit_pct"] == round(100 * runs["FIFO"].hit_rate, 6)


def test_the_replicas_cache_is_chapter_4s_lru_run_in_every_mix():
    """The panel reads LRU from the replica it routes the trace through; that is chapter 4's LRU replay, state by state."""

    for budget, tenants, skew in [(64, 10, 0.0), (320, 40, 1.0), (576, 60, 0.5), (1216, 80, 1.5), (640, 41, 1.0)]:
        state, runs = thrash_state(budget, tenants, skew), cache_runs(budget, tenants, skew)
        assert (state["lru_hit_pct"], state["lru_evictions"]) == (100 * runs["LRU"].hit_rate, runs["LRU"].evictions)
        assert (state["fifo_hit_pct"], state["fifo_evictions"]) == (100 * runs["FIFO"].hit_rate, runs["FIFO"].evictions)
        assert state["working_set_mb"] == runs["LRU"].working_set_mb  # the adapters the trace asks for
