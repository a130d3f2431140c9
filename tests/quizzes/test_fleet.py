"""Tests for labcore.quizzes.fleet: chapters 1 and 6's quizzes say what fleet_plan computes."""

from __future__ import annotations

import math

import pytest

from labcore import fleet_plan, tenant_adapters
from labcore.fleet import GPU_QPS
from labcore.quizzes import fleet_quiz, why_multi_lora_quiz
from labcore.sizing import gpu_memory_split

from ._helpers import assert_chapter_shape, right


def test_both_quizzes_have_the_chapter_shape():
    assert_chapter_shape(why_multi_lora_quiz())
    assert_chapter_shape(fleet_quiz())


def test_chapter_1_the_first_change_that_needs_a_second_gpu_is_an_adapter_past_the_pool_share():
    q = why_multi_lora_quiz().questions[0]
    pool_mb = gpu_memory_split(80, base_vram_gb=16, kv_cache_gb=24, adapter_vram_mb=16.0).adapter_pool_mb
    limit_mb = pool_mb / 40
    assert right(q).text == f"Adapters of more than {limit_mb:,.0f} MiB each"
    assert fleet_plan(tenant_adapters(40, vram_mb=limit_mb)).multi_lora_gpus == 1
    assert fleet_plan(tenant_adapters(40, vram_mb=limit_mb + 1)).multi_lora_gpus == 2
    # the two wrong choices really leave the fleet at one GPU
    assert fleet_plan(tenant_adapters(40), gpu_hourly_usd=6.40).multi_lora_gpus == 1
    assert fleet_plan(tenant_adapters(41)).multi_lora_gpus == 1


def test_chapter_1_the_saving_at_400_tenants_is_one_gpu_against_400():
    quiz = why_multi_lora_quiz()
    q = quiz.questions[1]
    assert q.answer == fleet_plan(tenant_adapters(400)).savings_pct == pytest.approx(100 * (1 - 1 / 400))
    assert quiz.grade(1, 99.75)[0] and quiz.grade(1, 99.8)[0] and not quiz.grade(1, 99.5)[0]
    assert "headline" in quiz.grade(1, fleet_plan(tenant_adapters(40)).savings_pct)[1]


def test_chapter_1_load_not_memory_sizes_the_loaded_fleet():
    q = why_multi_lora_quiz().questions[2]
    loaded = fleet_plan(tenant_adapters(40), tenant_qps=5, gpu_qps=GPU_QPS)
    assert loaded.binding_constraint == "load" and loaded.dedicated_gpus == 40
    assert right(q).text.startswith("The traffic")
    headline = fleet_plan(tenant_adapters(40)).savings_pct
    assert f"from {headline:.1f}% to {loaded.savings_pct:.1f}%" in q.question


def test_chapter_6_the_price_cancels_out_of_the_saving():
    q = fleet_quiz().questions[0]
    cheap, dear = (fleet_plan(tenant_adapters(40), gpu_hourly_usd=p) for p in (3.20, 6.40))
    assert cheap.savings_pct == dear.savings_pct and dear.savings_usd == 2 * cheap.savings_usd
    assert right(q).text == f"It stays at {cheap.savings_pct:.1f}%"


def test_chapter_6_under_load_the_saving_is_the_dedicated_fleets_idle_share():
    quiz = fleet_quiz()
    q = quiz.questions[1]
    busy = fleet_plan(tenant_adapters(40), tenant_qps=12, gpu_qps=GPU_QPS)
    idle_pct = 100 * (1 - 12 / GPU_QPS)
    assert q.answer == busy.savings_pct == pytest.approx(idle_pct)
    assert "idle share" in quiz.grade(1, 100 - idle_pct)[1]  # the busy share, 60%


def test_chapter_6_the_shared_fleet_is_the_larger_of_the_two_counts():
    q = fleet_quiz().questions[2]
    memory = math.ceil(40 * 4096 / (40 * 1024))
    load = math.ceil(40 * 5 / GPU_QPS)
    plan = fleet_plan(tenant_adapters(40, vram_mb=4096.0), tenant_qps=5, gpu_qps=GPU_QPS)
    assert (plan.memory_bound_gpus, plan.load_bound_gpus, plan.multi_lora_gpus) == (memory, load, max(memory, load))
    assert right(q).text.startswith(f"{max(memory, load)}:")
    assert {c.text.split(":")[0] for c in q.choices} == {str(memory), str(load), str(memory + load)}
