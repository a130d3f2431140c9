"""Tests for labcore.quizzes.router: chapter 5's quiz says what the router, the fleet plan and the incident say."""

from __future__ import annotations

import math

from labcore import Adapter, AdapterCache, AdapterRegistry, MultiLoRARouter, fleet_plan, tenant_adapters
from labcore.capacity import DYNAMIC_OVERHEAD
from labcore.quizzes import router_quiz
from labcore.sim import onboarding_timeline

from ._helpers import assert_chapter_shape, right


def test_the_quiz_has_the_chapter_shape():
    assert_chapter_shape(router_quiz())


def test_the_unpinned_name_shares_the_pinned_latest_key_and_the_older_version_misses():
    q = router_quiz().questions[0]
    reg = AdapterRegistry()
    reg.register_base("llama-3-8b", "sha256:r")
    for v in ("2.0.0", "2.1.0"):
        reg.register(Adapter("support-bot", v, "llama-3-8b", "sha256:r", rank=16, vram_mb=16.0))
    router = MultiLoRARouter(
        reg, AdapterCache(1024, 8.0), "llama-3-8b", base_latency_ms=40.0, dynamic_overhead=DYNAMIC_OVERHEAD
    )
    hits = [
        router.route(f"llama-3-8b:{ref}").cache_hit for ref in ("support-bot@2.1.0", "support-bot", "support-bot@2.0.0")
    ]
    assert hits == [False, True, False]
    assert right(q).text == "The first and the third"


def test_a_dynamic_flagship_needs_its_load_times_one_plus_overhead():
    quiz = router_quiz()
    plan = fleet_plan(tenant_adapters(1), tenant_qps=400, gpu_qps=20, dynamic_overhead=DYNAMIC_OVERHEAD)
    assert quiz.questions[1].answer == plan.multi_lora_gpus == math.ceil(400 * 1.05 / 20) == 21
    assert "merged" in quiz.grade(1, plan.dedicated_gpus)[1]


def test_the_p99_doubled_because_the_miss_rate_crossed_one_percent():
    q = router_quiz().questions[2]
    before, after = onboarding_timeline().phases
    assert 1 - after.hit_rate > 0.01 and after.p50_ms == before.p50_ms and after.p99_ms > 2 * before.p99_ms
    assert right(q).text.startswith("More than 1% of requests now miss")
    assert f"{after.p99_ms:.0f} ms" in q.question and f"{100 * after.hit_rate:.1f}%" in q.question
