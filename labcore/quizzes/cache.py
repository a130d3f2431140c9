"""The self-check quiz of chapter 4 (the cache): LRU against FIFO, the budget as a wall, what a miss costs.

>>> quiz = cache_quiz()
>>> quiz.grade(2, 2.0)[0], quiz.grade(2, 0.5)
(True, (False, '✗ 0.5 ms divides the bandwidth by the size: time is size (MiB) over bandwidth (MiB/ms).'))
"""

from __future__ import annotations

from ..links import LAB_HOST_TO_GPU
from ..sim import cache_runs
from ._quiz import Choice, MultipleChoice, Numeric, Quiz

__all__ = ["cache_quiz"]


def cache_quiz() -> Quiz:
    """Return chapter 4's quiz; every number in it comes from the chapter's seeded run and the transfer table."""
    runs = cache_runs(320, tenants=40, zipf_s=1.0)
    lru, fifo = runs["LRU"], runs["FIFO"]
    size_mb = 16.0
    load_ms = LAB_HOST_TO_GPU.transfer_ms(size_mb)
    mb_per_ms = LAB_HOST_TO_GPU.mb_per_ms
    return Quiz(
        "cache_quiz",
        "Chapter 4: the cache",
        (
            MultipleChoice(
                f"On the chapter's seeded day (40 tenants, Zipf s=1, a 320 MiB budget), FIFO evicted the most popular "
                f"adapter {fifo.hot_evictions} times. Why does LRU evict it {lru.hot_evictions} times?",
                (
                    Choice(
                        "LRU moves an adapter to the back of the line on every hit, so a hot adapter is never the "
                        "least recently used",
                        True,
                        "Right: every hit refreshes it, and the victim is always the adapter used longest ago.",
                    ),
                    Choice(
                        "LRU gives popular adapters a bigger share of the budget",
                        False,
                        "No: every adapter costs its own VRAM; LRU only changes which one leaves.",
                    ),
                    Choice(
                        "LRU evicts the largest adapter first",
                        False,
                        "No: all forty adapters are 16 MiB here; LRU orders by last use, not by size.",
                    ),
                ),
            ),
            MultipleChoice(
                "A test replays 10,000 random requests and asserts used_mb <= budget_mb once, at the end. "
                "Which bug can it miss?",
                (
                    Choice(
                        "Loading the new adapter before evicting, which crosses the budget for a moment",
                        True,
                        "Right: the end state looks fine, but on a GPU the moment over budget is an out-of-memory "
                        "crash. Check the invariant after every access.",
                    ),
                    Choice(
                        "Evicting in FIFO order instead of LRU order",
                        False,
                        "A budget check cannot see the order; the chapter's LRU-against-FIFO test does.",
                    ),
                    Choice(
                        "Counting a hit as a miss",
                        False,
                        "The counters are a separate check; the budget assertion says nothing about them.",
                    ),
                ),
            ),
            Numeric(
                f"A miss copies a {size_mb:g} MiB adapter from host RAM at the lab's {mb_per_ms:g} MiB per ms. "
                "How long does the copy take?",
                answer=load_ms,
                unit="ms",
                explanation=f"{size_mb:g} MiB / {mb_per_ms:g} MiB/ms = {load_ms:g} ms.",
                mistakes=(
                    (
                        mb_per_ms / size_mb,
                        "divides the bandwidth by the size: time is size (MiB) over bandwidth (MiB/ms).",
                    ),
                    (size_mb * mb_per_ms, "multiplies: time is size over bandwidth."),
                    (load_ms * 1000, "is in microseconds; give milliseconds."),
                ),
            ),
        ),
    )
