"""Tests for labcore.sim.workload: Zipf weights, seeded traces, Poisson arrivals, late joins, validation."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import pytest

from labcore.sim import Join, Trace, Workload, make_trace, zipf_weights

BASE = "llama-3-8b"


def ref(i: int) -> str:
    return f"{BASE}:tenant-{i:02d}"


# --------------------------------------------------------------------------- workloads and traces
def test_zipf_weights_sum_to_one_and_decrease():
    w = zipf_weights(10, 1.2)
    assert math.isclose(sum(w), 1.0)
    assert all(a > b for a, b in itertools.pairwise(w))
    assert zipf_weights(4, 0) == [0.25] * 4


def test_same_seed_same_trace_other_seed_other_trace():
    w = Workload(tenants=20, requests=2_000, zipf_s=1.0, seed=3)
    assert make_trace(w) == make_trace(w)
    other = make_trace(Workload(tenants=20, requests=2_000, zipf_s=1.0, seed=4))
    assert other != make_trace(w)


def test_trace_follows_zipf_popularity():
    w = Workload(tenants=5, requests=50_000, zipf_s=1.0, seed=11)
    counts = Counter(make_trace(w).tenant_index)
    for i, weight in enumerate(zipf_weights(5, 1.0)):
        assert abs(counts[i] / 50_000 - weight) < 0.01


def test_arrivals_are_poisson_at_the_rate():
    trace = make_trace(Workload(tenants=3, requests=20_000, rate_per_s=500.0, seed=5))
    assert all(b >= a for a, b in itertools.pairwise(trace.arrival_ms))
    mean_gap_ms = trace.duration_ms / len(trace)
    assert abs(mean_gap_ms - 2.0) < 0.1  # 500 req/s = one every 2 ms


def test_a_joining_tenant_is_silent_before_and_active_after():
    w = Workload(
        tenants=41, requests=20_000, zipf_s=0.5, rate_per_s=1000.0, seed=2, joins=(Join(at_ms=10_000, tenant=41),)
    )
    trace = make_trace(w)
    before = [r for t, r in trace if t < 10_000]
    after = [r for t, r in trace if t >= 10_000]
    assert ref(41) not in before and len(before) > 1000
    assert after.count(ref(41)) > 50


def test_base_share_sends_some_requests_to_the_bare_base():
    trace = make_trace(Workload(tenants=3, requests=10_000, base_share=0.2, seed=1))
    share = trace.refs.count(BASE) / len(trace)
    assert 0.18 < share < 0.22


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(tenants=0, requests=10), "tenants"),
        (dict(tenants=3, requests=10, zipf_s=-0.5), "zipf_s"),
        (dict(tenants=3, requests=10, rate_per_s=0), "rate_per_s"),
        (dict(tenants=3, requests=10, joins=(Join(5.0, 4),)), "tenant #4"),
        (dict(tenants=3, requests=10, joins=(Join(5.0, 2), Join(9.0, 2))), "once"),
        (dict(tenants=1, requests=10, joins=(Join(5.0, 1),)), "active at t=0"),
        (dict(tenants=3, requests=10, base_share=1.0), "base_share"),
    ],
)
def test_workload_rejects_bad_values_with_a_clear_message(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Workload(**kwargs)


def test_trace_rejects_time_going_backwards():
    with pytest.raises(ValueError, match="non-decreasing"):
        Trace.from_pairs([(5.0, BASE), (1.0, BASE)])
