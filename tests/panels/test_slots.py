"""labcore.panels.slots: the panel's rows are labcore's slot runs, the cliff sits at the slot count."""

from labcore.engines import lora_slot_bytes
from labcore.panels.slots import PANEL_FIXES, slot_cliff_panel, slot_state
from labcore.sim.scenarios.slots import FIX_AFFINITY, FIX_NONE, FIX_PIN, SLOT_CLIFF, slot_run


def test_the_default_is_the_chapter_run():
    panel = slot_cliff_panel()
    row, run = panel.lookup(), slot_run(SLOT_CLIFF)
    assert (row["max_slots"], row["active_adapters"], row["fix"]) == (8, 16, FIX_NONE)
    assert (row["p50_ms"], row["p99_ms"], row["waited"]) == (run.p50_ms, round(run.p99_ms, 6), run.waited)


def test_the_cliff_moves_with_the_slot_count():
    panel = slot_cliff_panel()
    for slots, past in ((4, 6), (8, 10), (16, 24)):  # 16 slots: with more, smaller tenants it takes more adapters
        inside, outside = (panel.lookup(max_slots=slots, active_adapters=n) for n in (slots, past))
        assert inside["waited"] == 0 and inside["p99_ms"] < 100
        assert outside["waited"] > 0 and outside["p99_ms"] > 1000


def test_fixes_change_the_tail_and_say_how():
    panel = slot_cliff_panel()
    none, pin, aff = (panel.lookup(fix=f) for f in (FIX_NONE, FIX_PIN, FIX_AFFINITY))
    assert aff["p99_ms"] < none["p99_ms"] < pin["p99_ms"]
    assert "4 hottest pinned" in pin["readout"] and "2 replicas, adapters 7/9" in aff["readout"]
    assert "705 MiB" in none["readout"] and "1,409 MiB" in aff["readout"]  # two replicas, two slot pools
    assert none["pool_mb"] == lora_slot_bytes("vllm", "llama-3-8b", slots=8, max_rank=16) / 2**20
    assert set(PANEL_FIXES) == {r["fix"] for r in panel.rows()}
    assert slot_state(8, 8, FIX_NONE)["waited"] == 0
