"""Check the batching exercises: the break-even utilisation and expected distinct adapters (chapter 12)."""

from __future__ import annotations

from ..batching import break_even_utilisation, expected_distinct
from .exercise import Exercise
from .verdict import Verdict, _grade, _printer

__all__ = [
    "grade_break_even_pct",
    "grade_expected_distinct",
    "check_break_even_pct",
    "check_expected_distinct",
]


def grade_break_even_pct(answer: object, *, overhead: float = 0.10) -> Verdict:
    """Grade the utilisation (%) above which a merged GPU beats dynamic serving at ``overhead``.

    >>> grade_break_even_pct(90).message
    '✗ 90 % is 1 − overhead; dynamic serving needs (1 + overhead) GPU-time per unit of work, so use 1 / (1 + overhead).'
    """
    expected = 100 * break_even_utilisation(overhead)
    mistakes = [
        (100 * (1 - overhead), "is 1 − overhead; dynamic serving needs (1 + overhead) GPU-time per unit of work, "
                               "so use 1 / (1 + overhead)."),
        (expected / 100, "is a fraction; the question asks for a percentage (multiply by 100)."),
        (100 * (1 + overhead), "is the dynamic cost factor; the break-even is its inverse."),
    ]
    return _grade(answer, expected, unit="%", what="the break-even utilisation", mistakes=mistakes,
                  fallback="Merged wins when utilisation × (1 + overhead) ≥ 1.", rel_tol=0.002)


def grade_expected_distinct(answer: object, *, batch_size: int = 4, tenants: int = 2) -> Verdict:
    """Grade the expected distinct adapters in a batch of ``batch_size`` over ``tenants`` equally popular ones.

    >>> grade_expected_distinct(1.875).ok
    True
    """
    expected = expected_distinct(batch_size, [1.0 / tenants] * tenants)
    mistakes = [
        (float(min(batch_size, tenants)), "assumes every tenant always appears; each one is missing with "
                                          f"probability (1 − 1/{tenants})^{batch_size}."),
        (float(batch_size), "counts requests, not distinct adapters."),
        (tenants * (1 / tenants) ** batch_size, "is the chance of an adapter filling the whole batch; use "
                                                "1 − (1 − p)^B per adapter."),
    ]
    return _grade(answer, expected, unit="adapters", what="the expected distinct adapters", mistakes=mistakes,
                  fallback="E[distinct] = Σ 1 − (1 − p_i)^B.", rel_tol=0.005)


check_break_even_pct = _printer(grade_break_even_pct)
check_expected_distinct = _printer(grade_expected_distinct)


#: This module's exercises, as the pages ask them (see :class:`labcore.checks.exercise.Exercise`).
EXERCISES: tuple[Exercise, ...] = ()
