"""The seeded runs the chapters tell, one module per noun, each built from the mechanisms' public API.

Each is a plain function of its arguments, with its setup a typed, frozen record the chapters may also
read by key (``ONBOARDING["seed"]``): :mod:`.release` (chapter 3), :mod:`.cache` (4), :mod:`.router`
(5), :mod:`.onboarding` (the customer #41 incident, chapters 5 and 8), :mod:`.spill` (9),
:mod:`.affinity` (8 and 10), :mod:`.canary` (11), :mod:`.admission` (13), :mod:`.slots` and
:mod:`.prefix_cache` (15), :mod:`.capstone` (16).

>>> ONBOARDING.pool_adapters, SPILL["gpu_adapters"], ADMISSION.hold_ms, SLOT_CLIFF.max_slots
(40, 32, 300.0, 8)
"""

from __future__ import annotations

from .admission import ADMISSION, ADMISSION_POOLS, AdmissionScenario, admission_runs
from .affinity import AFFINITY_DEFAULTS, affinity_runs, compare_policies, run_policy
from .cache import (
    CACHE_REQUESTS,
    CACHE_SEED,
    CACHE_TRANSFER_MB_PER_MS,
    CACHE_WINDOW,
    CacheRun,
    budget_sweep,
    cache_runs,
    cache_trace,
    cache_trace_adapters,
    replay_cache,
)
from .canary import VersionBehaviour, canary_log, simulate_canary
from .capstone import CAPSTONE, CapstoneScenario, capstone_day
from .onboarding import ONBOARDING, ONBOARDING_TENANTS, OnboardingScenario, onboarding_runs, onboarding_timeline
from .prefix_cache import PREFIX_REPLACE, PrefixCacheRun, PrefixScenario, prefix_cache_run, prefix_cache_runs
from .release import ReleaseTimeline, release_timeline
from .router import ROUTER_BASE, ROUTER_DIGEST, route_examples
from .slots import (
    FIX_AFFINITY,
    FIX_MORE_SLOTS,
    FIX_NONE,
    FIX_PIN,
    FIX_ROUND_ROBIN,
    FIXES,
    SGLANG_PR_13349,
    SLOT_CLIFF,
    ReportedCliff,
    SlotRun,
    SlotScenario,
    slot_fixes,
    slot_run,
    slot_sweep,
)
from .spill import SPILL, SPILL_TENANTS, SpillScenario, spill_runs

__all__ = [
    # release (chapter 3)
    "ReleaseTimeline",
    "release_timeline",
    # cache (chapter 4)
    "CACHE_REQUESTS",
    "CACHE_WINDOW",
    "CACHE_SEED",
    "CACHE_TRANSFER_MB_PER_MS",
    "CacheRun",
    "replay_cache",
    "cache_runs",
    "cache_trace",
    "cache_trace_adapters",
    "budget_sweep",
    # router (chapter 5)
    "ROUTER_BASE",
    "ROUTER_DIGEST",
    "route_examples",
    # onboarding (chapters 5 and 8)
    "OnboardingScenario",
    "ONBOARDING_TENANTS",
    "ONBOARDING",
    "onboarding_runs",
    "onboarding_timeline",
    # spill (chapter 9)
    "SpillScenario",
    "SPILL_TENANTS",
    "SPILL",
    "spill_runs",
    # affinity (chapters 8 and 10)
    "run_policy",
    "compare_policies",
    "AFFINITY_DEFAULTS",
    "affinity_runs",
    # canary (chapter 11)
    "VersionBehaviour",
    "simulate_canary",
    "canary_log",
    # admission (chapter 13)
    "AdmissionScenario",
    "ADMISSION_POOLS",
    "ADMISSION",
    "admission_runs",
    # slots and prefix_cache (chapter 15)
    "FIX_NONE",
    "FIX_PIN",
    "FIX_MORE_SLOTS",
    "FIX_ROUND_ROBIN",
    "FIX_AFFINITY",
    "FIXES",
    "ReportedCliff",
    "SGLANG_PR_13349",
    "SlotScenario",
    "SLOT_CLIFF",
    "SlotRun",
    "slot_run",
    "slot_sweep",
    "slot_fixes",
    "PrefixScenario",
    "PREFIX_REPLACE",
    "PrefixCacheRun",
    "prefix_cache_run",
    "prefix_cache_runs",
    # capstone (chapter 16)
    "CapstoneScenario",
    "CAPSTONE",
    "capstone_day",
]
