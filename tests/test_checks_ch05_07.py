"""Tests for the chapter 5-7 checkers: right answers come from the core, known mistakes get their hint."""

from __future__ import annotations

import pytest

from labcore import fleet_plan, tenant_adapters
from labcore.checks import (
    ContractRun,
    check_cache_budget_mb,
    count_contract_tests,
    grade_cache_budget_mb,
    grade_fleet_gpus,
    grade_route_latency_ms,
    grade_savings_under_load_pct,
    run_contract_suite,
)
from labcore.sim import route_examples


def test_route_latency_answer_is_the_routers_own_number():
    miss = route_examples(50.0, 0.08, 64.0, 8.0)["dynamic miss"].total_latency_ms
    assert miss == 62.0 and grade_route_latency_ms(miss).ok
    assert grade_route_latency_ms(44.0, base_latency_ms=40, dynamic_overhead=0.05, adapter_vram_mb=16).ok


@pytest.mark.parametrize(
    ("answer", "hint"),
    [(54, "leaves out the adapter load"), (58, "leaves out the LoRA overhead"), (50, "base latency alone"),
     (62.64, "applies the overhead to the load"), (458, "as a whole number"), (566, "size / bandwidth"),
     (61, "base × (1 + overhead) + adapter size / bandwidth"), ("62", "Expected a number")],
)
def test_route_latency_hints(answer, hint):
    verdict = grade_route_latency_ms(answer)
    assert not verdict.ok and hint in verdict.message


@pytest.mark.parametrize(
    ("answer", "hint"),
    [(640, "holds 40 adapters"), (687.87, "in MB"), (0.640625, "in GiB"), (41, "counts adapters"),
     (700, "tenants × adapter size")],
)
def test_cache_budget_hints(answer, hint):
    assert grade_cache_budget_mb(656).ok
    verdict = grade_cache_budget_mb(answer)
    assert not verdict.ok and hint in verdict.message


def test_cache_budget_check_prints_one_line(capsys):
    check_cache_budget_mb(None)
    assert capsys.readouterr().out.startswith("✗ Not answered yet")


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


def test_contract_run_against_the_skeleton_is_red_with_a_hint():
    red = run_contract_suite("lab.skeleton", select="parse_version_orders")
    assert isinstance(red, ContractRun) and red.passed == 0 and red.failed >= 1
    assert red.first_failure.startswith("NotImplementedError: TODO(lab)")
    assert str(red).startswith("LAB_MODULE=lab.skeleton (-k parse_version_orders): 0 passed")
    green = run_contract_suite("labcore", select="parse_version_orders")
    assert (green.passed, green.failed, green.first_failure) == (red.failed, 0, None)


def test_count_contract_tests_meets_the_brief():
    assert count_contract_tests() >= 62
