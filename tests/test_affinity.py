"""Tests for labcore.affinity: rendezvous hashing, placement policies over real routers and caches."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labcore.affinity import (
    POLICIES,
    POLICY_BOUNDED,
    POLICY_LEAST_LOADED,
    POLICY_RENDEZVOUS,
    POLICY_ROUND_ROBIN,
    AffinityFleet,
    bounded_capacity,
    bounded_choice,
    modulo_owner,
    moved_fraction,
    rendezvous_owner,
    rendezvous_ranking,
    replica_names,
)
from labcore.cache import AdapterCache
from labcore.sim import Workload, make_trace, single_replica_router

KEYS = [f"tenant-{i:04d}" for i in range(4000)]


def registry(tenants: int = 40):
    return single_replica_router(tenants, budget_mb=16.0).registry


@pytest.mark.parametrize("r", [2, 3, 4, 8, 16])
def test_adding_a_replica_moves_about_one_in_r_plus_one(r):
    before, after = replica_names(r), replica_names(r + 1)
    moved = moved_fraction(KEYS, before, after)
    assert abs(moved - 1 / (r + 1)) < 0.03, moved


def test_every_moved_key_moves_to_the_new_replica():
    before, after = replica_names(4), replica_names(5)
    for key in KEYS[:500]:
        old, new = rendezvous_owner(key, before), rendezvous_owner(key, after)
        assert new in (old, "replica-4")


def test_modulo_hashing_moves_most_keys():
    moved = moved_fraction(KEYS, replica_names(4), replica_names(5), owner=modulo_owner)
    assert moved > 0.7


def test_removing_a_replica_moves_only_its_keys():
    before, after = replica_names(5), replica_names(4)
    owned = [k for k in KEYS if rendezvous_owner(k, before) == "replica-4"]
    assert moved_fraction(KEYS, before, after) == pytest.approx(len(owned) / len(KEYS))


@given(st.text(min_size=1, max_size=20), st.integers(min_value=1, max_value=9))
def test_ranking_starts_with_the_owner_and_is_a_permutation(key, r):
    names = replica_names(r)
    ranked = rendezvous_ranking(key, names)
    assert ranked[0] == rendezvous_owner(key, names)
    assert sorted(ranked) == sorted(names)


def test_ranking_rejects_duplicate_or_missing_replicas():
    with pytest.raises(
        ValueError, match=r"replica names must be one or more distinct values, got \['a', 'a'\] \('a' repeats\)"
    ):
        rendezvous_owner("k", ["a", "a"])
    with pytest.raises(ValueError, match=r"replica names must be one or more distinct values, got \[\]"):
        rendezvous_ranking("k", [])


def test_replica_names_validates():
    with pytest.raises(ValueError, match="positive int"):
        replica_names(0)


def test_unknown_policy_is_refused_with_the_valid_ones():
    with pytest.raises(ValueError, match="round-robin"):
        AffinityFleet(registry(), "llama-3-8b", replicas=2, policy="random", cache_budget_mb=64)


def test_round_robin_cycles_replicas():
    fleet = AffinityFleet(registry(), "llama-3-8b", replicas=3, policy=POLICY_ROUND_ROBIN, cache_budget_mb=64)
    got = [fleet.route("llama-3-8b:tenant-01", arrival_ms=float(i)).replica for i in range(6)]
    assert got == [0, 1, 2, 0, 1, 2]


def test_rendezvous_sends_every_version_of_a_tenant_to_one_replica():
    fleet = AffinityFleet(registry(), "llama-3-8b", replicas=4, policy=POLICY_RENDEZVOUS, cache_budget_mb=64)
    a = fleet.route("llama-3-8b:tenant-07", arrival_ms=0.0).replica
    b = fleet.route("llama-3-8b:tenant-07@1.0.0", arrival_ms=1.0).replica
    assert a == b == fleet.names.index(rendezvous_owner("tenant-07", fleet.names))


def test_least_loaded_avoids_a_busy_replica():
    fleet = AffinityFleet(registry(), "llama-3-8b", replicas=2, policy=POLICY_LEAST_LOADED, cache_budget_mb=64, slots=1)
    first = fleet.route("llama-3-8b:tenant-01", arrival_ms=0.0).replica
    second = fleet.route("llama-3-8b:tenant-01", arrival_ms=1.0).replica
    assert first != second


def test_queueing_adds_waiting_time_when_slots_are_busy():
    fleet = AffinityFleet(
        registry(),
        "llama-3-8b",
        replicas=1,
        policy=POLICY_RENDEZVOUS,
        cache_budget_mb=64,
        slots=1,
        base_latency_ms=40.0,
        dynamic_overhead=0.0,
    )
    first = fleet.route("llama-3-8b:tenant-01", arrival_ms=0.0)
    second = fleet.route("llama-3-8b:tenant-01", arrival_ms=0.0)
    assert first.queue_ms == 0.0
    assert second.queue_ms == pytest.approx(first.latency_ms)
    assert second.latency_ms == pytest.approx(first.latency_ms + 40.0)


def test_bounded_load_spills_a_hot_tenant_to_its_second_choice():
    fleet = AffinityFleet(
        registry(), "llama-3-8b", replicas=4, policy=POLICY_BOUNDED, cache_budget_mb=64, load_factor=1.25
    )
    ranked = fleet.ranking("llama-3-8b:tenant-01")
    routes = [fleet.route("llama-3-8b:tenant-01", arrival_ms=0.0) for _ in range(12)]
    used = {r.replica for r in routes}
    assert routes[0].replica == ranked[0] and not routes[0].spilled
    assert ranked[1] in used and any(r.spilled for r in routes)
    assert fleet.spilled == sum(r.spilled for r in routes)


def test_a_cache_factory_builds_each_replicas_cache():

    built = []

    def factory():
        built.append(AdapterCache(48.0, 2.0))
        return built[-1]

    fleet = AffinityFleet(
        registry(), "llama-3-8b", replicas=3, policy=POLICY_RENDEZVOUS, cache_budget_mb=1.0, cache_factory=factory
    )
    assert fleet.caches == built and len(built) == 3
    assert fleet.route("llama-3-8b:tenant-01", arrival_ms=0.0).decision.adapter_load_ms == 8.0


def test_caches_stay_within_budget_under_every_policy():
    trace = make_trace(Workload(tenants=30, requests=3000, zipf_s=0.8, seed=3))
    for policy in POLICIES:
        fleet = AffinityFleet(registry(30), "llama-3-8b", replicas=3, policy=policy, cache_budget_mb=80)
        for t, ref in trace:
            fleet.route(ref, arrival_ms=t)
            assert all(c.used_mb <= c.budget_mb for c in fleet.caches)


@given(
    st.lists(st.integers(0, 20), min_size=1, max_size=8),
    st.sampled_from([1.0, 1.1, 1.25, 1.5, 2.0]),
    st.randoms(use_true_random=False),
)
def test_bounded_choice_takes_the_first_ranked_replica_under_the_cap(loads, load_factor, rnd):
    ranking = list(range(len(loads)))
    rnd.shuffle(ranking)
    i = bounded_choice(ranking, loads, load_factor)
    cap = bounded_capacity(sum(loads), len(loads), load_factor)
    assert loads[i] + 1 <= cap  # some replica is at or below the mean, so one always fits
    assert all(loads[j] + 1 > cap for j in ranking[: ranking.index(i)])


def test_bounded_choice_refuses_a_ranking_that_is_not_the_replicas():
    with pytest.raises(ValueError, match="ranking must order every replica index"):
        bounded_choice([0, 0], [1, 1], 1.25)


def test_a_run_counts_the_distinct_adapters_each_replica_served():
    w = Workload(tenants=40, requests=3_000, zipf_s=1.0, rate_per_s=500.0, seed=1)
    runs = {}
    for policy in (POLICY_ROUND_ROBIN, POLICY_RENDEZVOUS):
        fleet = AffinityFleet(registry(40), "llama-3-8b", replicas=4, policy=policy, cache_budget_mb=12 * 16.0)
        trace = make_trace(w)
        latencies = [
            fleet.route(ref, arrival_ms=t).latency_ms for t, ref in zip(trace.arrival_ms, trace.model_refs, strict=True)
        ]
        runs[policy] = fleet.summary(latencies)
    assert runs[POLICY_ROUND_ROBIN].adapters_per_replica == (40, 40, 40, 40)  # spraying: every adapter everywhere
    assert sum(runs[POLICY_RENDEZVOUS].adapters_per_replica) == 40  # a home each: every adapter once
