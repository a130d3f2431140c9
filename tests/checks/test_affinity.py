"""Tests for labcore.checks.affinity: tenants moved on a resize, the bounded-load cap and the bounded-load rule: the
right answer, and a hint for each known mistake."""

from __future__ import annotations

import math

import pytest

from labcore.affinity import bounded_capacity, bounded_choice, moved_fraction, replica_names
from labcore.checks import grade_bounded_capacity, grade_moved_fraction
from labcore.checks.affinity import BOUNDED_PROBES, RESIZE, grade_bounded_choice

from .graders import test_checker_accepts_the_answer, test_checker_names_the_known_mistake  # noqa: F401 - over RIGHT, WRONG

KEYS = [f"tenant-{i:04d}" for i in range(4000)]


def bounded(ranking, loads, load_factor):
    cap = math.ceil(load_factor * (sum(loads) + 1) / len(loads))
    return next(i for i in ranking if loads[i] + 1 <= cap)


RIGHT = [  # (grader, the answer, keyword arguments)
    (grade_moved_fraction, moved_fraction(KEYS, replica_names(RESIZE[0]), replica_names(RESIZE[1])), {}),
    (grade_moved_fraction, moved_fraction(KEYS, replica_names(4), replica_names(5)), {"before": 4, "after": 5}),
    (grade_moved_fraction, moved_fraction(KEYS, replica_names(5), replica_names(4)), {"before": 5, "after": 4}),
    (grade_bounded_capacity, bounded_capacity(40, 4, 1.25), {}),
    (grade_bounded_choice, bounded, {}),
    (grade_bounded_choice, bounded_choice, {}),
]

WRONG = [  # (grader, a known-wrong answer, a phrase its hint must contain)
    (grade_moved_fraction, 0.75, "hash mod R"),
    (grade_moved_fraction, 1 / 3, "divides by the 6 replicas"),
    (grade_moved_fraction, 0.125, "one new replica's share"),
    (grade_moved_fraction, 1 / 7, "1/(R+1)"),
    (grade_moved_fraction, 25, "percentage"),
    (grade_moved_fraction, None, "Not answered yet"),
    (grade_bounded_capacity, 10, "mean load"),
    (grade_bounded_capacity, 12.5, "L + 1"),
    (grade_bounded_choice, None, "Not answered yet"),
    (grade_bounded_choice, lambda r, ld, c: None, "returns None"),
    (grade_bounded_choice, lambda r, ld, c: r[0], "never leaves home"),
    (grade_bounded_choice, lambda r, ld, c: ld.index(min(ld)), "least-loaded"),
    (grade_bounded_choice, lambda r, ld, c: f"replica-{r[0]}", "an int"),
    (grade_bounded_choice, lambda r, ld, c: 1 / 0, "ZeroDivisionError"),
    (grade_bounded_choice, lambda r, ld, c: r[-1], "the first replica in the ranking"),
]


@pytest.mark.parametrize(
    "mistake", ["L + 1", "rounds down", "load factor c", "strictly below", "by index", "then picks the least-loaded"]
)
def test_each_wrong_rule_is_told_apart_on_the_probes(mistake):
    """Each known wrong rule earns its own hint: the probes tell every rule from every other."""
    rules = {
        "L + 1": lambda r, ld, c: next((i for i in r if ld[i] + 1 <= math.ceil(c * sum(ld) / len(ld))), r[0]),
        "rounds down": lambda r, ld, c: next(
            (i for i in r if ld[i] + 1 <= math.floor(c * (sum(ld) + 1) / len(ld))), r[0]
        ),
        "load factor c": lambda r, ld, c: next((i for i in r if ld[i] + 1 <= math.ceil((sum(ld) + 1) / len(ld))), r[0]),
        "strictly below": lambda r, ld, c: next(
            (i for i in r if ld[i] + 1 < math.ceil(c * (sum(ld) + 1) / len(ld))), r[0]
        ),
        "by index": lambda r, ld, c: next(
            (
                (r[0] + k) % len(ld)
                for k in range(len(ld))
                if ld[(r[0] + k) % len(ld)] + 1 <= math.ceil(c * (sum(ld) + 1) / len(ld))
            ),
            r[0],
        ),
        "then picks the least-loaded": lambda r, ld, c: (
            r[0] if ld[r[0]] + 1 <= math.ceil(c * (sum(ld) + 1) / len(ld)) else ld.index(min(ld))
        ),
    }
    verdict = grade_bounded_choice(rules[mistake])
    assert not verdict.ok and mistake in verdict.message, verdict.message
    assert len(BOUNDED_PROBES) <= 6  # a few probe states, not a random search
