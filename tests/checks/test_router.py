"""Tests for labcore.checks.router: a routed request's latency and the cache budget, with a hint per known mistake."""

from __future__ import annotations

import pytest

from labcore.checks import check_cache_budget_mb, grade_cache_budget_mb, grade_route_latency_ms
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
