"""Tests for labcore.canary: sticky splits, the controller's promote/hold/abort paths and its reasons."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labcore.canary import (
    ABORT,
    COMPLETE,
    HOLD,
    PROMOTE,
    CanaryController,
    CanaryDecision,
    CanarySplit,
    CanaryThresholds,
    VersionMetrics,
)

STABLE, CANDIDATE = "1.10.0", "2.0.0"


def split(fraction: float = 0.05) -> CanarySplit:
    return CanarySplit(tenant="support-bot", stable=STABLE, candidate=CANDIDATE, fraction=fraction)


def test_split_is_sticky_per_key():
    s = split()
    for i in range(200):
        key = f"user-{i}"
        assert len({s.version_for(key) for _ in range(3)}) == 1


@pytest.mark.parametrize("fraction", [0.05, 0.25, 0.5])
def test_fraction_is_within_tolerance_over_many_keys(fraction):
    s = split(fraction)
    n = 40_000
    share = sum(s.in_canary(f"session-{i}") for i in range(n)) / n
    assert abs(share - fraction) < 0.01


@given(st.text(min_size=1, max_size=30), st.floats(0, 1), st.floats(0, 1))
def test_raising_the_fraction_never_moves_a_key_back_to_stable(key, a, b):
    lo, hi = sorted((a, b))
    if split(lo).in_canary(key):
        assert split(hi).in_canary(key)


def test_zero_and_full_fractions_are_absolute():
    assert not any(split(0.0).in_canary(f"u{i}") for i in range(500))
    assert all(split(1.0).in_canary(f"u{i}") for i in range(500))


def test_ref_for_pins_the_version():
    s = split(1.0)
    assert s.ref_for("u1", base="llama-3-8b") == "llama-3-8b:support-bot@2.0.0"


def test_split_validates_its_fields():
    with pytest.raises(ValueError, match="fraction"):
        split(1.5)
    with pytest.raises(ValueError, match="must differ"):
        CanarySplit(tenant="support-bot", stable=STABLE, candidate=STABLE, fraction=0.05)
    with pytest.raises(ValueError, match="tenant"):
        CanarySplit(tenant="a:b", stable=STABLE, candidate=CANDIDATE, fraction=0.05)
    with pytest.raises(ValueError):
        CanarySplit(tenant="support-bot", stable="1.10", candidate=CANDIDATE, fraction=0.05)


def feed(
    ctl: CanaryController,
    version: str,
    n: int,
    *,
    latency_ms: float = 40.0,
    errors: int = 0,
    score: float | None = None,
) -> None:
    for i in range(n):
        ctl.observe(version, latency_ms=latency_ms, error=i < errors, score=score)


def test_holds_below_the_minimum_sample_and_says_how_many_are_missing():
    ctl = CanaryController(split(), thresholds=CanaryThresholds(min_requests=100))
    feed(ctl, STABLE, 500)
    feed(ctl, CANDIDATE, 40)
    d = ctl.evaluate()
    assert d.action == HOLD and ctl.split.fraction == 0.05
    assert "2.0.0 has 40 of the 100 needed" in d.reason


def test_aborts_on_a_clearly_higher_error_rate_with_the_numbers_in_the_reason():
    ctl = CanaryController(split(), thresholds=CanaryThresholds(min_requests=100, min_scored=1))
    feed(ctl, STABLE, 1000, errors=5, score=1.0)
    feed(ctl, CANDIDATE, 400, errors=40, score=1.0)
    d = ctl.evaluate()
    assert d.action == ABORT and d.fraction_after == 0.0 and ctl.split.fraction == 0.0
    assert "error rate 10.00% on 2.0.0 vs 0.50% on 1.10.0" in d.reason
    assert ctl.state == "aborted"
    with pytest.raises(ValueError, match="already aborted"):
        ctl.evaluate()


def test_aborts_on_a_slower_tail():
    ctl = CanaryController(split(), thresholds=CanaryThresholds(min_requests=100, min_scored=1))
    feed(ctl, STABLE, 300, latency_ms=40.0, score=1.0)
    feed(ctl, CANDIDATE, 300, latency_ms=60.0, score=1.0)
    d = ctl.evaluate()
    assert d.action == ABORT and "p99 60.0 ms on 2.0.0 vs 40.0 ms on 1.10.0" in d.reason


def test_aborts_on_a_lower_eval_score():
    ctl = CanaryController(split(), thresholds=CanaryThresholds(min_requests=100, min_scored=100))
    for i in range(400):
        ctl.observe(STABLE, latency_ms=40.0, score=1.0 if i % 10 else 0.0)  # 0.90
        ctl.observe(CANDIDATE, latency_ms=40.0, score=1.0 if i % 2 else 0.0)  # 0.50
    d = ctl.evaluate()
    assert d.action == ABORT and "eval score 0.500 on 2.0.0 vs 0.900 on 1.10.0" in d.reason


def test_a_small_noisy_difference_holds_instead_of_aborting():
    ctl = CanaryController(split(), thresholds=CanaryThresholds(min_requests=100, max_error_rate_increase=0.01))
    feed(ctl, STABLE, 300, errors=3, score=1.0)
    feed(ctl, CANDIDATE, 300, errors=6, score=1.0)  # +1 point, within noise at n=300
    d = ctl.evaluate()
    assert d.action == HOLD and d.reason.startswith("not enough evidence yet: error rate")


def test_z_zero_judges_point_estimates():
    ctl = CanaryController(
        split(), thresholds=CanaryThresholds(min_requests=100, max_error_rate_increase=0.005, min_scored=1, z=0.0)
    )
    feed(ctl, STABLE, 300, errors=3, score=1.0)
    feed(ctl, CANDIDATE, 300, errors=6, score=1.0)
    assert ctl.evaluate().action == ABORT


def test_promotes_along_the_ramp_then_completes():
    ctl = CanaryController(split(), thresholds=CanaryThresholds(min_requests=100, min_scored=50))
    actions = []
    for _ in range(3):
        feed(ctl, STABLE, 2000, score=1.0)
        feed(ctl, CANDIDATE, 2000, score=1.0)
        actions.append((ctl.evaluate().action, ctl.split.fraction))
    assert actions == [(PROMOTE, 0.25), (PROMOTE, 0.5), (COMPLETE, 1.0)]
    assert ctl.state == "complete"
    assert [d.step for d in ctl.log] == [1, 2, 3]
    assert "rollout complete" in ctl.log[-1].reason and "5% -> 25%" in ctl.log[0].reason


def test_promotion_starts_a_fresh_window():
    ctl = CanaryController(split(), thresholds=CanaryThresholds(min_requests=100, min_scored=50))
    feed(ctl, STABLE, 2000, score=1.0)
    feed(ctl, CANDIDATE, 2000, score=1.0)
    assert ctl.evaluate().action == PROMOTE
    cand, stab = ctl.metrics()
    assert cand.requests == stab.requests == 0


def test_observe_rejects_unknown_versions_and_bad_latencies():
    ctl = CanaryController(split())
    with pytest.raises(ValueError, match="not in this canary"):
        ctl.observe("9.9.9", latency_ms=1.0)
    with pytest.raises(ValueError, match="latency_ms"):
        ctl.observe(STABLE, latency_ms=-1.0)


def test_controller_validates_the_ramp():
    with pytest.raises(ValueError, match="ending at 1.0"):
        CanaryController(split(), ramp=(0.05, 0.5))
    with pytest.raises(ValueError, match="ramp step below 100%"):
        CanaryController(split(0.10))


def test_records_validate():
    with pytest.raises(ValueError, match="errors <= requests"):
        VersionMetrics("1.0.0", requests=3, errors=4, p99_ms=1.0)
    m = VersionMetrics("1.0.0", requests=3, errors=0, p99_ms=1.0)
    with pytest.raises(ValueError, match="action must be one of .*, got .ship-it."):
        CanaryDecision(
            step=1, action="ship-it", fraction_before=0.05, fraction_after=0.25, reason="why", candidate=m, stable=m
        )
    with pytest.raises(ValueError, match="needs a reason"):
        CanaryDecision(step=1, action=HOLD, fraction_before=0.05, fraction_after=0.05, reason="", candidate=m, stable=m)
    with pytest.raises(ValueError, match="z must be"):
        CanaryThresholds(z=-1)
