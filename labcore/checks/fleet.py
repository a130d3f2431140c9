"""Check the fleet exercises: a fleet's monthly bill and the saving under load (chapter 1), GPUs under load (chapter 6).

Every expected value is :func:`labcore.fleet.fleet_plan`'s with the course's facts (:mod:`labcore.capacity`): the
H100 as its driver reports it, Llama-3-8B's weights, a 24 GiB KV-cache pool, one GPU sustaining
:data:`~labcore.fleet.GPU_QPS` requests/s, and the 5% :data:`~labcore.capacity.DYNAMIC_OVERHEAD` on every request
the shared GPUs serve dynamically.

>>> grade_fleet_gpus(4, tenants=50, tenant_qps=1.6).message.split(":")[0]
'✗ 4 GPUs leaves out the dynamic overhead'
"""

from __future__ import annotations

import math
from typing import TypedDict

from ..adapter import tenant_adapters
from ..capacity import DYNAMIC_OVERHEAD, TEACHING
from ..fleet import GPU_QPS, FleetPlan, fleet_plan
from .exercise import Exercise
from .rules import NumberRule, graded
from .verdict import Mistake, _close, _printer

__all__ = [
    "grade_savings_pct",
    "grade_monthly_bill_usd",
    "grade_fleet_bill_usd",
    "check_savings_pct",
    "check_monthly_bill_usd",
    "check_fleet_bill_usd",
    "grade_fleet_gpus",
    "grade_savings_under_load_pct",
    "check_fleet_gpus",
    "check_savings_under_load_pct",
    "EXERCISES",
    "BILL_EXERCISES",
    "LOAD_EXERCISES",
]

HOURS_PER_MONTH = 730.0


def _plan(tenants: int, gpu_hourly_usd: float) -> FleetPlan:
    return fleet_plan(tenant_adapters(tenants), gpu_hourly_usd=gpu_hourly_usd, **TEACHING.split().fleet_kwargs())


def _loaded_plan(
    tenants: int,
    tenant_qps: float,
    gpu_qps: float,
    *,
    gpu_hourly_usd: float = 3.20,
    dynamic_overhead: float = DYNAMIC_OVERHEAD,
) -> FleetPlan:
    return fleet_plan(
        tenant_adapters(tenants),
        tenant_qps=tenant_qps,
        gpu_qps=gpu_qps,
        gpu_hourly_usd=gpu_hourly_usd,
        dynamic_overhead=dynamic_overhead,
        **TEACHING.split().fleet_kwargs(),
    )


def _distinct(mistakes: list[Mistake], expected: float) -> list[Mistake]:
    """Drop the mistakes that give the right answer, and the later ones that repeat an earlier value."""
    out: list[Mistake] = []
    for value, hint in mistakes:
        if not _close(value, expected, 1e-9) and not any(_close(value, v, 1e-9) for v, _ in out):
            out.append((value, hint))
    return out


def rule_savings_pct(*, tenants: int = 40, gpu_hourly_usd: float = 3.20) -> NumberRule:
    """Grade the percentage saved by multi-LoRA over one GPU per tenant, memory the only limit (default: 97.5%).

    >>> grade_savings_pct(0.975).message
    '✗ 0.975 % is a fraction; the question asks for a percentage (multiply by 100).'
    """
    plan = _plan(tenants, gpu_hourly_usd)
    expected = plan.savings_pct
    mistakes: list[Mistake] = [
        (expected / 100, "is a fraction; the question asks for a percentage (multiply by 100)."),
        (100 - expected, "is the share you still pay; savings are 100% minus that."),
        (plan.dedicated_gpus - plan.multi_lora_gpus, "is the number of GPUs saved, not the percentage."),
        (
            plan.dedicated_monthly_usd - plan.multi_lora_monthly_usd,
            "is the dollars saved per month; express it as a share of the dedicated bill.",
        ),
    ]
    return NumberRule(
        expected,
        unit="%",
        what="the saving",
        mistakes=mistakes,
        fallback="Savings = 1 − multi-LoRA bill / dedicated bill, as a percentage.",
        rel_tol=0.001,
    )


def rule_monthly_bill_usd(
    *, gpus: int = 1, gpu_hourly_usd: float = 3.20, hours_per_month: float = HOURS_PER_MONTH
) -> NumberRule:
    """Grade the monthly bill of ``gpus`` GPUs at ``gpu_hourly_usd`` (default: one H100, $2,336/month).

    >>> grade_monthly_bill_usd(2304).ok
    False
    """
    expected = gpus * gpu_hourly_usd * hours_per_month
    mistakes: list[Mistake] = [
        (
            gpus * gpu_hourly_usd * 24 * 30,
            f"uses 30-day months; the course uses {hours_per_month:g} hours per month (365 · 24 / 12).",
        ),
        (gpus * gpu_hourly_usd, "is the hourly price; multiply by the hours in a month."),
        (gpus * gpu_hourly_usd * 24, "is one day; multiply by the hours in a month instead."),
        (gpus * gpu_hourly_usd * 8760, "is a year; divide by 12."),
    ]
    return NumberRule(
        expected,
        unit="USD",
        what="the monthly bill",
        mistakes=mistakes,
        fallback="Bill = GPUs · price per hour · hours per month.",
        rel_tol=0.001,
    )


def rule_fleet_bill_usd(
    *, tenants: int = 160, tenant_qps: float = 0.25, gpu_hourly_usd: float = 2.10, gpu_qps: float = GPU_QPS
) -> NumberRule:
    """Grade the monthly bill (USD) of the multi-LoRA fleet for ``tenants`` sending ``tenant_qps`` each (chapter 1).

    The default, 160 tenants at 0.25 requests/s on H100s at $2.10 an hour: 160 × 0.25 × 1.05 = 42 requests/s need
    3 GPUs of 20, so 3 × 2.10 × 730 = $4,599 a month.

    >>> grade_fleet_bill_usd(4599).ok
    True
    >>> grade_fleet_bill_usd(3066).message.split(":")[0]
    '✗ 3,066 USD is the bill of 2 GPUs, which leaves out the dynamic overhead'
    """
    plan = _loaded_plan(tenants, tenant_qps, gpu_qps, gpu_hourly_usd=gpu_hourly_usd)
    month = gpu_hourly_usd * HOURS_PER_MONTH
    expected = plan.multi_lora_monthly_usd
    traffic = tenants * tenant_qps
    bare = _loaded_plan(tenants, tenant_qps, gpu_qps, gpu_hourly_usd=gpu_hourly_usd, dynamic_overhead=0.0)
    heavy = traffic * (1 + DYNAMIC_OVERHEAD)
    mistakes: list[Mistake] = [
        (
            bare.multi_lora_monthly_usd,
            f"is the bill of {bare.multi_lora_gpus} GPUs, which leaves out the dynamic overhead: {tenants} × "
            f"{tenant_qps:g} × {1 + DYNAMIC_OVERHEAD:g} = {heavy:g} requests/s need {plan.multi_lora_gpus} GPUs of "
            f"{gpu_qps:g}.",
        ),
        (heavy / gpu_qps * month, "pays for a fraction of a GPU: round the GPU count up first, a GPU is rented whole."),
        (
            plan.memory_bound_gpus * month,
            f"is what the adapters' memory alone needs; the traffic ({traffic:g} "
            "requests/s with its overhead) needs more GPUs.",
        ),
        (
            plan.dedicated_monthly_usd,
            "is the dedicated fleet's bill (one GPU per tenant); the question asks for the shared one.",
        ),
        (
            plan.multi_lora_gpus * gpu_hourly_usd * 24 * 30,
            "uses 30-day months; the course uses 730 hours per month (365 · 24 / 12).",
        ),
        (plan.multi_lora_gpus * gpu_hourly_usd, "is the hourly price of the fleet; multiply by 730 hours."),
    ]
    return NumberRule(
        expected,
        unit="USD",
        what="the multi-LoRA fleet's monthly bill",
        mistakes=_distinct(mistakes, expected),
        rel_tol=0.001,
        fallback=f"GPUs = ceil(tenants × req/s × {1 + DYNAMIC_OVERHEAD:g} / {gpu_qps:g}); "
        "bill = GPUs × price per hour × 730 hours.",
    )


grade_savings_pct = graded(rule_savings_pct)
check_savings_pct = _printer(grade_savings_pct)
grade_monthly_bill_usd = graded(rule_monthly_bill_usd)
check_monthly_bill_usd = _printer(grade_monthly_bill_usd)
grade_fleet_bill_usd = graded(rule_fleet_bill_usd)
check_fleet_bill_usd = _printer(grade_fleet_bill_usd)


def rule_fleet_gpus(*, tenants: int = 40, tenant_qps: float = 1.2, gpu_qps: float = GPU_QPS) -> NumberRule:
    """Grade the multi-LoRA GPU count when load, not memory, sizes the fleet (default: 3 GPUs).

    The shared GPUs carry every tenant's requests with the 5% dynamic overhead: ceil(tenants × req/s × 1.05 / gpu_qps).

    >>> grade_fleet_gpus(2.52).message
    '✗ 2.52 GPUs is a fraction of a GPU: round up, a GPU is rented whole.'
    """
    plan = _loaded_plan(tenants, tenant_qps, gpu_qps)
    bare = _loaded_plan(tenants, tenant_qps, gpu_qps, dynamic_overhead=0.0)
    expected = plan.multi_lora_gpus
    traffic = tenants * tenant_qps
    exact = traffic * (1 + DYNAMIC_OVERHEAD) / gpu_qps
    mistakes: list[Mistake] = [
        (exact, "is a fraction of a GPU: round up, a GPU is rented whole."),
        (
            bare.multi_lora_gpus,
            f"leaves out the dynamic overhead: every request on the shared GPUs costs "
            f"{100 * DYNAMIC_OVERHEAD:g}% more, so {traffic:g} requests/s weigh "
            f"{traffic * (1 + DYNAMIC_OVERHEAD):g}.",
        ),
        (math.floor(exact), "rounds down: that many GPUs cannot carry the traffic; round up."),
        (
            plan.memory_bound_gpus,
            f"is what memory alone needs; {tenants} tenants × {tenant_qps:g} req/s is {traffic:g} req/s.",
        ),
        (plan.dedicated_gpus, "is the dedicated fleet (one GPU per tenant); the shared fleet pools the load."),
    ]
    return NumberRule(
        expected,
        unit="GPUs",
        what="the multi-LoRA GPU count",
        mistakes=_distinct(mistakes, expected),
        fallback=f"GPUs = max(memory GPUs, ceil(total req/s × {1 + DYNAMIC_OVERHEAD:g} / req/s per GPU)).",
        rel_tol=1e-9,
        integer=True,
    )


def rule_savings_under_load_pct(*, tenants: int = 40, tenant_qps: float = 1.2, gpu_qps: float = GPU_QPS) -> NumberRule:
    """Grade the saving (%) when every tenant sends ``tenant_qps`` (default: 92.5%).

    >>> grade_savings_under_load_pct(97.5).message
    '✗ 97.5 % is the memory-only headline; under this load the shared fleet needs 3 GPUs.'
    """
    plan = _loaded_plan(tenants, tenant_qps, gpu_qps)
    bare = _loaded_plan(tenants, tenant_qps, gpu_qps, dynamic_overhead=0.0)
    expected = plan.savings_pct
    exact_gpus = tenants * tenant_qps * (1 + DYNAMIC_OVERHEAD) / gpu_qps
    memory_only = _loaded_plan(tenants, 0.0, gpu_qps).savings_pct
    mistakes: list[Mistake] = [
        (
            memory_only,
            f"is the memory-only headline; under this load the shared fleet needs {plan.multi_lora_gpus} GPUs.",
        ),
        (
            bare.savings_pct,
            f"leaves out the dynamic overhead: with every request {100 * DYNAMIC_OVERHEAD:g}% heavier "
            f"the shared fleet needs {plan.multi_lora_gpus} GPUs, not {bare.multi_lora_gpus}.",
        ),
        (expected / 100, "is a fraction; the question asks for a percentage (multiply by 100)."),
        (
            100 * (1 - exact_gpus / plan.dedicated_gpus),
            "uses a fraction of a GPU; round the shared fleet up to whole GPUs first.",
        ),
        (100 - expected, "is the share you still pay; savings are 100% minus that."),
    ]
    return NumberRule(
        expected,
        unit="%",
        what="the saving under load",
        mistakes=_distinct(mistakes, expected),
        fallback="Savings = 1 − multi-LoRA GPUs / dedicated GPUs, as a percentage.",
        rel_tol=0.001,
    )


grade_fleet_gpus = graded(rule_fleet_gpus)
check_fleet_gpus = _printer(grade_fleet_gpus)
grade_savings_under_load_pct = graded(rule_savings_under_load_pct)
check_savings_under_load_pct = _printer(grade_savings_under_load_pct)


def _shown_pct(value: float) -> tuple[str, ...]:
    return (f"{value:.1f}%", f"{value:.1f} %", f"{value:g}%")


class LoadCase(TypedDict):
    """A case's tenants and each tenant's requests a second (the arguments its check is given)."""

    tenants: int
    tenant_qps: float


class BillCase(LoadCase):
    """A load case with the GPU's price an hour."""

    gpu_hourly_usd: float


#: The cases the pages ask (their checks' arguments).
BILL_CASE: BillCase = {"tenants": 160, "tenant_qps": 0.25, "gpu_hourly_usd": 2.10}  # exercise 1.1
PREDICT_CASE_CH1: LoadCase = {"tenants": 100, "tenant_qps": 2.0}  # exercise 1.2, savings panel
LOAD_CASE: LoadCase = {"tenants": 60, "tenant_qps": 2.0}  # exercises 6.1 and 6.2
PREDICT_CASE_CH6: LoadCase = {"tenants": 40, "tenant_qps": 10.0}  # exercise 6.3, load panel


def _exercises() -> tuple[tuple[Exercise, ...], tuple[Exercise, ...]]:
    """Return the bill's exercises (chapter 1's) and the load's (chapter 6's)."""
    bill = _loaded_plan(gpu_qps=GPU_QPS, **BILL_CASE)
    bare_bill = _loaded_plan(gpu_qps=GPU_QPS, dynamic_overhead=0.0, **BILL_CASE)
    ch1 = _loaded_plan(gpu_qps=GPU_QPS, **PREDICT_CASE_CH1)
    ch1_bare = _loaded_plan(gpu_qps=GPU_QPS, dynamic_overhead=0.0, **PREDICT_CASE_CH1)
    load = _loaded_plan(gpu_qps=GPU_QPS, **LOAD_CASE)
    load_bare = _loaded_plan(gpu_qps=GPU_QPS, dynamic_overhead=0.0, **LOAD_CASE)
    ch6 = _loaded_plan(gpu_qps=GPU_QPS, **PREDICT_CASE_CH6)
    ch6_bare = _loaded_plan(gpu_qps=GPU_QPS, dynamic_overhead=0.0, **PREDICT_CASE_CH6)
    usd = f"{bill.multi_lora_monthly_usd:,.0f}"
    return (
        Exercise(
            "1.1",
            "compute",
            grade_fleet_bill_usd,
            right=bill.multi_lora_monthly_usd,
            wrong=(bare_bill.multi_lora_monthly_usd, bill.dedicated_monthly_usd),
            kwargs=dict(BILL_CASE),
            gives_away=(f"USD {usd}", f"${usd}", f"{bill.multi_lora_monthly_usd:g} USD"),
        ),
        Exercise(
            "1.2",
            "predict",
            grade_savings_under_load_pct,
            right=ch1.savings_pct,
            wrong=(ch1_bare.savings_pct, _loaded_plan(PREDICT_CASE_CH1["tenants"], 0.0, GPU_QPS).savings_pct),
            kwargs=dict(PREDICT_CASE_CH1),
            gives_away=_shown_pct(ch1.savings_pct),
            tool="fleet_savings_panel",
        ),
    ), (
        Exercise(
            "6.1",
            "compute",
            grade_fleet_gpus,
            right=load.multi_lora_gpus,
            wrong=(
                load_bare.multi_lora_gpus,
                LOAD_CASE["tenants"] * LOAD_CASE["tenant_qps"] * (1 + DYNAMIC_OVERHEAD) / GPU_QPS,
            ),
            kwargs=dict(LOAD_CASE),
            gives_away=(f"{load.multi_lora_gpus} GPUs",),
        ),
        Exercise(
            "6.2",
            "compute",
            grade_savings_under_load_pct,
            right=load.savings_pct,
            wrong=(load_bare.savings_pct, _loaded_plan(LOAD_CASE["tenants"], 0.0, GPU_QPS).savings_pct),
            kwargs=dict(LOAD_CASE),
            gives_away=_shown_pct(load.savings_pct),
        ),
        Exercise(
            "6.3",
            "predict",
            grade_savings_under_load_pct,
            right=ch6.savings_pct,
            wrong=(ch6_bare.savings_pct, _loaded_plan(PREDICT_CASE_CH6["tenants"], 0.0, GPU_QPS).savings_pct),
            kwargs=dict(PREDICT_CASE_CH6),
            gives_away=_shown_pct(ch6.savings_pct),
            tool="fleet_load_panel",
        ),
    )


#: This module's exercises, as the pages ask them (see :class:`labcore.checks.exercise.Exercise`): the bill's
#: (chapter 1's manifest names them), then the load's (chapter 6's).
BILL_EXERCISES, LOAD_EXERCISES = _exercises()
EXERCISES: tuple[Exercise, ...] = BILL_EXERCISES + LOAD_EXERCISES
