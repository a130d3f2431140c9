"""Tests for the chapter 3-4 checkers: right answers pass, known wrong answers get their specific hint."""

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
    grade_releases_behind,
    grade_version_key,
)


# ---------------------------------------------------------------------------- chapter 3


def test_version_key_accepts_real_semver_keys():
    assert grade_version_key(parse_version).ok
    assert grade_version_key(lambda v: tuple(map(int, v.split(".")))).ok
    assert grade_version_key(lambda v: [int(p) for p in v.split(".")]).ok


@pytest.mark.parametrize(
    ("key", "hint"),
    [
        (None, "Not answered yet"),
        (lambda v: None, "Not answered yet: your key returns None"),
        (lambda v: v, "character by character"),
        (str, "character by character"),
        (lambda v: v.split("."), "keeps the parts as strings"),
        (lambda v: tuple(v.split(".")), "keeps the parts as strings"),
        (lambda v: float(v.rsplit(".", 1)[0]), "not semver order"),  # 1.10 < 1.9 as floats
        (lambda v: int(v), "raised ValueError"),
        ("1.10.0", "Expected a function"),
    ],
)
def test_version_key_names_the_mistake(key, hint):
    verdict = grade_version_key(key)
    assert not verdict.ok and hint in verdict.message, verdict.message


def test_releases_behind_right_and_wrong():
    assert grade_releases_behind(6).ok
    assert grade_releases_behind(3, minor_releases=12).ok
    assert not grade_releases_behind(6.5).ok


@pytest.mark.parametrize(
    ("answer", "hint"),
    [(0, "what semver gives"), (7, "counts 1.9.0 itself"), (9, "minor number of 1.9.0"),
     (15, "right up to 1.9.0"), (None, "Not answered"), ("6", "Expected a number")],
)
def test_releases_behind_hints(answer, hint):
    verdict = grade_releases_behind(answer)
    assert not verdict.ok and hint in verdict.message, verdict.message


# ---------------------------------------------------------------------------- chapter 4


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
