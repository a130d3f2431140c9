"""Tests for labcore.checks.fleet: the saving, the monthly bill, GPUs and savings under load, with a hint per known mistake."""

from __future__ import annotations

import pytest

from labcore import fleet_plan, tenant_adapters
from labcore.checks import grade_fleet_gpus, grade_monthly_bill_usd, grade_savings_pct, grade_savings_under_load_pct


@pytest.mark.parametrize(
    ("answer", "hint"),
    [
        (0.975, "fraction"),
        (2.5, "still pay"),
        (39, "GPUs saved"),
        (91104, "dollars saved"),
        (50, "1 − multi-LoRA bill / dedicated bill"),
    ],
)
def test_savings_pct_hints(answer, hint):
    verdict = grade_savings_pct(answer)
    assert not verdict.ok and hint in verdict.message


@pytest.mark.parametrize(
    ("answer", "hint"),
    [(2304, "30-day months"), (3.2, "hourly price"), (76.8, "one day"), (28032, "a year"), (1, "Bill =")],
)
def test_monthly_bill_hints(answer, hint):
    verdict = grade_monthly_bill_usd(answer)
    assert not verdict.ok and hint in verdict.message


def test_fleet_gpus_matches_fleet_plan_and_names_mistakes():
    expected = fleet_plan(tenant_adapters(40), tenant_qps=1.2, gpu_qps=20).multi_lora_gpus
    assert expected == 3 and grade_fleet_gpus(3).ok
    assert "round up" in grade_fleet_gpus(2.4).message
    assert "rounds down" in grade_fleet_gpus(2).message
    assert "memory alone" in grade_fleet_gpus(1).message
    assert "dedicated fleet" in grade_fleet_gpus(40).message
    assert "not a whole number" not in grade_fleet_gpus(3.0).message and grade_fleet_gpus(3.0).ok


def test_savings_under_load_hints():
    assert grade_savings_under_load_pct(92.5).ok
    assert "memory-only headline" in grade_savings_under_load_pct(97.5).message
    assert "fraction" in grade_savings_under_load_pct(0.925).message
    assert "fraction of a GPU" in grade_savings_under_load_pct(94).message
    assert "still pay" in grade_savings_under_load_pct(7.5).message
