"""Check the capstone's exercise (chapter 16): a serving design that the memory split, the fleet plan and the
simulator check.

The learner chooses the KV-cache pool (sequences per GPU), merged or dynamic for each tenant class, and the
shared replicas; :func:`labcore.sim.scenarios.capstone.evaluate_design` runs the choice with the course's facts
and this check says whether it holds, which constraint fails, and what the likely mistake behind it is.

>>> print(grade_design({"sequences": 24, "flagship": "merged", "quiet": "merged", "replicas": 0}).message.splitlines()[0])
✗ The design fails on budget: 96 GPUs (96 merged, 0 shared) cost $224,256 a month, over the budget of $5,000.
"""

from __future__ import annotations

import math
from typing import Any

from ..batching import break_even_utilisation
from ..capacity import DYNAMIC_OVERHEAD, GIB, memory_split
from ..kv_cache import kv_bytes_per_sequence
from ..model_config import exact_adapter_mb
from ..sim.scenarios.capstone import (
    CAPSTONE_DESIGN,
    DYNAMIC,
    MERGED,
    CapstoneDesign,
    DesignReport,
    DesignScenario,
    evaluate_design,
)
from .exercise import Exercise
from .verdict import Verdict, _printer

__all__ = ["DESIGN_TEMPLATE", "RIGHT_DESIGN", "grade_design", "check_design", "EXERCISES"]

#: The shape of an answer (every value to be chosen): KV sequences per GPU, a mode per class, shared replicas.
DESIGN_TEMPLATE = {"sequences": None, "flagship": None, "quiet": None, "replicas": None}
#: A design that holds on :data:`CAPSTONE_DESIGN` (the solution; the tests check it).
RIGHT_DESIGN = {"sequences": 24, "flagship": MERGED, "quiet": DYNAMIC, "replicas": 1}


def _max_sequences(scenario: DesignScenario, dynamic_mb: float) -> int:
    """Return the most KV sequences per GPU that still leave one replica room for ``dynamic_mb`` of adapters."""
    split = memory_split(scenario.model, scenario.gpu, sequences=0, context_tokens=scenario.context_tokens)
    free = (split.budget_gib - split.base_gib) * GIB - dynamic_mb * 2**20
    return max(0, math.floor(free / kv_bytes_per_sequence(scenario.model, scenario.context_tokens)))


def _hint(report: DesignReport, scenario: DesignScenario) -> str:
    d = report.design
    hot = [c for c in scenario.classes if c.qps / scenario.gpu_qps >= break_even_utilisation(DYNAMIC_OVERHEAD)]
    cold = [c for c in scenario.classes if c not in hot]
    even = break_even_utilisation(DYNAMIC_OVERHEAD)
    if any(d.mode(c.name) == MERGED for c in cold) and "budget" in report.failed:
        c = next(c for c in cold if d.mode(c.name) == MERGED)
        return (
            f"Merging pays only for a tenant that keeps its own GPU at least {even:.1%} busy (chapter 12's "
            f"break-even at {DYNAMIC_OVERHEAD:.0%} overhead); a {c.name} tenant at {c.qps:g} requests/s would "
            f"keep one {c.qps / scenario.gpu_qps:.0%} busy. Serve the {c.name} class dynamically, on shared "
            "replicas."
        )
    if any(d.mode(c.name) == DYNAMIC for c in hot) and {"load", "budget"} & set(report.failed):
        c = next(c for c in hot if d.mode(c.name) == DYNAMIC)
        return (
            f"The {c.name} alone sends {c.qps:g} requests/s, {c.qps / scenario.gpu_qps:.1%} of a GPU: above "
            f"the {even:.1%} break-even, so merged on a GPU of its own it costs one GPU with no overhead, "
            f"while dynamic it adds {c.qps * (1 + DYNAMIC_OVERHEAD):g} requests/s to the shared replicas."
        )
    if {"memory", "p99"} & set(report.failed):
        dynamic_mb = sum(
            c.tenants * exact_adapter_mb(scenario.model, c.rank, c.targets)
            for c in scenario.classes
            if d.mode(c.name) == DYNAMIC
        )
        return (
            f"The KV pool leaves no room for the adapters: keep at most {_max_sequences(scenario, dynamic_mb)} "
            f"sequences of {scenario.context_tokens:,} tokens per GPU so that one replica holds all "
            f"{report.dynamic_adapters} dynamic adapters ({dynamic_mb:,.0f} MiB); a replica that sees every "
            "tenant needs them all resident, whatever the number of replicas."
        )
    if "load" in report.failed and report.sequences_needed > d.sequences:
        return (
            f"Little's law: a GPU serving q requests/s of {scenario.request_s:g} s each holds q x "
            f"{scenario.request_s:g} sequences at once; give every GPU at least {report.sequences_needed}."
        )
    if "load" in report.failed:
        return (
            f"Add shared replicas until they carry the dynamic load with its {DYNAMIC_OVERHEAD:.0%} overhead: "
            f"{report.shared_needed_load} here."
        )
    if "budget" in report.failed:
        needed = max(report.shared_needed_load, report.shared_needed_memory, 1)
        return f"Use no more shared replicas than the load and the memory need ({needed} here)."
    return "Check each constraint in turn: memory, load, p99, budget."  # pragma: no cover - every failure has a hint


def grade_design(answer: Any, *, scenario: DesignScenario = CAPSTONE_DESIGN) -> Verdict:
    """Grade a serving design for ``scenario``: it holds when memory, load, p99 and budget all do.

    ``answer`` is a dict ``{"sequences": .., "flagship": "merged"|"dynamic", "quiet": ..., "replicas": ..}``
    (the class names are the scenario's) or a :class:`~labcore.sim.scenarios.capstone.CapstoneDesign`.

    >>> grade_design(RIGHT_DESIGN).ok
    True
    >>> print(grade_design({"sequences": 24, "flagship": "dynamic", "quiet": "dynamic", "replicas": 2}).message)
    ✗ The design fails on load: the dynamic classes send 38.5 requests/s, 40.425 with the 5% dynamic overhead: 3 replicas of 20 requests/s, the design has 2.
      Hint: The flagship alone sends 19.5 requests/s, 97.5% of a GPU: above the 95.2% break-even, so merged on a GPU of its own it costs one GPU with no overhead, while dynamic it adds 20.475 requests/s to the shared replicas.
    """
    if answer is None or answer is Ellipsis:
        return Verdict(
            False,
            f"✗ Not answered yet: replace None with your design, a dict like {DESIGN_TEMPLATE} with every None chosen.",
        )
    if isinstance(answer, dict) and any(v is None for v in answer.values()):
        return Verdict(
            False,
            f"✗ Choose every value of the design: {sorted(k for k, v in answer.items() if v is None)} are still None.",
        )
    try:
        design = CapstoneDesign.of(answer, scenario)
        report = evaluate_design(design, scenario)
    except (ValueError, KeyError, TypeError) as error:
        return Verdict(False, f"✗ That is not a design this check can run: {error}")
    if report.holds:
        return Verdict(
            True,
            f"✓ The design holds: {report.gpus} GPUs ({report.merged_gpus} merged, "
            f"{design.replicas} shared) at ${report.monthly_usd:,.0f} a month (budget "
            f"${scenario.budget_usd:,.0f}), p99 {report.p99_ms:.0f} ms (target "
            f"{scenario.p99_target_ms:g} ms), {report.adapters_that_fit:,} adapters' room per shared "
            "replica.",
        )
    first, *more = report.failures
    also = f" (and {', '.join(name for name, _ in more)})" if more else ""
    lines = [f"✗ The design fails on {first[0]}{also}: {first[1]}."]
    lines += [f"  {name}: {why}." for name, why in more]
    lines.append(f"  Hint: {_hint(report, scenario)}")
    return Verdict(False, "\n".join(lines))


check_design = _printer(grade_design)


#: This module's exercises, as the pages ask them (see :class:`labcore.checks.exercise.Exercise`).
EXERCISES: tuple[Exercise, ...] = (
    Exercise(
        "16.1",
        "predict",
        grade_design,
        right=RIGHT_DESIGN,
        wrong=(
            {"sequences": 24, "flagship": DYNAMIC, "quiet": DYNAMIC, "replicas": 2},
            {"sequences": 24, "flagship": MERGED, "quiet": MERGED, "replicas": 0},
            {"sequences": 64, "flagship": MERGED, "quiet": DYNAMIC, "replicas": 1},
        ),
        gives_away=('"flagship": "merged", "quiet": "dynamic"', "'flagship': 'merged', 'quiet': 'dynamic'"),
        tool="evaluate_design",
    ),
)
