"""Tests for labcore.checks.fleet: the saving, the bills, GPUs and savings under load, with a hint per known mistake."""

from __future__ import annotations

import math

import pytest

from labcore import fleet_plan, tenant_adapters
from labcore.chapters import EXERCISES as PLACED
from labcore.checks import grade_fleet_gpus, grade_monthly_bill_usd, grade_savings_pct, grade_savings_under_load_pct
from labcore.checks.fleet import BILL_CASE, EXERCISES, LOAD_CASE, grade_fleet_bill_usd

from .graders import test_checker_accepts_the_answer, test_checker_names_the_known_mistake  # noqa: F401

RIGHT = [
    (grade_savings_pct, 97.5, {}),
    (grade_monthly_bill_usd, 2336, {}),
    (grade_fleet_bill_usd, 3 * 2.10 * 730, {}),
    (grade_fleet_gpus, 3, {}),
    (grade_savings_under_load_pct, 92.5, {}),
]
WRONG = [
    (grade_savings_pct, 0.975, "fraction"),
    (grade_savings_pct, 2.5, "still pay"),
    (grade_savings_pct, 39, "GPUs saved"),
    (grade_savings_pct, 91104, "dollars saved"),
    (grade_savings_pct, 50, "1 − multi-LoRA bill / dedicated bill"),
    (grade_monthly_bill_usd, 2304, "30-day months"),
    (grade_monthly_bill_usd, 3.2, "hourly price"),
    (grade_monthly_bill_usd, 76.8, "one day"),
    (grade_monthly_bill_usd, 28032, "a year"),
    (grade_monthly_bill_usd, 1, "Bill ="),
    (grade_fleet_bill_usd, 2 * 2.10 * 730, "leaves out the dynamic overhead"),  # 40 req/s would fit 2 GPUs
    (grade_fleet_bill_usd, 2.1 * 2.10 * 730, "fraction of a GPU"),
    (grade_fleet_bill_usd, 2.10 * 730, "memory alone"),
    (grade_fleet_bill_usd, 160 * 2.10 * 730, "dedicated fleet"),
    (grade_fleet_bill_usd, 3 * 2.10 * 720, "30-day months"),
    (grade_fleet_bill_usd, 3 * 2.10, "hourly price"),
    (grade_fleet_bill_usd, 1, "ceil(tenants"),
    (grade_fleet_gpus, 2.52, "round up"),
    (grade_fleet_gpus, 2, "rounds down"),
    (grade_fleet_gpus, 1, "memory alone"),
    (grade_fleet_gpus, 40, "dedicated fleet"),
    (grade_savings_under_load_pct, 97.5, "memory-only headline"),
    (grade_savings_under_load_pct, 0.925, "fraction"),
    (grade_savings_under_load_pct, 93.7, "fraction of a GPU"),
    (grade_savings_under_load_pct, 7.5, "still pay"),
]


def test_the_checks_charge_the_dynamic_overhead_on_load():
    plan = fleet_plan(tenant_adapters(40), tenant_qps=1.2, gpu_qps=20)
    assert plan.multi_lora_gpus == 3 == math.ceil(40 * 1.2 * 1.05 / 20)
    loaded = fleet_plan(tenant_adapters(LOAD_CASE["tenants"]), tenant_qps=LOAD_CASE["tenant_qps"], gpu_qps=20)
    assert loaded.multi_lora_gpus == 7 and grade_fleet_gpus(7, **LOAD_CASE).ok  # 60 × 2 × 1.05 / 20 = 6.3
    assert "overhead" in grade_fleet_gpus(6, **LOAD_CASE).message  # 120 req/s without it: 6 GPUs
    assert "overhead" in grade_savings_under_load_pct(90.0, **LOAD_CASE).message
    assert grade_savings_under_load_pct(88.33, **LOAD_CASE).ok


def test_the_bill_of_exercise_1_1_is_three_gpus_for_a_month():
    assert BILL_CASE == {"tenants": 160, "tenant_qps": 0.25, "gpu_hourly_usd": 2.10}
    assert grade_fleet_bill_usd(4599, **BILL_CASE).ok and not grade_fleet_bill_usd(3066, **BILL_CASE).ok


def test_counts_accept_whole_floats_and_refuse_fractions():
    assert grade_fleet_gpus(3.0).ok and "not a whole number" not in grade_fleet_gpus(3.0).message


PAGES = {e.label: e.page for e in PLACED}


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.label)
def test_every_exercise_is_on_a_fleet_page(exercise):
    assert exercise.page == ""  # its chapter's manifest places it (labcore.chapters)
    assert PAGES[exercise.label] in ("01_why_multi_lora", "06_fleet_plan")
    assert exercise.kind != "predict" or exercise.tool in ("fleet_savings_panel", "fleet_load_panel")
