"""Tests for labcore.checks.router: a routed request's latency and the cache budget, with a hint per known mistake."""

from __future__ import annotations

import pytest

from labcore.capacity import DYNAMIC_OVERHEAD
from labcore.checks import check_cache_budget_mb, grade_cache_budget_mb, grade_route_latency_ms
from labcore.checks.router import grade_link_miss_ms
from labcore.links import LAB_HOST_TO_GPU, PCIE4_X16, PCIE5_X16
from labcore.panels import route_latency_panel
from labcore.sim import route_examples


def test_route_latency_answer_is_the_routers_own_number():
    miss = route_examples(50.0, DYNAMIC_OVERHEAD, 64.0, 8.0)["dynamic miss"].total_latency_ms
    assert miss == 60.5 and grade_route_latency_ms(miss).ok
    assert grade_route_latency_ms(62.0, dynamic_overhead=0.08).ok
    assert grade_route_latency_ms(44.0, base_latency_ms=40, dynamic_overhead=0.05, adapter_vram_mb=16).ok


@pytest.mark.parametrize(
    ("answer", "hint"),
    [
        (52.5, "leaves out the adapter load"),
        (58, "leaves out the LoRA overhead"),
        (50, "base latency alone"),
        (60.9, "applies the overhead to the load"),
        (308, "as a whole number"),
        (564.5, "size / bandwidth"),
        (61, "base × (1 + overhead) + adapter size / bandwidth"),
        ("60.5", "Expected a number"),
    ],
)
def test_route_latency_hints(answer, hint):
    verdict = grade_route_latency_ms(answer)
    assert not verdict.ok and hint in verdict.message


@pytest.mark.parametrize(
    ("answer", "hint"),
    [
        (640, "holds 40 adapters"),
        (687.87, "in MB"),
        (0.640625, "in GiB"),
        (41, "counts adapters"),
        (700, "tenants × adapter size"),
    ],
)
def test_cache_budget_hints(answer, hint):
    assert grade_cache_budget_mb(656).ok
    verdict = grade_cache_budget_mb(answer)
    assert not verdict.ok and hint in verdict.message


def test_cache_budget_check_prints_one_line(capsys):
    check_cache_budget_mb(None)
    assert capsys.readouterr().out.startswith("✗ Not answered yet")


def test_link_miss_is_the_latency_panels_own_number():
    panel = route_latency_panel()
    for link in (PCIE4_X16, PCIE5_X16, LAB_HOST_TO_GPU):
        shown = panel.row(adapter_vram_mb=320.0, link=link.name)["miss_ms"]
        assert grade_link_miss_ms(shown, link=link.name).ok
        assert grade_link_miss_ms(round(shown, 1), link=link.name).ok  # what the readout prints
    assert grade_link_miss_ms(40 * (1 + DYNAMIC_OVERHEAD) + PCIE4_X16.transfer_ms(320.0)).ok


@pytest.mark.parametrize(
    ("answer", "hint"),
    [
        (82, "the lab's link"),
        (55.42, "fixed 0.1 ms"),
        (54.9, "as 25 MiB/ms"),
        (53.52, "leaves out the LoRA overhead"),
        (60, "the link's fixed cost"),
        (None, "Not answered"),
    ],
)
def test_link_miss_hints(answer, hint):
    verdict = grade_link_miss_ms(answer)
    assert not verdict.ok and hint in verdict.message, verdict.message
