"""The self-check quiz of chapter 7 (do the lab): the ``LAB_MODULE`` switch, the learner's skeleton, the order
of work, and why the budget test checks after every step.

The suite itself (``tests/contract``) and the skeleton (``lab/skeleton``) are not part of the
installed labcore, so the questions about them quote no numbers; the one number, what a cache that
evicts too late holds, comes from a real :class:`labcore.cache.AdapterCache` filled to its budget.

>>> quiz = contract_quiz()
>>> quiz.grade(2, 80.0)[0], quiz.grade(2, 64.0)[0]
(True, False)
"""

from __future__ import annotations

from ..adapter import tenant_adapters
from ..cache import AdapterCache
from ..links import LAB_HOST_TO_GPU
from ._quiz import Choice, MultipleChoice, Numeric, Quiz

__all__ = ["contract_quiz"]

#: Question 3's cache: a budget of four 16 MiB adapters.
BUDGET_MB = 64.0


def contract_quiz() -> Quiz:
    """Return chapter 7's quiz: what a red skeleton means, which module first, what a late eviction holds."""
    cache = AdapterCache(BUDGET_MB, LAB_HOST_TO_GPU.mb_per_ms)
    size_mb = tenant_adapters(1)[0].vram_mb
    *resident, newcomer = tenant_adapters(int(BUDGET_MB // size_mb) + 1)
    for adapter in resident:
        cache.access(adapter)
    if cache.free_mb != 0 or cache.eviction_log:
        raise ValueError(f"question 3 needs a cache filled exactly to its budget, got {cache!r}")
    peak_mb = cache.used_mb + newcomer.vram_mb  # loaded before anything is evicted
    return Quiz(
        "contract_quiz",
        "Chapter 7: do the lab",
        (
            MultipleChoice(
                "LAB_MODULE=lab.skeleton pytest tests/contract fails every test of the suite. What does that tell you?",
                (
                    Choice(
                        "The switch works: the suite ran against the skeleton, whose functions raise NotImplementedError "
                        "with a TODO(lab) hint",
                        True,
                        "Right: a red skeleton is where you start; the same tests pass against the reference "
                        "(LAB_MODULE=labcore, the default).",
                    ),
                    Choice(
                        "The suite is broken and must be fixed before you start",
                        False,
                        "No: against the reference (LAB_MODULE unset, labcore) every test passes; the skeleton fails them "
                        "because it has signatures and docstrings but no bodies.",
                    ),
                    Choice(
                        "You should now edit lab/skeleton until it turns green",
                        False,
                        "No: lab/skeleton is generated from labcore and never edited; copy it to lab/mine and run "
                        "LAB_MODULE=lab.mine pytest tests/contract -x.",
                    ),
                ),
            ),
            MultipleChoice(
                "You have just copied the skeleton to lab/mine. Why write versions.py before registry.py and router.py?",
                (
                    Choice(
                        "The registry and the router import parse_version from it, so their tests cannot pass before it "
                        "works",
                        True,
                        "Right: work bottom-up (versions, sizing, adapter, registry, cache, router, fleet) and run only "
                        "the tests of the module in hand with -k.",
                    ),
                    Choice(
                        "pytest runs the suite's files in alphabetical order",
                        False,
                        "File order decides nothing here; dependencies do: resolving an unpinned name in the registry "
                        "sorts versions with parse_version.",
                    ),
                    Choice(
                        "The router's tests do not depend on the other modules",
                        False,
                        "They do: route() resolves names in the registry and loads adapters through the cache, so a router "
                        "test fails while either is missing.",
                    ),
                ),
            ),
            Numeric(
                f"test_cache_never_exceeds_budget checks the budget after every access. A buggy cache, full at "
                f"{BUDGET_MB:g} MiB of {size_mb:g} MiB adapters, loads one more at once and evicts only at the next "
                "access. How many MiB does the check after that step see?",
                answer=peak_mb,
                unit="MiB",
                explanation=f"{cache.used_mb:g} MiB resident + {size_mb:g} MiB loaded before anything leaves = "
                f"{peak_mb:g} MiB, over the {BUDGET_MB:g} MiB budget: on a GPU an out-of-memory crash, even "
                "if the next step is back under. A check only at the end would miss it.",
                mistakes=(
                    (
                        BUDGET_MB,
                        "is the budget, all a check at the end may see once the next access has evicted; right "
                        "after this step the cache holds one adapter more.",
                    ),
                    (
                        cache.used_mb - size_mb,
                        "is the moment between evicting and loading in a correct cache; this one loads first.",
                    ),
                    (size_mb, "is the new adapter alone; the resident ones are still there."),
                ),
            ),
        ),
    )
