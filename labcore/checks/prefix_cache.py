"""Check the prefix-cache exercise: which requests a name-keyed cache serves stale after a same-name replacement (chapter 15)."""

from __future__ import annotations

from collections.abc import Sequence

from ..adapter import Adapter
from ..prefix_cache import KEY_BY_IDENTITY, KEY_BY_NAME, PrefixCache
from .exercise import Exercise
from .rules import NumberRule, graded
from .verdict import Mistake, _printer

__all__ = ["STALE_EXERCISE", "stale_hits_of", "grade_stale_hits", "check_stale_hits"]

#: (adapter version, prompt prefix) per request; version 1.1.0 replaces 1.0.0 under the same name after two requests.
STALE_EXERCISE: tuple[tuple[str, str], ...] = (
    ("1.0.0", "p1"),
    ("1.0.0", "p2"),
    ("1.1.0", "p1"),
    ("1.1.0", "p1"),
    ("1.1.0", "p3"),
)


def stale_hits_of(sequence: Sequence[tuple[str, str]], key_policy: str) -> int:
    """Return how many requests of ``sequence`` (version, prefix) a cache with ``key_policy`` serves stale.

    >>> stale_hits_of(STALE_EXERCISE, KEY_BY_NAME), stale_hits_of(STALE_EXERCISE, KEY_BY_IDENTITY)
    (2, 0)
    """
    cache = PrefixCache(16, key_policy=key_policy)
    for version, prefix in sequence:
        cache.lookup(Adapter("support-bot", version, "llama-3-8b", "sha256:1111", rank=16, vram_mb=16.0), prefix)
    return cache.stale_hits


def rule_stale_hits(*, sequence: Sequence[tuple[str, str]] = STALE_EXERCISE) -> NumberRule:
    """Grade how many requests of ``sequence`` a cache keyed by adapter name serves stale prefixes (default 2).

    >>> print(grade_stale_hits(0).message)
    ✗ 0 requests is what the registry's key gives; keyed by name, 1.0.0 and 1.1.0 share every key.
    """
    expected = stale_hits_of(sequence, KEY_BY_NAME)
    after = [p for v, p in sequence if v != sequence[0][0]]
    mistakes: list[Mistake] = [
        (
            stale_hits_of(sequence, KEY_BY_IDENTITY),
            "is what the registry's key gives; keyed by name, 1.0.0 and 1.1.0 share every key.",
        ),
        (len(after), "counts a prefix the old version never cached: that request misses and is computed under 1.1.0."),
        (
            1,
            "stops at the first stale hit; a hit leaves the old entry in place, so the next request for it is stale too.",
        ),
    ]
    return NumberRule(
        expected,
        unit="requests",
        what="the number served stale prefixes",
        mistakes=mistakes,
        fallback="Keyed by name, a request after the swap is stale exactly when its prefix was cached before the swap.",
        integer=True,
    )


grade_stale_hits = graded(rule_stale_hits)
check_stale_hits = _printer(grade_stale_hits)


#: This module's exercises, as the pages ask them (see :class:`labcore.checks.exercise.Exercise`).
EXERCISES: tuple[Exercise, ...] = (
    Exercise(
        "15.3", "compute", grade_stale_hits, right=2, wrong=(0, 3), gives_away=("2 requests", "2 stale", "two stale")
    ),
)
