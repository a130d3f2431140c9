"""Tests for labcore.quizzes.affinity: chapter 10's quiz says what the placement policies do."""

from __future__ import annotations

import pytest

from labcore import Adapter, AdapterRegistry
from labcore.affinity import AffinityFleet, modulo_owner, moved_fraction, rendezvous_ranking, replica_names
from labcore.quizzes import affinity_quiz
from labcore.sim.scenarios.affinity import AFFINITY_DEFAULTS, affinity_runs

from ._helpers import assert_chapter_shape, right


def test_the_quiz_has_the_chapter_shape():
    assert_chapter_shape(affinity_quiz())


def test_hash_mod_r_moves_about_four_fifths_and_rendezvous_one_fifth():
    quiz = affinity_quiz()
    keys = [f"tenant-{i:04d}" for i in range(1000)]
    modulo = moved_fraction(keys, replica_names(4), replica_names(5), owner=modulo_owner)
    rendezvous = moved_fraction(keys, replica_names(4), replica_names(5))
    assert quiz.questions[0].answer == modulo == pytest.approx(4 / 5, abs=0.03)
    assert rendezvous == pytest.approx(1 / 5, abs=0.03)
    assert quiz.grade(0, 0.8)[0] and "rendezvous" in quiz.grade(0, rendezvous)[1]


def test_spraying_thrashes_every_cache_while_a_home_replica_fits():
    runs = affinity_runs(**AFFINITY_DEFAULTS, requests=4_000, warmup=1_000, policies=("round-robin", "rendezvous"))
    assert runs["round-robin"].hit_rate < 0.7 < 0.99 < runs["rendezvous"].hit_rate
    assert runs["round-robin"].imbalance < 1.05
    q = affinity_quiz().questions[1]
    assert right(q).text == f"Every replica sees all 40 tenants with room for {AFFINITY_DEFAULTS['cache_adapters']}"


def test_bounded_load_sends_the_overflow_down_the_tenants_own_ranking():
    reg = AdapterRegistry()
    reg.register_base("llama-3-8b", "sha256:a")
    reg.register(Adapter("hot", "1.0.0", "llama-3-8b", "sha256:a", rank=16, vram_mb=16.0))
    fleet = AffinityFleet(
        reg,
        "llama-3-8b",
        replicas=4,
        policy="bounded-rendezvous",
        cache_budget_mb=64.0,
        load_factor=AFFINITY_DEFAULTS["load_factor"],
    )
    ranking = [int(name.rsplit("-", 1)[1]) for name in rendezvous_ranking("hot", replica_names(4))]
    routes = [fleet.route("llama-3-8b:hot", arrival_ms=0.0) for _ in range(12)]  # all in flight at once
    spilled = [r.replica for r in routes if r.spilled]
    assert spilled and spilled[0] == ranking[1]  # the first overflow goes to the tenant's second choice
    assert {r.replica for r in routes if not r.spilled} == {ranking[0]}
    assert right(affinity_quiz().questions[2]).text.startswith("To the next replica in the tenant's rendezvous")
