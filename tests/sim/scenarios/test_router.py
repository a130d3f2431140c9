"""Tests for labcore.sim.scenarios.router: one request of each kind, priced by the router itself."""

from __future__ import annotations

import pytest

from labcore.capacity import DYNAMIC_OVERHEAD
from labcore.links import LAB_HOST_TO_GPU
from labcore.sim.scenarios.router import ROUTER_BASE, route_examples


def test_one_request_of_each_kind_in_order():
    d = route_examples()
    assert list(d) == ["base", "dedicated", "dynamic miss", "dynamic hit"]
    assert [v.mode for v in d.values()] == ["base", "dedicated", "dynamic", "dynamic"]
    assert all(v.base == ROUTER_BASE for v in d.values())
    assert (d["dynamic miss"].cache_hit, d["dynamic hit"].cache_hit) == (False, True)


def test_the_latency_parts_are_the_routers_numbers():
    d = route_examples(50.0, 0.1, 32.0, 16.0, load_overhead_ms=1.0)
    miss = d["dynamic miss"]
    assert (miss.base_latency_ms, miss.overhead_ms, miss.adapter_load_ms) == (50.0, pytest.approx(5.0), 3.0)
    assert miss.total_latency_ms == pytest.approx(58.0)
    assert d["dedicated"].total_latency_ms == d["base"].total_latency_ms == 50.0
    assert route_examples()["dynamic miss"].adapter_load_ms == LAB_HOST_TO_GPU.transfer_ms(16.0)


def test_the_default_overhead_is_the_courses_one_rule():

    hit = route_examples()["dynamic hit"]
    assert hit.overhead_ms == pytest.approx(40.0 * DYNAMIC_OVERHEAD)
    assert hit.total_latency_ms == pytest.approx(40.0 * (1 + DYNAMIC_OVERHEAD))
