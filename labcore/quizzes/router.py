"""The self-check quiz of chapter 5 (the router): cache keys of pinned and unpinned refs, merging a flagship, the p99.

The hits and misses come from a real :class:`labcore.router.MultiLoRARouter` built as the chapter
builds it (40 ms base, the course's 5% overhead :data:`labcore.capacity.DYNAMIC_OVERHEAD`, the lab's
host-to-GPU link); the flagship's GPUs from
:func:`labcore.fleet.fleet_plan`; the incident from :func:`labcore.sim.onboarding_timeline`
(:data:`labcore.sim.ONBOARDING`, the course's one customer #41 run).

>>> quiz = router_quiz()
>>> quiz.grade(0, "The first and the third")[0], quiz.grade(1, 21)[0], quiz.grade(1, 20)[0]
(True, True, False)
"""

from __future__ import annotations

from ..adapter import Adapter, tenant_adapters
from ..cache import AdapterCache
from ..capacity import DYNAMIC_OVERHEAD
from ..fleet import GPU_QPS, fleet_plan
from ..links import LAB_HOST_TO_GPU
from ..registry import AdapterRegistry
from ..router import MultiLoRARouter
from ..sim import onboarding_timeline
from ._quiz import Choice, MultipleChoice, Numeric, Quiz

__all__ = ["router_quiz"]

#: The chapter's parameters: the router, the three requests of question 1, the flagship of question 2.
BASE, DIGEST = "llama-3-8b", "sha256:llama-3-8b-demo"
BASE_LATENCY_MS, OVERHEAD = 40.0, DYNAMIC_OVERHEAD  # the course's one overhead rule
REFS = ("llama-3-8b:support-bot@2.1.0", "llama-3-8b:support-bot", "llama-3-8b:support-bot@2.0.0")
FLAGSHIP_QPS = 400.0

_MISS_PATTERNS = {(0, 2): "The first and the third", (0,): "Only the first", (0, 1, 2): "All three"}


def router_quiz() -> Quiz:
    """Return chapter 5's quiz: which requests miss, how many GPUs a dynamic flagship takes, why p99 doubled."""
    registry = AdapterRegistry()
    registry.register_base(BASE, DIGEST)
    for version in ("2.0.0", "2.1.0"):
        registry.register(Adapter("support-bot", version, BASE, DIGEST, rank=16, vram_mb=16.0))
    router = MultiLoRARouter(
        registry,
        AdapterCache(1024, LAB_HOST_TO_GPU.mb_per_ms),
        BASE,
        base_latency_ms=BASE_LATENCY_MS,
        dynamic_overhead=OVERHEAD,
    )
    first, unpinned, older = decisions = [router.route(ref) for ref in REFS]
    misses = tuple(i for i, d in enumerate(decisions) if not d.cache_hit)
    if misses not in _MISS_PATTERNS:
        raise ValueError(f"question 1 has no choice for misses at {misses}")
    feedback = {
        "The first and the third": f"Right: the unpinned name resolves to the latest by semver, {unpinned.adapter}, "
        f"the key the first request just loaded; {older.adapter} is another adapter with "
        "its own key.",
        "Only the first": f"No: {older.adapter} is a different adapter from {first.adapter}, with its own cache key, "
        "so it must be loaded too.",
        "All three": f"No: the unpinned name resolves to {unpinned.adapter}, which the first request just loaded.",
    }
    flagship = fleet_plan(tenant_adapters(1), tenant_qps=FLAGSHIP_QPS, gpu_qps=GPU_QPS, dynamic_overhead=OVERHEAD)
    before, after = onboarding_timeline().phases
    miss_pct = 100 * (1 - after.hit_rate)
    return Quiz(
        "router_quiz",
        "Chapter 5: the router",
        (
            MultipleChoice(
                "The registry holds support-bot 2.0.0 and 2.1.0 and the cache starts empty. Three requests follow: "
                f"{', then '.join(REFS)}. Which of them miss the cache?",
                tuple(Choice(text, misses == pattern, feedback[text]) for pattern, text in _MISS_PATTERNS.items()),
            ),
            Numeric(
                f"A flagship tenant sends {FLAGSHIP_QPS:g} requests/s; one GPU sustains {GPU_QPS:g} on the base, and "
                f"dynamic serving costs {100 * OVERHEAD:g}% overhead. How many GPUs does it need if it is served "
                "dynamically, on shared GPUs?",
                answer=flagship.multi_lora_gpus,
                unit="GPUs",
                rel_tol=0.001,
                explanation=f"ceil({FLAGSHIP_QPS:g} × {1 + OVERHEAD:g} / {GPU_QPS:g}) = {flagship.multi_lora_gpus} GPUs, "
                f"against {flagship.dedicated_gpus} merged: the flagship fills GPUs on its own, so merge it.",
                mistakes=(
                    (
                        flagship.dedicated_gpus,
                        f"is the merged fleet; dynamic serving pays {100 * OVERHEAD:g}% more GPU "
                        "time on every request, so it needs more.",
                    ),
                    (
                        FLAGSHIP_QPS / (GPU_QPS * (1 + OVERHEAD)),
                        "divides by the overhead: it adds GPU time, so multiply "
                        "the load by (1 + overhead), then round up.",
                    ),
                    (flagship.memory_bound_gpus, "is what the adapter's memory needs; here the traffic decides."),
                ),
            ),
            MultipleChoice(
                f"After customer #41 joined, the hit rate fell only from {100 * before.hit_rate:.1f}% to "
                f"{100 * after.hit_rate:.1f}%, yet p99 rose from {before.p99_ms:.0f} ms to {after.p99_ms:.0f} ms. Why?",
                (
                    Choice(
                        f"More than 1% of requests now miss ({miss_pct:.1f}%), so the request at rank 99% is a cold load",
                        True,
                        f"Right: p99 is the latency that 1% of requests exceed; once misses pass 1% it is the cold-load "
                        f"latency, {after.p99_ms:.1f} ms, however small the drop in hit rate.",
                    ),
                    Choice(
                        "Every request got a little slower as the cache filled up",
                        False,
                        f"No: a hit costs what it did; p50 stayed at {after.p50_ms:.0f} ms.",
                    ),
                    Choice(
                        "Customer #41's adapter is bigger and slower to load than the others",
                        False,
                        "No: every tenant's adapter is the same size and every miss costs the same cold load; what "
                        "changed is how many requests miss.",
                    ),
                ),
            ),
        ),
    )
