"""Tests for labcore.checks.tiers: a host-memory hit and a cold load from storage: the right answer, and a hint for each known mistake."""

from __future__ import annotations

from labcore.checks import grade_cold_load_ms, grade_host_hit_ms
from labcore.links import NVME, OBJECT_STORE, PCIE4_X16

from .graders import test_checker_accepts_the_answer, test_checker_names_the_known_mistake  # noqa: F401 - over RIGHT, WRONG

HOST_HIT_MS = PCIE4_X16.transfer_ms(160)

RIGHT = [  # (grader, the answer, keyword arguments)
    (grade_host_hit_ms, HOST_HIT_MS, {}),
    (grade_cold_load_ms, NVME.transfer_ms(160) + HOST_HIT_MS, {}),
]

WRONG = [  # (grader, a known-wrong answer, a phrase its hint must contain)
    (grade_host_hit_ms, HOST_HIT_MS - 0.1, "fixed cost"),
    (grade_host_hit_ms, HOST_HIT_MS + OBJECT_STORE.transfer_ms(160), "storage fetch"),
    (grade_cold_load_ms, HOST_HIT_MS, "host hit"),
]
