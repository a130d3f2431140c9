"""labcore.panels.cache: the thrash cliff sits at the working set."""

from labcore.panels.cache import lru_thrash_panel


def test_hit_rate_jumps_when_the_budget_reaches_the_working_set():
    panel = lru_thrash_panel()
    below, at = panel.lookup(budget_mb=576), panel.lookup(budget_mb=640)   # 40 tenants x 16 MiB = 640
    assert below["lru_evictions"] > 0 and at["lru_evictions"] == 0
    assert at["p99_ms"] < below["p99_ms"]
    assert all(panel.lookup(budget_mb=b)["lru_hit_pct"] >= panel.lookup(budget_mb=b)["fifo_hit_pct"]
               for b in (128, 320, 512))
