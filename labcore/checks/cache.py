"""Check the cache exercises: which adapters LRU evicts, what a miss costs to load, and a prediction of the hit rate
read off the thrash panel (chapter 4)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..adapter import Adapter
from ..cache import AdapterCache, FifoAdapterCache
from ..capacity import COURSE_ADAPTER_MB
from ..links import LAB_HOST_TO_GPU
from ..model_config import exact_adapter_mb
from ..panels.cache import lru_thrash_panel
from .exercise import Exercise
from .rules import ListRule, NumberRule, graded
from .verdict import Mistake, _printer

__all__ = [
    "EVICTION_EXERCISE",
    "grade_lru_evictions",
    "check_lru_evictions",
    "grade_miss_load_ms",
    "check_miss_load_ms",
    "grade_thrash_hit_pct",
    "check_thrash_hit_pct",
]


EVICTION_EXERCISE: tuple[str, ...] = ("a", "b", "a", "c", "b", "d")


def _evictions(cache_cls: Any, sequence: Sequence[str], slots: int) -> list[str]:
    cache = cache_cls(16.0 * slots, LAB_HOST_TO_GPU.mb_per_ms)
    for name in sequence:
        cache.access(Adapter(name, "1.0.0", "llama-3-8b", "sha256:1111", rank=16, vram_mb=16.0))
    return [key.name for key in cache.eviction_log]


def rule_lru_evictions(*, sequence: Sequence[str] = EVICTION_EXERCISE, slots: int = 2) -> ListRule:
    """Grade the adapters an LRU cache with room for ``slots`` evicts on ``sequence``, in order.

    >>> grade_lru_evictions(["b", "a", "c"]).ok
    True
    >>> print(grade_lru_evictions(["a", "b"]).message)
    ✗ ['a', 'b'] is what FIFO evicts: it ignores the hit on 'a'. LRU moves an adapter to the back of the line on every hit.
    """
    expected = _evictions(AdapterCache, sequence, slots)
    fifo = _evictions(FifoAdapterCache, sequence, slots)
    first_hit = next(n for i, n in enumerate(sequence) if n in sequence[:i])
    return ListRule(
        expected,
        correct=f"✓ Correct: LRU evicts {expected}, least recently used first.",
        known=(
            (
                fifo,
                f"✗ {fifo} is what FIFO evicts: it ignores the hit on {first_hit!r}. LRU moves an adapter to "
                "the back of the line on every hit.",
            ),
        ),
        reordered="✗ Right adapters, wrong order: list them in the order they were evicted.",
        miscounted=f"✗ {{got}} has {{count}} eviction(s); with room for {slots} there are {len(expected)}. Count a "
        "miss that finds the cache full as one eviction.",
        other=f"✗ {{got}} is not it. Walk the sequence {list(sequence)} keeping the {slots} adapters in order of last "
        "use; a miss evicts the one used longest ago.",
        unanswered="✗ Not answered yet: replace None with the list of evicted adapters, e.g. ['x', 'y'].",
        not_a_list="✗ Expected a list of adapter names such as ['x', 'y'], got {answer}.",
    )


grade_lru_evictions = graded(rule_lru_evictions)
check_lru_evictions = _printer(grade_lru_evictions)


def rule_miss_load_ms(*, vram_mb: float = 16.0, transfer_mb_per_ms: float = LAB_HOST_TO_GPU.mb_per_ms) -> NumberRule:
    """Grade the load time (ms) a cache miss pays for an adapter of ``vram_mb`` at ``transfer_mb_per_ms`` (2 ms).

    >>> print(grade_miss_load_ms(128).message)
    ✗ 128 ms multiplies size by bandwidth; time is size divided by bandwidth.
    """
    adapter = Adapter("a", "1.0.0", "llama-3-8b", "sha256:1111", rank=16, vram_mb=vram_mb)
    expected = AdapterCache(vram_mb, transfer_mb_per_ms).transfer_ms(adapter)
    mistakes: list[Mistake] = [
        (
            COURSE_ADAPTER_MB / transfer_mb_per_ms,
            f"is the load of the square formula's {COURSE_ADAPTER_MB:g} MiB adapter; this one is {vram_mb:g} MiB.",
        ),
        (vram_mb * transfer_mb_per_ms, "multiplies size by bandwidth; time is size divided by bandwidth."),
        (transfer_mb_per_ms / vram_mb, "divides bandwidth by size; time is size (MiB) over bandwidth (MiB/ms)."),
        (expected * 1000, "is in microseconds; the question asks for milliseconds."),
        (expected / 1000, "is in seconds; the question asks for milliseconds."),
    ]
    mistakes = [(v, h) for v, h in mistakes if v != expected]
    return NumberRule(
        expected,
        unit="ms",
        what="the load time of one miss",
        mistakes=mistakes,
        fallback="Load time = adapter size (MiB) / host-to-device bandwidth (MiB per ms).",
        rel_tol=0.01,
    )


grade_miss_load_ms = graded(rule_miss_load_ms)
check_miss_load_ms = _printer(grade_miss_load_ms)


def rule_thrash_hit_pct(*, budget_mb: int = 448, tenants: int = 40, zipf_s: float = 0.0) -> NumberRule:
    """Grade a prediction of LRU's hit rate (%) on chapter 4's thrash panel at one state (default: uniform, 448 MiB).

    The expected value is the panel's own (``lru_hit_pct``); a prediction within two percentage points is right.

    >>> grade_thrash_hit_pct(70).ok
    True
    >>> print(grade_thrash_hit_pct(30).message)
    ✗ 30 % is the miss rate; the question asks for the hit rate.
    """
    panel = lru_thrash_panel()
    expected = panel.row(budget_mb=budget_mb, tenants=tenants, zipf_s=zipf_s)["lru_hit_pct"]
    fits = min(int(budget_mb // ADAPTER_MB), tenants)
    mistakes: list[Mistake] = [
        (100 - expected, "is the miss rate; the question asks for the hit rate."),
        (
            100.0,
            f"would need the whole working set ({tenants * ADAPTER_MB:g} MiB); {budget_mb:g} MiB holds {fits} of "
            f"the {tenants} adapters.",
        ),
        (
            panel.row(budget_mb=320, tenants=tenants, zipf_s=zipf_s)["lru_hit_pct"],
            f"is the hit rate at 320 MiB; at {budget_mb:g} MiB more adapters fit.",
        ),
        (
            panel.row(budget_mb=budget_mb, tenants=tenants, zipf_s=1.0)["lru_hit_pct"],
            f"is what skewed traffic (s = 1) gets at {budget_mb:g} MiB; with s = {zipf_s:g} no adapter is cheap to drop.",
        ),
    ]
    tolerance = 2.0  # percentage points: a prediction, not a computation
    return NumberRule(
        expected,
        unit="%",
        what=f"LRU's hit rate at {budget_mb:g} MiB",
        rel_tol=tolerance / expected,
        mistakes=[(v, h) for v, h in mistakes if abs(v - expected) > tolerance],
        fallback=f"With uniform popularity every adapter is equally likely: the cache holds {fits} of "
        f"{tenants}, so about that share of requests hit.",
    )


grade_thrash_hit_pct = graded(rule_thrash_hit_pct)
check_thrash_hit_pct = _printer(grade_thrash_hit_pct)

#: The adapters of the chapter's seeded day (the square formula's 16 MiB) and the exact size of the same adapter.
ADAPTER_MB = COURSE_ADAPTER_MB
EXACT_ADAPTER_MB = exact_adapter_mb("llama-3-8b", 16, ("q_proj", "v_proj"))


#: This module's exercises, as the pages ask them (see :class:`labcore.checks.exercise.Exercise`).
EXERCISES: tuple[Exercise, ...] = (
    Exercise(
        label="4.1",
        kind="compute",
        grade=grade_lru_evictions,
        right=["b", "a", "c"],
        wrong=(["a", "b"], ["a", "b", "c"]),
        gives_away=("['b', 'a', 'c']", "evicted: b, a, c", "evicts b, a, c"),
    ),
    Exercise(
        label="4.2",
        kind="compute",
        grade=grade_miss_load_ms,
        right=EXACT_ADAPTER_MB / LAB_HOST_TO_GPU.mb_per_ms,
        wrong=(
            COURSE_ADAPTER_MB / LAB_HOST_TO_GPU.mb_per_ms,
            EXACT_ADAPTER_MB * LAB_HOST_TO_GPU.mb_per_ms,
            LAB_HOST_TO_GPU.mb_per_ms / EXACT_ADAPTER_MB,
        ),
        kwargs={"vram_mb": EXACT_ADAPTER_MB},
        gives_away=(f"{EXACT_ADAPTER_MB / LAB_HOST_TO_GPU.mb_per_ms:g} ms",),
    ),
    Exercise(
        label="4.3",
        kind="predict",
        grade=grade_thrash_hit_pct,
        right=70.0,
        wrong=(30.0, 100.0, 49.9),
        kwargs={"budget_mb": 448, "tenants": 40, "zipf_s": 0.0},
        gives_away=("LRU 70.0%", "LRU 70.1%", "70.05"),
        tool="lru_thrash_panel",
    ),
)
