"""Check the spill-tier exercises: a host-memory hit and a cold load from storage (chapter 9)."""

from __future__ import annotations

from ..sizing import MIB
from ..links import NVME, OBJECT_STORE, PCIE4_X16, Link
from .exercise import Exercise
from .verdict import Verdict, _grade, _printer

__all__ = [
    "grade_host_hit_ms",
    "grade_cold_load_ms",
    "check_host_hit_ms",
    "check_cold_load_ms",
]


def grade_host_hit_ms(answer: object, *, size_mb: float = 160.0, pcie: Link = PCIE4_X16) -> Verdict:
    """Grade the load time of a ``size_mb`` adapter found in host RAM: one copy over ``pcie`` (default 6.81 ms).

    >>> grade_host_hit_ms(6.4).message
    '✗ 6.4 ms reads MiB as MB and drops the fixed cost: 160 MiB is 167.8 MB, and every copy pays 0.1 ms to start.'
    """
    expected = pcie.transfer_ms(size_mb)
    mb_as_decimal = size_mb / (pcie.gb_per_s * 1000) * 1000
    mistakes = [
        (mb_as_decimal, f"reads MiB as MB and drops the fixed cost: {size_mb:g} MiB is {size_mb * MIB / 1e6:.1f} MB, "
                        f"and every copy pays {pcie.overhead_ms:g} ms to start."),
        (mb_as_decimal + pcie.overhead_ms, f"reads MiB as MB: {size_mb:g} MiB is {size_mb * MIB / 1e6:.1f} MB."),
        (expected - pcie.overhead_ms, f"forgets the fixed cost of {pcie.overhead_ms:g} ms per copy."),
        (expected + OBJECT_STORE.transfer_ms(size_mb), "adds a storage fetch; a host hit needs only the PCIe copy."),
    ]
    return _grade(answer, expected, unit="ms", what="the host-hit load time", mistakes=mistakes,
                  fallback=f"overhead + size / bandwidth: {pcie.overhead_ms:g} ms + {size_mb:g} MiB / {pcie.gb_per_s:g} GB/s.",
                  rel_tol=0.01)


def grade_cold_load_ms(answer: object, *, size_mb: float = 160.0, storage: Link = NVME,
                       pcie: Link = PCIE4_X16) -> Verdict:
    """Grade the load time of a ``size_mb`` adapter in neither tier: fetch from ``storage``, then copy (default NVMe).

    >>> grade_cold_load_ms(57.9).message
    '✗ 57.9 ms is the fetch alone; the adapter must then cross PCIe to the GPU too.'
    """
    expected = storage.transfer_ms(size_mb) + pcie.transfer_ms(size_mb)
    fetch = storage.transfer_ms(size_mb)
    mistakes = [
        (round(fetch, 1), "is the fetch alone; the adapter must then cross PCIe to the GPU too."),
        (fetch, "is the fetch alone; the adapter must then cross PCIe to the GPU too."),
        (pcie.transfer_ms(size_mb), "is the PCIe copy alone: a host hit. This adapter is in neither tier."),
        (expected - storage.overhead_ms - pcie.overhead_ms, "leaves out the two fixed costs (open/parse, copy start)."),
    ]
    return _grade(answer, expected, unit="ms", what="the cold load time", mistakes=mistakes,
                  fallback="Add both hops: storage overhead + size / storage bandwidth, then the PCIe copy.",
                  rel_tol=0.01)


check_host_hit_ms = _printer(grade_host_hit_ms)
check_cold_load_ms = _printer(grade_cold_load_ms)


#: This module's exercises, as the pages ask them (see :class:`labcore.checks.exercise.Exercise`).
EXERCISES: tuple[Exercise, ...] = ()
