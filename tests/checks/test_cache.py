"""Tests for labcore.checks.cache: which adapters LRU evicts and what a miss costs, with a hint per known mistake."""

from __future__ import annotations

import pytest

from labcore import parse_version
from labcore.checks import (
    check_lru_evictions,
    check_miss_load_ms,
    check_releases_behind,
    check_version_key,
    grade_lru_evictions,
    grade_miss_load_ms,
)


def test_lru_evictions_right_answer_and_forms():
    assert grade_lru_evictions(["b", "a", "c"]).ok
    assert grade_lru_evictions(("b@1.0.0", "a@1.0.0", "c@1.0.0")).ok
    assert grade_lru_evictions(["b"], sequence=("a", "b", "c", "a", "d"), slots=3).ok


@pytest.mark.parametrize(
    ("answer", "hint"),
    [(["a", "b"], "what FIFO evicts"), (["a", "b", "c"], "Right adapters, wrong order"),
     (["b", "a"], "has 2 eviction(s)"), (["b", "c", "d"], "is not it"), (None, "Not answered"),
     ("bac", "Expected a list")],
)
def test_lru_evictions_hints(answer, hint):
    verdict = grade_lru_evictions(answer)
    assert not verdict.ok and hint in verdict.message, verdict.message


def test_miss_load_ms():
    assert grade_miss_load_ms(2).ok and grade_miss_load_ms(2.0).ok
    assert grade_miss_load_ms(4, vram_mb=32).ok


@pytest.mark.parametrize(
    ("answer", "hint"),
    [(128, "multiplies size by bandwidth"), (0.5, "divides bandwidth by size"), (2000, "microseconds"),
     (0.002, "in seconds"), (3, "is not it")],
)
def test_miss_load_ms_hints(answer, hint):
    verdict = grade_miss_load_ms(answer)
    assert not verdict.ok and hint in verdict.message, verdict.message


def test_checkers_print_one_line(capsys):
    check_version_key(parse_version)
    check_releases_behind(6)
    check_lru_evictions(["b", "a", "c"])
    check_miss_load_ms(2)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 4 and all(line.startswith("✓") for line in lines)
