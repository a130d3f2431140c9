"""Check the registry exercises: a semver sort key, how far string order lags behind, and how much traffic it
sends to a stale adapter (chapter 3)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._validate import count
from ..panels.registry import release_panel
from ..sim import release_timeline
from ..versions import parse_version
from .exercise import Exercise
from .rules import NumberRule, graded
from .verdict import Mistake, Verdict, _printer

__all__ = [
    "VERSION_KEY_PROBE",
    "grade_version_key",
    "check_version_key",
    "grade_releases_behind",
    "check_releases_behind",
    "grade_stale_traffic_pct",
    "check_stale_traffic_pct",
]


VERSION_KEY_PROBE: tuple[str, ...] = ("1.10.0", "1.9.0", "2.0.0", "1.2.10", "1.2.9", "0.10.1", "10.0.0", "1.2.0")


def grade_version_key(answer: Any, *, versions: Sequence[str] = VERSION_KEY_PROBE) -> Verdict:
    """Grade a sort key for versions: ``sorted(versions, key=answer)`` must be semver order.

    >>> grade_version_key(lambda v: tuple(int(p) for p in v.split("."))).ok
    True
    >>> print(grade_version_key(lambda v: v).message)
    ✗ Your key compares strings character by character, so '1.10.0' sorts before '1.9.0'. Split on '.' and compare the parts as ints.
    """
    if answer is None or answer is Ellipsis:
        return Verdict(
            False, "✗ Not answered yet: replace None with a function that takes '1.10.0' and returns a sort key."
        )
    if not callable(answer):
        return Verdict(False, f"✗ Expected a function (a sort key), got {answer!r}.")
    expected = sorted(versions, key=parse_version)
    try:
        sample = answer(versions[0])
        if sample is None:
            return Verdict(
                False, "✗ Not answered yet: your key returns None; make it return something that sorts, e.g. a tuple."
            )
        got = sorted(versions, key=answer)
    except Exception as error:  # a learner's key may raise anything
        return Verdict(
            False, f"✗ Your key raised {type(error).__name__}: {error}. It must accept strings like '1.10.0'."
        )
    if got == expected:
        return Verdict(
            True,
            f"✓ Correct: your key sorts {len(versions)} versions in semver order, {expected[0]} to {expected[-1]}.",
        )
    if isinstance(sample, (list, tuple)) and sample and all(isinstance(p, str) for p in sample):
        return Verdict(
            False,
            "✗ Your key splits the version but keeps the parts as strings, so '10' < '9'. "
            "Convert each part with int().",
        )
    if isinstance(sample, str) or got == sorted(versions):
        return Verdict(
            False,
            "✗ Your key compares strings character by character, so '1.10.0' sorts before "
            "'1.9.0'. Split on '.' and compare the parts as ints.",
        )
    return Verdict(
        False, f"✗ Your key gives {got}, not semver order {expected}. Compare (major, minor, patch) as a tuple of ints."
    )


check_version_key = _printer(grade_version_key)


def rule_releases_behind(*, minor_releases: int = 15) -> NumberRule:
    """Grade how many releases a string-sorting router's "latest" trails after 1.0.0 .. 1.N.0 (default N=15: 6).

    >>> grade_releases_behind(6).ok
    True
    >>> print(grade_releases_behind(0).message)
    ✗ 0 releases is what semver gives; a string sort compares '1.15.0' and '1.9.0' character by character.
    """
    t = release_timeline(minor_releases)
    expected = t.releases_behind
    stuck = t.versions.index(t.string_latest[-1])
    mistakes: list[Mistake] = [
        (0, f"is what semver gives; a string sort compares '{t.versions[-1]}' and '1.9.0' character by character."),
        (expected + 1, f"counts {t.string_latest[-1]} itself; count the releases published after it."),
        (stuck, f"is the minor number of {t.string_latest[-1]}, not the releases after it."),
        (len(t.versions) - 1, "counts every release after 1.0.0; the string sort is right up to 1.9.0."),
    ]
    mistakes = [(v, h) for v, h in mistakes if v != expected]
    return NumberRule(
        expected,
        unit="releases",
        what=f"the string sort's lag after {t.versions[-1]}",
        mistakes=mistakes,
        rel_tol=1e-9,
        integer=True,
        fallback=f"List 1.0.0 .. {t.versions[-1]}, take max() of the strings, and count the releases "
        "published after it.",
    )


grade_releases_behind = graded(rule_releases_behind)
check_releases_behind = _printer(grade_releases_behind)


def rule_stale_traffic_pct(*, minor_releases: int = 20, pinned_pct: int = 75) -> NumberRule:
    """Grade a prediction of the share of *all* traffic a string sort sends to a stale adapter after 1.N.0.

    The expected value is what chapter 3's release panel reads at that state (``stale_all_pct``); a prediction
    within half a percentage point of it is right (the panel shows whole percents).

    >>> grade_stale_traffic_pct(13).ok, grade_stale_traffic_pct(13.1).ok
    (True, True)
    >>> print(grade_stale_traffic_pct(52.4).message)
    ✗ 52.4 % is the stale share of unpinned traffic; only the 25% of requests that do not pin ever see "latest".
    """
    count("minor_releases", minor_releases, minimum=10)  # the string sort first goes wrong at 1.10.0
    state = release_panel().row(minor_releases=minor_releases, pinned_pct=pinned_pct)
    expected = state["stale_all_pct"]
    t = release_timeline(minor_releases)
    first_stale = t.first_stale
    assert first_stale is not None  # 1.10.0 is published, and a string sort puts 1.9.0 above it
    weeks, stale, unpinned = len(t.versions), t.stale_periods, 1 - pinned_pct / 100
    mistakes: list[Mistake] = [
        (
            state["stale_unpinned_pct"],
            f"is the stale share of unpinned traffic; only the {100 * unpinned:g}% of "
            'requests that do not pin ever see "latest".',
        ),
        (
            100 * stale / weeks * pinned_pct / 100,
            f"multiplies by the {pinned_pct}% that pin; pinned requests get "
            "the version they name, so multiply by the share that does not.",
        ),
        (
            100 * (stale - 1) / weeks * unpinned,
            f"leaves out the week of {t.versions[first_stale]}: the string sort is already wrong the day it ships.",
        ),
        (
            100 * stale / (weeks - 1) * unpinned,
            f"divides by the {weeks - 1} releases after {t.versions[0]}; "
            f"{t.versions[0]}'s week carries traffic too, {weeks} weeks in all.",
        ),
    ]
    tolerance = 0.5  # percentage points: the panel shows whole percents
    return NumberRule(
        expected,
        unit="%",
        what=f"the stale share of all traffic after {t.versions[-1]} with {pinned_pct}% pinned",
        mistakes=[(v, h) for v, h in mistakes if abs(v - expected) > tolerance],
        rel_tol=tolerance / expected,
        fallback=f"Count the weeks the string sort was wrong (from 1.10.0 to {t.versions[-1]}), divide by "
        f"all {weeks} weeks, and keep the {100 * unpinned:g}% of requests that do not pin.",
    )


grade_stale_traffic_pct = graded(rule_stale_traffic_pct)
check_stale_traffic_pct = _printer(grade_stale_traffic_pct)


def _string_key(version: str) -> str:
    return version


def _string_parts_key(version: str) -> tuple[str, ...]:
    return tuple(version.split("."))


#: This module's exercises, as the pages ask them (see :class:`labcore.checks.exercise.Exercise`).
EXERCISES: tuple[Exercise, ...] = (
    Exercise(
        label="3.1", kind="code", grade=grade_version_key, right=parse_version, wrong=(_string_key, _string_parts_key)
    ),
    Exercise(
        label="3.2",
        kind="predict",
        grade=grade_stale_traffic_pct,
        right=13.1,
        wrong=(52.4, 39.3, 11.9),
        kwargs={"minor_releases": 20, "pinned_pct": 75},
        gives_away=("13%", "13.1%", "13 %"),
        tool="release_panel",
    ),
)
