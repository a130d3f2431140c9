"""Check the canary exercises: requests before a verdict and a sticky share (chapter 11)."""

from __future__ import annotations

from .exercise import Exercise
from .verdict import Verdict, _grade, _printer

__all__ = [
    "grade_requests_before_judging",
    "grade_sticky_share",
    "check_requests_before_judging",
    "check_sticky_share",
]


def grade_requests_before_judging(answer: object, *, min_requests: int = 200, fraction: float = 0.05) -> Verdict:
    """Grade how many tenant requests it takes, on average, before the candidate has ``min_requests``.

    >>> grade_requests_before_judging(200).message
    '✗ 200 requests is what the candidate needs; only 5% of the traffic reaches it, so divide by 0.05.'
    """
    expected = min_requests / fraction
    mistakes = [
        (min_requests, f"is what the candidate needs; only {fraction:.0%} of the traffic reaches it, so divide by "
                       f"{fraction:g}."),
        (min_requests * fraction, f"multiplies by the fraction; the candidate sees {fraction:.0%} of the traffic, "
                                  "so the total must be larger, not smaller."),
        (min_requests / (1 - fraction), "divides by the stable share; the candidate's share is the canary fraction."),
    ]
    return _grade(answer, expected, unit="requests", what="the tenant requests needed", mistakes=mistakes,
                  fallback="total requests × canary fraction = candidate requests.", rel_tol=0.01)


def grade_sticky_share(answer: object, *, before: float = 0.05, after: float = 0.25) -> Verdict:
    """Grade which share of the keys on the candidate at ``before`` are still on it at ``after`` (all: 1.0).

    >>> grade_sticky_share(0.25).message
    '✗ 0.25 fraction is what a fresh random draw would give; the split compares a fixed hash with the fraction.'
    """
    mistakes = [
        (after, "is what a fresh random draw would give; the split compares a fixed hash with the fraction."),
        (before / after, "is the old canary's share of the new one; the question asks how many old keys stay."),
        (100.0, "is a percentage; the question asks for a fraction between 0 and 1."),
    ]
    return _grade(answer, 1.0, unit="fraction", what="the share that stays on the candidate", mistakes=mistakes,
                  fallback="A key is on the candidate when hash(key) < fraction; raising the fraction keeps it below.",
                  rel_tol=1e-9)


check_requests_before_judging = _printer(grade_requests_before_judging)
check_sticky_share = _printer(grade_sticky_share)


#: This module's exercises, as the pages ask them (see :class:`labcore.checks.exercise.Exercise`).
EXERCISES: tuple[Exercise, ...] = ()
