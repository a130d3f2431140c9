"""Tests for labcore.sim.scenarios.canary: simulated versions through a real controller, seeded."""

from __future__ import annotations

from labcore.canary import ABORT, COMPLETE, PROMOTE
from labcore.sim.scenarios.canary import VersionBehaviour, canary_log, simulate_canary


def test_simulated_good_candidate_completes_and_bad_ones_abort_early():
    good = simulate_canary(VersionBehaviour(), requests=40_000, seed=0)
    assert good[-1].action == COMPLETE
    assert [d.fraction_after for d in good if d.action in (PROMOTE, COMPLETE)] == [0.25, 0.5, 1.0]
    for bad in (
        VersionBehaviour(error_rate=0.03),
        VersionBehaviour(base_latency_ms=60.0),
        VersionBehaviour(quality=0.75),
    ):
        log = simulate_canary(bad, requests=40_000, seed=0)
        assert log[-1].action == ABORT
        assert all(d.fraction_before == 0.05 for d in log)  # caught at 5%, never ramped


def test_simulation_is_deterministic_per_seed():
    a = simulate_canary(VersionBehaviour(quality=0.85), requests=10_000, seed=3)
    b = simulate_canary(VersionBehaviour(quality=0.85), requests=10_000, seed=3)
    assert a == b


def test_the_chapter_log_is_the_simulation_of_its_candidate():
    assert canary_log(5.0) == simulate_canary(VersionBehaviour(error_rate=0.05))
    assert canary_log(5.0)[-1].action == ABORT and canary_log()[-1].action == COMPLETE
