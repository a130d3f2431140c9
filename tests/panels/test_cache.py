"""labcore.panels.cache: the thrash cliff sits at the working set."""

from labcore.panels.cache import lru_thrash_panel


def test_hit_rate_jumps_when_the_budget_reaches_the_working_set():
    """The states read here are computed one by one (``row``); the grid's rows equal them (tests/panels/test_catalogue)."""
    panel = lru_thrash_panel()
    below, at = panel.row(budget_mb=576), panel.row(budget_mb=640)   # 40 tenants x 16 MiB = 640
    assert below["lru_evictions"] > 0 and at["lru_evictions"] == 0
    assert at["p99_ms"] < below["p99_ms"]
    rows = [panel.row(budget_mb=b) for b in (128, 320, 512)]
    assert all(row["lru_hit_pct"] >= row["fifo_hit_pct"] for row in rows)
