"""Check the cache exercises: which adapters LRU evicts and what a miss costs to load (chapter 4)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..adapter import Adapter, split_key
from ..cache import AdapterCache, FifoAdapterCache
from ..links import LAB_HOST_TO_GPU
from .exercise import Exercise
from .verdict import Mistake, Verdict, _grade, _printer

__all__ = [
    "EVICTION_EXERCISE",
    "grade_lru_evictions",
    "check_lru_evictions",
    "grade_miss_load_ms",
    "check_miss_load_ms",
]


EVICTION_EXERCISE: tuple[str, ...] = ("a", "b", "a", "c", "b", "d")


def _evictions(cache_cls: Any, sequence: Sequence[str], slots: int) -> list[str]:
    cache = cache_cls(16.0 * slots, LAB_HOST_TO_GPU.mb_per_ms)
    for name in sequence:
        cache.access(Adapter(name, "1.0.0", "llama-3-8b", "sha256:1111", rank=16, vram_mb=16.0))
    return [split_key(key)[0] for key in cache.eviction_log]


def grade_lru_evictions(answer: Any, *, sequence: Sequence[str] = EVICTION_EXERCISE, slots: int = 2) -> Verdict:
    """Grade the adapters an LRU cache with room for ``slots`` evicts on ``sequence``, in order.

    >>> grade_lru_evictions(["b", "a", "c"]).ok
    True
    >>> print(grade_lru_evictions(["a", "b"]).message)
    ✗ ['a', 'b'] is what FIFO evicts: it ignores the hit on 'a'. LRU moves an adapter to the back of the line on every hit.
    """
    if answer is None or answer is Ellipsis:
        return Verdict(False, "✗ Not answered yet: replace None with the list of evicted adapters, e.g. ['x', 'y'].")
    if isinstance(answer, str) or not isinstance(answer, (list, tuple)):
        return Verdict(False, f"✗ Expected a list of adapter names such as ['x', 'y'], got {answer!r}.")
    got = [split_key(getattr(a, "name", str(a)))[0] for a in answer]
    expected = _evictions(AdapterCache, sequence, slots)
    if got == expected:
        return Verdict(True, f"✓ Correct: LRU evicts {expected}, least recently used first.")
    fifo = _evictions(FifoAdapterCache, sequence, slots)
    if got == fifo:
        first_hit = next(n for i, n in enumerate(sequence) if n in sequence[:i])
        return Verdict(False, f"✗ {got} is what FIFO evicts: it ignores the hit on {first_hit!r}. LRU moves an "
                              "adapter to the back of the line on every hit.")
    if sorted(got) == sorted(expected):
        return Verdict(False, "✗ Right adapters, wrong order: list them in the order they were evicted.")
    if len(got) != len(expected):
        return Verdict(False, f"✗ {got} has {len(got)} eviction(s); with room for {slots} there are {len(expected)}. "
                              "Count a miss that finds the cache full as one eviction.")
    return Verdict(False, f"✗ {got} is not it. Walk the sequence {list(sequence)} keeping the {slots} adapters in "
                          "order of last use; a miss evicts the one used longest ago.")


check_lru_evictions = _printer(grade_lru_evictions)


def grade_miss_load_ms(answer: Any, *, vram_mb: float = 16.0,
                       transfer_mb_per_ms: float = LAB_HOST_TO_GPU.mb_per_ms) -> Verdict:
    """Grade the load time (ms) a cache miss pays for an adapter of ``vram_mb`` at ``transfer_mb_per_ms`` (2 ms).

    >>> print(grade_miss_load_ms(128).message)
    ✗ 128 ms multiplies size by bandwidth; time is size divided by bandwidth.
    """
    adapter = Adapter("a", "1.0.0", "llama-3-8b", "sha256:1111", rank=16, vram_mb=vram_mb)
    expected = AdapterCache(vram_mb, transfer_mb_per_ms).transfer_ms(adapter)
    mistakes: list[Mistake] = [
        (vram_mb * transfer_mb_per_ms, "multiplies size by bandwidth; time is size divided by bandwidth."),
        (transfer_mb_per_ms / vram_mb, "divides bandwidth by size; time is size (MiB) over bandwidth (MiB/ms)."),
        (expected * 1000, "is in microseconds; the question asks for milliseconds."),
        (expected / 1000, "is in seconds; the question asks for milliseconds."),
    ]
    return _grade(answer, expected, unit="ms", what="the load time of one miss", mistakes=mistakes,
                  fallback="Load time = adapter size (MiB) / host-to-device bandwidth (MiB per ms).", rel_tol=0.01)


check_miss_load_ms = _printer(grade_miss_load_ms)


#: This module's exercises, as the pages ask them (see :class:`labcore.checks.exercise.Exercise`).
EXERCISES: tuple[Exercise, ...] = ()
