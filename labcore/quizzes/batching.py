"""The self-check quiz of chapter 12 (honest batch overhead): what a batched LoRA kernel charges for, where the
merged-vs-dynamic break-even moves, and which number is assumed rather than cited.

Kernel times come from :func:`labcore.batching.fit_sgmv`, the chapter's fit to Punica's Figure 9; the
break-even from :func:`labcore.batching.break_even_utilisation`.

>>> quiz = batching_quiz()
>>> quiz.grade(1, 87.8)[0], quiz.grade(1, 95.2)[0]
(True, False)
"""

from __future__ import annotations

from ..batching import (
    FLAT_OVERHEAD,
    PUNICA_FIG8_SINGLE_US,
    PUNICA_FIG9_BATCH,
    PUNICA_FIG9_DISTINCT_US,
    PUNICA_FIG9_SINGLE_US,
    break_even_utilisation,
    fit_sgmv,
)
from ._quiz import Choice, MultipleChoice, Numeric, Quiz

__all__ = ["batching_quiz"]

#: The batches of question 1 ((requests, distinct adapters, rank) each) and the fleet of question 2: inputs.
BATCH = PUNICA_FIG9_BATCH  # the figure's batch of 64
SMALL_DISTINCT, RANK, BIG_RANK = 8, 16, 64


def batching_quiz() -> Quiz:
    """Return chapter 12's quiz: distinct adapters cost, not requests; the honest break-even; the assumption."""
    model = fit_sgmv()
    many_us = model.kernel_us(BATCH, RANK)  # 64 requests, 64 distinct rank-16 adapters
    one_big_us = model.kernel_us(1, BIG_RANK)  # 64 requests, all for one rank-64 adapter
    few_us = model.kernel_us(SMALL_DISTINCT, RANK)  # 8 requests, 8 distinct rank-16 adapters
    if not many_us > max(one_big_us, few_us):
        raise ValueError(f"question 1 needs the 64-distinct batch to cost most, got {many_us}, {one_big_us}, {few_us}")
    overhead = model.overhead_fraction(BATCH, BIG_RANK)
    honest_pct = 100 * break_even_utilisation(overhead)
    flat_pct = 100 * break_even_utilisation(FLAT_OVERHEAD)
    lo, hi = min(PUNICA_FIG9_DISTINCT_US.values()), max(PUNICA_FIG9_DISTINCT_US.values())
    ranks = sorted(PUNICA_FIG9_DISTINCT_US)
    return Quiz(
        "batching_quiz",
        "Chapter 12: honest batch overhead",
        (
            MultipleChoice(
                "Which of these decode batches costs the SGMV kernel the most, by the chapter's fit?",
                (
                    Choice(
                        f"{BATCH} requests over {BATCH} distinct rank-{RANK} adapters",
                        True,
                        f"Right: about {many_us:.0f} µs. The kernel reads each distinct adapter's A and B once, so the "
                        "bill grows with the distinct adapters (and their rank), not with the requests.",
                    ),
                    Choice(
                        f"{BATCH} requests, all for one rank-{BIG_RANK} adapter",
                        False,
                        f"No: about {one_big_us:.0f} µs, the price of a single request: one adapter is read once however "
                        "many requests share it.",
                    ),
                    Choice(
                        f"{SMALL_DISTINCT} requests over {SMALL_DISTINCT} distinct rank-{RANK} adapters",
                        False,
                        f"No: about {few_us:.0f} µs; only {SMALL_DISTINCT - 1} extra adapters to read, against "
                        f"{BATCH - 1} in the {BATCH}-distinct batch.",
                    ),
                ),
            ),
            Numeric(
                f"A fleet's decode batches hold {BATCH} distinct rank-{BIG_RANK} adapters, which the chapter's fit prices "
                f"at {100 * overhead:.1f}% overhead. Above what utilisation of its own GPU is a merged replica for one "
                "tenant no more expensive than dynamic serving? Give one decimal.",
                answer=honest_pct,
                unit="%",
                rel_tol=0.002,
                explanation=f"Merged wins when u × (1 + overhead) ≥ 1: u ≥ 1 / (1 + {overhead:.4f}) = {honest_pct:.1f}%, "
                f"{flat_pct - honest_pct:.1f} points below the flat-{FLAT_OVERHEAD:.0%} answer.",
                mistakes=(
                    (
                        flat_pct,
                        f"is the flat {FLAT_OVERHEAD:.0%} answer; batches this diverse cost "
                        f"{100 * overhead:.1f}% overhead.",
                    ),
                    (
                        100 * (1 - overhead),
                        "is 1 − overhead; dynamic serving needs (1 + overhead) GPU-time per unit of "
                        "work, so use 1 / (1 + overhead).",
                    ),
                    (honest_pct / 100, "is a fraction; the question asks for a percentage (multiply by 100)."),
                    (100 * (1 + overhead), "is the dynamic cost factor; the break-even is its inverse."),
                ),
            ),
            MultipleChoice(
                "Which number in chapter 12 is assumed by the course rather than read from Punica?",
                (
                    Choice(
                        f"The {FLAT_OVERHEAD:.0%} cost of a batch whose requests all share one adapter",
                        True,
                        "Right: the kernel microseconds say nothing about a whole decode step, so the course anchors the "
                        f"one-adapter batch at {FLAT_OVERHEAD:.0%} and scales from there; measure your own.",
                    ),
                    Choice(
                        f"About {PUNICA_FIG9_SINGLE_US:.0f} µs for a single request",
                        False,
                        f"Read from Punica's Figure 9 (its Figure 8 reads about {PUNICA_FIG8_SINGLE_US:.0f} µs for the "
                        "same case: a shape, not a constant).",
                    ),
                    Choice(
                        f"{lo:.0f} to {hi:.0f} µs for {BATCH} distinct adapters, rank {ranks[0]} to {ranks[-1]}",
                        False,
                        "Read from Punica's Figure 9, its Distinct workload; the chapter fits a straight line in rank to "
                        "them.",
                    ),
                ),
            ),
        ),
    )
