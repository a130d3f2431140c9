"""The self-check quiz of chapter 9 (the spill tier): what a host tier changes, fixed costs, where it stops helping.

Every load time comes from the course's table of transfer assumptions (:mod:`labcore.links`), the
tier sizes from :data:`labcore.sim.SPILL`, the adapter size from the simulator's workload.

>>> quiz = tiers_quiz()
>>> quiz.grade(1, 74.9)[0], quiz.grade(1, 0.749)[0]
(True, False)
"""

from __future__ import annotations

from ..links import OBJECT_STORE, PCIE4_X16
from ..sim import SPILL, SPILL_TENANTS, Workload
from ._quiz import Choice, MultipleChoice, Numeric, Quiz

__all__ = ["tiers_quiz"]

#: The chapter's highlighted run: this many tenants churn through the GPU pool.
CHURN_TENANTS = 64


def tiers_quiz() -> Quiz:
    """Return chapter 9's quiz: a host tier prices misses (not hit rates), fixed costs dominate, the cliff moves."""
    adapter_mb = Workload(tenants=SPILL.gpu_adapters, requests=SPILL.requests).adapter_mb
    copy_ms = PCIE4_X16.transfer_ms(adapter_mb)
    fetch_ms = OBJECT_STORE.transfer_ms(adapter_mb)
    cold_ms = fetch_ms + copy_ms
    fixed_pct = 100 * OBJECT_STORE.overhead_ms / fetch_ms
    if CHURN_TENANTS not in SPILL_TENANTS:
        raise ValueError(f"question 3 quotes the chapter's run at {CHURN_TENANTS} tenants; runs: {SPILL_TENANTS}")
    return Quiz(
        "tiers_quiz",
        "Chapter 9: the spill tier",
        (
            MultipleChoice(
                "Chapter 9 puts a host-RAM tier under an unchanged GPU pool. What does the host tier change?",
                (
                    Choice(
                        "What a GPU miss costs",
                        True,
                        f"Right: an adapter the GPU evicted is spilled to host RAM, so when it returns it pays one PCIe "
                        f"copy ({copy_ms:.2f} ms for {adapter_mb:g} MiB) instead of a fetch from storage and the copy "
                        f"({cold_ms:.2f} ms).",
                    ),
                    Choice(
                        "The GPU hit rate, because spilled adapters come back as hits",
                        False,
                        "No: a spilled adapter that comes back is still a GPU miss; the GPU tier evicts exactly as it "
                        "would alone, so its hit rate does not move.",
                    ),
                    Choice(
                        "How many adapters the GPU holds",
                        False,
                        "No: the GPU budget is unchanged; the host tier is extra room in host RAM, one PCIe copy away.",
                    ),
                ),
            ),
            Numeric(
                f"A {adapter_mb:g} MiB adapter is fetched from the object store ({OBJECT_STORE.overhead_ms:g} ms to the "
                f"first byte, then {OBJECT_STORE.gb_per_s:g} GB/s). What percentage of the fetch time is that fixed "
                "first-byte cost? Give one decimal.",
                answer=fixed_pct,
                unit="%",
                explanation=f"{OBJECT_STORE.overhead_ms:g} ms of {fetch_ms:.2f} ms = {fixed_pct:.1f}%: for adapters this "
                "small the fixed costs, not the bandwidth, decide what a miss costs.",
                mistakes=(
                    (fixed_pct / 100, "is a fraction; the question asks for a percentage (multiply by 100)."),
                    (
                        100 - fixed_pct,
                        "is the share of the bytes over the bandwidth; the question asks for the fixed cost's share.",
                    ),
                    (
                        OBJECT_STORE.overhead_ms,
                        f"is the fixed cost in ms; divide it by the whole fetch, {fetch_ms:.2f} ms.",
                    ),
                ),
            ),
            MultipleChoice(
                f"Chapter 9's host tier (room for {SPILL.host_adapters} adapters under a GPU pool of "
                f"{SPILL.gpu_adapters}) keeps the p99 near one PCIe copy at {CHURN_TENANTS} tenants. What brings the "
                "p99 back to a cold load as tenants grow?",
                (
                    Choice(
                        "A working set larger than the host tier too",
                        True,
                        "Right: misses start coming from storage again, and once they pass 1% of requests the p99 is a "
                        "cold load. The host tier moves the cliff; it does not remove it.",
                    ),
                    Choice(
                        "PCIe bandwidth running out as more adapters are copied",
                        False,
                        f"No: a {adapter_mb:g} MiB copy takes {copy_ms:.2f} ms and each is charged on its own; where the "
                        "adapter comes from, not the link, sets the p99.",
                    ),
                    Choice(
                        "The host tier evicting the most popular adapters first",
                        False,
                        "No: the host tier is LRU like the GPU tier; it drops the adapter needed longest ago, and only a "
                        "working set larger than its room brings that one back often.",
                    ),
                ),
            ),
        ),
    )
