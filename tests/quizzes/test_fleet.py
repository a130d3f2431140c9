"""Tests for labcore.quizzes.fleet: chapters 1 and 6's quizzes say what fleet_plan computes."""

from __future__ import annotations

import math

import pytest

from labcore import fleet_plan, tenant_adapters
from labcore.capacity import TEACHING
from labcore.fleet import GPU_QPS
from labcore.panels.fleet import fleet_load_panel, fleet_savings_panel
from labcore.quizzes import fleet_quiz, why_multi_lora_quiz
from labcore.quizzes.fleet import BIG_ADAPTER_OPTION_MB, QUIET_TENANT_QPS

from ._helpers import assert_chapter_shape, right


def test_both_quizzes_have_the_chapter_shape():
    assert_chapter_shape(why_multi_lora_quiz())
    assert_chapter_shape(fleet_quiz())


def _quiet(tenants=40, **kwargs):
    """The chapters' experiment: tenants at 0.25 req/s on GPUs of GPU_QPS, with the course's facts and overhead."""
    return fleet_plan(
        tenant_adapters(tenants, vram_mb=kwargs.pop("vram_mb", 16.0)),
        tenant_qps=kwargs.pop("tenant_qps", QUIET_TENANT_QPS),
        gpu_qps=GPU_QPS,
        **TEACHING.split().fleet_kwargs(),
        **kwargs,
    )


@pytest.fixture(scope="module")
def savings_panel():
    """Chapter 1's panel, its 3,024-row grid computed once for the tests that look states up on it."""
    return fleet_savings_panel()


def test_the_quizzes_use_the_panels_default_load(savings_panel):
    assert QUIET_TENANT_QPS == savings_panel.defaults()["tenant_qps"] == fleet_load_panel().defaults()["tenant_qps"]
    row = savings_panel.lookup()
    assert (row["multi_lora_gpus"], row["savings_pct"]) == (_quiet().multi_lora_gpus, _quiet().savings_pct) == (1, 97.5)


def test_chapter_1_doubling_the_tenants_needs_a_second_gpu_for_the_traffic(savings_panel):
    q = why_multi_lora_quiz().questions[0]
    assert right(q).text.startswith("Twice the tenants: 80")
    assert _quiet(80).multi_lora_gpus == 2 and _quiet(80).binding_constraint == "load"  # 80 × 0.25 × 1.05 = 21 req/s
    assert _quiet(80, dynamic_overhead=0.0).multi_lora_gpus == 1  # 20 req/s would just fit
    # the two wrong choices really leave the fleet at one GPU, and the panel shows all three states
    assert (
        _quiet(vram_mb=BIG_ADAPTER_OPTION_MB).multi_lora_gpus == 1 and _quiet(gpu_hourly_usd=4.80).multi_lora_gpus == 1
    )
    assert [
        savings_panel.lookup(**state)["multi_lora_gpus"]
        for state in ({"tenants": 80}, {"adapter_vram_mb": BIG_ADAPTER_OPTION_MB}, {"gpu_hourly_usd": 4.8})
    ] == [2, 1, 1]


def test_chapter_1_the_saving_at_160_tenants_is_three_gpus_against_160(savings_panel):
    quiz = why_multi_lora_quiz()
    q = quiz.questions[1]
    assert q.answer == _quiet(160).savings_pct == pytest.approx(100 * (1 - 3 / 160))
    assert quiz.grade(1, 98.13)[0] and quiz.grade(1, 98.12)[0] and not quiz.grade(1, 98.0)[0]
    assert "overhead" in quiz.grade(1, 100 * (1 - 2 / 160))[1]
    assert "memory only" in quiz.grade(1, 100 * (1 - 1 / 160))[1]
    assert "headline" in quiz.grade(1, 97.5)[1]
    assert savings_panel.lookup(tenants=160)["savings_pct"] == q.answer


def test_chapter_1_load_not_memory_sizes_the_loaded_fleet():
    q = why_multi_lora_quiz().questions[2]
    loaded = _quiet(tenant_qps=5)
    assert loaded.binding_constraint == "load" and loaded.dedicated_gpus == 40 and loaded.multi_lora_gpus == 11
    assert right(q).text.startswith("The traffic")
    assert f"from {_quiet().savings_pct:.1f}% to {loaded.savings_pct:.1f}%" in q.question


def test_chapter_6_the_price_cancels_out_of_the_saving():
    q = fleet_quiz().questions[0]
    cheap, dear = (_quiet(gpu_hourly_usd=p) for p in (3.20, 6.40))
    assert cheap.savings_pct == dear.savings_pct and dear.savings_usd == 2 * cheap.savings_usd
    assert right(q).text == f"It stays at {cheap.savings_pct:.1f}%"


def test_chapter_6_under_load_the_saving_is_the_idle_share_less_the_overhead():
    quiz = fleet_quiz()
    q = quiz.questions[1]
    busy = _quiet(tenant_qps=12)
    idle_pct = 100 * (1 - 12 / GPU_QPS)
    assert busy.multi_lora_gpus == math.ceil(40 * 12 * 1.05 / GPU_QPS) == 26
    assert q.answer == busy.savings_pct == pytest.approx(35.0) and busy.savings_pct < idle_pct
    assert "overhead" in quiz.grade(1, idle_pct)[1]  # the idle share, 40%
    assert "busy" in quiz.grade(1, 100 - idle_pct)[1]  # the busy share, 60%


def test_chapter_6_the_shared_fleet_is_the_larger_of_the_two_counts():
    q = fleet_quiz().questions[2]
    pool_mb = fleet_plan(tenant_adapters(40), **TEACHING.split().fleet_kwargs()).adapter_pool_mb_per_gpu  # ch. 1's
    memory = math.ceil(40 * 4096 / pool_mb)
    load = math.ceil(40 * 5 * 1.05 / GPU_QPS)
    plan = _quiet(vram_mb=4096.0, tenant_qps=5)
    assert (plan.memory_bound_gpus, plan.load_bound_gpus, plan.multi_lora_gpus) == (memory, load, max(memory, load))
    assert right(q).text.startswith(f"{max(memory, load)}:")
    assert {c.text.split(":")[0] for c in q.choices} == {str(memory), str(load), str(memory + load)}
