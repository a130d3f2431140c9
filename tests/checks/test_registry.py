"""Tests for labcore.checks.registry: a semver sort key and releases behind under string order."""

from __future__ import annotations

import pytest

from labcore import parse_version
from labcore.checks import grade_releases_behind, grade_version_key
from labcore.checks.registry import grade_stale_traffic_pct
from labcore.panels import release_panel


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
    [
        (0, "what semver gives"),
        (7, "counts 1.9.0 itself"),
        (9, "minor number of 1.9.0"),
        (15, "right up to 1.9.0"),
        (None, "Not answered"),
        ("6", "Expected a number"),
    ],
)
def test_releases_behind_hints(answer, hint):
    verdict = grade_releases_behind(answer)
    assert not verdict.ok and hint in verdict.message, verdict.message


def test_stale_traffic_is_the_release_panels_own_number():
    shown = release_panel().row(minor_releases=20, pinned_pct=75)
    assert grade_stale_traffic_pct(shown["stale_all_pct"]).ok
    assert grade_stale_traffic_pct(13).ok and grade_stale_traffic_pct(13.5).ok  # the readout's whole percent
    assert not grade_stale_traffic_pct(14).ok
    assert grade_stale_traffic_pct(
        release_panel().row(minor_releases=12)["stale_all_pct"], minor_releases=12, pinned_pct=0
    ).ok


@pytest.mark.parametrize(
    ("answer", "hint"),
    [
        (52.4, "stale share of unpinned traffic"),
        (39.3, "multiplies by the 75% that pin"),
        (11.9, "leaves out the week of 1.10.0"),
        (13.75, "divides by the 20 releases"),
        (20, "Count the weeks"),
        (None, "Not answered"),
        ("13", "Expected a number"),
    ],
)
def test_stale_traffic_hints(answer, hint):
    verdict = grade_stale_traffic_pct(answer)
    assert not verdict.ok and hint in verdict.message, verdict.message
