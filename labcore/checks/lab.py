"""Check the exercises of chapter 7, the lab: what the contract suite and the learner's code say.

The exercises run the lab's own tests and panels on two mistakes learners make, the two the course's lab tests write
into a ``lab/mine`` (``tests/lab_samples.py``): a cache whose hit does not refresh the entry (it evicts in FIFO
order) and a router that charges a dynamic request no LoRA overhead. :func:`mistaken_lab` builds each as an
implementation of the contract (labcore with that one piece swapped), which the chapters' "on your code" panels
accept like a learner's ``lab/mine``; :func:`lru_case` runs the core of the suite's LRU test on any implementation.

>>> lru_case(implementation("reference")), lru_case(mistaken_lab("cache-without-refresh"))
(('cold@1.0.0',), ('hot@1.0.0',))
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import labcore

from .._validate import choice
from ..cache import AdapterCache, FifoPolicy
from ..implementation import Implementation, implementation
from ..links import LAB_HOST_TO_GPU
from ..panels.router import your_router_state
from ..router import MultiLoRARouter
from .exercise import Exercise
from .rules import ChoiceRule, NumberRule, graded
from .verdict import Mistake, Verdict, _printer

__all__ = [
    "MISTAKES",
    "mistaken_lab",
    "lru_case",
    "grade_lru_case_evicts",
    "check_lru_case_evicts",
    "grade_lru_test",
    "check_lru_test",
    "grade_mistake_miss_ms",
    "check_mistake_miss_ms",
    "EXERCISES",
]


class _CacheWithoutRefresh(AdapterCache):
    """labcore's cache with the learner's slip: a hit leaves the entry where it was, so it evicts in FIFO order."""

    policy_class = FifoPolicy


class _RouterWithoutOverhead(MultiLoRARouter):
    """labcore's router with the learner's slip: a dynamic request is charged the base latency alone."""

    def __init__(
        self, registry: Any, cache: Any, base_model: str, *, base_latency_ms: float, dynamic_overhead: float
    ) -> None:
        super().__init__(registry, cache, base_model, base_latency_ms=base_latency_ms, dynamic_overhead=0.0)


#: The mistakes, by name: what the learner's module does wrong, and the piece of the contract it replaces.
MISTAKES: dict[str, tuple[str, str, type]] = {
    "cache-without-refresh": ("a cache.py whose hit does not refresh the entry", "AdapterCache", _CacheWithoutRefresh),
    "router-without-overhead": ("a router.py that charges no LoRA overhead", "MultiLoRARouter", _RouterWithoutOverhead),
}


def mistaken_lab(name: str) -> Implementation:
    """Return an implementation of the lab that is labcore with one mistake (a name of :data:`MISTAKES`).

    >>> lab = mistaken_lab("router-without-overhead")
    >>> lab.is_reference, lab.get("AdapterCache") is AdapterCache
    (False, True)
    """
    choice("mistake", name, tuple(MISTAKES))
    _, attribute, replacement = MISTAKES[name]
    module = types.ModuleType(f"labcore_with_{name.replace('-', '_')}", MISTAKES[name][0])
    module.__dict__.update({n: getattr(labcore, n) for n in labcore.__all__})
    setattr(module, attribute, replacement)
    return Implementation(name, module)


def lru_case(lab: Implementation) -> tuple[str, ...]:
    """Run the core of the suite's ``test_cache_evicts_least_recently_used_not_oldest_inserted`` on ``lab``.

    Room for two 16 MiB adapters: ``hot`` is loaded first and then used a thousand times, ``cold`` is loaded once;
    return what loading ``new`` evicts, as the page shows the keys. The test passes only on ``('cold@1.0.0',)``.
    """
    return tuple(str(key) for key in _lru_case_keys(lab))


def _lru_case_keys(lab: Implementation) -> tuple[Any, ...]:
    """The keys :func:`lru_case` evicts, as ``lab`` carries them (its own ``AdapterKey`` values)."""
    cache = lab.get("AdapterCache")(32.0, LAB_HOST_TO_GPU.mb_per_ms)
    hot, cold, new = (
        lab.get("Adapter")(n, "1.0.0", "llama-3-8b", "sha256:9f2c4e", 16, 16.0, False) for n in ("hot", "cold", "new")
    )
    cache.access(hot)
    cache.access(cold)
    for _ in range(1000):
        cache.access(hot)
    return tuple(cache.access(new).evicted)


def rule_lru_case_evicts(*, mistake: str = "cache-without-refresh") -> ChoiceRule:
    """Grade a prediction of which adapter :func:`lru_case` evicts on the lab with ``mistake``.

    >>> grade_lru_case_evicts("hot").ok, grade_lru_case_evicts("hot@1.0.0").ok
    (True, True)
    >>> print(grade_lru_case_evicts("cold").message)
    ✗ 'cold' is what the reference evicts, and what the test asserts; this cache never moves hot to the back of the line, however often it hits, so hot is still the oldest entry.
    """
    evicted = _lru_case_keys(mistaken_lab(mistake))[0].name
    reference = _lru_case_keys(implementation("reference"))[0].name
    messages = {
        "new": "✗ 'new' is the adapter being loaded; to make room for it one of the two resident adapters must leave.",
        "nothing": "✗ The cache has room for two 16 MiB adapters (32 MiB) and holds two, so loading a third must "
        "evict one.",
        reference: f"✗ {reference!r} is what the reference evicts, and what the test asserts; this cache never "
        f"moves {evicted} to the back of the line, however often it hits, so {evicted} is still the "
        "oldest entry.",
        evicted: f"✓ Correct: it evicts {evicted!r}, the adapter serving the traffic, so the test's assertion that "
        f"{reference!r} leaves fails.",
    }
    words = {"new": ("new",), "nothing": ("", "none", "nothing"), reference: (reference,), evicted: (evicted,)}
    return ChoiceRule(
        evicted,
        options=("hot", "cold", "new"),
        words=words,
        messages=messages,
        cut="@",
        unanswered="✗ Not answered yet: replace None with the name of the adapter you expect to be "
        "evicted: 'hot', 'cold' or 'new'.",
        not_text="✗ Expected an adapter's name as a string ('hot', 'cold' or 'new'), got {answer}.",
        unknown="✗ {answer} is not one of the test's adapters: hot, cold or new.",
    )


grade_lru_case_evicts = graded(rule_lru_case_evicts)
check_lru_case_evicts = _printer(grade_lru_case_evicts)


def _run(test: Callable[[type], Any], cache_class: type) -> BaseException | None:
    try:
        test(cache_class)
    except Exception as error:  # a learner's test may raise anything; an AssertionError is a failing test
        return error
    return None


def grade_lru_test(answer: Any) -> Verdict:
    """Grade a learner's test ``answer(AdapterCache)``: it must pass on labcore's LRU cache and fail on the mistake.

    >>> def test(cache_class):
    ...     from labcore import tenant_adapters
    ...     a, b, c = tenant_adapters(3)
    ...     cache = cache_class(32, 8.0)
    ...     cache.access(a); cache.access(b); cache.access(a)
    ...     assert cache.access(c).evicted == (b.key,)
    >>> grade_lru_test(test).ok
    True
    >>> print(grade_lru_test(lambda cache_class: None).message)
    ✗ Your test passes on the cache that does not refresh on a hit too, so it would not catch the mistake: use an adapter again before the cache must evict, and assert which one leaves.
    """
    if answer is None or answer is Ellipsis:
        return Verdict(
            False,
            "✗ Not answered yet: replace None with a function that takes a cache class and asserts what LRU must do.",
        )
    if not callable(answer):
        return Verdict(False, f"✗ Expected a function that takes a cache class, got {answer!r}.")
    on_reference = _run(answer, AdapterCache)
    if isinstance(on_reference, NotImplementedError):
        return Verdict(False, "✗ Not answered yet: replace the raise with your accesses and your assert.")
    if on_reference is not None:
        if isinstance(on_reference, AssertionError):
            return Verdict(
                False,
                "✗ Your test fails on labcore's own LRU cache, so it asserts something LRU does not "
                "do: after a hit, the adapter used longest ago is the one evicted.",
            )
        return Verdict(
            False,
            f"✗ Your test raised {type(on_reference).__name__} on labcore's cache: "
            f"{on_reference}. Build the cache as cache_class(budget_mb, transfer_mb_per_ms).",
        )
    on_mistake = _run(answer, MISTAKES["cache-without-refresh"][2])
    if on_mistake is None:
        return Verdict(
            False,
            "✗ Your test passes on the cache that does not refresh on a hit too, so it would not "
            "catch the mistake: use an adapter again before the cache must evict, and assert which "
            "one leaves.",
        )
    if not isinstance(on_mistake, AssertionError):
        return Verdict(
            False,
            f"✗ Your test stops the mistaken cache with {type(on_mistake).__name__}, not with a "
            "failed assert: a test should say what is wrong with an assert.",
        )
    return Verdict(
        True,
        "✓ Correct: your test passes on the LRU cache and fails on the one that does not refresh on "
        "a hit, as the suite's test_cache_evicts_least_recently_used_not_oldest_inserted does.",
    )


check_lru_test = _printer(grade_lru_test)


def rule_mistake_miss_ms(
    *, overhead_pct: int = 10, adapter_vram_mb: float = 64.0, mistake: str = "router-without-overhead"
) -> NumberRule:
    """Grade a prediction of the "yours" dynamic miss on chapter 5's "on your code" panel for the lab with ``mistake``.

    >>> grade_mistake_miss_ms(48).ok
    True
    >>> print(grade_mistake_miss_ms(52).message)
    ✗ 52 ms is the reference's miss, 40 ms × 1.1 + the load; this router charges no overhead at all.
    """
    state = your_router_state(mistaken_lab(mistake), overhead_pct, adapter_vram_mb)
    expected = state["yours_miss_ms"]
    load_ms = state["miss_ms"] - state["hit_ms"]
    base_ms = state["yours_hit_ms"]
    mistakes: list[Mistake] = [
        (
            state["miss_ms"],
            f"is the reference's miss, {base_ms:g} ms × {1 + overhead_pct / 100:g} + the load; this "
            "router charges no overhead at all.",
        ),
        (
            state["hit_ms"],
            f"is the reference's hit; this router charges no overhead, and a miss still copies "
            f"{adapter_vram_mb:g} MiB.",
        ),
        (
            base_ms,
            f"is its hit, the base alone; a miss still copies {adapter_vram_mb:g} MiB ({load_ms:g} ms at "
            f"{LAB_HOST_TO_GPU.mb_per_ms:g} MiB/ms).",
        ),
    ]
    return NumberRule(
        expected,
        unit="ms",
        what="that router's dynamic miss",
        mistakes=mistakes,
        rel_tol=0.001,
        fallback="Without the overhead a miss costs the base latency plus the load: size / bandwidth.",
    )


grade_mistake_miss_ms = graded(rule_mistake_miss_ms)
check_mistake_miss_ms = _printer(grade_mistake_miss_ms)


def _test_lru(cache_class: type) -> None:
    a, b, c = labcore.tenant_adapters(3)
    cache = cache_class(32, LAB_HOST_TO_GPU.mb_per_ms)
    cache.access(a), cache.access(b), cache.access(a)
    assert cache.access(c).evicted == (b.key,)


def _test_no_eviction(cache_class: type) -> None:
    a, b, _ = labcore.tenant_adapters(3)
    cache = cache_class(32, LAB_HOST_TO_GPU.mb_per_ms)
    assert not cache.access(a).hit and cache.access(a).hit and not cache.access(b).hit


def _test_fifo(cache_class: type) -> None:
    a, b, c = labcore.tenant_adapters(3)
    cache = cache_class(32, LAB_HOST_TO_GPU.mb_per_ms)
    cache.access(a), cache.access(b), cache.access(a)
    assert cache.access(c).evicted == (a.key,)


#: This module's exercises, as the pages ask them (see :class:`labcore.checks.exercise.Exercise`).
EXERCISES: tuple[Exercise, ...] = (
    Exercise(
        label="7.1",
        kind="predict",
        grade=grade_lru_case_evicts,
        right="hot",
        wrong=("cold", "new"),
        kwargs={"mistake": "cache-without-refresh"},
        gives_away=("('hot@1.0.0',)", "evicts hot"),
        tool="lru_case",
    ),
    Exercise(label="7.2", kind="code", grade=grade_lru_test, right=_test_lru, wrong=(_test_no_eviction, _test_fifo)),
    Exercise(
        label="7.3",
        kind="predict",
        grade=grade_mistake_miss_ms,
        right=48.0,
        wrong=(52.0, 44.0, 40.0),
        kwargs={"overhead_pct": 10, "adapter_vram_mb": 64.0, "mistake": "router-without-overhead"},
        gives_away=("miss 48.0", "48 ms", "48.0 ms"),
        tool="your_router_panel",
    ),
)
