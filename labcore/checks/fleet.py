"""Check the fleet exercises: the saving and the monthly bill (chapter 1), GPUs and savings under load (chapter 6)."""

from __future__ import annotations

import math
from typing import Any

from ..adapter import tenant_adapters
from ..fleet import fleet_plan
from .exercise import Exercise
from .verdict import Mistake, Verdict, _close, _grade, _printer

__all__ = [
    "grade_savings_pct",
    "grade_monthly_bill_usd",
    "check_savings_pct",
    "check_monthly_bill_usd",
    "grade_fleet_gpus",
    "grade_savings_under_load_pct",
    "check_fleet_gpus",
    "check_savings_under_load_pct",
]


def _plan(tenants: int, gpu_hourly_usd: float) -> Any:
    return fleet_plan(tenant_adapters(tenants), gpu_hourly_usd=gpu_hourly_usd)


def grade_savings_pct(answer: Any, *, tenants: int = 40, gpu_hourly_usd: float = 3.20) -> Verdict:
    """Grade the percentage saved by multi-LoRA over one GPU per tenant (default: 40 tenants, 97.5%).

    >>> grade_savings_pct(0.975).message
    '✗ 0.975 % is a fraction; the question asks for a percentage (multiply by 100).'
    """
    plan = _plan(tenants, gpu_hourly_usd)
    expected = plan.savings_pct
    mistakes: list[Mistake] = [
        (expected / 100, "is a fraction; the question asks for a percentage (multiply by 100)."),
        (100 - expected, "is the share you still pay; savings are 100% minus that."),
        (plan.dedicated_gpus - plan.multi_lora_gpus, "is the number of GPUs saved, not the percentage."),
        (plan.dedicated_monthly_usd - plan.multi_lora_monthly_usd, "is the dollars saved per month; express "
                                                                    "it as a share of the dedicated bill."),
    ]
    return _grade(answer, expected, unit="%", what="the saving", mistakes=mistakes,
                  fallback="Savings = 1 − multi-LoRA bill / dedicated bill, as a percentage.", rel_tol=0.001)


def grade_monthly_bill_usd(answer: Any, *, gpus: int = 1, gpu_hourly_usd: float = 3.20,
                           hours_per_month: float = 730) -> Verdict:
    """Grade the monthly bill of ``gpus`` GPUs at ``gpu_hourly_usd`` (default: one H100, $2,336/month).

    >>> grade_monthly_bill_usd(2304).ok
    False
    """
    expected = gpus * gpu_hourly_usd * hours_per_month
    mistakes: list[Mistake] = [
        (gpus * gpu_hourly_usd * 24 * 30, f"uses 30-day months; the course uses {hours_per_month:g} hours per "
                                          "month (365 · 24 / 12)."),
        (gpus * gpu_hourly_usd, "is the hourly price; multiply by the hours in a month."),
        (gpus * gpu_hourly_usd * 24, "is one day; multiply by the hours in a month instead."),
        (gpus * gpu_hourly_usd * 8760, "is a year; divide by 12."),
    ]
    return _grade(answer, expected, unit="USD", what="the monthly bill", mistakes=mistakes,
                  fallback="Bill = GPUs · price per hour · hours per month.", rel_tol=0.001)


check_savings_pct = _printer(grade_savings_pct)
check_monthly_bill_usd = _printer(grade_monthly_bill_usd)


def _loaded_plan(tenants: int, tenant_qps: float, gpu_qps: float) -> Any:
    return fleet_plan(tenant_adapters(tenants), tenant_qps=tenant_qps, gpu_qps=gpu_qps)


def grade_fleet_gpus(answer: Any, *, tenants: int = 40, tenant_qps: float = 1.2, gpu_qps: float = 20.0) -> Verdict:
    """Grade the multi-LoRA GPU count when load, not memory, sizes the fleet (default: 3 GPUs).

    >>> grade_fleet_gpus(2.4).message
    '✗ 2.4 GPUs is a fraction of a GPU: round up, a GPU is rented whole.'
    """
    plan = _loaded_plan(tenants, tenant_qps, gpu_qps)
    expected = plan.multi_lora_gpus
    exact = tenants * tenant_qps / gpu_qps
    mistakes: list[Mistake] = [
        (exact, "is a fraction of a GPU: round up, a GPU is rented whole."),
        (math.floor(exact), "rounds down: that many GPUs cannot carry the traffic; round up."),
        (plan.memory_bound_gpus, f"is what memory alone needs; {tenants} tenants × {tenant_qps:g} req/s is "
                                 f"{tenants * tenant_qps:g} req/s."),
        (plan.dedicated_gpus, "is the dedicated fleet (one GPU per tenant); the shared fleet pools the load."),
    ]
    mistakes = [(v, h) for v, h in mistakes if not _close(v, expected, 1e-9)]
    return _grade(answer, expected, unit="GPUs", what="the multi-LoRA GPU count", mistakes=mistakes,
                  fallback="GPUs = max(memory GPUs, ceil(total req/s / req/s per GPU)).", rel_tol=1e-9, integer=True)


def grade_savings_under_load_pct(answer: Any, *, tenants: int = 40, tenant_qps: float = 1.2,
                                 gpu_qps: float = 20.0) -> Verdict:
    """Grade the saving (%) when every tenant sends ``tenant_qps`` (default: 92.5%).

    >>> grade_savings_under_load_pct(97.5).message
    '✗ 97.5 % is the memory-only headline; under this load the shared fleet needs 3 GPUs.'
    """
    plan = _loaded_plan(tenants, tenant_qps, gpu_qps)
    expected = plan.savings_pct
    exact_gpus = tenants * tenant_qps / gpu_qps
    memory_only = _loaded_plan(tenants, 0.0, gpu_qps).savings_pct
    mistakes: list[Mistake] = [
        (memory_only, f"is the memory-only headline; under this load the shared fleet needs "
                      f"{plan.multi_lora_gpus} GPUs."),
        (expected / 100, "is a fraction; the question asks for a percentage (multiply by 100)."),
        (100 * (1 - exact_gpus / plan.dedicated_gpus), "uses a fraction of a GPU; round the shared fleet up to "
                                                       "whole GPUs first."),
        (100 - expected, "is the share you still pay; savings are 100% minus that."),
    ]
    mistakes = [(v, h) for v, h in mistakes if not _close(v, expected, 1e-9)]
    return _grade(answer, expected, unit="%", what="the saving under load", mistakes=mistakes,
                  fallback="Savings = 1 − multi-LoRA GPUs / dedicated GPUs, as a percentage.", rel_tol=0.001)


check_fleet_gpus = _printer(grade_fleet_gpus)
check_savings_under_load_pct = _printer(grade_savings_under_load_pct)


#: This module's exercises, as the pages ask them (see :class:`labcore.checks.exercise.Exercise`).
EXERCISES: tuple[Exercise, ...] = ()
