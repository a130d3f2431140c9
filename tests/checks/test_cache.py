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
from labcore.checks.cache import EXACT_ADAPTER_MB, grade_thrash_hit_pct
from labcore.panels import lru_thrash_panel


def test_lru_evictions_right_answer_and_forms():
    assert grade_lru_evictions(["b", "a", "c"]).ok
    assert grade_lru_evictions(("b@1.0.0", "a@1.0.0", "c@1.0.0")).ok
    assert grade_lru_evictions(["b"], sequence=("a", "b", "c", "a", "d"), slots=3).ok


@pytest.mark.parametrize(
    ("answer", "hint"),
    [
        (["a", "b"], "what FIFO evicts"),
        (["a", "b", "c"], "Right adapters, wrong order"),
        (["b", "a"], "has 2 eviction(s)"),
        (["b", "c", "d"], "is not it"),
        (None, "Not answered"),
        ("bac", "Expected a list"),
    ],
)
def test_lru_evictions_hints(answer, hint):
    verdict = grade_lru_evictions(answer)
    assert not verdict.ok and hint in verdict.message, verdict.message


def test_miss_load_ms():
    assert grade_miss_load_ms(2).ok and grade_miss_load_ms(2.0).ok
    assert grade_miss_load_ms(4, vram_mb=32).ok


@pytest.mark.parametrize(
    ("answer", "hint"),
    [
        (128, "multiplies size by bandwidth"),
        (0.5, "divides bandwidth by size"),
        (2000, "microseconds"),
        (0.002, "in seconds"),
        (3, "is not it"),
    ],
)
def test_miss_load_ms_hints(answer, hint):
    verdict = grade_miss_load_ms(answer)
    assert not verdict.ok and hint in verdict.message, verdict.message


def test_miss_load_of_the_exact_adapter_names_the_square_formula():
    assert EXACT_ADAPTER_MB == 13.0 and grade_miss_load_ms(1.625, vram_mb=EXACT_ADAPTER_MB).ok
    verdict = grade_miss_load_ms(2, vram_mb=EXACT_ADAPTER_MB)
    assert not verdict.ok and "square formula's 16 MiB" in verdict.message


def test_thrash_hit_is_the_panels_own_number():
    panel = lru_thrash_panel()
    shown = panel.row(budget_mb=448, zipf_s=0.0)["lru_hit_pct"]
    assert grade_thrash_hit_pct(shown).ok and grade_thrash_hit_pct(100 * 28 / 40).ok
    assert grade_thrash_hit_pct(panel.row(budget_mb=448)["lru_hit_pct"], zipf_s=1.0).ok


@pytest.mark.parametrize(
    ("answer", "hint"),
    [
        (30, "miss rate"),
        (100, "whole working set"),
        (49.9, "at 320 MiB"),
        (87, "skewed traffic"),
        (60, "holds 28 of 40"),
        (None, "Not answered"),
    ],
)
def test_thrash_hit_hints(answer, hint):
    verdict = grade_thrash_hit_pct(answer)
    assert not verdict.ok and hint in verdict.message, verdict.message


def test_checkers_print_one_line(capsys):
    check_version_key(parse_version)
    check_releases_behind(6)
    check_lru_evictions(["b", "a", "c"])
    check_miss_load_ms(2)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 4 and all(line.startswith("✓") for line in lines)
