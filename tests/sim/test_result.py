"""Tests for labcore.sim.result: the records validate their counters and summarise to the headline numbers."""

from __future__ import annotations

import pytest

from labcore.sim.result import SimResult, Window


def test_simresult_validates_its_counters():
    with pytest.raises(ValueError, match="exceed"):
        SimResult(
            requests=1,
            p50_ms=1,
            p95_ms=1,
            p99_ms=1,
            mean_ms=1,
            max_ms=1,
            hit_rate=1,
            hits=1,
            misses=1,
            evictions=0,
            by_mode={},
            windows=(),
        )


def test_summary_is_the_headline_and_equal_runs_are_equal():
    window = Window(0.0, 5.0, requests=2, misses=1, evictions=0, hit_rate=0.5, p50_ms=42.0, p95_ms=44.0, p99_ms=44.0)
    result = SimResult(
        requests=2,
        p50_ms=42.0,
        p95_ms=44.0,
        p99_ms=44.0,
        mean_ms=43.0,
        max_ms=44.0,
        hit_rate=0.5,
        hits=1,
        misses=1,
        evictions=0,
        by_mode={"dynamic": 2},
        windows=(window,),
    )
    assert result.summary() == {
        "requests": 2,
        "p50_ms": 42.0,
        "p95_ms": 44.0,
        "p99_ms": 44.0,
        "hit_rate": 0.5,
        "misses": 1,
        "evictions": 0,
    }
    assert result == SimResult(**{f: getattr(result, f) for f in SimResult.__slots__})
