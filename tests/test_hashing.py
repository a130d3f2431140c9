"""Tests for labcore.hashing: the same hash in every process, uniform points in [0, 1), strings only."""

from __future__ import annotations

import subprocess
import sys

import pytest

from labcore.hashing import stable_hash, unit_hash

KEYS = [f"tenant-{i:04d}" for i in range(4000)]


def test_stable_hash_is_the_same_in_another_process():
    code = "from labcore.hashing import stable_hash; print(stable_hash('support-bot@1.10.0'))"
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONHASHSEED": "123", "PYTHONPATH": "."},
    ).stdout
    assert int(out) == stable_hash("support-bot@1.10.0")


def test_unit_hash_is_roughly_uniform():
    values = [unit_hash(k) for k in KEYS]
    assert all(0.0 <= v < 1.0 for v in values)
    below_half = sum(v < 0.5 for v in values) / len(values)
    assert 0.47 < below_half < 0.53


def test_stable_hash_rejects_non_strings():
    with pytest.raises(TypeError, match="stable_hash's text must be a str, got int: 42"):
        stable_hash(42)  # type: ignore[arg-type]


def test_the_salt_separates_hash_families():
    assert stable_hash("user-1", salt="support-bot") != stable_hash("user-1", salt="legal-bot")
    assert stable_hash("user-1", salt="") == stable_hash("user-1")
