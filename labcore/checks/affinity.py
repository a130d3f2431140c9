"""Check the affinity exercises: adapters moved on a resize and the bounded-load capacity (chapter 10)."""

from __future__ import annotations

import math

from ..affinity import bounded_capacity
from .exercise import Exercise
from .verdict import Verdict, _grade, _printer

__all__ = [
    "grade_moved_fraction",
    "grade_bounded_capacity",
    "check_moved_fraction",
    "check_bounded_capacity",
]


def grade_moved_fraction(answer: object, *, before: int = 4) -> Verdict:
    """Grade the share of adapters rendezvous hashing moves when ``before`` replicas become ``before + 1``.

    >>> grade_moved_fraction(0.8).message
    '✗ 0.8 fraction is what hash mod R moves; rendezvous only moves the keys the new replica now wins.'
    """
    expected = 1 / (before + 1)
    mistakes = [
        (before / (before + 1), "is what hash mod R moves; rendezvous only moves the keys the new replica now wins."),
        (1 / before, f"is 1/R; after the change there are {before + 1} replicas, and each new key-owner is "
                     f"equally likely to be any of them."),
        (100 / (before + 1), "is a percentage; the question asks for a fraction between 0 and 1."),
    ]
    return _grade(answer, expected, unit="fraction", what=f"the share moved from {before} to {before + 1} replicas",
                  mistakes=mistakes, fallback="A key moves only if the new replica scores highest for it.",
                  rel_tol=0.05)


def grade_bounded_capacity(answer: object, *, total_in_flight: int = 40, replicas: int = 4,
                           load_factor: float = 1.25) -> Verdict:
    """Grade the bounded-load cap: how many requests in flight one replica may hold (default 13).

    >>> grade_bounded_capacity(12.8125).message
    '✗ 12.8125 requests is not a whole number: a replica holds whole requests, so round up (ceil).'
    """
    exact = load_factor * (total_in_flight + 1) / replicas
    expected = bounded_capacity(total_in_flight, replicas, load_factor)
    mistakes = [
        (exact, "is not a whole number: a replica holds whole requests, so round up (ceil)."),
        (math.floor(exact), "rounds down; the cap rounds up so the bound never starves the fleet."),
        (total_in_flight / replicas, "is the mean load; the bound allows c times the mean."),
        (load_factor * total_in_flight / replicas, "forgets the arriving request: use L + 1."),
    ]
    mistakes = [(v, h) for v, h in mistakes if v != expected]
    return _grade(answer, expected, unit="requests", what="the per-replica cap", mistakes=mistakes,
                  fallback="cap = ceil(c × (L + 1) / R).", rel_tol=1e-9, integer=True)


check_moved_fraction = _printer(grade_moved_fraction)
check_bounded_capacity = _printer(grade_bounded_capacity)


#: This module's exercises, as the pages ask them (see :class:`labcore.checks.exercise.Exercise`).
EXERCISES: tuple[Exercise, ...] = ()
