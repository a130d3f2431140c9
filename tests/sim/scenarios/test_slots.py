"""Tests for labcore.sim.scenarios.slots: the slot cliff of chapter 15, its fixes, and the figures it quotes."""

from __future__ import annotations

from dataclasses import replace

import pytest

from labcore.sim.scenarios.slots import (
    FIX_AFFINITY,
    FIX_MORE_SLOTS,
    FIX_NONE,
    FIX_PIN,
    FIX_ROUND_ROBIN,
    FIXES,
    SGLANG_PR_13349,
    SLOT_CLIFF,
    SlotRun,
    SlotScenario,
    slot_fixes,
    slot_run,
    slot_sweep,
)


def test_the_cliff_when_active_adapters_cross_the_slot_count():
    below, at, above = slot_sweep([SLOT_CLIFF.max_slots - 2, SLOT_CLIFF.max_slots, 2 * SLOT_CLIFF.max_slots])
    assert below.waited == at.waited == 0 and at.p99_ms < 2 * SLOT_CLIFF.prefill_ms
    assert above.waited > 0 and above.p99_ms > 100 * at.p99_ms
    assert all(r.peak_distinct <= r.max_slots for r in (below, at, above))


def test_the_fixes():
    runs = slot_fixes()
    assert list(runs) == list(FIXES)
    none, pin, more = runs[FIX_NONE], runs[FIX_PIN], runs[FIX_MORE_SLOTS]
    assert more.max_slots == SLOT_CLIFF.active_adapters and more.waited == 0
    assert pin.pinned and pin.pinned_p99_ms < 2 * SLOT_CLIFF.prefill_ms < pin.others_p99_ms
    assert pin.others_p99_ms > none.p99_ms  # pinning protects the pinned; everyone else shares fewer slots
    rr, aff = runs[FIX_ROUND_ROBIN], runs[FIX_AFFINITY]
    assert rr.adapters_per_replica == (SLOT_CLIFF.active_adapters,) * 2
    assert sum(aff.adapters_per_replica) == SLOT_CLIFF.active_adapters
    assert aff.p99_ms < rr.p99_ms < none.p99_ms


def test_runs_are_deterministic_and_validated():
    assert slot_run() == slot_run()
    with pytest.raises(ValueError, match="fix must be one of .*, got .magic."):
        slot_run(fix="magic")
    with pytest.raises(ValueError, match="active_adapters must be a positive int"):
        SlotScenario(active_adapters=0)
    good = slot_run()
    with pytest.raises(ValueError, match="distinct adapters with only"):
        SlotRun(**{**{f: getattr(good, f) for f in SlotRun.__slots__}, "peak_distinct": good.max_slots + 1})


def test_the_quoted_figures_and_the_scenario_agree_on_what_they_share():
    pr = SGLANG_PR_13349
    assert (pr.slots, pr.in_cache_adapters, pr.eviction_adapters) == (8, 8, 16)
    assert (pr.in_cache_median_ttft_ms, pr.eviction_median_ttft_ms) == (39.65, 6278.0)
    assert (SLOT_CLIFF.max_slots, SLOT_CLIFF.active_adapters, SLOT_CLIFF.rate_per_s) == (
        pr.slots,
        pr.eviction_adapters,
        pr.rate_per_s,
    )
    assert "156x" in pr.claim and round(pr.median_ratio) == 158


def test_base_traffic_costs_sglang_a_slot_and_vllm_none():
    """A fifth of the requests to the bare base: vLLM's rule needs the adapters' slots, SGLang's one more."""

    mixed = replace(SLOT_CLIFF, active_adapters=8, base_share=0.2)
    vllm, sglang = slot_run(mixed), slot_run(replace(mixed, base_takes_slot=True))
    assert vllm.waited == 0 and sglang.waited > 0 and sglang.p99_ms > 1000
    assert slot_run(replace(mixed, base_takes_slot=True), max_slots=9).waited == 0
    assert (
        vllm.requests == SLOT_CLIFF.requests
        and slot_run(SLOT_CLIFF).waited == slot_run(replace(SLOT_CLIFF, base_takes_slot=True)).waited
    )  # no base traffic: the rules agree
