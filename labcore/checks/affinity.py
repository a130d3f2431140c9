"""Check the affinity exercises: tenants moved on a resize, the bounded-load cap and the bounded-load choice (chapter 10).

Exercise 10.1 resizes a fleet by more than one replica (the chapter shows one step, 4 to 5); 10.2 computes the cap;
10.3 asks for code: the learner writes the bounded-load rule, and the check runs it on probe states against
:func:`labcore.affinity.bounded_choice`, naming the mistake when the learner's rule is a known wrong one.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from ..affinity import bounded_capacity, bounded_choice
from .exercise import Exercise
from .rules import NumberRule, graded
from .verdict import Mistake, Verdict, _printer

__all__ = [
    "RESIZE",
    "CAP_CASE",
    "BOUNDED_PROBES",
    "grade_moved_fraction",
    "grade_bounded_capacity",
    "grade_bounded_choice",
    "check_moved_fraction",
    "check_bounded_capacity",
    "check_bounded_choice",
    "EXERCISES",
]

#: Exercise 10.1's resize: the fleet grows by two replicas at once.
RESIZE = (6, 8)
#: Exercise 10.2's fleet: requests in flight, replicas, and the bound's load factor c.
CAP_CASE = {"total_in_flight": 40, "replicas": 4, "load_factor": 1.25}


def rule_moved_fraction(*, before: int = RESIZE[0], after: int = RESIZE[1]) -> NumberRule:
    """Grade the share of tenants rendezvous hashing moves when ``before`` replicas become ``after`` (default 0.25).

    A tenant moves only when the replica it now scores highest on is a new one (growth) or a removed one
    (shrink): ``|after - before| / max(before, after)`` of them.

    >>> grade_moved_fraction(0.25).ok
    True
    >>> print(grade_moved_fraction(0.75).message)
    ✗ 0.75 of the tenants is what hash mod R moves; rendezvous only moves the tenants a new replica now wins.
    """
    if before == after or min(before, after) < 1:
        raise ValueError(f"a resize changes the replica count, got {before} -> {after}")
    expected = abs(after - before) / max(before, after)
    modulo = 1 - min(before, after) / math.lcm(before, after)  # a key stays only where both remainders agree
    mistakes: list[Mistake] = [
        (modulo, "is what hash mod R moves; rendezvous only moves the tenants a new replica now wins."),
        (
            abs(after - before) / min(before, after),
            f"divides by the {min(before, after)} replicas the fleet had; "
            f"each tenant is equally likely to score highest on any of the "
            f"{max(before, after)}.",
        ),
        (
            1 / max(before, after),
            f"is one new replica's share; {abs(after - before)} replicas change, each taking 1/{max(before, after)}.",
        ),
        (
            1 / (min(before, after) + 1),
            f"is 1/(R+1), the chapter's one-step answer; here the fleet changes by {abs(after - before)} replicas.",
        ),
        (100 * expected, "is a percentage; the question asks for a fraction between 0 and 1."),
    ]
    mistakes = [(v, h) for v, h in mistakes if not math.isclose(v, expected, rel_tol=0.05)]
    return NumberRule(
        expected,
        unit="of the tenants",
        what=f"the share moved from {before} to {after} replicas",
        mistakes=mistakes,
        fallback="A tenant moves only if a new replica now scores highest for it.",
        rel_tol=0.05,
    )


def rule_bounded_capacity(
    *,
    total_in_flight: int = int(CAP_CASE["total_in_flight"]),
    replicas: int = int(CAP_CASE["replicas"]),
    load_factor: float = CAP_CASE["load_factor"],
) -> NumberRule:
    """Grade the bounded-load cap: how many requests in flight one replica may hold (default 13).

    >>> grade_bounded_capacity(12.8125).message
    '✗ 12.8125 requests is not a whole number: a replica holds whole requests, so round up (ceil).'
    """
    exact = load_factor * (total_in_flight + 1) / replicas
    expected = bounded_capacity(total_in_flight, replicas, load_factor)
    mistakes: list[Mistake] = [
        (exact, "is not a whole number: a replica holds whole requests, so round up (ceil)."),
        (math.floor(exact), "rounds down; the cap rounds up so the bound never starves the fleet."),
        (total_in_flight / replicas, "is the mean load; the bound allows c times the mean."),
        (load_factor * total_in_flight / replicas, "forgets the arriving request: use L + 1."),
    ]
    mistakes = [(v, h) for v, h in mistakes if v != expected]
    return NumberRule(
        expected,
        unit="requests",
        what="the per-replica cap",
        mistakes=mistakes,
        fallback="cap = ceil(c × (L + 1) / R).",
        rel_tol=1e-9,
        integer=True,
        singular=True,
    )


#: Exercise 10.3's probe states, ``(ranking, loads, load_factor)``: together they tell the rule from each known
#: wrong one below (each gives a different list of answers on them).
BOUNDED_PROBES: tuple[tuple[tuple[int, ...], tuple[int, ...], float], ...] = (
    ((2, 0, 1, 3), (3, 3, 3, 3), 1.25),
    ((2, 0, 1, 3), (3, 4, 5, 0), 1.25),
    ((2, 0, 1, 3), (3, 4, 4, 0), 1.5),
    ((2, 0, 1), (3, 0, 4), 1.25),
    ((1, 0, 2), (3, 6, 4), 1.5),
)


def _first_under(ranking: Sequence[int], loads: Sequence[int], cap: int, *, strict: bool = False) -> int:
    return next((i for i in ranking if (loads[i] + 1 < cap if strict else loads[i] + 1 <= cap)), ranking[0])


def _cap(loads: Sequence[int], c: float) -> int:
    return math.ceil(c * (sum(loads) + 1) / len(loads))


#: Known wrong rules, each with the hint its answers earn (checked in this order).
_WRONG_RULES: tuple[tuple[Callable[..., int], str], ...] = (
    (
        lambda r, ld, c: r[0],
        "Your rule never leaves home: that is plain rendezvous, and the hot tenant's replica "
        "takes everything. Move on down the ranking when home is at the cap.",
    ),
    (
        lambda r, ld, c: ld.index(min(ld)),
        "Your rule picks the least-loaded replica: that scatters every tenant over "
        "every replica, and every cache must then hold every adapter. Start at the "
        "tenant's home and walk its ranking.",
    ),
    (
        lambda r, ld, c: r[0] if ld[r[0]] + 1 <= _cap(ld, c) else ld.index(min(ld)),
        "Your rule leaves home right but then picks the least-loaded replica; walk the tenant's own ranking, so the "
        "overflow always goes to the same second choice and keeps the hot adapter warm there.",
    ),
    (
        lambda r, ld, c: next(
            (i for i in [(r[0] + k) % len(ld) for k in range(len(ld))] if ld[i] + 1 <= _cap(ld, c)), r[0]
        ),
        "Your rule overflows to the next replica by index; walk the tenant's ranking instead (its second choice is "
        "ranking[1], not home + 1).",
    ),
    (
        lambda r, ld, c: _first_under(r, ld, math.ceil(c * sum(ld) / len(ld))),
        "Your cap forgets the arriving request: use L + 1 requests in flight, cap = ceil(c × (L + 1) / R).",
    ),
    (
        lambda r, ld, c: _first_under(r, ld, math.floor(c * (sum(ld) + 1) / len(ld))),
        "Your cap rounds down; round it up (ceil) so the bound never starves the fleet.",
    ),
    (
        lambda r, ld, c: _first_under(r, ld, math.ceil((sum(ld) + 1) / len(ld))),
        "Your cap leaves out the load factor c: a replica may hold c times the mean, not the mean.",
    ),
    (
        lambda r, ld, c: _first_under(r, ld, _cap(ld, c), strict=True),
        "Your rule keeps a replica's load + 1 strictly below the cap; a replica may reach the cap (load + 1 ≤ cap).",
    ),
)


def grade_bounded_choice(
    answer: Any, *, probes: Sequence[tuple[Sequence[int], Sequence[int], float]] = BOUNDED_PROBES
) -> Verdict:
    """Grade a learner's bounded-load rule ``answer(ranking, loads, load_factor) -> replica index`` on ``probes``.

    >>> def mine(ranking, loads, load_factor):
    ...     cap = math.ceil(load_factor * (sum(loads) + 1) / len(loads))
    ...     return next(i for i in ranking if loads[i] + 1 <= cap)
    >>> grade_bounded_choice(mine).ok
    True
    >>> print(grade_bounded_choice(lambda ranking, loads, load_factor: ranking[0]).message.split(":")[0])
    ✗ Your rule never leaves home
    """
    if answer is None or answer is Ellipsis:
        return Verdict(
            False,
            "✗ Not answered yet: replace None with a function of (ranking, loads, load_factor) "
            "that returns a replica index.",
        )
    if not callable(answer):
        return Verdict(False, f"✗ Expected a function of (ranking, loads, load_factor), got {answer!r}.")
    cases = [(list(r), list(ld), float(c)) for r, ld, c in probes]
    expected = [bounded_choice(r, ld, c) for r, ld, c in cases]
    got = []
    for r, ld, c in cases:
        try:
            value = answer(list(r), list(ld), c)
        except Exception as error:  # a learner's function may raise anything
            return Verdict(
                False,
                f"✗ Your function raised {type(error).__name__}: {error} on ranking={r}, loads={ld}, "
                f"load_factor={c:g}.",
            )
        if value is None:
            return Verdict(
                False,
                "✗ Not answered yet: your function returns None; return a replica index, one of the ranking's entries.",
            )
        if isinstance(value, bool) or not isinstance(value, int) or value not in r:
            return Verdict(
                False,
                f"✗ Your function returned {value!r} for ranking={r}; return a replica index, one "
                "of the ranking's entries (an int).",
            )
        got.append(value)
    if got == expected:
        return Verdict(
            True, f"✓ Correct: your rule sends all {len(cases)} probe requests where bounded-load rendezvous does."
        )
    for rule, hint in _WRONG_RULES:
        if got == [rule(r, ld, c) for r, ld, c in cases]:
            return Verdict(False, f"✗ {hint}")
    n = next(k for k, (g, e) in enumerate(zip(got, expected, strict=True)) if g != e)
    r, ld, c = cases[n]
    return Verdict(
        False,
        f"✗ For ranking={r}, loads={ld}, load_factor={c:g} your rule picks {got[n]}; the cap is "
        f"ceil({c:g} × ({sum(ld)} + 1) / {len(ld)}) = {_cap(ld, c)}, and the first replica in the "
        f"ranking with load + 1 ≤ {_cap(ld, c)} is {expected[n]}.",
    )


grade_moved_fraction = graded(rule_moved_fraction)
check_moved_fraction = _printer(grade_moved_fraction)
grade_bounded_capacity = graded(rule_bounded_capacity)
check_bounded_capacity = _printer(grade_bounded_capacity)
check_bounded_choice = _printer(grade_bounded_choice)


def _reference_choice(ranking: Sequence[int], loads: Sequence[int], load_factor: float) -> int:
    """A right answer to exercise 10.3, written as a learner would."""
    cap = math.ceil(load_factor * (sum(loads) + 1) / len(loads))
    return next(i for i in ranking if loads[i] + 1 <= cap)


#: This module's exercises, as the pages ask them (see :class:`labcore.checks.exercise.Exercise`).
EXERCISES: tuple[Exercise, ...] = (
    Exercise(
        "10.1",
        "compute",
        grade_moved_fraction,
        right=0.25,
        wrong=(0.75, 1 / 3),
        gives_away=("25%", "0.25", "25.5%", "0.255"),
    ),
    Exercise("10.2", "compute", grade_bounded_capacity, right=13, wrong=(10, 12.5), gives_away=("13 requests",)),
    Exercise(
        "10.3",
        "code",
        grade_bounded_choice,
        right=_reference_choice,
        wrong=(lambda r, ld, c: r[0], lambda r, ld, c: ld.index(min(ld))),
    ),
)
