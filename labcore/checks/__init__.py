"""Check a learner's exercise answers at once, with a hint that names the likely mistake.

One module per domain noun, as in the core, :mod:`labcore.plots` and :mod:`labcore.panels`: the
cache's checks are in :mod:`labcore.checks.cache`, the router's in :mod:`labcore.checks.router`, and
so on; :mod:`labcore.checks.verdict` holds what they share. Each exercise has a pure
``grade_<thing>(answer, ...) -> Verdict`` and a one-line ``check_<thing>(answer, ...)`` that prints
the verdict (``✓ ...`` or ``✗ ... hint``). The expected value always comes from labcore itself, so a
checker can never disagree with the library it teaches. This package imports the domain modules,
and none of them imports it. Which chapter asks which exercise is its manifest's to say (:mod:`labcore.chapters`).

Chapter 7's contract runner is not a check: it lives in :mod:`labcore.contract`.

>>> grade_adapter_vram_mb(320).ok
True
>>> print(grade_adapter_vram_mb(160).message)
✗ 160 MiB is half the answer: each target gets two matrices, A (r x d) and B (d x r), so count 2·r·d parameters per target.
"""

from __future__ import annotations

from .admission import check_admitted_after_finish, check_refused, grade_admitted_after_finish, grade_refused
from .affinity import check_bounded_capacity, check_moved_fraction, grade_bounded_capacity, grade_moved_fraction
from .batching import check_break_even_pct, check_expected_distinct, grade_break_even_pct, grade_expected_distinct
from .cache import EVICTION_EXERCISE, check_lru_evictions, check_miss_load_ms, grade_lru_evictions, grade_miss_load_ms
from .canary import check_requests_before_judging, check_sticky_share, grade_requests_before_judging, grade_sticky_share
from .exercise import Exercise
from .fleet import (
    check_fleet_gpus,
    check_monthly_bill_usd,
    check_savings_pct,
    check_savings_under_load_pct,
    grade_fleet_gpus,
    grade_monthly_bill_usd,
    grade_savings_pct,
    grade_savings_under_load_pct,
)
from .prefix_cache import STALE_EXERCISE, check_stale_hits, grade_stale_hits
from .real_files import check_exact_adapter_mb, check_peft_tensor_bytes, grade_exact_adapter_mb, grade_peft_tensor_bytes
from .registry import (
    VERSION_KEY_PROBE,
    check_releases_behind,
    check_version_key,
    grade_releases_behind,
    grade_version_key,
)
from .router import check_cache_budget_mb, check_route_latency_ms, grade_cache_budget_mb, grade_route_latency_ms
from .sim import check_p99_ms, check_pool_adapters, grade_p99_ms, grade_pool_adapters
from .sizing import check_adapter_vram_mb, check_adapters_that_fit, grade_adapter_vram_mb, grade_adapters_that_fit
from .slots import (
    SLOT_WAIT_EXERCISE,
    check_slot_pool_mb,
    check_ttft_behind_slots,
    grade_slot_pool_mb,
    grade_ttft_behind_slots,
)
from .tiers import check_cold_load_ms, check_host_hit_ms, grade_cold_load_ms, grade_host_hit_ms
from .verdict import Mistake, Verdict

#: The package's public names: the record types, and every ``grade_``/``check_`` function and exercise constant it
#: imports above. The exercises themselves, each on its chapter's page, are :data:`labcore.chapters.EXERCISES`.
__all__ = [
    "Verdict",
    "Exercise",
    *(name for name in dict(globals()) if name.startswith(("grade_", "check_")) or name.isupper()),
]
