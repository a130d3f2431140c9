"""Tests for labcore.checks.tiers: a host-memory hit, a cold load from storage and the host tier's cliff: the right
answer, and a hint for each known mistake."""

from __future__ import annotations

from labcore.checks import grade_cold_load_ms, grade_host_hit_ms
from labcore.checks.tiers import BIG_ADAPTER, CLIFF_HOST_ADAPTERS, grade_spill_cliff_tenants
from labcore.links import NVME, OBJECT_STORE, PCIE4_X16
from labcore.sim import SPILL

from .graders import test_checker_accepts_the_answer, test_checker_names_the_known_mistake  # noqa: F401 - over RIGHT, WRONG

SIZE_MB = BIG_ADAPTER.exact_mb  # Llama-3-70B, r=16 on q, k, v, o: 125 MiB exactly (the square formula says 160)
HOST_HIT_MS = PCIE4_X16.transfer_ms(SIZE_MB)

RIGHT = [  # (grader, the answer, keyword arguments)
    (grade_host_hit_ms, HOST_HIT_MS, {}),
    (grade_cold_load_ms, NVME.transfer_ms(SIZE_MB) + HOST_HIT_MS, {}),
    (grade_host_hit_ms, PCIE4_X16.transfer_ms(160), {"size_mb": 160.0, "naive_mb": 160.0}),
    (grade_spill_cliff_tenants, 48, {}),
    (grade_spill_cliff_tenants, 96, {"host_adapters": SPILL.host_adapters}),
]

WRONG = [  # (grader, a known-wrong answer, a phrase its hint must contain)
    (grade_host_hit_ms, HOST_HIT_MS - 0.1, "fixed cost"),
    (grade_host_hit_ms, HOST_HIT_MS + OBJECT_STORE.transfer_ms(SIZE_MB), "storage fetch"),
    (grade_host_hit_ms, PCIE4_X16.transfer_ms(BIG_ADAPTER.naive_mb), "square formula"),
    (grade_cold_load_ms, HOST_HIT_MS, "host hit"),
    (grade_cold_load_ms, NVME.transfer_ms(160) + PCIE4_X16.transfer_ms(160), "square formula"),
    (grade_spill_cliff_tenants, CLIFF_HOST_ADAPTERS + SPILL.gpu_adapters, "adds the two tiers"),
    (grade_spill_cliff_tenants, SPILL.gpu_adapters, "GPU pool alone"),
    (grade_spill_cliff_tenants, 96, "chapter's 96-adapter host tier"),
]
