"""Check the batching exercises: the break-even utilisation, expected distinct adapters, and a prediction of what a
second distinct adapter costs (chapter 12).

Exercise 12.3 is graded against the chapter's fit (:func:`labcore.batching.fit_sgmv`), the panel's own states.
"""

from __future__ import annotations

from ..batching import FLAT_OVERHEAD, PUNICA_FIG9_BATCH, break_even_utilisation, expected_distinct, fit_sgmv
from .exercise import Exercise
from .rules import NumberRule, graded
from .verdict import Mistake, _printer

__all__ = [
    "grade_break_even_pct",
    "grade_expected_distinct",
    "check_break_even_pct",
    "check_expected_distinct",
    "TWO_ADAPTERS",
    "grade_batch_overhead_pct",
    "check_batch_overhead_pct",
    "EXERCISES",
]

#: Exercise 12.3's batch: this many distinct adapters of this rank (a state of the chapter's panel).
TWO_ADAPTERS = {"distinct": 2, "rank": 64}


def rule_break_even_pct(*, overhead: float = 0.10) -> NumberRule:
    """Grade the utilisation (%) above which a merged GPU beats dynamic serving at ``overhead``.

    >>> grade_break_even_pct(90).message
    '✗ 90 % is 1 − overhead; dynamic serving needs (1 + overhead) GPU-time per unit of work, so use 1 / (1 + overhead).'
    """
    expected = 100 * break_even_utilisation(overhead)
    mistakes = [
        (
            100 * (1 - overhead),
            "is 1 − overhead; dynamic serving needs (1 + overhead) GPU-time per unit of work, "
            "so use 1 / (1 + overhead).",
        ),
        (expected / 100, "is a fraction; the question asks for a percentage (multiply by 100)."),
        (100 * (1 + overhead), "is the dynamic cost factor; the break-even is its inverse."),
    ]
    return NumberRule(
        expected,
        unit="%",
        what="the break-even utilisation",
        mistakes=mistakes,
        fallback="Merged wins when utilisation × (1 + overhead) ≥ 1.",
        rel_tol=0.002,
    )


def rule_expected_distinct(*, batch_size: int = 4, tenants: int = 2) -> NumberRule:
    """Grade the expected distinct adapters in a batch of ``batch_size`` over ``tenants`` equally popular ones.

    >>> grade_expected_distinct(1.875).ok
    True
    """
    expected = expected_distinct(batch_size, [1.0 / tenants] * tenants)
    mistakes = [
        (
            float(min(batch_size, tenants)),
            "assumes every tenant always appears; each one is missing with "
            f"probability (1 − 1/{tenants})^{batch_size}.",
        ),
        (float(batch_size), "counts requests, not distinct adapters."),
        (
            tenants * (1 / tenants) ** batch_size,
            "is the chance of an adapter filling the whole batch; use 1 − (1 − p)^B per adapter.",
        ),
    ]
    return NumberRule(
        expected,
        unit="adapters",
        what="the expected distinct adapters",
        mistakes=mistakes,
        fallback="E[distinct] = Σ 1 − (1 − p_i)^B.",
        rel_tol=0.005,
        singular=True,
    )


def rule_batch_overhead_pct(
    *, distinct: int = TWO_ADAPTERS["distinct"], rank: int = TWO_ADAPTERS["rank"]
) -> NumberRule:
    """Grade a prediction of the fitted overhead (%) of a decode batch with ``distinct`` adapters of ``rank``.

    The answer is the chapter's fit, as its panel shows it (default: two rank-64 adapters, about 5.14%); a
    prediction within 2% of it (about a tenth of a point) counts.

    >>> grade_batch_overhead_pct(5.1).ok
    True
    >>> print(grade_batch_overhead_pct(10).message)
    ✗ 10 % doubles the overhead for a second adapter; the fixed cost of the kernel is paid once per batch, and one more adapter adds only its own A and B.
    """
    model = fit_sgmv()
    expected = 100 * model.overhead_fraction(distinct, rank)
    flat = 100 * FLAT_OVERHEAD
    mistakes: list[Mistake] = [
        (
            flat,
            f"is one adapter's batch, the flat {flat:g}%; the second adds its own A and B to read, "
            f"{model.extra_us_per_adapter(rank):.1f} µs on the {model.single_us:g} µs of one.",
        ),
        (
            distinct * flat,
            "doubles the overhead for a second adapter; the fixed cost of the kernel is paid once per "
            "batch, and one more adapter adds only its own A and B.",
        ),
        (
            100 * model.overhead_fraction(PUNICA_FIG9_BATCH, rank),
            f"is {PUNICA_FIG9_BATCH} distinct adapters: the "
            "batch's size is nearly free; what costs is how "
            "many different adapters it holds.",
        ),
        (expected / 100, "is a fraction; the question asks for a percentage (multiply by 100)."),
    ]
    return NumberRule(
        expected,
        unit="%",
        what=f"the overhead of {distinct} distinct rank-{rank} adapters",
        mistakes=mistakes,
        rel_tol=0.02,
        fallback=f"overhead = {flat:g}% × kernel_us({distinct}, {rank}) / kernel_us(1, {rank}); set the "
        f"panel to {distinct} distinct adapters at r={rank} to read it.",
    )


grade_break_even_pct = graded(rule_break_even_pct)
check_break_even_pct = _printer(grade_break_even_pct)
grade_expected_distinct = graded(rule_expected_distinct)
check_expected_distinct = _printer(grade_expected_distinct)
grade_batch_overhead_pct = graded(rule_batch_overhead_pct)
check_batch_overhead_pct = _printer(grade_batch_overhead_pct)


#: This module's exercises, as the pages ask them (see :class:`labcore.checks.exercise.Exercise`).
EXERCISES: tuple[Exercise, ...] = (
    Exercise(
        "12.1", "compute", grade_break_even_pct, right=100 / 1.1, wrong=(90.0, 0.909), gives_away=("90.9%", "90.9 %")
    ),
    Exercise(
        "12.2", "compute", grade_expected_distinct, right=1.875, wrong=(2.0, 4.0), gives_away=("1.875", "1.88 distinct")
    ),
    Exercise(
        "12.3",
        "predict",
        grade_batch_overhead_pct,
        right=5.14,
        wrong=(5.0, 10.0),
        gives_away=("overhead 5.1%", "5.14%"),
        tool="batch_panel",
    ),
)
