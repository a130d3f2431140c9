"""Check the registry exercises: a semver sort key and how far string order lags behind (chapter 3)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..sim import release_timeline
from ..versions import parse_version
from .exercise import Exercise
from .verdict import Mistake, Verdict, _grade, _printer

__all__ = [
    "VERSION_KEY_PROBE",
    "grade_version_key",
    "check_version_key",
    "grade_releases_behind",
    "check_releases_behind",
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
        return Verdict(False, "✗ Not answered yet: replace None with a function that takes '1.10.0' and returns a "
                              "sort key.")
    if not callable(answer):
        return Verdict(False, f"✗ Expected a function (a sort key), got {answer!r}.")
    expected = sorted(versions, key=parse_version)
    try:
        sample = answer(versions[0])
        if sample is None:
            return Verdict(False, "✗ Not answered yet: your key returns None; make it return something that "
                                  "sorts, e.g. a tuple.")
        got = sorted(versions, key=answer)
    except Exception as error:  # a learner's key may raise anything
        return Verdict(False, f"✗ Your key raised {type(error).__name__}: {error}. It must accept strings like "
                              "'1.10.0'.")
    if got == expected:
        return Verdict(True, f"✓ Correct: your key sorts {len(versions)} versions in semver order, "
                             f"{expected[0]} to {expected[-1]}.")
    if isinstance(sample, (list, tuple)) and sample and all(isinstance(p, str) for p in sample):
        return Verdict(False, "✗ Your key splits the version but keeps the parts as strings, so '10' < '9'. "
                              "Convert each part with int().")
    if isinstance(sample, str) or got == sorted(versions):
        return Verdict(False, "✗ Your key compares strings character by character, so '1.10.0' sorts before "
                              "'1.9.0'. Split on '.' and compare the parts as ints.")
    return Verdict(False, f"✗ Your key gives {got}, not semver order {expected}. Compare (major, minor, patch) as "
                          "a tuple of ints.")


check_version_key = _printer(grade_version_key)


def grade_releases_behind(answer: Any, *, minor_releases: int = 15) -> Verdict:
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
    return _grade(answer, expected, unit="releases", what=f"the string sort's lag after {t.versions[-1]}",
                  mistakes=mistakes, rel_tol=1e-9, integer=True,
                  fallback=f"List 1.0.0 .. {t.versions[-1]}, take max() of the strings, and count the releases "
                           "published after it.")


check_releases_behind = _printer(grade_releases_behind)


#: This module's exercises, as the pages ask them (see :class:`labcore.checks.exercise.Exercise`).
EXERCISES: tuple[Exercise, ...] = ()
