"""Tests for labcore.sim.scenarios.affinity: whole traces through fresh fleets, per policy, and chapter 10's runs."""

from __future__ import annotations

import pytest

from labcore.affinity import (
    LOAD_BOUNDED_POLICIES,
    POLICY_BOUNDED,
    POLICY_LEAST_LOADED,
    POLICY_RENDEZVOUS,
    POLICY_ROUND_ROBIN,
    FleetRun,
)
from labcore.sim import Workload, make_trace, single_replica_router
from labcore.sim.scenarios.affinity import AFFINITY_DEFAULTS, affinity_runs, compare_policies, run_policy

REMOTE_LOAD = {"load_overhead_ms": 50.0, "transfer_mb_per_ms": 1.0}  # a miss fetches from an object store


def registry(tenants: int = 40):
    return single_replica_router(tenants, budget_mb=16.0).registry


@pytest.fixture(scope="module")
def hot_runs() -> dict[str, FleetRun]:
    w = Workload(tenants=40, requests=12_000, zipf_s=1.0, rate_per_s=500.0, seed=1)
    return compare_policies(
        make_trace(w), registry(40), "llama-3-8b", replicas=4, cache_budget_mb=12 * 16.0, warmup=2000, **REMOTE_LOAD
    )


def test_affinity_beats_spraying_on_hit_rate(hot_runs):
    for sprayer in (POLICY_ROUND_ROBIN, POLICY_LEAST_LOADED):
        assert hot_runs[POLICY_RENDEZVOUS].hit_rate > hot_runs[sprayer].hit_rate + 0.2


def test_hot_tenant_unbalances_plain_rendezvous_and_bounded_load_fixes_it(hot_runs):
    plain, bounded = hot_runs[POLICY_RENDEZVOUS], hot_runs[POLICY_BOUNDED]
    assert plain.imbalance > 1.4
    assert bounded.imbalance < plain.imbalance - 0.2
    assert bounded.p99_ms < plain.p99_ms / 5
    assert bounded.spilled > 0 and plain.spilled == 0


def test_run_records_are_consistent(hot_runs):
    for policy, run in hot_runs.items():
        assert run.policy == policy
        assert sum(run.requests_per_replica) == run.requests == 10_000
        assert run.p50_ms <= run.p95_ms <= run.p99_ms
        assert run.imbalance >= 1.0


def test_same_trace_same_numbers():
    trace = make_trace(Workload(tenants=20, requests=2000, zipf_s=1.0, seed=5))
    a = run_policy(trace, registry(20), "llama-3-8b", policy=POLICY_BOUNDED, replicas=3, cache_budget_mb=96)
    b = run_policy(trace, registry(20), "llama-3-8b", policy=POLICY_BOUNDED, replicas=3, cache_budget_mb=96)
    assert a == b


def test_run_policy_accepts_plain_refs_and_rejects_bad_warmup():
    refs = ["llama-3-8b:tenant-01", "llama-3-8b:tenant-02"] * 5
    run = run_policy(
        refs, registry(2), "llama-3-8b", policy=POLICY_RENDEZVOUS, replicas=2, cache_budget_mb=64, spacing_ms=100.0
    )
    assert run.requests == 10 and run.hit_rate == pytest.approx(0.8)
    with pytest.raises(ValueError, match="warmup"):
        run_policy(refs, registry(2), "llama-3-8b", policy=POLICY_RENDEZVOUS, replicas=2, cache_budget_mb=64, warmup=10)


def test_the_chapter_runs_every_policy_on_its_default_fleet():
    runs = affinity_runs(requests=3_000, warmup=500)
    assert list(runs) == [POLICY_ROUND_ROBIN, POLICY_LEAST_LOADED, POLICY_RENDEZVOUS, POLICY_BOUNDED]
    assert all(r.replicas == AFFINITY_DEFAULTS["replicas"] and r.requests == 2_500 for r in runs.values())
    assert runs[POLICY_RENDEZVOUS].hit_rate > runs[POLICY_ROUND_ROBIN].hit_rate
    assert list(affinity_runs(requests=1_000, warmup=100, policies=(POLICY_BOUNDED,))) == [POLICY_BOUNDED]


def test_only_the_load_bounded_policies_read_the_bound():
    """What lets affinity_runs share the other policies' runs across the panel's bound values."""
    trace = make_trace(Workload(tenants=20, requests=3000, zipf_s=1.0, rate_per_s=500.0, seed=5))
    for policy in (POLICY_ROUND_ROBIN, POLICY_LEAST_LOADED, POLICY_RENDEZVOUS, POLICY_BOUNDED):
        tight, loose = (
            run_policy(trace, registry(20), "llama-3-8b", policy=policy, replicas=3, cache_budget_mb=96, load_factor=c)
            for c in (1.05, 3.0)
        )
        assert (tight == loose) == (policy not in LOAD_BOUNDED_POLICIES), policy


def test_chapter_runs_that_differ_only_in_the_bound_share_the_unbounded_runs():
    tight = affinity_runs(requests=1_500, warmup=300, load_factor=1.1)
    loose = affinity_runs(requests=1_500, warmup=300, load_factor=2.0)
    assert tight[POLICY_RENDEZVOUS] is loose[POLICY_RENDEZVOUS]
    assert tight[POLICY_BOUNDED] != loose[POLICY_BOUNDED]
    with pytest.raises(ValueError, match=r"load_factor must be a finite number >= 1, got 0.5"):
        affinity_runs(requests=1_500, warmup=300, load_factor=0.5, policies=(POLICY_ROUND_ROBIN,))
