"""Tests for labcore.plots.router: the latency breakdown per mode, and merged against dynamic serving."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pytest

from labcore import fleet_plan, tenant_adapters
from labcore.plots import LATENCY_PART_COLORS, plot_latency_breakdown, plot_merge_vs_dynamic
from labcore.router import RouteDecision


def _decision(mode, hit, load_ms, base_ms=40.0, overhead_ms=2.0):
    total = base_ms + overhead_ms + load_ms
    return RouteDecision(
        mode=mode,
        adapter="a@1.0.0",
        cache_hit=hit,
        evicted=(),
        adapter_load_ms=load_ms,
        total_latency_ms=total,
        base_latency_ms=base_ms,
        overhead_ms=overhead_ms,
    )


def test_latency_breakdown_stacks_the_three_parts_to_the_total():
    decisions = {"hit": _decision("dynamic", True, 0.0), "miss": _decision("dynamic", False, 8.0)}
    fig = plot_latency_breakdown(decisions)
    ax = fig.axes[0]
    tops = {}
    for patch in ax.patches:
        x = round(patch.get_x() + patch.get_width() / 2)
        tops[x] = max(tops.get(x, 0.0), patch.get_y() + patch.get_height())
    assert tops == {0: 42.0, 1: 50.0}
    assert [t.get_text() for t in ax.get_legend().get_texts()] == list(LATENCY_PART_COLORS)
    assert ax.get_title() == "Miss +8.0 ms, overhead +2.0 ms"
    assert ax.get_ylabel() == "Latency per request (ms)"


def test_latency_breakdown_draws_on_a_given_axes_and_rejects_nothing_to_draw():
    fig, ax = plt.subplots()
    assert plot_latency_breakdown({"base": _decision("base", None, 0.0, overhead_ms=0.0)}, ax=ax) is fig
    with pytest.raises(ValueError, match="at least one decision"):
        plot_latency_breakdown({})


def test_merge_vs_dynamic_picks_the_cheaper_option_per_workload():
    flagship = fleet_plan(tenant_adapters(1), tenant_qps=400, gpu_qps=20, dynamic_overhead=0.05)
    tail = fleet_plan(tenant_adapters(300), tenant_qps=0.05, gpu_qps=20, dynamic_overhead=0.05)
    fig = plot_merge_vs_dynamic(
        {"(a) flagship, 400 req/s": flagship, "(b) tail": tail}, base_latency_ms=40, dynamic_overhead=0.05
    )
    title = fig.axes[0].get_title()
    assert title == "(a) flagship: merge (20 vs 21 GPUs); (b) tail: dynamic (1 vs 300 GPUs)"
    labels = [t.get_text() for t in fig.axes[0].texts]
    assert "20\n40 ms" in labels and "21\n42 ms" in labels and "300\n40 ms" in labels
